package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyArray;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.JvmProvider;
import fastrandom.jni.CpuRandom;
import fastrandom.random.Backend;
import fastrandom.random.Call;
import fastrandom.support.Diagnostics;
import fastrandom.random.ThreadGenerators;

/**
 * The API of the {@code FastRandom} module on JRuby (MRI gets the inactive
 * one from lib/fast_random/inactive.rb):
 * <pre>
 *   FastRandom.backend            # =&gt; :drbg (the default) or :rdrand
 *   FastRandom.backend = :rdrand  # or FAST_RANDOM_BACKEND=rdrand before the require
 *   FastRandom.rdrand_available?  # =&gt; true where RDRAND works (loads the native library)
 *   FastRandom.rdrand_problem     # =&gt; nil, or why not
 *   FastRandom.reseed!            # every generator reseeds before its next output
 *   FastRandom.stats              # =&gt; {generators:, seeds:, bytes_generated:, calls: {drbg: {...}, rdrand: {...}}}
 *   FastRandom.active?            # =&gt; true
 *   FastRandom.install_jca_provider    # opt-in, JVM-wide (or FAST_RANDOM_JCA=1 before the require)
 *   FastRandom.uninstall_jca_provider
 *   FastRandom.jca_provider_installed?
 * </pre>
 * Defined in Java, like the rest of what {@code require "fast_random"}
 * loads: on a cold JVM every Ruby file and method definition costs start-up
 * time, a populator generated at build time almost none.
 * {@code FastRandom::Generator} (controls and test hooks),
 * {@code FastRandom::RSA} ({@link RsaModule}), {@code FastRandom::EC}
 * ({@link EcModule}) and {@code FastRandom::AES} ({@link AesModule}) are
 * defined on first use, through {@link #const_missing}.
 */
public final class FastRandomModule {
    private FastRandomModule() {}

    static void define(Ruby runtime, RubyModule fastRandom, Configuration configuration) {
        Bindings.define(fastRandom, FastRandomModule.class);
        RubyArray<?> backends = runtime.newArray(symbol(runtime, Backend.DRBG), symbol(runtime, Backend.RDRAND));
        fastRandom.setConstant("BACKENDS", backends.freeze(runtime.getCurrentContext()));
        // FAST_RANDOM_JCA=1 in ENV before the require: install_jca_provider at once.
        String jca = configuration.jca.isNil() ? null : configuration.jca.asJavaString();
        if ("1".equals(jca)) {
            JvmProvider.install(runtime);
        } else if (jca != null && !jca.isEmpty() && !"0".equals(jca)) {
            Diagnostics.warnOnce(Configuration.JCA + "=" + jca + " is not understood (1 installs the JVM-wide provider, 0 does not); "
                    + "the provider is not installed");
        }
    }

    /** The generator behind SecureRandom: :drbg or :rdrand. */
    @JRubyMethod(name = "backend", meta = true)
    public static IRubyObject backend(ThreadContext context, IRubyObject self) {
        return symbol(context.runtime, ThreadGenerators.backend());
    }

    /**
     * Switches every thread to {@code name} (:drbg or :rdrand, a Symbol or
     * String) before its next output; raises ArgumentError for any other
     * name and BackendUnavailableError, saying why, when RDRAND cannot be used here.
     */
    @JRubyMethod(name = "backend=", meta = true)
    public static IRubyObject set_backend(ThreadContext context, IRubyObject self, IRubyObject name) {
        Backend backend = null;
        if (name instanceof RubySymbol || name instanceof RubyString) {
            String wanted = name.asJavaString();
            for (Backend candidate : Backend.values()) {
                if (symbol(context.runtime, candidate).asJavaString().equals(wanted)) backend = candidate;
            }
        }
        if (backend == null) {
            IRubyObject backends = ((RubyModule) self).getConstant("BACKENDS");
            throw context.runtime.newArgumentError("unknown backend " + name.inspect() + " (use one of " + backends.inspect() + ")");
        }
        try {
            ThreadGenerators.setBackend(backend);
        } catch (IllegalStateException e) {
            throw Errors.backendUnavailable(context, e.getMessage());
        }
        return name;
    }

    /** Whether the :rdrand backend can run here (the CPU has RDRAND, it passed its self-test, the library loaded). */
    @JRubyMethod(name = "rdrand_available?", meta = true)
    public static IRubyObject rdrand_available_p(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(CpuRandom.rdrandBackend());
    }

