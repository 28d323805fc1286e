package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.BouncyCastleRegistrar;
import fastrandom.support.Diagnostics;

/**
 * Points {@code OpenSSL::Random.random_bytes} at fast_random's generators
 * ({@link OpenSSLLibrary}), {@code OpenSSL::PKey::RSA} at its RSA engines
 * ({@code FastRandom::RSA}), {@code OpenSSL::PKey::EC} at its EC engine
 * ({@code FastRandom::EC}), AES ciphers at the JDK's ({@code FastRandom::AES})
 * and PBKDF2 at the JDK's digests ({@link KdfMethods}),
 * once jruby-openssl is loaded, whether that happens before or after
 * fast_random. fast_random never loads openssl itself.
 *
 * <p>jruby-openssl defines OpenSSL's classes in Java, with
 * {@code JRuby::Util.load_ext("org.jruby.ext.openssl.OpenSSL")} (from
 * jopenssl/load, after its BouncyCastle jars); its Ruby files add nothing
 * fast_random touches. So until then {@code FastRandom::OpenSSLLoadExt}
 * is prepended to JRuby::Util's singleton class and waits for that call: a
 * small module, unlike Kernel, whose require every object would look up
 * through a wrapper.
 */
public final class OpenSSLHook {
    static final String OPENSSL_EXTENSION = "org.jruby.ext.openssl.OpenSSL";
    private static final String LOAD_EXT_PATH = "FastRandom::OpenSSLLoadExt";
    /** Set on the FastRandom module once installed (per JRuby runtime). */
    private static final String INSTALLED = "openssl_hook_installed";
    /** Set on FastRandom::RSA, EC or AES when installing it failed: why ({@link #installProblem}). */
    private static final String INSTALL_PROBLEM = "install_problem";

    private OpenSSLHook() {}

    /** Installs now if openssl is already loaded, else waits for it ({@link LoadExt}). */
    static void define(Ruby runtime, RubyModule fastRandom) {
        if (install(runtime.getCurrentContext(), fastRandom)) return;
        RubyModule loadExt = runtime.defineModuleUnder("OpenSSLLoadExt", fastRandom);
        Bindings.define(loadExt, LoadExt.class);
        runtime.getClassFromPath("JRuby::Util").getSingletonClass().prependModule(loadExt);
    }

    /**
     * Installs fast_random's OpenSSL::Random methods, RSA, EC, AES and PBKDF2, once;
     * false while openssl is not loaded. A failure to install RSA, EC or AES
     * never fails the require that loaded openssl: that capability stays on
     * jruby-openssl's code, with one warning.
     */
    static synchronized boolean install(ThreadContext context, RubyModule fastRandom) {
        Ruby runtime = context.runtime;
        if (fastRandom.getInternalVariable(INSTALLED) != null) return true;
        if (!defined(runtime, "OpenSSL::PKey::RSA") || !defined(runtime, "OpenSSL::Random")) return false;

        fastRandom.setInternalVariable(INSTALLED, context.tru);
        String unsupported = unsupportedRelease(runtime);
        if (unsupported != null) {
            for (String capability : new String[] {"RSA", "EC", "AES"}) {
                ((RubyModule) fastRandom.getConstant(capability)).setInternalVariable(INSTALL_PROBLEM, unsupported);
            }
            Diagnostics.warnOnce(unsupported);
            return true;
        }
        new OpenSSLLibrary().load(runtime, false);
        installOrWarn(context, fastRandom, "RSA");
        installOrWarn(context, fastRandom, "EC");
        installOrWarn(context, fastRandom, "AES");
        try {
            CipherMethods.install(runtime);
        } catch (RuntimeException | LinkageError e) {
            Diagnostics.warn("OpenSSL::Cipher#update stays jruby-openssl's alone (wrapping it failed: " + e + ")");
        }
        try {
            KdfMethods.install(runtime);
        } catch (RuntimeException | LinkageError e) {
            Diagnostics.warn("PBKDF2 stays on jruby-openssl's Java code (installing fast_random's failed: " + e + ")");
        }
        return true;
    }

    private static void installOrWarn(ThreadContext context, RubyModule fastRandom, String capability) {
        RubyModule module = (RubyModule) fastRandom.getConstant(capability);
        String why;
        try {
            module.callMethod(context, "install"); // clears an earlier problem (installSucceeded)
            return;
        } catch (RaiseException e) {
            why = e.getException().getMetaClass().getName() + ": " + e.getException().message(context).asJavaString();
        } catch (RuntimeException | LinkageError e) {
            why = e.getClass().getName() + ": " + e.getMessage();
        }
        module.setInternalVariable(INSTALL_PROBLEM, "installing fast_random's " + capability + " into jruby-openssl failed: " + why);
        Diagnostics.warn(capability + " stays on jruby-openssl's Java code (installing fast_random's " + capability
                + " failed: " + why + ")");
    }

