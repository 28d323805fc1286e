package fastrandom.tls.openssl;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The class loader of the OpenSSL engine: netty's classes from the jars the
 * gem ships in vendor/netty/, and fast_random's {@code fastrandom.tls.openssl.netty}
 * classes, defined here from fast_random's jar, child first; everything else
 * (the JDK's, fast_random's own) from fast_random's class loader. So the
 * engine runs on its own copy of netty whatever the application has, and
 * nothing outside fast_random sees it. One per fast_random class loader
 * (per JRuby runtime, usually), collected with it.
 *
 * <p>The jars are files when the gem is installed; where the gem is packaged
 * in a jar or war they are archive entries, read once into memory, each
 * class's bytes let go once it is defined.
 */
final class EngineClassLoader extends URLClassLoader {
    static {
        registerAsParallelCapable();
    }

    /** The packages defined here, never by the parent. */
    private static final String[] OWN = {"io.netty.", "fastrandom.tls.openssl.netty."};
    /** Only fast_random's classes come from fast_random's jar; netty's from its own jars. */
    private static final String FAST_RANDOM_OWN = "fastrandom.tls.openssl.netty.";

    private static final String NATIVE = "META-INF/native/";

    /** Class files of the jars that are archive entries, by resource name, each dropped once defined (empty when they are files). */
    private final Map<String, byte[]> archived;

    /** A loader over the jars at {@code files} (file URLs) and {@code entries} (archive entries' URLs), fast_random's classes from {@code parent}. */
    EngineClassLoader(URL[] files, URL[] entries, ClassLoader parent) throws IOException {
        super(files, parent);
        Map<String, byte[]> classes = new ConcurrentHashMap<>();
        for (URL entry : entries) readClasses(entry, classes);
        archived = classes;
    }

    private static void readClasses(URL jar, Map<String, byte[]> into) throws IOException {
        try (ZipInputStream in = new ZipInputStream(jar.openStream())) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                if (!entry.isDirectory() && entry.getName().endsWith(".class")) into.put(entry.getName(), readAll(in));
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16384];
        for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
        return out.toByteArray();
    }

    /**
     * None under META-INF/native/: netty looks there for its JNI library to
     * extract, and the one to run is fast_random's, loaded already
     * ({@link OpenSslTls}), never one an application's netty jar has.
     */
    @Override
    public URL getResource(String name) {
        return name.startsWith(NATIVE) ? null : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        return name.startsWith(NATIVE) ? Collections.emptyEnumeration() : super.getResources(name);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!own(name)) return super.loadClass(name, resolve);
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) loaded = findOwn(name);
            if (resolve) resolveClass(loaded);
            return loaded;
        }
    }

    private static boolean own(String name) {
        for (String prefix : OWN) {
            if (name.startsWith(prefix)) return true;
        }
        return false;
    }

    private Class<?> findOwn(String name) throws ClassNotFoundException {
        String resource = name.replace('.', '/') + ".class";
        if (name.startsWith(FAST_RANDOM_OWN)) return define(name, getParent().getResource(resource));
        byte[] bytes = archived.remove(resource); // under the class's loading lock: defined once, the bytes go
        if (bytes != null) return defineClass(name, bytes, 0, bytes.length);
        return findClass(name); // the jars that are files
    }

    private Class<?> define(String name, URL resource) throws ClassNotFoundException {
        if (resource == null) throw new ClassNotFoundException(name);
        try (InputStream in = resource.openStream()) {
            byte[] bytes = readAll(in);
            return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
            throw new ClassNotFoundException(name, e);
        }
    }
}
