package fastrandom.rsa;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import fastrandom.Setting;
import fastrandom.jni.LibraryCopy;

/**
 * Which libgmp the {@code :gmp} engine runs on, loaded once through jnagmp
 * (which reaches GMP through JNA).
 *
 * <p>The system property {@code fast_random.gmp_library} (or
 * {@code FAST_RANDOM_GMP_LIBRARY} in Ruby's ENV when fast_random is
 * required, see {@link Setting#GMP_LIBRARY}) chooses: {@code auto} (the
 * default: the system's libgmp when there is one, e.g. Debian's libgmp10,
 * which is faster, else the copy jnagmp bundles), {@code system},
 * {@code bundled}, or the absolute path of a libgmp file. It is read once,
 * when the library is first loaded; {@link #library()} says what was loaded.
 *
 * <p>Only the nested {@code Loader} names jnagmp or JNA classes, so loading
 * this class never needs those jars: a missing jar shows up as the reason
 * {@link #unavailableReason()} gives.
 */
public final class GmpLibrary {
    public static final String PROPERTY = Setting.GMP_LIBRARY.property();
    public static final String ENVIRONMENT = Setting.GMP_LIBRARY.variable();

    private static final Object LOCK = new Object();
    private static volatile boolean tried;
    private static volatile String failure;
    private static volatile String loaded;
    private static volatile String archivedVendor; // the gem's vendor directory, when it is inside an archive
    private static volatile Function<String, URL> archiveEntries;

    private GmpLibrary() {}

    /**
     * The gem is packaged in a jar or war: its vendor directory is
     * {@code vendor} (as Ruby names it, e.g. {@code uri:classloader:/gems/...}),
     * and {@code entries} gives the URL of an entry below it (null when
     * there is none). The bundled libgmp is then a private copy of the
     * archive's ({@link LibraryCopy}).
     */
    public static void setArchivedVendor(String vendor, Function<String, URL> entries) {
        archiveEntries = entries;
        archivedVendor = vendor;
    }

    /**
     * Loads JNA and libgmp if that has not been tried yet. Null when GMP can
     * be used, else why not.
     */
    public static String unavailableReason() {
        if (!tried) {
            synchronized (LOCK) {
                if (!tried) {
                    try {
                        loaded = Loader.load(preference());
                    } catch (LinkageError | Exception e) {
                        // NoClassDefFoundError: a jar is not on the class path;
                        // UnsatisfiedLinkError: jnidispatch or libgmp did not load.
                        failure = describe(e);
                    }
                    tried = true;
                }
            }
        }
        return failure;
    }

    /**
     * The runtime whose class loader loaded these classes is being torn
     * down: undoes JNA's direct mapping of jnagmp's LibGmp (native methods
     * bound to that loader's classes). JNA's dispatch still keeps a
     * reference into jnagmp's classes, so such a runtime is not collected
     * (README, "Several runtimes in one JVM"). GMP is not used again here.
     */
    public static void release() {
        synchronized (LOCK) {
            if (loaded == null) return;
            loaded = null;
            failure = "released: its JRuby runtime was torn down";
            tried = true;
            try {
                com.sun.jna.Native.unregister(com.squareup.jnagmp.LibGmp.class);
            } catch (LinkageError | RuntimeException e) {
                // JNA or jnagmp gone already: nothing is registered
            }
        }
    }

    /**
     * Which libgmp is in use, e.g. {@code "system GMP 6.2.1
     * (/usr/lib/x86_64-linux-gnu/libgmp.so.10)"}; {@code "unavailable: REASON"}
     * when none loaded.
     */
    public static String library() {
        String reason = unavailableReason();
        return reason == null ? loaded : "unavailable: " + reason;
    }

    /** The preference in force: auto, system, bundled or a path. */
    public static String preference() {
        String value = Setting.GMP_LIBRARY.value();
        return value == null ? "auto" : value;
    }

