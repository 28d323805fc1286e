package org.jruby.ext.fastrandom;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.function.Function;

import org.jruby.Ruby;
import org.jruby.util.FileResource;
import org.jruby.util.JRubyFile;

/**
 * The gem's own files beside its jar ({@code FastRandom::LIBRARY_DIR}): in a
 * directory, or inside an archive when the application is packaged (a
 * Warbler jar or war, jruby-mains, a fat jar), where JRuby names them
 * {@code uri:classloader:/gems/...}, {@code classpath:/...},
 * {@code jar:file:/app.jar!/...} or {@code file:/app.jar!/...}. The JNI
 * library and the vendored libgmp are loaded from there; in an archive
 * they are entries, read through their URL and copied out
 * ({@link fastrandom.jni.LibraryCopy}).
 */
final class GemFiles {
    private static final String URI_CLASSLOADER = "uri:classloader:";
    private static final String CLASSPATH = "classpath:";

    private GemFiles() {}

    /** Whether {@code path} (LIBRARY_DIR, or a file below it) is inside an archive rather than a file of the filesystem. */
    static boolean inArchive(String path) {
        return path.startsWith(URI_CLASSLOADER) || path.startsWith(CLASSPATH) || path.startsWith("jar:")
                || (path.startsWith("file:") && path.contains("!/"));
    }

    /**
     * The URL of the archive entry {@code path} names (see {@link #inArchive}):
     * a class path one through the runtime's class loader, as JRuby resolves
     * it; null when there is no such entry.
     */
    static URL entry(Ruby runtime, String path) {
        return resolver(runtime).apply(path);
    }

    /**
     * {@link #entry} as a function that holds no runtime, only the class
     * loader JRuby resolves class path names through (which loaded
     * fast_random's classes, or is a parent of theirs).
     */
    static Function<String, URL> resolver(Ruby runtime) {
        ClassLoader runtimeLoader = runtime.getJRubyClassLoader();
        ClassLoader loader = runtimeLoader != null ? runtimeLoader : GemFiles.class.getClassLoader();
        return path -> resolve(loader, path);
    }

    private static URL resolve(ClassLoader loader, String path) {
        String name = null;
        if (path.startsWith(URI_CLASSLOADER)) name = path.substring(URI_CLASSLOADER.length());
        else if (path.startsWith(CLASSPATH)) name = path.substring(CLASSPATH.length());
        if (name != null) {
            while (name.startsWith("/")) name = name.substring(1);
            return loader.getResource(name);
        }
        try {
            return new URL(path.startsWith("jar:") ? path : "jar:" + path);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    /** Whether the file {@code path} (of the file system or an archive) exists, through JRuby's own resources. */
    static boolean exists(Ruby runtime, String path) {
        FileResource file = JRubyFile.createResource(runtime, path);
        return file.exists() && !file.isDirectory();
    }
}
