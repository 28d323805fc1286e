package fastrandom.jni;

import java.net.URL;

/**
 * fast_random's JNI library, loaded at most once per class loader, the
 * first time something needs it (never when the gem is required), as
 * {@link LibraryFile} says: from the gem's file, or a private copy where
 * another runtime's class loader has the file or the gem is packaged in a
 * jar or war.
 */
public final class NativeLibrary {
    private static final LibraryFile FILE = new LibraryFile("native library", platformFile());

    private NativeLibrary() {}

    /**
     * Where the gem keeps the library for this platform, relative to its
     * lib/fast_random directory: e.g. {@code linux-x86_64/libfast_random.so}
     * (the Rakefile builds it there).
     */
    public static String platformFile() {
        return platformDirectory() + "/" + System.mapLibraryName("fast_random");
    }

    /** The directory of lib/fast_random the gem keeps this platform's native libraries in: e.g. {@code linux-x86_64}. */
    public static String platformDirectory() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        if (os.startsWith("mac")) os = "darwin";
        else if (os.startsWith("windows")) os = "mswin";
        else os = os.replace(' ', '_');
        if (arch.equals("amd64") || arch.equals("x64")) arch = "x86_64";
        return os + "-" + arch;
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
    public static void setPath(String libraryPath, boolean chosenByUser) {
        FILE.setPath(libraryPath, chosenByUser);
    }

    /** The gem's own library is an entry of an archive ({@link LibraryFile#setArchived}). */
    public static void setArchived(String shownAs, URL archiveEntry) {
        FILE.setArchived(shownAs, archiveEntry);
    }

    /** Whether {@link #load()} failed only because the gem ships no library for this platform ({@link LibraryFile#absentAsExpected}). */
    public static boolean absentAsExpected() {
        return FILE.absentAsExpected();
    }

    /**
     * Whether {@code reason}, why something cannot run, is only that this
     * library is {@linkplain #absentAsExpected absent as expected}.
     */
    public static boolean onlyAbsentAsExpected(String reason) {
        return reason != null && reason.equals(FILE.failure()) && FILE.absentAsExpected();
    }

    /** Loads the library if that has not been tried yet; true when it is usable. */
    public static boolean load() {
        return FILE.load(file -> System.load(file.toString()));
    }

    /**
     * Keeps the library at {@code path}, which this process has loaded,
     * mapped until the process ends, whatever the JVM unloads (a library is
     * unloaded with its class loader). For the TLS engine's netty-tcnative:
     * its static BoringSSL leaves pthread thread-local destructors that run
     * in its code when a thread that used it ends, which would jump into
     * unmapped memory after the unload. Needs this library loaded; true when
     * the mapping is kept.
     */
    public static boolean keepLoaded(String path) {
        return load() && keepLoaded0(path);
    }

    private static native boolean keepLoaded0(String path);

    /** Why {@link #load()} failed, or null. */
    public static String failure() {
        return FILE.failure();
    }

    /** Whether this class loader runs a private copy of the library (another one in the JVM loaded the gem's file, or the gem is in an archive). */
    public static boolean privateCopy() {
        return FILE.privateCopy();
    }

    /** Whether the library is the gem's own inside an archive, copied out to load (see {@link #setArchived}). */
    public static boolean archived() {
        return FILE.archived();
    }

    /**
     * Why this library's private copy could not be loaded (its
     * {@link LibraryCopy.Failure#describe()} ends {@link #failure()}), or
     * null: what a copy of another library in the same directory would run
     * into as well.
     */
    public static LibraryCopy.Failure copyFailure() {
        return FILE.copyFailure();
    }
}
