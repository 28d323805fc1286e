package org.jruby.ext.fastrandom;

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

import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jca.ProviderHook;
import fastrandom.jni.EcKey;
import fastrandom.jni.LibCrypto;

/**
 * {@code FastRandom::EC}: fast elliptic curves for jruby-openssl. With
 * openssl loaded, {@code OpenSSL::PKey::EC}'s ECDSA (sign, verify,
 * dsa_sign_asn1, dsa_verify_asn1, sign_raw, verify_raw) and ECDH (derive,
 * dh_compute_key) run on OpenSSL's libcrypto for P-256 and P-521 (P-384
 * and secp256k1 stay on BouncyCastle's faster code, see
 * {@code EcCurve.beatsBouncyCastle}), with stock's results and errors:
 * <pre>
 *   FastRandom::EC.engine            # =&gt; :openssl (the default here) or :java
 *   FastRandom::EC.engine = :java    # or FAST_RANDOM_EC_ENGINE=java before the require
 *   FastRandom::EC.engine_problem(:openssl)  # =&gt; nil, or why it cannot run here
 *   FastRandom::EC.stats             # =&gt; {openssl: {sign: 3, verify: 5, derive: 1}, java: {...}, fallbacks: 0, verify_tables: 0, table_verifications: 0}
 *   FastRandom::EC.installed?        # =&gt; true once openssl is loaded
 * </pre>
 * Defined in Java when first named ({@link FastRandomModule#const_missing}),
 * and installed by the openssl hook ({@link OpenSSLHook}); every method
 * works before openssl is loaded. Curves and keys the engine does not take
 * run on jruby-openssl's code, silently.
 */
