package org.jruby.ext.fastrandom;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.jruby.Ruby;
import org.jruby.RubyArray;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.ProviderHook;
import fastrandom.jni.LibraryCopy;
import fastrandom.jni.LibCrypto;
import fastrandom.rsa.GmpLibrary;
import fastrandom.rsa.GmpRsaEngine;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaStats;

/**
 * {@code FastRandom::RSA}: fast RSA for jruby-openssl. With openssl loaded,
 * {@code OpenSSL::PKey::RSA}'s private and public operations (sign, verify,
 * private/public encrypt and decrypt, sign_raw, sign_pss and verify_pss,
 * and OpenSSL::PKey::PKey#sign/#verify) run on a native engine, with the
 * same results as stock jruby-openssl:
 * <pre>
 *   FastRandom::RSA.engine            # =&gt; :openssl, :gmp or :java
 *   FastRandom::RSA.engine = :gmp     # or FAST_RANDOM_RSA_ENGINE=gmp before the require
 *   FastRandom::RSA.engine_problem(:gmp)  # =&gt; nil, or why it cannot run here
 *   FastRandom::RSA.stats             # =&gt; {openssl: {private: 12, public: 40}, gmp: {...}, java: {...}, fallbacks: 0}
 *   FastRandom::RSA.installed?        # =&gt; true once openssl is loaded
 * </pre>
 * :openssl is OpenSSL's libcrypto (what MRI uses) through fast_random's
 * JNI library; :gmp is GMP through Square's jnagmp; :java is jruby-openssl's
 * own BouncyCastle code. Unless one is chosen, the first RSA operation
 * picks the first of :openssl and :gmp that loads and passes a known-answer
 * self-test; if neither does, RSA stays on :java with one warning.
 *
 * <p>Defined in Java when first named ({@link FastRandomModule#const_missing})
 * or when openssl is loaded ({@link OpenSSLHook}), never by
 * {@code require "fast_random"} alone: apps that do not use RSA pay nothing
 * for it. Every method works before openssl is loaded: installed? is false,
 * an engine chosen then is applied when openssl arrives. Nothing here needs
 * jruby-openssl's BouncyCastle: the PSS methods, which do, are defined when
 * openssl is loaded ({@link #install}).
 */
public final class RsaModule {
    /**
     * The :gmp engine's libraries, in the gem's vendor directory, in this
     * order: JNA, then jnagmp, then its BouncyCastle RSA engine.
     */
    private static final String[] VENDOR_JARS = { "jna", "jnagmp", "bouncycastle-rsa" };

    private RsaModule() {}

