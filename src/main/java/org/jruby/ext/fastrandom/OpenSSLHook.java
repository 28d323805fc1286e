package org.jruby.ext.fastrandom;

import java.util.function.Consumer;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.BouncyCastleRegistrar;
import fastrandom.jca.JRubyOpenSslProvider;
import fastrandom.jca.ProviderHook;
import fastrandom.support.Diagnostics;

/**
 * Points {@code OpenSSL::Random.random_bytes} at fast_random's generators
 * ({@link OpenSSLRandomMethods}), {@code OpenSSL::PKey::RSA} at its RSA engines
 * ({@code FastRandom::RSA}), {@code OpenSSL::PKey::EC} at its EC engine
 * ({@code FastRandom::EC}), AES ciphers at the JDK's ({@code FastRandom::AES}),
 * PBKDF2 at the JDK's digests ({@link KdfMethods}) and
 * {@code X509::Certificate#sign}, {@code #verify} and {@code CRL#verify} at
 * the RSA and EC engines ({@link X509Hooks}), once jruby-openssl is loaded,
 * whether that happens before or after fast_random. fast_random never loads
 * openssl itself.
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
    /** Set on FastRandom::RSA, EC or AES by its install: the provider in this runtime's jruby-openssl ({@link #serving}). */
    private static final String PROVIDER = "jruby_openssl_provider";

    private OpenSSLHook() {}

    /** Installs now if openssl is already loaded, else waits for it ({@link LoadExt}). */
    static void define(Ruby runtime, RubyModule fastRandom) {
        if (install(runtime.getCurrentContext(), fastRandom)) return;
        RubyModule loadExt = runtime.defineModuleUnder("OpenSSLLoadExt", fastRandom);
        Bindings.define(loadExt, LoadExt.class);
        runtime.getClassFromPath("JRuby::Util").getSingletonClass().prependModule(loadExt);
    }

    /**
     * Installs fast_random's OpenSSL::Random methods, RSA, EC, AES, X.509's
     * methods and PBKDF2, once; false while openssl is not loaded. Each
     * capability goes in whole where this jruby-openssl has what it needs
     * ({@link JRubyOpenSsl}), or stays jruby-openssl's with one warning
     * saying why; nothing here fails the require that loaded openssl.
     */
    static boolean install(ThreadContext context, RubyModule fastRandom) {
        Ruby runtime = context.runtime;
        synchronized (fastRandom) { // this runtime's: the checks at load may take a while, and other runtimes need not wait
            if (fastRandom.getInternalVariable(INSTALLED) != null) return true;
            if (!defined(runtime, "OpenSSL::PKey::RSA") || !defined(runtime, "OpenSSL::Random")) return false;

            fastRandom.setInternalVariable(INSTALLED, context.tru);
            String tooOld = JRubyOpenSsl.tooOld(runtime);
            // FastRandom::RSA, EC and AES, named as the capabilities they put into the provider.
            ProviderHook.Capability[] modules = ProviderHook.Capability.values();
            if (tooOld != null) {
                for (ProviderHook.Capability capability : modules) {
                    ((RubyModule) fastRandom.getConstant(capability.name())).setInternalVariable(INSTALL_PROBLEM, tooOld);
                }
                fastRandom.setInternalVariable(TlsModule.PROBLEM, tooOld);
                Diagnostics.warnOnce(tooOld);
                return true;
            }
            String step = "OpenSSL::Random";
            try {
                OpenSSLRandomMethods.install(context);
                for (ProviderHook.Capability capability : modules) {
                    step = capability.name();
                    installOrWarn(context, fastRandom, step);
                }
                step = "X.509";
                installX509(context);
                step = "PBKDF2";
                installPbkdf2(context);
                step = "TLS";
                installTls(context, fastRandom);
            } catch (RuntimeException | Error e) { // an Interrupt, exit or Thread#kill: what was not done is said so
                String why = "fast_random's install into jruby-openssl was cut short at " + step + " (" + e + ")";
                for (ProviderHook.Capability capability : modules) {
                    RubyModule module = (RubyModule) fastRandom.getConstant(capability.name());
                    if (!ProviderHook.installed(runtime.getJRubyClassLoader(), capability) && module.getInternalVariable(INSTALL_PROBLEM) == null) {
                        module.setInternalVariable(INSTALL_PROBLEM, why);
                    }
                }
                throw e;
            }
            return true;
        }
    }

    /**
     * X.509's methods ({@link X509Hooks}), after RSA's and EC's installs and
     * where either serves: their calls run on those engines, and their check
     * at load compares them there. Whole or not at all.
     */
    private static void installX509(ThreadContext context) {
        Ruby runtime = context.runtime;
        if (!serving(runtime, ProviderHook.Capability.RSA) && !serving(runtime, ProviderHook.Capability.EC)) return;
        installChecked(context, JRubyOpenSsl.Capability.X509, X509Hooks.STAY, () -> X509Hooks.install(runtime), () -> X509Hooks.uninstall(runtime));
    }

    /** PBKDF2's methods on OpenSSL::KDF and OpenSSL::PKCS5 ({@link KdfMethods}), whole or not at all. */
    private static void installPbkdf2(ThreadContext context) {
        Ruby runtime = context.runtime;
        installChecked(context, JRubyOpenSsl.Capability.PBKDF2, "PBKDF2 stays on jruby-openssl's Java code", () -> {
            JRubyOpenSsl.require(runtime, JRubyOpenSsl.Capability.PBKDF2);
            KdfMethods.install(runtime);
        }, () -> KdfMethods.uninstall(runtime));
    }

    /**
     * OpenSSL::SSL::SSLSocket's data path ({@link SSLSocketMethods}), whole
     * or not at all, unless FAST_RANDOM_TLS=0 (=openssl: with the OpenSSL
     * engine for handshakes, {@link OpenSslEngines}); why it stays stock is kept
     * for {@code FastRandom::TLS.problem}. On a release the suite has not
     * run on, its check runs at its first use ({@link TlsModule#checkFirstUse}).
     */
    private static void installTls(ThreadContext context, RubyModule fastRandom) {
        Ruby runtime = context.runtime;
        Configuration configuration = Configuration.of(runtime);
        String setting = configuration == null || configuration.tls.isNil() ? null : configuration.tls.asJavaString();
        if ("0".equals(setting)) {
            fastRandom.setInternalVariable(TlsModule.PROBLEM, Configuration.TLS + "=0 leaves it jruby-openssl's");
            return;
        }
        if (TlsModule.OPENSSL.equals(setting)) {
            TlsModule.setEngine(runtime, TlsModule.OPENSSL);
        } else if (setting != null && !setting.isEmpty() && !"1".equals(setting)) {
            Diagnostics.warnOnce(Configuration.TLS + "=" + setting + " is not understood (0 leaves SSLSocket's data path "
                    + "jruby-openssl's, 1 is the default, openssl puts handshakes on OpenSSL too); fast_random's is installed");
        }
        try {
            JRubyOpenSsl.require(runtime, JRubyOpenSsl.Capability.TLS);
            SSLSocketMethods.install(runtime, !JRubyOpenSsl.tested(runtime)); // the check at its first use: none can run at load
        } catch (JRubyOpenSsl.Unusable e) {
            String warning = TlsModule.STAYS + ": " + e.getMessage();
            fastRandom.setInternalVariable(TlsModule.PROBLEM, warning);
            Diagnostics.warn(warning);
        } catch (RuntimeException | LinkageError e) {
            if (JRubyOpenSsl.isControlFlow(context, e)) throw e;
            SSLSocketMethods.uninstall(runtime);
            String warning = TlsModule.STAYS + " (installing fast_random's failed: " + e + ")";
            fastRandom.setInternalVariable(TlsModule.PROBLEM, warning);
            Diagnostics.warn(warning);
        }
    }

    /**
     * A capability of replaced methods alone (no provider, no module):
     * {@code install} puts them in, then the check at load runs
     * ({@link JRubyOpenSsl#checkAtLoad}), and when either fails they are
     * taken out ({@code uninstall}, after a failed check) and stay
     * jruby-openssl's, with one warning starting with {@code stays}. Ruby's
     * control flow goes on, once they are out.
     */
    private static void installChecked(ThreadContext context, JRubyOpenSsl.Capability capability, String stays, Runnable install,
                                       Runnable uninstall) {
        try {
            install.run();
            boolean passed = false;
            try {
                JRubyOpenSsl.checkAtLoad(context, capability);
                passed = true;
            } finally {
                if (!passed) uninstall.run(); // whatever stopped the check: nothing unchecked stays in
            }
        } catch (JRubyOpenSsl.Unusable e) {
            Diagnostics.warn(stays + ": " + e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            if (JRubyOpenSsl.isControlFlow(context, e)) throw e;
            Diagnostics.warn(stays + " (installing fast_random's failed: " + e + ")");
        }
    }

    /** FastRandom::RSA, EC or AES's {@code install}, or one warning and the reason kept for engine_problem. */
    private static void installOrWarn(ThreadContext context, RubyModule fastRandom, String capability) {
        RubyModule module = (RubyModule) fastRandom.getConstant(capability);
        try {
            module.callMethod(context, "install"); // clears an earlier problem (installCapability)
        } catch (RuntimeException | LinkageError e) {
            if (JRubyOpenSsl.isControlFlow(context, e)) throw e;
            IRubyObject raised = e instanceof RaiseException ? ((RaiseException) e).getException() : null;
            String message = raised != null ? raised.callMethod(context, "message").toString() : e.getMessage();
            if (raised != null && raised.getMetaClass().getName().equals("FastRandom::EngineUnavailableError")) {
                // What this jruby-openssl lacks, or the check at load it failed: said as it is.
                module.setInternalVariable(INSTALL_PROBLEM, message);
                Diagnostics.warn(capability + " stays on jruby-openssl's Java code: " + message);
                return;
            }
            String why = (raised != null ? raised.getMetaClass().getName() : e.getClass().getName()) + ": " + message;
            module.setInternalVariable(INSTALL_PROBLEM, "installing fast_random's " + capability + " into jruby-openssl failed: " + why);
            Diagnostics.warn(capability + " stays on jruby-openssl's Java code (installing fast_random's " + capability
                    + " failed: " + why + ")");
        }
    }

    /**
     * Before anything is put in: an EngineUnavailableError when the loaded
     * jruby-openssl is older than fast_random supports or lacks what
     * {@code capability} needs, so that a call by hand cannot hook into a
     * release the openssl hook left alone.
     */
    private static void refuseUnusable(ThreadContext context, JRubyOpenSsl.Capability capability) {
        String tooOld = JRubyOpenSsl.tooOld(context.runtime);
        if (tooOld != null) throw Errors.engineUnavailable(context, tooOld);
        try {
            JRubyOpenSsl.require(context.runtime, capability);
        } catch (JRubyOpenSsl.Unusable e) {
            throw Errors.engineUnavailable(context, e.getMessage());
        }
    }

    /**
     * RSA, EC and AES's {@code install}: puts {@code provided} into
     * jruby-openssl's provider and fast_random's methods on
     * {@code className} ({@code replaceMethods}, through
     * {@link StockMethods}), then runs the checks at load
     * ({@link JRubyOpenSsl#checkAtLoad}). Whole or not at all: refused
     * before anything is put in when this jruby-openssl is too old or lacks
     * what the capability needs, and taken out again, provider and methods,
     * when a step or the check fails; either way an EngineUnavailableError
     * saying why, or the step's own error.
     */
    static IRubyObject installCapability(ThreadContext context, IRubyObject self, JRubyOpenSsl.Capability capability,
                                         ProviderHook.Capability provided, String className, Consumer<RubyModule> replaceMethods) {
        if (!defined(context.runtime, className)) {
            throw Errors.engineUnavailable(context, "openssl is not loaded (fast_random hooks in when it is)");
        }
        refuseUnusable(context, capability);
        ClassLoader loader = context.runtime.getJRubyClassLoader();
        RubyModule target = context.runtime.getClassFromPath(className);
        RubyModule module = (RubyModule) self;
        JRubyOpenSslProvider provider = ProviderHook.install(loader, provided);
        module.setInternalVariable(PROVIDER, provider);
        boolean passed = false;
        try {
            replaceMethods.accept(target);
            JRubyOpenSsl.checkAtLoad(context, capability);
            passed = true;
        } catch (JRubyOpenSsl.Unusable e) {
            module.setInternalVariable(INSTALL_PROBLEM, e.getMessage());
            throw Errors.engineUnavailable(context, e.getMessage());
        } finally {
            if (!passed) { // whatever stopped a step or the check (an Error too): nothing unchecked stays in
                StockMethods.uninstall(target);
                ProviderHook.uninstall(loader, provider, provided);
            }
        }
        module.removeInternalVariable(INSTALL_PROBLEM);
        return context.tru;
    }

    /**
     * RSA, EC and AES's {@code uninstall}: that capability's switch off on
     * the provider this module put in (whether or not jruby-openssl still
     * holds it), and jruby-openssl's own provider back once none is on.
     * Nothing to do before openssl is loaded or an install.
     */
    static IRubyObject uninstallCapability(ThreadContext context, IRubyObject self, ProviderHook.Capability provided) {
        Object provider = ((RubyModule) self).getInternalVariable(PROVIDER);
        if (provider instanceof JRubyOpenSslProvider) {
            ProviderHook.uninstall(context.runtime.getJRubyClassLoader(), (JRubyOpenSslProvider) provider, provided);
        }
        return context.nil;
    }

    /**
     * Whether this runtime's jruby-openssl serves {@code capability} through
     * fast_random now (its FastRandom module, RSA, EC or AES, installed it, and it
     * is not switched off since): cheap enough for every call of a replaced
     * method. Asked of the provider in this runtime's jruby-openssl, whose
     * switches are its own even where runtimes share fast_random's classes.
     */
    static boolean serving(Ruby runtime, ProviderHook.Capability capability) {
        JRubyOpenSslProvider provider = provider(runtime, capability);
        return provider != null && provider.isActive(capability);
    }

    /** The provider this runtime's FastRandom module of {@code capability} put into jruby-openssl, or null. */
    static JRubyOpenSslProvider provider(Ruby runtime, ProviderHook.Capability capability) {
        RubyModule fastRandom = runtime.getModule("FastRandom");
        IRubyObject module = fastRandom == null ? null : fastRandom.getConstantAt(capability.name());
        Object provider = module instanceof RubyModule ? ((RubyModule) module).getInternalVariable(PROVIDER) : null;
        return provider instanceof JRubyOpenSslProvider ? (JRubyOpenSslProvider) provider : null;
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
