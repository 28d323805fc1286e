package org.jruby.ext.fastrandom;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

import org.jruby.Ruby;
import org.jruby.RubyBasicObject;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.support.Diagnostics;
import fastrandom.tls.TlsStats;
import fastrandom.tls.openssl.EngineContext;
import fastrandom.tls.openssl.EngineProvider;
import fastrandom.tls.openssl.EngineSettings;
import fastrandom.tls.openssl.OpenSslTls;
import fastrandom.tls.openssl.OpenSslTlsEngine;

/**
 * Gives an {@code OpenSSL::SSL::SSLSocket} the OpenSSL engine
 * ({@code fastrandom.tls.openssl}) before its handshake, when
 * {@code FastRandom::TLS.engine} is {@code :openssl}: at its first
 * {@code connect}/{@code accept} (and their non-blocking forms), in place of
 * the JSSE engine jruby-openssl's setup would make, which then finds this
 * one and keeps it. Everything after is jruby-openssl's own code on the
 * engine: the handshake steps, client authentication, {@code peer_cert},
 * {@code cipher}, {@code ssl_version}, the trust decision (its trust
 * manager, with the store, verify mode and {@code verify_callback}), the
 * hostname check after the handshake, and fast_random's data path.
 *
 * <p>The engine's context is made once for each SSLContext's settings (the
 * state {@code setup} froze) and mode, from what jruby-openssl gives JSSE:
 * its key and trust managers and the protocols and cipher suites its own
 * code enables. A context asking for what BoringSSL cannot do the same way
 * stays on JSSE, whole, with the reason kept
 * ({@code FastRandom::TLS.jsse_reason}): a TLS 1.3 suite chosen without
 * the others (BoringSSL offers all three, always), a protocol other than
 * TLS 1.0 to 1.3, TLS 1.2 suites none of which BoringSSL has, a server's
 * {@code alpn_select_cb} (a Ruby block BoringSSL's server cannot call) or
 * {@code alpn_protocols}, an EC server certificate BoringSSL will not sign
 * with. So does a socket given a session to resume ({@code session=}). Where the
 * engine cannot load, every connection stays on JSSE, with one warning.
 */
final class OpenSslEngines {
    /**
     * What each SSLContext's settings gave, by their object (jruby-openssl's
     * internal context, which {@code setup} makes once; the SSLContext
     * itself is frozen by then): server's and client's. Weak keys, and
     * values that reach the settings only weakly ({@link WeakManagers}), so
     * an entry goes with its SSLContext.
     */
    private static final Map<Object, Kept[]> KEPT = Collections.synchronizedMap(new WeakHashMap<>());
    /** Protocols BoringSSL speaks, in JSSE's names. */
    private static final Set<String> PROTOCOLS = new LinkedHashSet<>(Arrays.asList("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"));
    private static final String TLS13 = "TLSv1.3";

    private static volatile SSLContextFields contextFields;
    private static volatile String contextFieldsMissing;

    private OpenSslEngines() {}

    /** What a context's settings gave, in one mode: the engine context, or why its connections stay on JSSE. */
    private static final class Kept {
        /** The settings jruby-openssl reads per engine, as they were when this was made ({@link SSLContextFields#perEngineSettings}). */
        List<Object> settings;
        final EngineContext engines;
        final String jsseReason;

        Kept(EngineContext engines, String jsseReason) {
            this.engines = engines;
            this.jsseReason = jsseReason;
        }
    }

    /**
     * Before {@code connect} ({@code client}) or {@code accept} runs
     * jruby-openssl's: gives {@code socket} the OpenSSL engine if it has no
     * engine yet and may have it; counts which engine its handshake starts
     * on. Never raises for the engine's sake: what it cannot do leaves the
     * socket to JSSE.
     */
    static void prepare(ThreadContext context, IRubyObject socket, SSLSocketFields fields, boolean client) {
        WeakManagers.takeVerified(); // what this step's trust manager does is what counts after it
        if (fields.hasEngine(socket)) return; // a later step of a non-blocking handshake, or after it
        if (!TlsModule.opensslEngine(context.runtime)) {
            TlsStats.jsse();
            return;
        }
        SSLContextFields contextFields = contextFields(context.runtime);
        Object sslContext = contextFields == null ? null : contextFields.context(socket);
        Object internal = sslContext == null ? null : contextFields.internal(sslContext);
        if (internal == null || contextFields.sessionSet(socket)) { // no setup (stock's error follows), or session= to resume: JSSE's
            TlsStats.jsse();
            return;
        }
        Kept kept = kept(sslContext, contextFields, internal, client);
        if (kept.engines == null) {
            TlsStats.jsse();
            return;
        }
        IRubyObject hostname = ((RubyBasicObject) socket).getInstanceVariable("@hostname");
        String host = hostname == null || hostname.isNil() ? null : hostname.toString();
        SSLEngine engine;
        try {
            engine = kept.engines.newEngine(host == null || host.isEmpty() ? null : host, fields.remotePort(socket));
        } catch (RuntimeException | LinkageError e) { // the engine could not make one (out of native memory, say): JSSE's, as stock
            Diagnostics.warnOnce("fast_random: a TLS connection stays on JSSE: the OpenSSL engine could not make one (" + e + ")");
            TlsStats.jsse();
            return;
        }
        fields.giveEngine(socket, engine);
        TlsStats.openssl();
    }