    /**
     * Defines FastRandom::RSA (the caller holds the lock that makes this
     * happen once), after adding the vendor jars to JRuby's class loader
     * (which loads no class: JNA and libgmp load when the :gmp engine is
     * first tried), then applies {@code FAST_RANDOM_RSA_ENGINE}.
     */
    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        ThreadContext context = runtime.getCurrentContext();
        requireVendorJars(runtime, fastRandom);
        String vendor = fastRandom.getConstantAt("LIBRARY_DIR").asJavaString() + "/vendor";
        if (GemFiles.inArchive(vendor)) GmpLibrary.setArchivedVendor(vendor, GemFiles.resolver(runtime));
        // Named only once complete: another thread that sees the constant sees every method.
        RubyModule rsa = RubyModule.newModule(runtime);
        rsa.setConstant("EngineUnavailableError", fastRandom.getConstant("EngineUnavailableError"));
        RubyArray<?> engines = runtime.newArray(runtime.newSymbol(OpenSslRsaEngine.NAME),
                runtime.newSymbol(GmpRsaEngine.NAME), runtime.newSymbol(RsaEngines.JAVA));
        rsa.setConstant("ENGINES", engines.freeze(context));
        Bindings.define(rsa, RsaModule.class);
        fastRandom.setConstant("RSA", rsa);
        Configuration.apply(context, Configuration.RSA_ENGINE, Configuration.of(runtime).rsaEngine, value -> set_engine(context, rsa, value));
        return rsa;
    }

    /**
     * Requires {@code vendor/NAME-VERSION.jar} for each of {@link #VENDOR_JARS},
     * in that order: those fast_random's jar records ({@link LibraryCopy#recordedPaths}),
     * as a directory inside an archive cannot always be listed, else the
     * newest in the vendor directory. A jar that is not there is left out
     * (the :gmp engine then says what it misses).
     */
    private static void requireVendorJars(Ruby runtime, RubyModule fastRandom) {
        String libraryDir = fastRandom.getConstantAt("LIBRARY_DIR").asJavaString();
        List<String> candidates = new ArrayList<>();
        for (String path : LibraryCopy.recordedPaths()) {
            if (path.startsWith("vendor/") && path.endsWith(".jar")) candidates.add(path.substring("vendor/".length()));
        }
        if (candidates.isEmpty()) candidates.addAll(Arrays.asList(GemFiles.list(runtime, libraryDir + "/vendor")));
        for (String name : VENDOR_JARS) {
            String newest = null;
            for (String file : candidates) {
                if (file.startsWith(name + "-") && file.endsWith(".jar") && file.length() > name.length() + 1
                        && Character.isDigit(file.charAt(name.length() + 1)) && (newest == null || file.compareTo(newest) > 0)) {
                    newest = file;
                }
            }
            String jar = libraryDir + "/vendor/" + newest;
            if (newest != null && GemFiles.exists(runtime, jar)) runtime.getLoadService().require(jar);
        }
    }

    /** The selected engine, :openssl, :gmp or :java (choosing the default on first use). */
    @JRubyMethod(name = "engine", meta = true)
    public static IRubyObject engine(ThreadContext context, IRubyObject self) {
        if (OpenSSLHook.installProblem(self) != null) return context.runtime.newSymbol(RsaEngines.JAVA);
        return context.runtime.newSymbol(RsaEngines.ENGINES.selected());
    }

    /**
     * Selects :openssl, :gmp or :java (a Symbol or String) for every RSA
     * operation from now on; ArgumentError for any other name,
     * EngineUnavailableError (saying why) when it cannot run here.
     */
    @JRubyMethod(name = "engine=", meta = true)
    public static IRubyObject set_engine(ThreadContext context, IRubyObject self, IRubyObject name) {
        String engine = name instanceof RubySymbol || name instanceof RubyString ? name.asJavaString() : null;
        if (!known(engine)) {
            IRubyObject engines = ((RubyModule) self).getConstant("ENGINES");
            throw context.runtime.newArgumentError("unknown RSA engine " + name.inspect() + " (use one of " + engines.inspect() + ")");
        }
        String problem = RsaEngines.JAVA.equals(engine) ? null : OpenSSLHook.installProblem(self);
        if (problem != null) throw Errors.engineUnavailable(context, problem);
        try {
            RsaEngines.ENGINES.select(engine);
        } catch (IllegalStateException e) {
            throw Errors.engineUnavailable(context, e.getMessage());
        }
        return name;
    }

    /** Nil when the engine ({@code name.to_s}) can run here, else why not (loads and self-tests it). */
    @JRubyMethod(name = "engine_problem", meta = true)
    public static IRubyObject engine_problem(ThreadContext context, IRubyObject self, IRubyObject name) {
        IRubyObject string = name.callMethod(context, "to_s");
        String engine = string instanceof RubyString ? string.asJavaString() : null;
        if (!known(engine)) throw context.runtime.newArgumentError("unknown RSA engine " + name.inspect());
        String reason = RsaEngines.JAVA.equals(engine) ? null : OpenSSLHook.installProblem(self);
        if (reason == null) reason = RsaEngines.ENGINES.unavailableReason(engine);
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    /**
     * Operations per engine since the process started, e.g.
     * {@code {openssl: {private: 12, public: 40}, gmp: {private: 0, public: 0}, java: {...}, fallbacks: 0}}
     * (java: what jruby-openssl's own code did; fallbacks: operations an
     * engine failed, which then ran on jruby-openssl's code), and
     * {@code libcrypto:}, the one :openssl opened ({@code "libcrypto.so.1.1 (OpenSSL 1.1.1w ...)"},
     * nil before it is opened and where none can be).
     */
    @JRubyMethod(name = "stats", meta = true)
    public static IRubyObject stats(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        RubyHash stats = RubyHash.newHash(runtime);
        for (Map.Entry<String, long[]> engine : RsaStats.operations().entrySet()) {
            RubyHash counts = RubyHash.newHash(runtime);
            counts.fastASet(runtime.newSymbol("private"), runtime.newFixnum(engine.getValue()[0]));
            counts.fastASet(runtime.newSymbol("public"), runtime.newFixnum(engine.getValue()[1]));
            stats.fastASet(runtime.newSymbol(engine.getKey()), counts);
        }
        stats.fastASet(runtime.newSymbol("fallbacks"), runtime.newFixnum(RsaStats.fallbacks()));
        String libcrypto = LibCrypto.openedDescription();
        stats.fastASet(runtime.newSymbol("libcrypto"), libcrypto == null ? runtime.getNil() : runtime.newString(libcrypto));
        return stats;
    }

    /** Whether jruby-openssl's RSA goes through fast_random now (false before openssl is loaded). */
    @JRubyMethod(name = "installed?", meta = true)
    public static IRubyObject installed_p(ThreadContext context, IRubyObject self) {
        if (!OpenSSLHook.defined(context.runtime, "OpenSSL::PKey::RSA")) return context.fals;
        return context.runtime.newBoolean(ProviderHook.installed(context.runtime.getJRubyClassLoader(), ProviderHook.Capability.RSA));
    }

    /**
     * Puts the engines into jruby-openssl (openssl must be loaded): the
     * provider's RSA, and fast_random's PSS methods on
     * {@code OpenSSL::PKey::RSA} ({@link RsaPssMethods}), which no provider
     * reaches, those the loaded release has. Whole or not at all: when a
     * step fails, the provider is taken out again before the error goes on.
     * The openssl hook calls it.
     */
    @JRubyMethod(name = "install", meta = true)
    public static IRubyObject install(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.installCapability(context, self, JRubyOpenSsl.Capability.RSA, ProviderHook.Capability.RSA,
                "OpenSSL::PKey::RSA", RsaPssMethods::install);
    }

    /**
     * Gives jruby-openssl back its own provider (for comparisons in tests
     * and benchmarks; engine = :java is the usual switch). Nothing to do
     * before openssl is loaded.
     */
    @JRubyMethod(name = "uninstall", meta = true)
    public static IRubyObject uninstall(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.uninstallCapability(context, self, ProviderHook.Capability.RSA);
    }

    private static boolean known(String engine) {
        return OpenSslRsaEngine.NAME.equals(engine) || GmpRsaEngine.NAME.equals(engine) || RsaEngines.JAVA.equals(engine);
    }
}
