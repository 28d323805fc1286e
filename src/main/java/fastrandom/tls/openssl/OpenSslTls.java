package fastrandom.tls.openssl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import fastrandom.jni.LibraryFile;
import fastrandom.jni.NativeLibrary;

/**
 * Whether the OpenSSL engine can run in this class loader, and its
 * {@link EngineProvider}: loaded once, the first time a socket asks for it
 * (never when the gem is required). The Ruby layer says where the gem keeps
 * netty's jars ({@link #setJars}) and netty-tcnative's JNI library
 * ({@link #library()}); the library is loaded into the engine's
 * {@link EngineClassLoader} before netty is first used, as fast_random's own
 * library is loaded (from the gem's file, or a private copy checked against
 * its recorded SHA-256), never extracted by netty.
 */
public final class OpenSslTls {
    private static final String NATIVE_LOAD = "fastrandom.tls.openssl.netty.NativeLoad";
    private static final String PROVIDER = "fastrandom.tls.openssl.netty.NettyProvider";

    /** Where the gem keeps netty's jars, relative to lib/fast_random. */
    public static final String JAR_DIRECTORY = "vendor/netty";
    /** netty-tcnative's Java classes' jar, by the start of its name. */
    private static final String TCNATIVE_JAR = "netty-tcnative-classes-";
    /** The resource beside this class naming those jars, a line each (written by the Rakefile). */
    private static final String JARS = "jars";

    private static final LibraryFile LIBRARY = new LibraryFile("the TLS engine's native library", libraryFile());

    private static URL[] jarFiles;
    private static URL[] jarEntries;
    private static boolean tried; // guarded by OpenSslTls.class
    private static volatile EngineProvider provider;
    private static String problem;

    private OpenSslTls() {}

    /**
     * Where the gem keeps netty-tcnative's library for this platform,
     * relative to lib/fast_random (netty's own file name, which its JNI
     * code reads); null where the gem ships none.
     */
    public static String libraryFile() {
        String directory = NativeLibrary.platformDirectory();
        String arch;
        if (directory.equals("linux-x86_64")) arch = "x86_64";
        else if (directory.equals("linux-aarch64")) arch = "aarch_64";
        else return null;
        return directory + "/" + System.mapLibraryName("netty_tcnative_linux_" + arch).toLowerCase(Locale.ROOT);
    }

    /** The names of netty's jars in {@link #JAR_DIRECTORY}, as fast_random's jar records them (none: the jar records none). */
    public static List<String> jarNames() {
        List<String> names = new ArrayList<>();
        try (InputStream in = OpenSslTls.class.getResourceAsStream(JARS)) {
            if (in == null) return names;
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line; (line = reader.readLine()) != null; ) {
                if (!line.trim().isEmpty()) names.add(line.trim());
            }
        } catch (IOException e) {
            // as if none: the engine says its jars are missing
        }
        return names;
    }

    /**
     * The engine's TLS library and its binding, loading the engine:
     * "BoringSSL (netty-tcnative 2.0.84.Final)" (the version from the jar's
     * name, which holds in an archive too); null where it cannot run.
     */
    public static String version() {
        EngineProvider loaded = provider();
        if (loaded == null) return null;
        for (String name : jarNames()) {
            if (name.startsWith(TCNATIVE_JAR) && name.endsWith(".jar")) {
                return loaded.version() + " (netty-tcnative " + name.substring(TCNATIVE_JAR.length(), name.length() - 4) + ")";
            }
        }
        return loaded.version();
    }

    /** netty-tcnative's library file (its path set by the Ruby layer, as {@link NativeLibrary}'s is). */
    public static LibraryFile library() {
        return LIBRARY;
    }

    /** netty's jars: {@code files} installed files' URLs, {@code entries} a packaged gem's archive entries. */
    public static synchronized void setJars(URL[] files, URL[] entries) {
        jarFiles = files.clone();
        jarEntries = entries.clone();
    }

    /** The engine's provider, loaded if that has not been tried yet; null when it cannot run ({@link #problem()} says why). */
    public static EngineProvider provider() {
        EngineProvider loaded = provider;
        return loaded != null ? loaded : load();
    }

    private static synchronized EngineProvider load() {
        if (!tried) {
            tried = true;
            try {
                provider = loadEngine();
            } catch (Exception | LinkageError e) {
                problem = "the OpenSSL TLS engine could not be loaded: " + e;
            }
        }
        return provider;
    }

    /** Why the engine cannot run here, or null (also before it is first tried). */
    public static synchronized String problem() {
        return problem;
    }

    private static EngineProvider loadEngine() throws Exception {
        if (libraryFile() == null) {
            problem = "the gem ships no OpenSSL TLS engine for " + NativeLibrary.platformDirectory();
            return null;
        }
        if (jarFiles == null || jarFiles.length + jarEntries.length == 0) {
            problem = "the OpenSSL TLS engine's jars (lib/fast_random/vendor/netty/) are missing";
            return null;
        }
        EngineClassLoader loader = new EngineClassLoader(jarFiles, jarEntries, OpenSslTls.class.getClassLoader());
        Method nativeLoad = Class.forName(NATIVE_LOAD, true, loader).getMethod("load", String.class);
        if (!NativeLibrary.load()) { // to keep netty-tcnative mapped (NativeLibrary#keepLoaded)
            problem = "the OpenSSL TLS engine needs fast_random's own native library, which is not loaded: " + NativeLibrary.failure();
            return null;
        }
        boolean loaded = LIBRARY.load(file -> {
            try {
                nativeLoad.invoke(null, file.toString());
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Error) throw (Error) cause; // UnsatisfiedLinkError: "another classloader" has the file
                throw e;
            }
            // Loaded: kept mapped for good (BoringSSL's thread-local destructors), before anything runs in it.
            if (!NativeLibrary.keepLoaded(file.toString())) throw new IllegalStateException("it could not be kept loaded");
        });
        if (!loaded) {
            problem = LIBRARY.failure();
            return null;
        }
        try {
            return (EngineProvider) Class.forName(PROVIDER, true, loader).getConstructor().newInstance();
        } catch (InvocationTargetException e) {
            problem = "the OpenSSL TLS engine could not start: " + e.getCause().getMessage();
            return null;
        }
    }
}
