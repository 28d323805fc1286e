package org.jruby.ext.fastrandom;

import java.util.Map;

import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.ProviderHook;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaStats;

/**
 * {@code FastRandom::RSA::Native}: the Java half of FastRandom::RSA (the
 * Ruby half, lib/fast_random/rsa.rb, checks arguments and documents them).
 */
public final class RsaModule {
    private RsaModule() {}

    static RubyModule define(Ruby runtime, RubyModule rsa) {
        RubyModule natives = rsa.defineOrGetModuleUnder("Native");
        Bindings.define(natives, RsaModule.class);
        return natives;
    }

    /** The selected engine's name (choosing the default on first use). */
    @JRubyMethod(name = "engine", meta = true)
    public static IRubyObject engine(ThreadContext context, IRubyObject self) {
        return context.runtime.newSymbol(RsaEngines.ENGINES.selected());
    }

    @JRubyMethod(name = "engine=", meta = true)
    public static IRubyObject set_engine(ThreadContext context, IRubyObject self, IRubyObject name) {
        try {
            RsaEngines.ENGINES.select(name.asJavaString());
        } catch (IllegalStateException e) {
            throw Errors.engineUnavailable(context, e.getMessage());
        }
        return name;
    }

    /** Nil when the engine can run here, else why not. */
    @JRubyMethod(name = "engine_problem", meta = true)
    public static IRubyObject engine_problem(ThreadContext context, IRubyObject self, IRubyObject name) {
        String reason = RsaEngines.ENGINES.unavailableReason(name.asJavaString());
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    /**
     * Operations per engine since the process started:
     * {@code {openssl: {private: n, public: n}, gmp: {...}, java: {...}, fallbacks: n}}.
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
        return stats;
    }

    /**
     * Puts the engines into jruby-openssl (openssl must be loaded), and
     * fast_random's PSS methods on {@code OpenSSL::PKey::RSA} (see {@link RsaPssMethods}).
     */
    @JRubyMethod(name = "install", meta = true)
    public static IRubyObject install(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        ProviderHook.install(runtime.getJRubyClassLoader(), ProviderHook.Capability.RSA);
        RsaPssMethods.install(runtime.getClassFromPath("OpenSSL::PKey::RSA"));
        return context.nil;
    }

    @JRubyMethod(name = "uninstall", meta = true)
    public static IRubyObject uninstall(ThreadContext context, IRubyObject self) {
        ProviderHook.uninstall(context.runtime.getJRubyClassLoader(), ProviderHook.Capability.RSA);
        return context.nil;
    }

    @JRubyMethod(name = "installed?", meta = true)
    public static IRubyObject installed_p(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(ProviderHook.installed(context.runtime.getJRubyClassLoader(), ProviderHook.Capability.RSA));
    }
}