    /**
     * After a step of {@code socket}'s handshake (connect, accept, or one of
     * their non-blocking calls), ended or {@code raised}: on the OpenSSL
     * engine, its {@code verify_result} from its context where its trust
     * manager ran in the step, as jruby-openssl sets it after JSSE's tasks
     * (a verify_callback's accepted error reads as on stock), and where the
     * step failed (a handshake refused before any certificate was verified
     * reads the context's last result, jruby-openssl's "unspecified" until
     * one is verified, never V_OK).
     */
    static void afterHandshakeStep(ThreadContext context, IRubyObject socket, SSLSocketFields fields, boolean raised) {
        boolean verified = WeakManagers.takeVerified();
        SSLEngine engine = fields.engine(socket);
        SSLContextFields contextFields = engine != null && isOpenSsl(engine) && (verified || raised) ? contextFields(context.runtime) : null;
        if (contextFields == null) return;
        try {
            contextFields.copyVerifyResult(socket);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("jruby-openssl's verify result could not be read", e); // read at load: never
        }
    }

    /** Whether {@code socket}'s handshake on the OpenSSL engine resumed a session; null where it is not on that engine. */
    static Boolean sessionReused(IRubyObject socket, SSLSocketFields fields) {
        SSLEngine engine = fields.engine(socket);
        EngineProvider provider = engine == null || !isOpenSsl(engine) ? null : OpenSslTls.provider();
        return provider == null ? null : provider.sessionReused(engine);
    }

    private static boolean isOpenSsl(SSLEngine engine) {
        return engine instanceof OpenSslTlsEngine;
    }

    /** Which engine {@code socket} runs on: "openssl", "jsse", or null before its handshake has begun. */
    static String engineOf(IRubyObject socket, SSLSocketFields fields) {
        SSLEngine engine = fields.engine(socket);
        if (engine == null) return null;
        return isOpenSsl(engine) ? "openssl" : "jsse";
    }

    /**
     * Lets go of every engine context kept, at the teardown of the runtime
     * whose class loader these classes are (nothing else touches the map
     * then, so stale entries would stay): netty-tcnative's native contexts
     * hold JNI global references to their callbacks, whose classes reach
     * this class loader, so a context kept here would keep itself, the
     * engine's class loader and the runtime's alive for good. Let go, each
     * is freed by its finalizer once its sockets are gone.
     */
    static void release() {
        KEPT.clear();
    }

    /**
     * Why connections on {@code sslContext} stay on JSSE with the engine
     * :openssl (the client's reason, else the server's), or null: none, or
     * no connection yet.
     */
    static String jsseReason(Ruby runtime, IRubyObject sslContext) {
        SSLContextFields contextFields = contextFields(runtime);
        Object internal = contextFields == null ? null : contextFields.internal(sslContext);
        Kept[] kept = internal == null ? null : KEPT.get(internal);
        if (kept == null) return null;
        for (int mode = 1; mode >= 0; mode--) {
            if (kept[mode] != null && kept[mode].jsseReason != null) return kept[mode].jsseReason;
        }
        return null;
    }

    private static Kept kept(Object sslContext, SSLContextFields contextFields, Object internal, boolean client) {
        int mode = client ? 1 : 0;
        List<Object> settings = contextFields.perEngineSettings(sslContext);
        Kept[] kept = KEPT.get(internal);
        if (kept != null && kept[mode] != null && kept[mode].settings.equals(settings)) return kept[mode];
        synchronized (internal) { // one context made for a context's settings, whichever thread asks first
            kept = KEPT.computeIfAbsent(internal, key -> new Kept[2]);
            if (kept[mode] == null || !kept[mode].settings.equals(settings)) { // new, or ciphers= and the like since
                Kept made = make(sslContext, contextFields, internal, client);
                made.settings = settings;
                kept[mode] = made;
            }
            return kept[mode];
        }
    }

