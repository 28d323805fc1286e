import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The Main-Class of test/integration/packaged_app_test.rb's executable jar,
 * booting it as Warbler's JarMain boots a `warble jar` (read in
 * github:jruby/warbler, ext/JarMain.java; written here anew): it copies
 * the jars under META-INF/lib/ (JRuby) out of the archive into a temporary
 * directory, and nothing else; makes a URLClassLoader of them whose parent
 * is the class path (this archive, so the gems and the application stay
 * entries of it); starts a ScriptingContainer through that loader, with
 * the program's arguments as ARGV; runs META-INF/init.rb (GEM_HOME at the
 * archive's root) and META-INF/main.rb; exits with the script's status.
 */
public final class PackagedJarMain {
    private PackagedJarMain() {}

    public static void main(String[] args) throws Exception {
        File archive = new File(PackagedJarMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path extracted = Files.createTempDirectory("jruby-extract");
        int status;
        try {
            URLClassLoader loader = new URLClassLoader(extractJars(archive, extracted));
            Class<?> containerClass = Class.forName("org.jruby.embed.ScriptingContainer", true, loader);
            Object container = containerClass.getConstructor().newInstance();
            containerClass.getMethod("setArgv", String[].class).invoke(container, (Object) args);
            containerClass.getMethod("setClassLoader", ClassLoader.class).invoke(container, loader);
            Method run = containerClass.getMethod("runScriptlet", String.class);
            Object result = run.invoke(container, "begin\n  require 'META-INF/init.rb'\n  require 'META-INF/main.rb'\n  0\n"
                    + "rescue SystemExit => e\n  e.status\nend");
            containerClass.getMethod("terminate").invoke(container);
            status = result instanceof Number ? ((Number) result).intValue() : 0;
        } finally {
            try (Stream<Path> files = Files.walk(extracted)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        System.exit(status);
    }

    /** Copies META-INF/lib/*.jar out of {@code archive} into {@code directory}; their URLs. */
    private static URL[] extractJars(File archive, Path directory) throws IOException {
        List<URL> jars = new ArrayList<>();
        try (JarFile jar = new JarFile(archive)) {
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (!name.startsWith("META-INF/lib/") || !name.endsWith(".jar")) continue;
                Path target = directory.resolve(name.substring(name.lastIndexOf('/') + 1));
                try (InputStream in = jar.getInputStream(entry)) {
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
                jars.add(target.toUri().toURL());
            }
        }
        return jars.toArray(new URL[0]);
    }
}