    static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getName() + (message == null ? "" : ": " + message);
    }

    /**
     * Everything that names jnagmp or JNA classes. The JVM loads (and
     * verifies) this class the first time it is used, so a missing jar shows
     * up there, as a LinkageError.
     */
    private static final class Loader {
        private Loader() {}

        /** Loads libgmp as {@code preference} says; returns what was loaded. */
        static String load(String preference) throws IOException {
            String wanted = preference.toLowerCase(Locale.ROOT);
            boolean path = new File(preference).isAbsolute();
            if (!path && !wanted.equals("auto") && !wanted.equals("system") && !wanted.equals("bundled")) {
                throw new IllegalArgumentException("unknown " + PROPERTY + " value '" + preference
                        + "' (use auto, system, bundled or the absolute path of a libgmp file)");
            }
            ClassLoader loader = com.squareup.jnagmp.LibGmp.class.getClassLoader();
            String libraryName = System.mapLibraryName("gmp");
            String platform = com.sun.jna.Platform.RESOURCE_PREFIX;

            // jnagmp's LibGmp loads the libgmp in its jar whenever the jar has
            // one for this platform (it extracts it to JNA's temporary
            // directory); only without one does it ask JNA for "gmp", where
            // the search path below applies. The gem's copy of the jar has its
            // libgmp moved out to vendor/gmp/, so the choice is ours.
            if (loader.getResource(platform + "/" + libraryName) != null) {
                if (!wanted.equals("auto") && !wanted.equals("bundled")) {
                    throw new IllegalStateException("the jnagmp jar on the class path carries a libgmp for " + platform
                            + ", which jnagmp always loads (use the jnagmp jar in fast_random's vendor directory)");
                }
                com.squareup.jnagmp.Gmp.checkLoaded();
                return "bundled GMP " + com.squareup.jnagmp.LibGmp.__gmp_version + " (extracted from the jnagmp jar by jnagmp)";
            }

            File system = null;
            String systemProblem = null;
            if (!wanted.equals("bundled")) {
                system = path ? new File(preference) : findSystemLibrary(libraryName);
                systemProblem = system == null
                        ? "no system libgmp found (looked in " + String.join(", ", systemDirectories()) + ")"
                        : probe(system);
                if (systemProblem != null) system = null;
                if (system == null && !wanted.equals("auto")) throw new IllegalStateException(systemProblem);
            }
            String vendor = archivedVendor;
            if (system == null && vendor != null) return loadArchived(vendor, libraryName, platform, loader, systemProblem, wanted);
            File bundled = bundledLibrary(libraryName, platform);
            File chosen = system;
            if (chosen == null) {
                if (bundled == null || !bundled.isFile()) {
                    throw new IllegalStateException((systemProblem == null ? "" : systemProblem + "; ")
                            + "no bundled libgmp for " + platform + (bundled == null ? "" : " (" + bundled + " is missing)"));
                }
                chosen = bundled;
            }

            // Searched first for "gmp": the file itself when it is named
            // libgmp.so; otherwise (Debian's libgmp.so.10 without libgmp-dev)
            // JNA takes the highest libgmp.so.N in that directory.
            com.sun.jna.NativeLibrary.addSearchPath("gmp", chosen.getAbsoluteFile().getParent());
            com.squareup.jnagmp.Gmp.checkLoaded();

            // The instance LibGmp registered its methods with (JNA caches it by name).
            com.sun.jna.NativeLibrary loaded = com.sun.jna.NativeLibrary.getInstance("gmp", loader);
            String version = version(loaded);
            File file = loaded.getFile();
            String where = file == null ? "found by the dynamic linker" : file.getPath();
            if (file != null && file.isAbsolute()) {
                String canonical = file.getCanonicalPath();
                if (bundled != null && bundled.isFile() && canonical.equals(bundled.getCanonicalPath())) {
                    return "bundled GMP " + version + " (" + where
                            + (systemProblem != null && wanted.equals("auto") ? "; " + systemProblem : "") + ")";
                }
                if (system != null && canonical.equals(system.getCanonicalPath())) return "system GMP " + version + " (" + where + ")";
            } else if (file != null) {
                where = file.getPath() + ", found by the dynamic linker";
            }
            return (system != null ? "system GMP " : "GMP ") + version + " (" + where + ")";
        }

        /**
         * The bundled libgmp of a gem inside an archive: read from the
         * archive, checked against the SHA-256 fast_random's jar records for
         * it, and loaded from a private copy.
         */
        private static String loadArchived(String vendor, String libraryName, String platform, ClassLoader loader,
                                           String systemProblem, String wanted) throws IOException {
            String relative = "gmp/" + platform + "/" + libraryName;
            String shownAs = vendor + "/" + relative;
            URL entry = archiveEntries.apply(shownAs);
            byte[] bytes = entry == null ? null : LibraryCopy.read(entry);
            if (bytes == null) {
                throw new IllegalStateException((systemProblem == null ? "" : systemProblem + "; ")
                        + "no bundled libgmp for " + platform + " (" + shownAs + " is missing)");
            }
            byte[] recorded;
            try {
                recorded = LibraryCopy.recordedDigestOf("vendor/" + relative, bytes);
            } catch (LibraryCopy.Unrecorded e) {
                throw new IllegalStateException("bundled libgmp " + shownAs + " is not loaded: " + e.getMessage());
            }
            // JNA's own native part first: its failure (jna.tmpdir) is JNA's to report, not the copy's.
            com.sun.jna.Native.getNativeSize(int.class);
            try {
                LibraryCopy.load(bytes, recorded, libraryName, copy -> {
                    // JNA finds "gmp" as libgmp.so in the copy's own directory, and dlopens it now.
                    com.sun.jna.NativeLibrary.addSearchPath("gmp", copy.getParent().toString());
                    com.squareup.jnagmp.Gmp.checkLoaded();
                    // Where the copy does not load (noexec), JNA goes on to the system's libgmp: not the library checked.
                    File opened = com.sun.jna.NativeLibrary.getInstance("gmp", loader).getFile();
                    if (opened == null || !opened.getCanonicalPath().equals(copy.toRealPath().toString())) {
                        throw new IllegalStateException("the copy did not load, JNA loaded " + opened + " in its place");
                    }
                });
            } catch (LibraryCopy.Failure e) {
                throw new IllegalStateException("bundled libgmp " + shownAs + " is inside an archive, and a private copy of it could not be loaded from "
                        + e.describe());
            }
            String version = version(com.sun.jna.NativeLibrary.getInstance("gmp", loader));
            return "bundled GMP " + version + " (a private copy of " + shownAs
                    + (systemProblem != null && wanted.equals("auto") ? "; " + systemProblem : "") + ")";
        }

        /**
         * The libgmp that jnagmp's jar bundled, which the gem's build moved
         * beside that jar: {@code vendor/gmp/linux-x86-64/libgmp.so}, the
         * directory named as JNA names platforms.
         */
        private static File bundledLibrary(String libraryName, String platform) {
            try {
                java.security.CodeSource source = com.squareup.jnagmp.LibGmp.class.getProtectionDomain().getCodeSource();
                if (source == null || source.getLocation() == null) return null;
                String location = source.getLocation().toString();
                if (location.startsWith("jar:")) location = location.substring(4);
                int bang = location.indexOf("!/");
                if (bang >= 0) location = location.substring(0, bang);
                if (!location.startsWith("file:")) return null;
                File jar = new File(new java.net.URI(location));
                return new File(new File(new File(jar.getParentFile(), "gmp"), platform), libraryName);
            } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                return null;
            }
        }

        /** Why {@code file} is no usable libgmp (null when it is). */
        private static String probe(File file) {
            if (!file.isFile()) return "system libgmp " + file + " is missing";
            try {
                com.sun.jna.NativeLibrary candidate = com.sun.jna.NativeLibrary.getInstance(file.getAbsolutePath());
                for (String symbol : new String[] {"__gmpz_powm_sec", "__gmpz_powm", "__gmpz_import", "__gmpz_export", "__gmpz_invert"}) {
                    candidate.getFunction(symbol);
                }
                String version = version(candidate);
                if (!version.matches("([5-9]|[1-9][0-9])\\..*")) return "system libgmp " + file + " is GMP " + version + " (5 or later needed)";
                return null;
            } catch (UnsatisfiedLinkError e) {
                return "system libgmp " + file + " is unusable: " + e.getMessage();
            }
        }

        private static String version(com.sun.jna.NativeLibrary library) {
            try {
                return library.getGlobalVariableAddress("__gmp_version").getPointer(0).getString(0);
            } catch (UnsatisfiedLinkError e) {
                return "(version unknown)";
            }
        }

        private static File findSystemLibrary(String libraryName) {
            boolean mac = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("mac");
            // The unversioned name first (libgmp-dev's link): JNA loads it as it is.
            String[] names = mac ? new String[] {libraryName, "libgmp.10.dylib"} : new String[] {libraryName, libraryName + ".10"};
            for (String dir : systemDirectories()) {
                for (String name : names) {
                    File file = new File(dir, name);
                    if (file.isFile()) return file;
                }
            }
            return null;
        }

        private static List<String> systemDirectories() {
            String arch = System.getProperty("os.arch", "");
            String multiarch = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64-linux-gnu"
                    : arch.equals("aarch64") ? "aarch64-linux-gnu" : arch + "-linux-gnu";
            List<String> dirs = new ArrayList<>();
            dirs.add("/usr/lib/" + multiarch);
            dirs.add("/lib/" + multiarch);
            dirs.add("/usr/lib64");
            dirs.add("/lib64");
            dirs.add("/usr/lib");
            dirs.add("/usr/local/lib");
            dirs.add("/opt/homebrew/lib");
            return dirs;
        }
    }
}