    /** Why RDRAND is not usable here, or nil. */
    @JRubyMethod(name = "rdrand_problem", meta = true)
    public static IRubyObject rdrand_problem(ThreadContext context, IRubyObject self) {
        String reason = CpuRandom.rdrandBackendProblem();
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    /**
     * Makes every generator drop buffered output and reseed before it hands
     * out anything else: the primary from the OS now, the caller's own at once.
     */
    @JRubyMethod(name = "reseed!", meta = true)
    public static IRubyObject reseed_bang(ThreadContext context, IRubyObject self) {
        ThreadGenerators.reseedAll();
        return context.nil;
    }

    /**
     * Process-wide counters: generators created (shared and threads' own),
     * seeds taken from the OS (by the primary DRBG, which seeds all others),
     * bytes generated, and calls per backend and kind
     * ({@code calls: {drbg: {uuid: 12, hex: 0, ...}, rdrand: {...}}}).
     */
    @JRubyMethod(name = "stats", meta = true)
    public static IRubyObject stats(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        RubyHash stats = RubyHash.newHash(runtime);
        stats.fastASet(runtime.newSymbol("generators"), runtime.newFixnum(ThreadGenerators.generatorsCreated()));
        stats.fastASet(runtime.newSymbol("seeds"), runtime.newFixnum(ThreadGenerators.seedsTaken()));
        stats.fastASet(runtime.newSymbol("bytes_generated"), runtime.newFixnum(ThreadGenerators.bytesGenerated()));
        RubyHash calls = RubyHash.newHash(runtime);
        for (Backend backend : Backend.values()) {
            RubyHash counts = RubyHash.newHash(runtime);
            for (Call call : Call.values()) counts.fastASet(symbol(runtime, call), runtime.newFixnum(call.count(backend)));
            calls.fastASet(symbol(runtime, backend), counts);
        }
        stats.fastASet(runtime.newSymbol("calls"), calls);
        return stats;
    }

    /** True where SecureRandom is backed by fast_random (JRuby). */
    @JRubyMethod(name = "active?", meta = true)
    public static IRubyObject active_p(ThreadContext context, IRubyObject self) {
        return context.tru;
    }

    /**
     * Registers fast_random's JCA provider ({@link JvmProvider}) first in the
     * JVM's list, for every Java library in the process: the default
     * {@code new SecureRandom()} (and so UUID.randomUUID once it is first
     * called after this, and JSSE), RSA and EC signatures, RSA ciphers and
     * ECDH on the native engines. True when it was installed now, false when
     * it already was, or when another JRuby runtime in this JVM has its own
     * installed (with a warning). This runtime owns it: its teardown
     * removes it.
     */
    @JRubyMethod(name = "install_jca_provider", meta = true)
    public static IRubyObject install_jca_provider(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(JvmProvider.install(context.runtime));
    }

    /**
     * Removes the provider from the JVM's list (the others keep their
     * order); SecureRandoms made meanwhile keep drawing from fast_random's
     * generators. True when it was installed.
     */
    @JRubyMethod(name = "uninstall_jca_provider", meta = true)
    public static IRubyObject uninstall_jca_provider(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(JvmProvider.uninstall());
    }

    /** Whether this runtime's JVM-wide provider is in the JVM's list (false while another runtime's is). */
    @JRubyMethod(name = "jca_provider_installed?", meta = true)
    public static IRubyObject jca_provider_installed_p(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(JvmProvider.installed());
    }

    /**
     * Defines {@code FastRandom::Generator}, {@code FastRandom::RSA} and
     * {@code FastRandom::EC} the first time they are named (not with an
     * autoload registered at load time, whose first use costs JRuby some
     * 20 ms of start-up); any other name raises NameError,
     * as Module#const_missing does. Thread-safe: the first definition wins.
     */
    @JRubyMethod(name = "const_missing", meta = true)
    public static IRubyObject const_missing(ThreadContext context, IRubyObject self, IRubyObject name) {
        RubyModule fastRandom = (RubyModule) self;
        String constant = name.asJavaString();
        if ("Generator".equals(constant)) {
            synchronized (FastRandomModule.class) {
                if (fastRandom.getConstantAt("Generator") == null) GeneratorModule.define(context.runtime, fastRandom);
            }
        } else if ("EC".equals(constant)) {
            synchronized (FastRandomModule.class) {
                if (fastRandom.getConstantAt("EC") == null) EcModule.define(context.runtime, fastRandom);
            }
        } else if ("RSA".equals(constant)) {
            synchronized (FastRandomModule.class) {
                if (fastRandom.getConstantAt("RSA") == null) RsaModule.define(context.runtime, fastRandom);
            }
        } else if ("AES".equals(constant)) {
            synchronized (FastRandomModule.class) {
                if (fastRandom.getConstantAt("AES") == null) AesModule.define(context.runtime, fastRandom);
            }
        } else if ("TLS".equals(constant)) {
            synchronized (FastRandomModule.class) {
                if (fastRandom.getConstantAt("TLS") == null) TlsModule.define(context.runtime, fastRandom);
            }
        } else {
            return fastRandom.const_missing(context, name, Block.NULL_BLOCK);
        }
        return fastRandom.getConstantAt(constant);
    }

    static IRubyObject symbol(Ruby runtime, Enum<?> constant) {
        return runtime.newSymbol(constant.name().toLowerCase(java.util.Locale.ROOT));
    }
}