    private static Kept make(Object sslContext, SSLContextFields contextFields, Object internal, boolean client) {
        EngineProvider provider = OpenSslTls.provider();
        if (provider == null) {
            String problem = OpenSslTls.problem();
            Diagnostics.warnOnce("fast_random: TLS handshakes stay on JSSE: " + problem);
            return new Kept(null, problem);
        }
        try {
            SSLEngine jsse = contextFields.jsseEngine(sslContext);
            List<String> protocols = new ArrayList<>(Arrays.asList(jsse.getEnabledProtocols()));
            for (String protocol : protocols) {
                if (!PROTOCOLS.contains(protocol)) return jsse("the context enables " + protocol + ", which BoringSSL does not speak");
            }
            Set<String> fixed = provider.fixedTls13CipherSuites();
            Set<String> tls13 = new LinkedHashSet<>();
            List<String> others = new ArrayList<>();
            int othersAsked = 0;
            for (String suite : jsse.getEnabledCipherSuites()) {
                if (isTls13(suite)) {
                    tls13.add(suite);
                } else {
                    othersAsked++;
                    if (provider.cipherSuites().contains(suite)) others.add(suite);
                }
            }
            if (!tls13.isEmpty() && !tls13.equals(fixed)) {
                return jsse("its ciphers enable the TLS 1.3 suites " + tls13 + ", and BoringSSL offers " + fixed + " together");
            }
            if (tls13.isEmpty()) protocols.remove(TLS13); // as JSSE: no TLS 1.3 without a suite for it
            boolean below13 = protocols.stream().anyMatch(protocol -> !protocol.equals(TLS13));
            if (below13 && others.isEmpty() && othersAsked > 0) {
                return jsse("none of the TLS 1.2 cipher suites its ciphers enable is BoringSSL's");
            }
            if (!below13) others.clear();
            if (protocols.isEmpty()) return jsse("it enables no protocol");
            String[] alpn = contextFields.alpnProtocols(internal);
            if (!client && contextFields.alpnSelectCallback(internal)) {
                return jsse("its alpn_select_cb is a Ruby block, which BoringSSL's server cannot call");
            }
            if (!client && alpn != null) {
                return jsse("its alpn_protocols on a server: JSSE refuses a client that offers none of them, netty's BoringSSL goes on without");
            }
            WeakManagers.Keys keys = new WeakManagers.Keys(internal, contextFields::keyManager);
            if (!client && !signsWithItsKey(keys)) {
                return jsse("its EC certificate's keyUsage lacks digitalSignature, which BoringSSL requires of a key it signs with");
            }
            List<String> suites = new ArrayList<>(others);
            suites.addAll(tls13);
            EngineSettings settings = new EngineSettings(client, keys,
                    new WeakManagers.Trust(internal, contextFields::trustManager),
                    protocols.toArray(new String[0]), suites.toArray(new String[0]), alpn,
                    contextFields.timeout(internal), contextFields.sessionCacheSize(sslContext));
            return new Kept(provider.newContext(settings), null);
        } catch (SSLException | ReflectiveOperationException | RuntimeException | LinkageError e) {
            return jsse("BoringSSL refused its settings: " + e);
        }
    }

    private static Kept jsse(String reason) {
        return new Kept(null, reason);
    }

    /**
     * Whether a server's EC certificate may sign its handshakes: BoringSSL
     * refuses one whose keyUsage lacks digitalSignature (JSSE and OpenSSL
     * serve it). No certificate, or not EC: nothing to say.
     */
    private static boolean signsWithItsKey(WeakManagers.Keys keys) {
        String alias = keys.chooseEngineServerAlias("EC", null, null);
        java.security.cert.X509Certificate[] chain = alias == null ? null : keys.getCertificateChain(alias);
        boolean[] usage = chain == null || chain.length == 0 ? null : chain[0].getKeyUsage();
        return usage == null || usage[0];
    }

    /** TLS 1.3's suites are named without a key exchange ("TLS_AES_128_GCM_SHA256"). */
    private static boolean isTls13(String suite) {
        return suite.startsWith("TLS_") && !suite.contains("_WITH_");
    }

    /** jruby-openssl's SSLContext members, read once; null (with one warning) where this release lacks them. */
    private static SSLContextFields contextFields(Ruby runtime) {
        SSLContextFields fields = contextFields;
        if (fields != null || contextFieldsMissing != null) return fields;
        synchronized (OpenSslEngines.class) {
            if (contextFields != null || contextFieldsMissing != null) return contextFields;
            try {
                contextFields = SSLContextFields.of(runtime.getJRubyClassLoader());
            } catch (ReflectiveOperationException | RuntimeException e) {
                contextFieldsMissing = "this jruby-openssl's SSLContext lacks what the OpenSSL engine needs (" + e + ")";
                Diagnostics.warnOnce("fast_random: TLS handshakes stay on JSSE: " + contextFieldsMissing);
            }
            return contextFields;
        }
    }
}
