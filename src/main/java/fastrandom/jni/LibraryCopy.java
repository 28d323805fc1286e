package fastrandom.jni;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import fastrandom.Faults;
import fastrandom.Setting;

/**
 * Private copies of a native library, for a loader that cannot load the
 * gem's own file: a second class loader in the JVM ({@link NativeLibrary},
 * "already loaded in another classloader"), or a gem packaged inside a jar
 * or war, whose libraries are archive entries rather than files (the JNI
 * library, and the :gmp engine's bundled libgmp).
 *
 * <p>A copy is written to a directory only this user can change
 * ({@link Setting#NATIVE_DIRECTORY}, by default
 * {@code ~/.cache/fast_random/native}, created mode 0700; resolved once,
 * every step checked, by {@link PrivateDirectory}), into a new directory of
 * its own (so it can keep the file name a loader such as JNA looks for),
 * written and read back through one descriptor and checked against a
 * SHA-256, compared by device and inode with what its name leads to right
 * before it is loaded, and deleted as soon as it is loaded, as JNA,
 * netty-tcnative and sqlite-jdbc do in their temporary directories. Never
 * {@code /tmp} by default: it is often mounted noexec.
 *
 * <p>The SHA-256 of every library the gem ships is recorded at build time
 * in fast_random's jar ({@code fastrandom/jni/libraries.sha256}, written by
 * the Rakefile), so a copy of an archive entry that is partial, altered or
 * from another build never loads.
 */
public final class LibraryCopy {
    /** The resource beside this class listing "SHA-256  path" for each shipped library, paths relative to lib/fast_random. */
    static final String DIGESTS = "libraries.sha256";

    /** Copies older than this are left behind by a JVM that died between copying and loading: removed. */
    private static final long STALE_MILLIS = TimeUnit.MINUTES.toMillis(10);
    private static final String COPY_PREFIX = "libfast_random-";

