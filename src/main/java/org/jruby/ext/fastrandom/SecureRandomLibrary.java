package org.jruby.ext.fastrandom;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.runtime.load.Library;

import fastrandom.jca.BouncyCastleRegistrar;
import fastrandom.jca.JvmProvider;
import fastrandom.jni.NativeLibrary;
import fastrandom.support.Diagnostics;
import fastrandom.rsa.GmpLibrary;
import fastrandom.tls.openssl.OpenSslTls;

/**
 * Loaded by {@code require "fast_random"} (lib/fast_random.rb, through
 * {@code JRuby::Util.load_ext}): defines fast_random's Ruby API
 * ({@link FastRandomModule}, {@link Errors#define the errors}), binds
 * {@code FastRandom::SecureRandomMethods} and prepends it to SecureRandom's
 * singleton class, and sets the OpenSSL hook ({@link OpenSSLHook}). All of it
 * Java, bound through populators generated at build time: only what every
 * program needs. {@code FastRandom::Generator}, the OpenSSL::Random methods
 * ({@link OpenSSLRandomMethods}), RSA ({@link RsaModule}) and EC ({@link EcModule})
 * load when first used. Every FAST_RANDOM_* setting is read here, once
 * ({@link Configuration}).
 */
public final class SecureRandomLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        ThreadContext context = runtime.getCurrentContext();
        RubyWarnings warnings = new RubyWarnings(runtime);
        Diagnostics.attach(warnings);
        RubyModule fastRandom = runtime.getOrCreateModule("FastRandom");
        Configuration configuration = Configuration.read(context, fastRandom);
        runtime.pushPostExitFunction(new TearDown(runtime, warnings));
        Errors.define(runtime, fastRandom);
        FastRandomModule.define(runtime, fastRandom, configuration);
        setNativeLibraryPath(runtime, fastRandom, configuration);
        setTlsEnginePaths(runtime, fastRandom);
        RubyModule methods = SecureRandomMethods.define(runtime, fastRandom);
        runtime.getModule("SecureRandom").getSingletonClass().prependModule(methods);
        OpenSSLHook.define(runtime, fastRandom);
        Configuration.apply(context, Configuration.BACKEND, configuration.backend, value -> FastRandomModule.set_backend(context, fastRandom, value));
    }

    /**
     * Where the JNI library is (loaded only when first needed):
     * {@code FAST_RANDOM_NATIVE_LIBRARY} ({@link Configuration}), else the
     * platform's directory beside the jar, {@code FastRandom::LIBRARY_DIR},
     * a file or, in a packaged application, an archive entry ({@link GemFiles}).
     */
    private static void setNativeLibraryPath(Ruby runtime, RubyModule fastRandom, Configuration configuration) {
        if (!configuration.nativeLibrary.isNil()) {
            NativeLibrary.setPath(configuration.nativeLibrary.asJavaString(), true);
            return;
        }
        String path = fastRandom.getConstant("LIBRARY_DIR").asJavaString() + "/" + NativeLibrary.platformFile();
        if (GemFiles.inArchive(path)) NativeLibrary.setArchived(path, GemFiles.entry(runtime, path));
        else NativeLibrary.setPath(path, false);
    }

    /**
     * Where the OpenSSL TLS engine's jars (vendor/netty/, by the names the
     * jar records) and its JNI library (the platform's directory) are, beside
     * the jar: files, or archive entries in a packaged application. Loaded
     * only when a connection first asks for the engine.
     */
    private static void setTlsEnginePaths(Ruby runtime, RubyModule fastRandom) {
        String dir = fastRandom.getConstant("LIBRARY_DIR").asJavaString();
        List<URL> files = new ArrayList<>();
        List<URL> entries = new ArrayList<>();
        for (String name : OpenSslTls.jarNames()) {
            String path = dir + "/" + OpenSslTls.JAR_DIRECTORY + "/" + name;
            if (GemFiles.inArchive(path)) {
                URL entry = GemFiles.entry(runtime, path);
                if (entry != null) entries.add(entry);
            } else if (new File(path).isFile()) {
                try {
                    files.add(new File(path).toURI().toURL());
                } catch (MalformedURLException e) {
                    // not a path a URL can name: as if missing
                }
            }
        }
        OpenSslTls.setJars(files.toArray(new URL[0]), entries.toArray(new URL[0]));
        String library = OpenSslTls.libraryFile();
        if (library == null) return;
        String path = dir + "/" + library;
        if (GemFiles.inArchive(path)) OpenSslTls.library().setArchived(path, GemFiles.entry(runtime, path));
        else OpenSslTls.library().setPath(path, false);
    }

    /**
     * What the runtime's teardown ({@code Ruby#tearDown}: ScriptingContainer#terminate,
     * jruby-rack's undeploy, the end of the process) undoes, after the
     * program's at_exit blocks: the JVM-wide provider leaves the JVM's list
     * if this runtime installed it, the tearing-down thread forgets
     * BouncyCastle's thread-local parameters ({@link BouncyCastleRegistrar}),
     * jnagmp's JNA registration is undone ({@link GmpLibrary#release}), the
     * OpenSSL TLS engine's contexts are let go ({@link OpenSslEngines#release}), and
     * the warnings stop going to this runtime. A post-exit function, not
     * an internal finalizer: the runtime holds those only weakly, and the
     * JVM's finalization would call their finalize() once more. It holds
     * the sink, which Diagnostics holds weakly, as long as the runtime lives.
     */
    private static final class TearDown implements Ruby.ExitFunction {
        private final Ruby runtime;
        private final RubyWarnings warnings;

        TearDown(Ruby runtime, RubyWarnings warnings) {
            this.runtime = runtime;
            this.warnings = warnings;
        }

        /** Each step on its own: a failure is reported and never stops the others, nor the runtime's own teardown. */
        @Override
        public int applyAsInt(ThreadContext context) {
            try {
                JvmProvider.tearDown(runtime);
            } catch (RuntimeException | LinkageError e) {
                failed("the JVM-wide provider could not be taken out of the JVM's list", e);
            }
            try {
                IRubyObject fastRandom = runtime.getObject().getConstantAt("FastRandom");
                if (fastRandom instanceof RubyModule && OpenSSLHook.installed((RubyModule) fastRandom)) {
                    BouncyCastleRegistrar.forgetCallingThread(runtime.getJRubyClassLoader());
                }
                // Only where these classes are this runtime's alone (not on a class path runtimes share).
                if (SecureRandomLibrary.class.getClassLoader() == runtime.getJRubyClassLoader()) {
                    GmpLibrary.release();
                    OpenSslEngines.release();
                }
            } catch (RuntimeException | LinkageError e) {
                failed("a reference to this runtime could not be released", e);
            }
            Diagnostics.detach(warnings);
            return 0;
        }

        private void failed(String what, Throwable e) {
            try {
                Diagnostics.warn("at teardown, " + what + " (" + e + ")");
            } catch (RuntimeException | LinkageError ignored) {
                // $stderr is gone too: nothing more to say
            }
        }
    }

    /** Writes each warning as a line to Ruby's $stderr (whatever it is at the time), as Kernel#warn does. */
    private static final class RubyWarnings implements Diagnostics.Sink {
        private final Ruby runtime;

        RubyWarnings(Ruby runtime) {
            this.runtime = runtime;
        }

        @Override
        public void accept(String message) {
            IRubyObject stderr = runtime.getGlobalVariables().get("$stderr");
            stderr.callMethod(runtime.getCurrentContext(), "write", runtime.newString(message + "\n"));
        }

        @Override
        public boolean verbose() {
            return runtime.isVerbose();
        }
    }
}
