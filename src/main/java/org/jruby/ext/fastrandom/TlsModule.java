package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.support.Diagnostics;
import fastrandom.tls.TlsStats;
import fastrandom.tls.openssl.OpenSslTls;

/**
 * {@code FastRandom::TLS}: {@code OpenSSL::SSL::SSLSocket}'s data path
 * ({@code sysread}, {@code syswrite} and their non-blocking forms, under
 * every read and write of the socket) on fast_random's code
 * ({@link SSLSocketMethods}), the engine and handshake jruby-openssl's:
 * <pre>
 *   FastRandom::TLS.installed?   # =&gt; true once openssl is loaded
 *   FastRandom::TLS.problem      # =&gt; nil, or why the data path stays jruby-openssl's
 *   FastRandom::TLS.stats        # =&gt; {reads: 4100, read_bytes: 67108864, writes: 3, written_bytes: 120,
 *                                #     waits: 12, stock_calls: 2}
 *   FastRandom::TLS.uninstall    # jruby-openssl's own methods again (FAST_RANDOM_TLS=0 before the require: never installed)
 *   FastRandom::TLS.install      # and back
 * </pre>
 * and, with {@code FAST_RANDOM_TLS=openssl} or {@code engine = :openssl},
 * handshakes on OpenSSL's engine ({@link OpenSslEngines}):
 * <pre>
 *   FastRandom::TLS.engine           # =&gt; :jsse or :openssl
 *   FastRandom::TLS.engine_of(ssl)   # =&gt; which engine a socket runs on
 *   FastRandom::TLS.jsse_reason(ctx) # =&gt; why a context stays on JSSE under :openssl
 * </pre>
 * Defined in Java when first named ({@link FastRandomModule#const_missing})
 * and installed by the openssl hook ({@link OpenSSLHook}).
 */
public final class TlsModule {
    /** Set on the FastRandom module when the openssl hook left the data path stock: why. */
    static final String PROBLEM = "tls_problem";
    /** Set on the FastRandom module: the engine new connections get, {@link #OPENSSL} or {@link #JSSE} (unset). */
    private static final String ENGINE = "tls_engine";
    static final String OPENSSL = "openssl";
    static final String JSSE = "jsse";
    /** The start of every warning that leaves the data path jruby-openssl's. */
    static final String STAYS = "OpenSSL::SSL::SSLSocket's data path stays jruby-openssl's";

