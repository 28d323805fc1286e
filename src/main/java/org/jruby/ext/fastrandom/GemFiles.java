package org.jruby.ext.fastrandom;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.function.Function;
import java.util.jar.JarFile;

import org.jruby.Ruby;
import org.jruby.util.FileResource;
import org.jruby.util.JRubyFile;

/**
 * The gem's own files beside its jar ({@code FastRandom::LIBRARY_DIR}): in a
 * directory, or inside an archive when the application is packaged (a
 * Warbler jar or war, jruby-mains, a fat jar), where JRuby names them
 * {@code uri:classloader:/gems/...}, {@code classpath:/...},
 * {@code jar:file:/app.jar!/...}, {@code file:/app.jar!/...} and the like
 * ({@link #inArchive}). The JNI
 * library and the vendored libgmp are loaded from there; in an archive
 * they are entries, read through their URL and copied out
 * ({@link fastrandom.jni.LibraryCopy}).
 */
final class GemFiles {
    private static final String URI_CLASSLOADER = "uri:classloader:";
    private static final String CLASSPATH = "classpath:";

    private GemFiles() {}

    /**
     * Whether {@code path} (LIBRARY_DIR, or a file below it) is inside an
     * archive rather than a file of the filesystem: the names JRuby gives
     * class path and archive entries ({@code uri:classloader:},
     * {@code classpath:}, {@code jar:}, {@code uri:jar:}, and a file path
     * into an archive, {@code file:/app.jar!/...} or {@code /app.jar!/...}).
     */
    static boolean inArchive(String path) {
        return path.startsWith(URI_CLASSLOADER) || path.startsWith(CLASSPATH) || path.startsWith("jar:")
                || path.startsWith("uri:jar:") || path.contains("!/");
    }

    /**
     * The URL of the archive entry {@code path} names (see {@link #inArchive}),
     * as JRuby resolves it: a class path one through the runtime's class
     * loader ({@code classpath:} through the thread's context class loader
     * first); null when there is no such entry.
     */
    static URL entry(Ruby runtime, String path) {
        return resolver(runtime).apply(path);
    }

    /**
     * {@link #entry} as a function that holds no runtime, only the class
     * loaders JRuby resolves class path names through (the runtime's, which
     * loaded fast_random's classes or is a parent of theirs, and the
     * context class loader of the requiring thread).
     */
    static Function<String, URL> resolver(Ruby runtime) {
        ClassLoader runtimeLoader = runtime.getJRubyClassLoader();
        ClassLoader loader = runtimeLoader != null ? runtimeLoader : GemFiles.class.getClassLoader();
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return path -> resolve(loader, context, path);
    }

    private static URL resolve(ClassLoader loader, ClassLoader context, String path) {
        if (path.startsWith(URI_CLASSLOADER)) return loader.getResource(name(path.substring(URI_CLASSLOADER.length())));
        if (path.startsWith(CLASSPATH)) {
            String name = name(path.substring(CLASSPATH.length()));
            URL found = context != null ? context.getResource(name) : null;
            return found != null ? found : loader.getResource(name);
        }
        String url = path.startsWith("uri:") ? path.substring("uri:".length()) : path;
        if (url.startsWith("jar:")) url = url.substring("jar:".length());
        if (url.startsWith("file:")) url = url.substring("file:".length());
        int bang = url.indexOf("!/");
        if (bang < 0) return null;
        if (url.indexOf("!/", bang + 2) >= 0) {
            // An archive inside an archive: only a URL handler of the application's (Spring Boot's) reads those.
            try {
                return new URL(path.startsWith("uri:") ? path.substring("uri:".length()) : path.startsWith("jar:") ? path : "jar:file:" + url);
            } catch (MalformedURLException e) {
                return null;
            }
        }
        File archive = new File(url.substring(0, bang).replaceFirst("^//+", "/"));
        String name = name(url.substring(bang + 2));
        try (JarFile jar = new JarFile(archive)) {
            if (jar.getEntry(name) == null) return null;
        } catch (IOException | SecurityException e) {
            // the archive cannot be opened: reading the entry will say why
        }
        try {
            return new URL("jar:" + archive.toURI() + "!/" + name);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    /** A class path or archive entry name: no leading slash, "." and ".." resolved, as JRuby resolves them. */
    private static String name(String path) {
        java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) parts.pollLast();
            else parts.addLast(part);
        }
        return String.join("/", parts);
    }

    /** Whether the file {@code path} (of the file system or an archive) exists, through JRuby's own resources. */
    static boolean exists(Ruby runtime, String path) {
        FileResource file = JRubyFile.createResource(runtime, path);
        return file.exists() && !file.isDirectory();
    }

    /** The names in the directory {@code path} (of the file system or an archive), through JRuby's own resources; empty when there is none. */
    static String[] list(Ruby runtime, String path) {
        FileResource directory = JRubyFile.createResource(runtime, path);
        String[] names = directory.isDirectory() ? directory.list() : null;
        return names == null ? new String[0] : names;
    }
}
