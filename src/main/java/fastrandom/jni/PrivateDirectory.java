package fastrandom.jni;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * The directory for {@link LibraryCopy}'s copies, resolved once, as the
 * kernel resolves a path (each symbolic link followed where it stands),
 * every step checked on the way: the path this returns has no link left in
 * it and no directory on it that anyone but this user and root can change,
 * so what is written under it is what is loaded from it.
 *
 * <p>The rule for every directory the path goes through, "/" included: it
 * belongs to root or this user, and others may write to it only with the
 * sticky bit (as /tmp), where they cannot rename or remove what is not
 * theirs. A symbolic link on the way must stand in such a directory and
 * belong to root or this user (one in /tmp of another user's is theirs to
 * re-point). The directory itself must be this user's and writable by no
 * one else; it and any directory missing on the way are created (it mode
 * 0700). Any other case is refused, the message naming the step.
 */
final class PrivateDirectory {
    /** As the kernel's limit on links in one resolution (ELOOP). */
    private static final int MOST_LINKS = 40;
    private static final int ROOT = 0;
    private static final int OTHERS_MAY_WRITE = 0022;
    private static final int STICKY = 01000;

    /** Why no copy can be checked where Linux's /proc is missing (a chroot or container without it). */
    static final String NO_PROC = "/proc is not mounted here, and a copy is checked through it (/proc/self, /proc/self/fd)";

    /** Why a directory is refused: the end of "DIR: WHY". */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
    }

    private PrivateDirectory() {}

    /**
     * The real path of {@code configured} (absolute), created where missing,
     * once every step to it passes the rule above.
     *
     * @throws Refused when a step does not, saying which and why
     * @throws IOException when a step cannot be read or made
     */
    static Path resolve(Path configured) throws Refused, IOException {
        if (!configured.isAbsolute()) throw new Refused("not an absolute path");
        if (configured.getNameCount() == 0) throw new Refused("it has no parent directory");
        int me = uidOfThisProcess();
        Deque<String> names = new ArrayDeque<>();
        push(names, configured);
        Path at = configured.getRoot(); // each value of `at` is a real directory, each one above it passed the rule
        Entry here = new Entry(at);
        int links = 0;
        while (!names.isEmpty()) {
            String name = names.removeFirst();
            if (name.equals(".")) continue;
            if (name.equals("..")) {
                if (at.getParent() != null) {
                    at = at.getParent();
                    here = new Entry(at);
                }
                continue;
            }
            Path next = at.resolve(name);
            String unsafe = here.unsafe(me);
            Entry found = Entry.of(next);
            if (unsafe != null) { // nothing is followed, made or entered where others may write
                if (found != null && found.link) throw new Refused("the symbolic link " + next + " on the way to it is in " + at + ", which " + unsafe);
                throw new Refused(at + " on the way to it " + unsafe);
            }
            if (found == null) {
                if (names.contains("..")) throw new NoSuchFileException(next.toString()); // as the kernel: no way through what is not there
                found = made(next, names.stream().allMatch("."::equals));
            }
            if (found.link) {
                if (!found.rootsOr(me)) throw new Refused("the symbolic link " + next + " on the way to it belongs to another user (" + found.owner() + ")");
                if (++links > MOST_LINKS) throw new Refused("too many symbolic links on the way to it");
                Path target = Files.readSymbolicLink(next);
                push(names, target);
                if (target.isAbsolute()) {
                    at = target.getRoot();
                    here = new Entry(at);
                }
                continue;
            }
            if (!found.directory) throw new Refused(names.isEmpty() ? "it is not a directory" : next + " on the way to it is not a directory");
            at = next;
            here = found;
        }
        if (here.uid != me) throw new Refused("it belongs to " + here.owner());
        if ((here.mode & OTHERS_MAY_WRITE) != 0) {
            throw new Refused("others may write to it (" + PosixFilePermissions.toString(Files.getPosixFilePermissions(at, LinkOption.NOFOLLOW_LINKS)) + ")");
        }
        return at;
    }

    /** Puts the names of {@code path} in front of {@code names}, in order. */
    private static void push(Deque<String> names, Path path) {
        for (int i = path.getNameCount() - 1; i >= 0; i--) names.addFirst(path.getName(i).toString());
    }

    /**
     * Makes the missing directory {@code path}: mode 0700 when it is the
     * directory itself ({@code last}), else 0755, never more, whatever the
     * umask (a 002 umask's 0775 would fail the rule at the next step, on
     * every run). Made here or by another runtime meanwhile, what is there
     * is checked as anything found.
     */
    private static Entry made(Path path, boolean last) throws IOException {
        try {
            Files.createDirectory(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(last ? "rwx------" : "rwxr-xr-x")));
        } catch (FileAlreadyExistsException raced) {
            // made meanwhile
        }
        return new Entry(path);
    }

    /** The effective uid of this process: the owner of its entry in /proc (Linux's, as the library's). */
    private static int uidOfThisProcess() throws IOException, Refused {
        Path self = Paths.get("/proc/self");
        if (!Files.isDirectory(self)) throw new Refused(NO_PROC);
        return (Integer) Files.getAttribute(self, "unix:uid");
    }

    /** A file as {@code lstat} sees it: a link is not followed. */
    private static final class Entry {
        final Path path;
        final boolean link;
        final boolean directory;
        final int uid;
        final int mode;

        Entry(Path path) throws IOException {
            Map<String, Object> unix = Files.readAttributes(path, "unix:isSymbolicLink,isDirectory,uid,mode", LinkOption.NOFOLLOW_LINKS);
            this.path = path;
            link = (Boolean) unix.get("isSymbolicLink");
            directory = (Boolean) unix.get("isDirectory");
            uid = (Integer) unix.get("uid");
            mode = (Integer) unix.get("mode");
        }

        /** Its owner's name, for a message (looked up only then: the user database costs a cold JVM milliseconds). */
        String owner() throws IOException {
            return Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
        }

        /** What is at {@code path}, or null when nothing is. */
        static Entry of(Path path) throws IOException {
            try {
                return new Entry(path);
            } catch (NoSuchFileException missing) {
                return null;
            }
        }

        /** Whether it belongs to root or to {@code me}. */
        boolean rootsOr(int me) {
            return uid == ROOT || uid == me;
        }

        /**
         * Why others could swap what this directory holds ("belongs to
         * another user (x)", "is writable by others"), or null when it
         * passes the rule.
         */
        String unsafe(int me) throws IOException {
            if (!rootsOr(me)) return "belongs to another user (" + owner() + ")";
            if ((mode & OTHERS_MAY_WRITE) != 0 && (mode & STICKY) == 0) return "is writable by others";
            return null;
        }
    }
}
