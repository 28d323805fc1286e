package fastrandom.jni;

/**
 * fast_random's JNI library, loaded at most once, the first time something
 * needs it (never when the gem is required). The Ruby layer tells us where
 * the gem keeps it; it is loaded from there, never extracted to a temporary
 * directory, so read-only and noexec /tmp do not matter.
 */
public final class NativeLibrary {
    private static volatile String path;
    private static Boolean loaded; // guarded by NativeLibrary.class
    private static String failure;

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

    /** Where the library file is (set by lib/fast_random before any use). */
    public static void setPath(String libraryPath) {
        path = libraryPath;
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
            } catch (UnsatisfiedLinkError | SecurityException e) {
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
}
