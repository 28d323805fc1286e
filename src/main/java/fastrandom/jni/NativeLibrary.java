package fastrandom.jni;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * fast_random's JNI library, loaded at most once per class loader, the
 * first time something needs it (never when the gem is required). The Ruby
 * layer tells us where the gem keeps it; it is loaded from there, never
 * extracted to a temporary directory, so read-only and noexec /tmp do not
 * matter.
 *
 * <p>Every JRuby runtime loads fast_random's jar through a class loader of
 * its own, and the JVM lets one class loader at a time load a given library
 * file ("already loaded in another classloader"). So the first runtime in a
 * JVM loads the gem's file, and each other one (a second ScriptingContainer,
 * jruby-rack's pool, a redeployed web application while the old one is
 * still being collected) loads a private copy: written to a directory only
 * this user can write ({@link #COPY_DIRECTORY}, by default
 * {@code ~/.cache/fast_random/native}, created mode 0700 and checked),
 * under a name no other loader uses, and deleted as soon as it is loaded,
 * as JNA, netty-tcnative and sqlite-jdbc do in their temporary directories.
 * Each copy is its own library with its own C state; the JVM unloads it
 * when the runtime's class loader is collected.
 */
public final class NativeLibrary {
    /** System property naming the directory for private copies (default: ~/.cache/fast_random/native). */
    public static final String COPY_DIRECTORY = "fast_random.native.dir";

    /** Copies older than this are left behind by a JVM that died between copying and loading: removed. */
    private static final long STALE_MILLIS = TimeUnit.MINUTES.toMillis(10);
    private static final String COPY_PREFIX = "libfast_random-";

    private static volatile String path;
    private static volatile boolean chosenByUser = true; // false: the gem's own file for this platform
    private static Boolean loaded; // guarded by NativeLibrary.class
    private static String failure;
    private static boolean copied;

    private NativeLibrary() {}

    /**
     * Where the gem keeps the library for this platform, relative to its
     * lib/fast_random directory: e.g. {@code linux-x86_64/libfast_random.so}
     * (the Rakefile builds it there).
     */
    public static String platformFile() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        if (os.startsWith("mac")) os = "darwin";
        else if (os.startsWith("windows")) os = "mswin";
        else os = os.replace(' ', '_');
        if (arch.equals("amd64") || arch.equals("x64")) arch = "x86_64";
        return os + "-" + arch + "/" + System.mapLibraryName("fast_random");
    }

    /** Where the library file is, as the user chose it (set by lib/fast_random before any use). */
    public static void setPath(String libraryPath) {
        setPath(libraryPath, true);
    }

    /**
     * Where the library file is: chosen by the user ({@code chosenByUser}),
     * or the gem's own file for this platform ({@link #platformFile()}),
     * which the gem ships for some platforms only.
     */
    public static synchronized void setPath(String libraryPath, boolean chosenByUser) {
        path = libraryPath;
        NativeLibrary.chosenByUser = chosenByUser;
    }

    /**
     * Whether {@link #load()} failed only because the gem ships no library
     * for this platform: the gem's own file is not there, and no other was
     * asked for. Nothing the user can act on, unlike a library they named,
     * or one that is there and does not load.
     */
    public static synchronized boolean absentAsExpected() {
        String file = path;
        return Boolean.FALSE.equals(loaded) && !chosenByUser && (file == null || !new java.io.File(file).exists());
    }

    /**
     * Whether {@code reason}, why something cannot run, is only that this
     * library is {@linkplain #absentAsExpected absent as expected}.
     */
    public static synchronized boolean onlyAbsentAsExpected(String reason) {
        return reason != null && reason.equals(failure) && absentAsExpected();
    }

    /** Loads the library if that has not been tried yet; true when it is usable. */
    public static synchronized boolean load() {
        if (loaded != null) return loaded;
        String file = path;
        if (file == null) {
            failure = "no native library was built for this platform";
        } else if (!new java.io.File(file).isFile()) {
            failure = "native library " + file + " is missing";
        } else {
            try {
                System.load(file);
            } catch (UnsatisfiedLinkError e) {
                if (String.valueOf(e.getMessage()).contains("another classloader")) {
                    failure = loadCopy(Paths.get(file));
                } else {
                    failure = "native library " + file + " could not be loaded: " + e.getMessage();
                }
            } catch (SecurityException e) {
                failure = "native library " + file + " could not be loaded: " + e.getMessage();
            }
        }
        loaded = failure == null;
        return loaded;
    }

    /** Why {@link #load()} failed, or null. */
    public static synchronized String failure() {
        return failure;
    }

    /** Whether this class loader runs a private copy of the library (another one in the JVM loaded the gem's file). */
    public static synchronized boolean privateCopy() {
        return copied;
    }

    /**
     * Loads a private copy of {@code original} (see the class comment);
     * null when it loaded, else why not.
     */
    private static String loadCopy(Path original) {
        Path directory = copyDirectory();
        Path copy = null;
        try {
            if (!directory.isAbsolute()) return cannotCopy(original, directory, "not an absolute path");
            String problem = privateDirectory(directory);
            if (problem != null) return cannotCopy(original, directory, problem);
            removeStale(directory);
            copy = newFile(directory, ".so");
            Object written = fileKey(copy);
            Set<OpenOption> writeOnly = new HashSet<>(Arrays.asList(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
            try (SeekableByteChannel out = Files.newByteChannel(copy, writeOnly)) {
                ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(original));
                while (bytes.hasRemaining()) out.write(bytes);
            }
            // Only this user can write here (checked above, up to the root), and it is still the file we made.
            if (!written.equals(fileKey(copy))) return cannotCopy(original, directory, "the copy was replaced");
            System.load(copy.toString());
            copied = true;
            return null;
        } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
            return cannotCopy(original, directory, e.toString());
        } finally {
            // Loaded (mapped) or not, the file has done its job.
            if (copy != null) {
                try {
                    Files.deleteIfExists(copy);
                } catch (IOException | SecurityException e) {
                    copy.toFile().deleteOnExit();
                }
            }
        }
    }

    private static Object fileKey(Path file) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile() || attributes.fileKey() == null) throw new IOException(file + " is not a regular file");
        return attributes.fileKey();
    }

    private static String cannotCopy(Path original, Path directory, String why) {
        return "native library " + original + " is loaded by another class loader in this JVM (another JRuby runtime), "
                + "and a private copy could not be loaded from " + directory + " (" + why + "; -D" + COPY_DIRECTORY
                + "=DIR names a directory of this user's on an executable filesystem)";
    }

    /** The directory for private copies: {@link #COPY_DIRECTORY}, else ~/.cache/fast_random/native. */
    static Path copyDirectory() {
        String configured = System.getProperty(COPY_DIRECTORY);
        if (configured != null && !configured.isEmpty()) return Paths.get(configured);
        return Paths.get(System.getProperty("user.home", "?"), ".cache", "fast_random", "native");
    }

    /**
     * Creates {@code directory} (mode 0700) if it is missing; null when it
     * is a real directory (not a link) owned by this user and writable by
     * no one else, and no directory above it lets anyone else swap it (each
     * is root's or this user's, and writable by others only with the sticky
     * bit, as /tmp is): so nobody else can put a file where we are about to
     * load one.
     */
    static String privateDirectory(Path directory) throws IOException {
        Path parent = directory.getParent();
        if (parent == null) return "it has no parent directory";
        Files.createDirectories(parent);
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException raced) {
                // another runtime made it meanwhile: checked below like any other
            }
        }
        PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink()) return "it is a symbolic link";
        if (!attributes.isDirectory()) return "it is not a directory";
        int me = uidOfNewFile(directory);
        if (uid(directory) != me) return "it belongs to " + attributes.owner().getName();
        if ((mode(directory) & 0022) != 0) return "others may write to it (" + PosixFilePermissions.toString(attributes.permissions()) + ")";
        for (Path above = parent.toRealPath(); above != null; above = above.getParent()) {
            int owner = uid(above);
            if (owner != 0 && owner != me) return above + " above it belongs to another user";
            int mode = mode(above);
            if ((mode & 0022) != 0 && (mode & 01000) == 0) return "others may write to " + above + " above it";
        }
        return null;
    }

    private static int uid(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static int mode(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }

    /** This process's user id: the owner of a file it makes (in {@code directory}, removed at once). */
    private static int uidOfNewFile(Path directory) throws IOException {
        Path probe = newFile(directory, ".owner");
        try {
            return uid(probe);
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    /**
     * A new file of this user's only (mode 0700), under a name no other one
     * has, created exclusively. Not Files.createTempFile: its names come
     * from a SecureRandom, which may be ours, still being set up (the
     * library is loaded while the generators seed).
     */
    private static Path newFile(Path directory, String suffix) throws IOException {
        String loader = Integer.toHexString(System.identityHashCode(NativeLibrary.class));
        for (int attempt = 0; ; attempt++) {
            Path file = directory.resolve(COPY_PREFIX + loader + "-" + Long.toHexString(System.nanoTime()) + suffix);
            try {
                return Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) throw e;
            }
        }
    }

    /** Removes copies a JVM that died between copying and loading left behind (old enough that no loader still wants them). */
    private static void removeStale(Path directory) {
        long before = System.currentTimeMillis() - STALE_MILLIS;
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(directory, COPY_PREFIX + "*")) {
            for (Path copy : copies) {
                FileTime modified = Files.getLastModifiedTime(copy, LinkOption.NOFOLLOW_LINKS);
                if (modified.toMillis() < before) Files.deleteIfExists(copy);
            }
        } catch (IOException | SecurityException e) {
            // leftovers are harmless: private, and never loaded again
        }
    }
}