    /** How a copy is opened: made new (never an existing file or a link), to be written, then read back. */
    private static final Set<OpenOption> CREATE = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)));

    private LibraryCopy() {}

    /** Loads the copy at {@code file} (it exists until this returns). */
    @FunctionalInterface
    public interface Loader {
        void load(Path file) throws Exception;
    }

    /** Why a copy could not be made or loaded: {@link #directory} and {@link #why}. */
    public static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        /** The directory the copy was to go to. */
        public final transient Path directory;
        /** What went wrong there. */
        public final String why;

        Failure(Path directory, String why) {
            super(directory + ": " + why);
            this.directory = directory;
            this.why = why;
        }

        /** "DIR (WHY; how to choose another)", for the end of a sentence about a library. */
        public String describe() {
            return directory + " (" + why + "; " + advice() + ")";
        }
    }

    /** What the user can set to put copies elsewhere. */
    public static String advice() {
        return "-D" + Setting.NATIVE_DIRECTORY.property() + "=DIR or " + Setting.NATIVE_DIRECTORY.variable()
                + "=DIR names a directory of this user's on a writable, executable filesystem";
    }

    /**
     * Writes {@code bytes} to a new private file named {@code fileName},
     * checks that the file holds exactly the bytes whose SHA-256 is
     * {@code sha256}, hands it to {@code loader}, and deletes it (loaded,
     * the library stays mapped).
     */
    public static void load(byte[] bytes, byte[] sha256, String fileName, Loader loader) throws Failure {
        Path configured;
        try {
            configured = directory();
        } catch (RuntimeException e) { // InvalidPathException: a setting no path can have
            throw new Failure(Paths.get(""), "the directory setting is no path: " + e.getMessage());
        }
        Path home = null;
        Path copy = null;
        try {
            // Resolved once: from here on only this real path, on which no one else can change a thing.
            Path directory = PrivateDirectory.resolve(configured);
            removeStale(directory);
            home = newDirectory(directory);
            copy = home.resolve(fileName);
            try (FileChannel file = FileChannel.open(copy, CREATE, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")))) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) file.write(buffer);
                if (!MessageDigest.isEqual(sha256, sha256(readAll(file)))) {
                    throw new Failure(configured, "the copy written there does not match its SHA-256");
                }
                Faults.at("copy:checked");
                Object checked = openFileKey(copy, configured);
                // The same file, still: the name leads to the inode read above, held open so that it cannot be reused.
                PosixFileAttributes now = Files.readAttributes(copy, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (!now.isRegularFile() || !checked.equals(now.fileKey())) {
                    throw new Failure(configured, "the copy there was replaced after it was checked");
                }
                loader.load(copy);
            }
        } catch (Failure e) {
            throw e;
        } catch (PrivateDirectory.Refused e) {
            throw new Failure(configured, e.getMessage());
        } catch (Exception | UnsatisfiedLinkError e) {
            throw new Failure(configured, reason(e));
        } finally {
            // Loaded (mapped) or not, the file has done its job.
            delete(copy);
            delete(home);
        }
    }

    /** All of {@code file}, read from its start through the descriptor that wrote it. */
    private static byte[] readAll(FileChannel file) throws IOException {
        ByteBuffer read = ByteBuffer.allocate((int) file.size());
        file.position(0);
        while (read.hasRemaining() && file.read(read) >= 0) {
            // until full: the file is as long as what was written
        }
        return read.array();
    }

    /**
     * The device and inode ({@code fileKey}) of the file this process has
     * open under the name {@code file} (or had, if that name is gone now),
     * read through its descriptor in /proc/self/fd (the JDK gives no fstat
     * of a channel): the one a copy was written and read back through.
     *
     * @throws Failure when no descriptor, or more than one, names it, or
     *         there is no /proc to look in
     */
    private static Object openFileKey(Path file, Path configured) throws IOException, Failure {
        String name = file.toString();
        String unlinked = name + " (deleted)"; // how the kernel names an open file whose name was removed or replaced
        Object key = null;
        Path open = Paths.get("/proc/self/fd");
        if (!Files.isDirectory(open)) throw new Failure(configured, PrivateDirectory.NO_PROC);
        try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(open)) {
            for (Path descriptor : descriptors) {
                String target;
                try {
                    target = Files.readSymbolicLink(descriptor).toString();
                } catch (IOException closed) {
                    continue; // closed by another thread meanwhile
                }
                if (!target.equals(name) && !target.equals(unlinked)) continue;
                if (key != null) throw new Failure(configured, "the copy checked there is open twice in this process");
                key = Files.readAttributes(descriptor, BasicFileAttributes.class).fileKey(); // the open file's own
            }
        }
        if (key == null) throw new Failure(configured, "the copy checked there was moved before it could be loaded");
        return key;
    }

    /** What went wrong, in the words of the system where there are some ("Read-only file system /x"). */
    private static String reason(Throwable e) {
        if (e instanceof java.nio.file.FileSystemException) {
            java.nio.file.FileSystemException f = (java.nio.file.FileSystemException) e;
            String what = f instanceof java.nio.file.AccessDeniedException ? "Permission denied"
                    : f instanceof NoSuchFileException ? "No such file or directory"
                    : f instanceof FileAlreadyExistsException ? "File exists"
                    : f.getReason() != null ? f.getReason() : f.getClass().getSimpleName();
            return what + ": " + f.getFile();
        }
        if (e instanceof IllegalStateException) return e.getMessage();
        if (e instanceof UnsatisfiedLinkError) {
            String message = String.valueOf(e.getMessage());
            String last = message.substring(message.lastIndexOf(": ") + 1).trim();
            if (last.contains("failed to map segment")) return "the filesystem does not let a library run from it, as with noexec (" + last + ")";
            return "it did not load: " + message;
        }
        return String.valueOf(e);
    }

    /**
     * The bytes at {@code entry} (an archive entry's URL, of an entry found
     * there), read without the JDK's jar cache (which would keep the archive
     * open).
     */
    public static byte[] read(URL entry) throws IOException {
        URLConnection connection = entry.openConnection();
        connection.setUseCaches(false);
        try (InputStream in = connection.getInputStream()) {
            return readAll(in);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 17);
        byte[] chunk = new byte[1 << 16];
        for (int n; (n = in.read(chunk)) != -1; ) out.write(chunk, 0, n);
        return out.toByteArray();
    }

    /** A library's bytes that are not what fast_random.jar records for it: the message says how. */
    public static final class Unrecorded extends Exception {
        private static final long serialVersionUID = 1L;

        Unrecorded(String message) {
            super(message);
        }
    }

    /**
     * The SHA-256 fast_random's jar records for the shipped library at
     * {@code path} (relative to lib/fast_random), when {@code bytes} have it.
     *
     * @throws Unrecorded when the jar records none, or another
     */
    public static byte[] recordedDigestOf(String path, byte[] bytes) throws Unrecorded {
        byte[] recorded = recordedDigest(path);
        if (recorded == null) throw new Unrecorded("fast_random.jar records no SHA-256 for " + path);
        if (!MessageDigest.isEqual(recorded, sha256(bytes))) {
            throw new Unrecorded("it does not match the SHA-256 fast_random.jar records for it"
                    + " (a partial or altered archive, or one of another build of fast_random)");
        }
        return recorded;
    }

    /**
     * The SHA-256 fast_random's jar records for the shipped library at
     * {@code path} (relative to lib/fast_random, e.g.
     * {@code linux-x86_64/libfast_random.so}); null when it records none.
     */
    private static byte[] recordedDigest(String path) {
        String hex = recorded().get(path);
        return hex == null ? null : hex(hex);
    }

    /** The paths (relative to lib/fast_random) of the libraries fast_random's jar records, in its order. */
    public static List<String> recordedPaths() {
        return new ArrayList<>(recorded().keySet());
    }

    /** What {@link #DIGESTS} says: path to SHA-256 in hex; empty when the jar has no such resource. */
    private static Map<String, String> recorded() {
        Map<String, String> digests = new LinkedHashMap<>();
        try (InputStream in = LibraryCopy.class.getResourceAsStream(DIGESTS)) {
            if (in == null) return digests;
            for (String line : new String(readAll(in), StandardCharsets.US_ASCII).split("\n")) {
                String[] fields = line.trim().split("\\s+", 2);
                if (fields.length == 2 && fields[0].matches("[0-9a-f]{64}")) digests.put(fields[1], fields[0]);
            }
        } catch (IOException e) {
            // as if there were none: nothing is loaded from an archive
        }
        return digests;
    }

    /** SHA-256 of {@code bytes}. */
    public static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private static byte[] hex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return bytes;
    }

    /** The directory for private copies: {@link Setting#NATIVE_DIRECTORY}, else ~/.cache/fast_random/native. */
    public static Path directory() {
        String configured = Setting.NATIVE_DIRECTORY.value();
        if (configured != null) return Paths.get(configured);
        return Paths.get(System.getProperty("user.home", "?"), ".cache", "fast_random", "native");
    }

    /**
     * A new directory of this user's only (mode 0700), under a name no other
     * one has, created exclusively. Not Files.createTempDirectory: its names
     * come from a SecureRandom, which may be ours, still being set up (the
     * library is loaded while the generators seed).
     */
    private static Path newDirectory(Path directory) throws IOException {
        String loader = Integer.toHexString(System.identityHashCode(LibraryCopy.class));
        for (int attempt = 0; ; attempt++) {
            Path made = directory.resolve(COPY_PREFIX + loader + "-" + Long.toHexString(System.nanoTime()));
            try {
                return Files.createDirectory(made, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) throw e;
            }
        }
    }

    private static void delete(Path path) {
        if (path == null) return;
        try {
            Files.deleteIfExists(path);
        } catch (IOException | SecurityException e) {
            path.toFile().deleteOnExit();
        }
    }

    /**
     * Removes copies a JVM that died between copying and loading left
     * behind (old enough that no loader still wants them): their files,
     * then their directories.
     */
    private static void removeStale(Path directory) {
        long before = System.currentTimeMillis() - STALE_MILLIS;
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(directory, COPY_PREFIX + "*")) {
            for (Path copy : copies) {
                FileTime modified = Files.getLastModifiedTime(copy, LinkOption.NOFOLLOW_LINKS);
                if (modified.toMillis() >= before) continue;
                if (Files.isDirectory(copy, LinkOption.NOFOLLOW_LINKS)) {
                    try (DirectoryStream<Path> files = Files.newDirectoryStream(copy)) {
                        for (Path file : files) Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(copy);
            }
        } catch (IOException | SecurityException e) {
            // leftovers are harmless: private, and never loaded again
        }
    }
}