    /**
     * For RSA, EC and AES's {@code install}, before anything is put in: an
     * EngineUnavailableError when the loaded jruby-openssl is not one
     * fast_random supports, so that a call by hand cannot hook into a
     * release the openssl hook left alone.
     */
    static void refuseUnsupportedRelease(ThreadContext context) {
        String unsupported = unsupportedRelease(context.runtime);
        if (unsupported != null) throw Errors.engineUnavailable(context, unsupported);
    }

    /** For RSA, EC and AES's {@code install}, once it is whole: no install problem any more. */
    static void installSucceeded(IRubyObject capability) {
        ((RubyModule) capability).removeInternalVariable(INSTALL_PROBLEM);
    }

    /** The jruby-openssl releases fast_random supports (README, "Supported versions"), oldest and newest. */
    static final int[] OLDEST_JRUBY_OPENSSL = {0, 15, 0};
    static final int[] NEWEST_JRUBY_OPENSSL = {0, 16, 1};

    /**
     * Null when the loaded jruby-openssl ({@code JOpenSSL::VERSION}) is one
     * fast_random supports, else what to say: outside the range nothing of
     * jruby-openssl's is touched (its classes may differ in ways no feature
     * test sees), and SecureRandom alone is fast_random's.
     */
    private static String unsupportedRelease(Ruby runtime) {
        RubyModule jopenssl = runtime.getModule("JOpenSSL");
        IRubyObject version = jopenssl == null ? null : jopenssl.getConstantAt("VERSION");
        String text = version == null || version.isNil() ? "unknown" : version.asJavaString();
        int[] parts = new int[3];
        String[] words = text.split("\\.");
        try {
            for (int i = 0; i < parts.length; i++) parts[i] = i < words.length ? Integer.parseInt(words[i]) : 0;
        } catch (NumberFormatException e) {
            parts = null;
        }
        if (parts != null && compare(parts, OLDEST_JRUBY_OPENSSL) >= 0 && compare(parts, NEWEST_JRUBY_OPENSSL) <= 0) return null;
        return "jruby-openssl " + text + " is not one fast_random supports (" + dotted(OLDEST_JRUBY_OPENSSL) + " to "
                + dotted(NEWEST_JRUBY_OPENSSL) + "): RSA, EC, AES, PBKDF2 and OpenSSL::Random stay jruby-openssl's own";
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) return Integer.compare(a[i], b[i]);
        }
        return 0;
    }

    private static String dotted(int[] version) {
        return version[0] + "." + version[1] + "." + version[2];
    }

    /**
     * Why installing {@code capability} (FastRandom::RSA or EC) into this
     * runtime's jruby-openssl failed, or null: then jruby-openssl's own code
     * serves every call, and the module's engine says :java.
     */
    static String installProblem(IRubyObject capability) {
        Object problem = ((RubyModule) capability).getInternalVariable(INSTALL_PROBLEM);
        return problem instanceof String ? (String) problem : null;
    }

    /** Whether fast_random met jruby-openssl in this runtime. */
    static boolean installed(RubyModule fastRandom) {
        return fastRandom.getInternalVariable(INSTALLED) != null;
    }

    /** Whether the constant {@code path} (e.g. "OpenSSL::PKey::RSA") names a module now, loading nothing. */
    static boolean defined(Ruby runtime, String path) {
        RubyModule scope = runtime.getObject();
        for (String name : path.split("::")) {
            IRubyObject value = scope.getConstantAt(name);
            if (!(value instanceof RubyModule)) return false;
            scope = (RubyModule) value;
        }
        return true;
    }

    /** {@code FastRandom::OpenSSLLoadExt}, prepended to JRuby::Util's singleton class while openssl is not loaded. */
    public static final class LoadExt {
        private LoadExt() {}

        @JRubyMethod(name = "load_ext", rest = true)
        public static IRubyObject load_ext(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
            if (args.length > 0 && OPENSSL_EXTENSION.equals(args[0].toString())) {
                // jopenssl/load has required BouncyCastle's jars by now.
                BouncyCastleRegistrar.initializeOnOwnThread(context.runtime.getJRubyClassLoader());
            }
            IRubyObject loaded = Super.of(context, self, LOAD_EXT_PATH, "load_ext").call(context, self, args, block);
            if (args.length > 0 && OPENSSL_EXTENSION.equals(args[0].toString())) {
                install(context, context.runtime.getModule("FastRandom"));
            }
            return loaded;
        }
    }
}