    private TlsModule() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        RubyModule tls = RubyModule.newModule(runtime);
        Bindings.define(tls, TlsModule.class);
        fastRandom.setConstant("TLS", tls);
        return tls;
    }

    /**
     * The calls fast_random's data path answered (reads: those that said
     * {@code :wait_readable} or the end too; writes: those that took data)
     * and the bytes of application data they returned or took, the waits
     * for a socket, and the calls it handed to jruby-openssl's methods
     * (before a connection is up, during its initial handshake, on a
     * closed IO, with arguments that are not an Integer and a String, empty
     * reads and writes, during or after a failed check at first use). Over
     * the JVM (or the class loader fast_random's jar is in).
     */
    @JRubyMethod(name = "stats", meta = true)
    public static IRubyObject stats(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        RubyHash stats = RubyHash.newHash(runtime);
        stats.fastASet(runtime.newSymbol("reads"), runtime.newFixnum(TlsStats.reads()));
        stats.fastASet(runtime.newSymbol("read_bytes"), runtime.newFixnum(TlsStats.readBytes()));
        stats.fastASet(runtime.newSymbol("writes"), runtime.newFixnum(TlsStats.writes()));
        stats.fastASet(runtime.newSymbol("written_bytes"), runtime.newFixnum(TlsStats.writtenBytes()));
        stats.fastASet(runtime.newSymbol("waits"), runtime.newFixnum(TlsStats.waits()));
        stats.fastASet(runtime.newSymbol("stock_calls"), runtime.newFixnum(TlsStats.stockCalls()));
        stats.fastASet(runtime.newSymbol("openssl_connections"), runtime.newFixnum(TlsStats.opensslConnections()));
        stats.fastASet(runtime.newSymbol("jsse_connections"), runtime.newFixnum(TlsStats.jsseConnections()));
        return stats;
    }

    /** Whether new connections of this runtime start on the OpenSSL engine ({@link OpenSslEngines}). */
    static boolean opensslEngine(Ruby runtime) {
        return OPENSSL.equals(runtime.getModule("FastRandom").getInternalVariable(ENGINE));
    }

    static void setEngine(Ruby runtime, String engine) {
        runtime.getModule("FastRandom").setInternalVariable(ENGINE, engine);
    }

    /**
     * The engine the handshakes of new connections start on: {@code :jsse}
     * (jruby-openssl's, the default) or {@code :openssl}
     * ({@code FAST_RANDOM_TLS=openssl}, or {@link #set_engine}).
     */
    @JRubyMethod(name = "engine", meta = true)
    public static IRubyObject engine(ThreadContext context, IRubyObject self) {
        return context.runtime.newSymbol(opensslEngine(context.runtime) ? OPENSSL : JSSE);
    }

    /**
     * {@code FastRandom::TLS.engine = :openssl} or {@code :jsse}: for the
     * connections whose handshake begins afterwards. {@code :openssl}
     * loads the engine first, and raises EngineUnavailableError saying why
     * where it cannot run (the data path uninstalled, no engine for this
     * platform, its library refused).
     */
    @JRubyMethod(name = "engine=", meta = true)
    public static IRubyObject set_engine(ThreadContext context, IRubyObject self, IRubyObject engine) {
        String name = engine instanceof RubySymbol || engine instanceof RubyString ? engine.asJavaString() : null;
        if (JSSE.equals(name)) {
            setEngine(context.runtime, JSSE);
        } else if (OPENSSL.equals(name)) {
            if (!SSLSocketMethods.installed(context.runtime)) {
                throw Errors.engineUnavailable(context, "the OpenSSL engine runs under fast_random's data path, which is not installed");
            }
            if (OpenSslTls.provider() == null) {
                throw Errors.engineUnavailable(context, OpenSslTls.problem());
            }
            setEngine(context.runtime, OPENSSL);
        } else {
            throw context.runtime.newArgumentError("unknown TLS engine " + engine.inspect() + " (:openssl or :jsse)");
        }
        return engine;
    }

    /** The OpenSSL engine's TLS library ("BoringSSL (netty-tcnative 2.0.84.Final)"), loading it; nil where it cannot run. */
    @JRubyMethod(name = "engine_version", meta = true)
    public static IRubyObject engine_version(ThreadContext context, IRubyObject self) {
        String version = OpenSslTls.version();
        return version == null ? context.nil : context.runtime.newString(version);
    }

    /** Why the OpenSSL engine cannot run here, loading it; nil where it can. */
    @JRubyMethod(name = "engine_problem", meta = true)
    public static IRubyObject engine_problem(ThreadContext context, IRubyObject self) {
        if (OpenSslTls.provider() != null) return context.nil;
        return context.runtime.newString(OpenSslTls.problem());
    }

    /** Which engine an SSLSocket's connection runs on: {@code :openssl}, {@code :jsse}, or nil before its handshake has begun. */
    @JRubyMethod(name = "engine_of", meta = true)
    public static IRubyObject engine_of(ThreadContext context, IRubyObject self, IRubyObject socket) {
        if (!SSLSocketMethods.installed(context.runtime)) return context.nil;
        if (!context.runtime.getClassFromPath(SSLSocketMethods.CLASS).isInstance(socket)) {
            throw context.runtime.newTypeError(socket, context.runtime.getClassFromPath(SSLSocketMethods.CLASS));
        }
        String engine = SSLSocketMethods.engineOf(context, socket);
        return engine == null ? context.nil : context.runtime.newSymbol(engine);
    }

    /**
     * Why an SSLContext's connections stay on JSSE with the engine
     * {@code :openssl} (the client's reason, else the server's), or nil:
     * none, or none made yet.
     */
    @JRubyMethod(name = "jsse_reason", meta = true)
    public static IRubyObject jsse_reason(ThreadContext context, IRubyObject self, IRubyObject sslContext) {
        String reason = OpenSslEngines.jsseReason(context.runtime, sslContext);
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    /** Whether this runtime's SSLSocket reads and writes on fast_random's code now (false before openssl is loaded). */
    @JRubyMethod(name = "installed?", meta = true)
    public static IRubyObject installed_p(ThreadContext context, IRubyObject self) {
        SSLSocketMethods.checkIfPending(context); // on a release the suite has not run on: the check first, for an answer that holds
        return context.runtime.newBoolean(SSLSocketMethods.installed(context.runtime));
    }

    /** Why the openssl hook left the data path jruby-openssl's (what the release lacks, its check at load, FAST_RANDOM_TLS=0), or nil. */
    @JRubyMethod(name = "problem", meta = true)
    public static IRubyObject problem(ThreadContext context, IRubyObject self) {
        SSLSocketMethods.checkIfPending(context);
        if (SSLSocketMethods.installed(context.runtime)) return context.nil;
        Object problem = context.runtime.getModule("FastRandom").getInternalVariable(PROBLEM);
        return problem instanceof String ? context.runtime.newString((String) problem) : context.nil;
    }

    /**
     * Puts fast_random's methods on OpenSSL::SSL::SSLSocket, whole or not at
     * all, with the check at load on a release the suite has not run on;
     * EngineUnavailableError saying why when this jruby-openssl lacks what
     * they need or fails the check. openssl must be loaded. The openssl
     * hook calls it, unless FAST_RANDOM_TLS=0.
     */
    @JRubyMethod(name = "install", meta = true)
    public static IRubyObject install(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        if (!OpenSSLHook.defined(runtime, SSLSocketMethods.CLASS)) {
            throw Errors.engineUnavailable(context, "openssl is not loaded (fast_random hooks in when it is)");
        }
        String tooOld = JRubyOpenSsl.tooOld(runtime);
        if (tooOld != null) throw Errors.engineUnavailable(context, tooOld);
        try {
            JRubyOpenSsl.require(runtime, JRubyOpenSsl.Capability.TLS);
        } catch (JRubyOpenSsl.Unusable e) {
            runtime.getModule("FastRandom").setInternalVariable(PROBLEM, e.getMessage());
            throw Errors.engineUnavailable(context, e.getMessage());
        }
        SSLSocketMethods.install(runtime, !JRubyOpenSsl.tested(runtime));
        runtime.getModule("FastRandom").removeInternalVariable(PROBLEM);
        return context.tru;
    }

    /**
     * The data path's check on a release the suite has not run on
     * ({@link TlsCheck}), at the first call of one of its methods (at load,
     * jruby-openssl's Ruby files are not loaded yet, and no SSLSocket can be
     * made): true when it passed; else jruby-openssl's methods are put back,
     * with one warning, kept for {@link #problem}. Ruby's control flow goes
     * on, once they are back.
     */
    static boolean checkFirstUse(ThreadContext context) {
        Ruby runtime = context.runtime;
        boolean passed = false;
        try {
            JRubyOpenSsl.check(context, JRubyOpenSsl.Capability.TLS, "at its first use");
            passed = true;
        } catch (JRubyOpenSsl.Unusable e) {
            String warning = STAYS + ": " + e.getMessage();
            runtime.getModule("FastRandom").setInternalVariable(PROBLEM, warning);
            Diagnostics.warn(warning);
        } catch (RuntimeException | LinkageError e) {
            if (JRubyOpenSsl.isControlFlow(context, e)) {
                runtime.getModule("FastRandom").setInternalVariable(PROBLEM, STAYS + ": its check at its first use was cut short (" + e + ")");
                throw e;
            }
            String warning = STAYS + " (its check failed: " + e + ")";
            runtime.getModule("FastRandom").setInternalVariable(PROBLEM, warning);
            Diagnostics.warn(warning);
        } finally {
            if (!passed) SSLSocketMethods.uninstall(runtime); // whatever stopped the check: nothing unchecked stays in
        }
        return passed;
    }

    /** Gives OpenSSL::SSL::SSLSocket jruby-openssl's own methods back (a call already in fast_random's finishes there). */
    @JRubyMethod(name = "uninstall", meta = true)
    public static IRubyObject uninstall(ThreadContext context, IRubyObject self) {
        SSLSocketMethods.uninstall(context.runtime);
        context.runtime.getModule("FastRandom").setInternalVariable(PROBLEM, "FastRandom::TLS.uninstall was called");
        return context.nil;
    }
}