public final class EcModule {
    private EcModule() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        // Named only once complete: another thread that sees the constant sees every method.
        RubyModule ec = RubyModule.newModule(runtime);
        ec.setConstant("EngineUnavailableError", fastRandom.getConstant("EngineUnavailableError"));
        RubyArray<?> engines = runtime.newArray(runtime.newSymbol(OpenSslEcEngine.NAME), runtime.newSymbol(EcEngines.JAVA));
        ec.setConstant("ENGINES", engines.freeze(runtime.getCurrentContext()));
        Bindings.define(ec, EcModule.class);
        fastRandom.setConstant("EC", ec);
        ThreadContext context = runtime.getCurrentContext();
        Configuration.apply(context, Configuration.EC_ENGINE, Configuration.of(runtime).ecEngine, value -> set_engine(context, ec, value));
        return ec;
    }

    /** The selected engine, :openssl or :java (choosing the default on first use). */
    @JRubyMethod(name = "engine", meta = true)
    public static IRubyObject engine(ThreadContext context, IRubyObject self) {
        if (OpenSSLHook.installProblem(self) != null) return context.runtime.newSymbol(EcEngines.JAVA);
        return context.runtime.newSymbol(EcEngines.ENGINES.selected());
    }

    /**
     * Selects :openssl or :java (a Symbol or String) for every EC operation
     * from now on; ArgumentError for any other name, EngineUnavailableError
     * (saying why) when :openssl cannot run here.
     */
    @JRubyMethod(name = "engine=", meta = true)
    public static IRubyObject set_engine(ThreadContext context, IRubyObject self, IRubyObject name) {
        String engine = engineName(context, self, name);
        String problem = EcEngines.JAVA.equals(engine) ? null : OpenSSLHook.installProblem(self);
        if (problem != null) throw Errors.engineUnavailable(context, problem);
        try {
            EcEngines.ENGINES.select(engine);
        } catch (IllegalStateException e) {
            throw Errors.engineUnavailable(context, e.getMessage());
        }
        return name;
    }

    /** Nil when the engine can run here, else why not (loads and self-tests it). */
    @JRubyMethod(name = "engine_problem", meta = true)
    public static IRubyObject engine_problem(ThreadContext context, IRubyObject self, IRubyObject name) {
        String engine = engineName(context, self, name);
        String reason = EcEngines.JAVA.equals(engine) ? null : OpenSSLHook.installProblem(self);
        if (reason == null) reason = EcEngines.ENGINES.unavailableReason(engine);
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    /**
     * {@code {openssl: {sign:, verify:, derive:}, java: {...}, fallbacks:}} since the process started,
     * {@code verify_tables:}, the public keys' verification tables that exist now, and
     * {@code table_verifications:}, the verifications a table decided (a subset of the
     * openssl verifications: not those whose table path failed and ECDSA_do_verify decided),
     * and {@code libcrypto:}, the one the engine opened ({@code "libcrypto.so.3 (OpenSSL 3.0.19 ...)"},
     * nil before it is opened and where none can be).
     */
    @JRubyMethod(name = "stats", meta = true)
    public static IRubyObject stats(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        RubyHash stats = RubyHash.newHash(runtime);
        for (Map.Entry<String, long[]> engine : EcStats.operations().entrySet()) {
            RubyHash counts = RubyHash.newHash(runtime);
            for (EcStats.Operation operation : EcStats.Operation.values()) {
                counts.fastASet(FastRandomModule.symbol(runtime, operation), runtime.newFixnum(engine.getValue()[operation.ordinal()]));
            }
            stats.fastASet(runtime.newSymbol(engine.getKey()), counts);
        }
        stats.fastASet(runtime.newSymbol("fallbacks"), runtime.newFixnum(EcStats.fallbacks()));
        stats.fastASet(runtime.newSymbol("verify_tables"), runtime.newFixnum(EcKey.liveVerifyTables()));
        stats.fastASet(runtime.newSymbol("table_verifications"), runtime.newFixnum(EcKey.tableVerifications()));
        String libcrypto = LibCrypto.openedDescription();
        stats.fastASet(runtime.newSymbol("libcrypto"), libcrypto == null ? runtime.getNil() : runtime.newString(libcrypto));
        return stats;
    }

    /** Whether jruby-openssl's EC goes through fast_random now (false before openssl is loaded). */
    @JRubyMethod(name = "installed?", meta = true)
    public static IRubyObject installed_p(ThreadContext context, IRubyObject self) {
        if (context.runtime.getObject().getConstantAt("OpenSSL") == null) return context.fals;
        return context.runtime.newBoolean(ProviderHook.installed(context.runtime.getJRubyClassLoader(), ProviderHook.Capability.EC));
    }

    /**
     * Puts the EC engine into jruby-openssl (openssl must be loaded): the
     * provider's ECDSA and ECDH, and fast_random's methods on
     * {@code OpenSSL::PKey::EC} ({@link EcMethods}), those the loaded release
     * has. Whole or not at all, as {@link RsaModule#install}. The openssl
     * hook calls it.
     */
    @JRubyMethod(name = "install", meta = true)
    public static IRubyObject install(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.installCapability(context, self, JRubyOpenSsl.Capability.EC, ProviderHook.Capability.EC,
                "OpenSSL::PKey::EC", EcMethods::install);
    }

    /** Gives jruby-openssl its own EC back (for comparisons; engine = :java is the usual switch). */
    @JRubyMethod(name = "uninstall", meta = true)
    public static IRubyObject uninstall(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.uninstallCapability(context, self, ProviderHook.Capability.EC);
    }

    private static String engineName(ThreadContext context, IRubyObject self, IRubyObject name) {
        if (name instanceof RubySymbol || name instanceof RubyString) {
            String engine = name.asJavaString();
            if (OpenSslEcEngine.NAME.equals(engine) || EcEngines.JAVA.equals(engine)) return engine;
        }
        IRubyObject engines = ((RubyModule) self).getConstant("ENGINES");
        throw context.runtime.newArgumentError("unknown EC engine " + name.inspect() + " (use one of " + engines.inspect() + ")");
    }
}
