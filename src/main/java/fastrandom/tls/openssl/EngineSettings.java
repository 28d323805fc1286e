package fastrandom.tls.openssl;

import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * What one engine context is built from: a jruby-openssl SSLContext's
 * settings, as jruby-openssl gives them to JSSE (its key and trust
 * managers, so that the certificate chosen and the trust decision stay
 * its own; the protocols and cipher suites its own code enables).
 */
public final class EngineSettings {
    /** Whether the engines are clients (connect) or servers (accept). */
    public final boolean client;
    /** The certificate and key this end presents, if any. */
    public final X509ExtendedKeyManager keys;
    /** The peer's certificate chain's verification. */
    public final X509TrustManager trust;
    /** The protocols enabled, in JSSE's names ("TLSv1.3"). */
    public final String[] protocols;
    /** The cipher suites enabled, in JSSE's names, the engine's own TLS 1.3 suites included or not at all. */
    public final String[] cipherSuites;
    /** The ALPN protocols a client offers or a server accepts, in its order of preference; null: no ALPN. */
    public final String[] applicationProtocols;
    /** Seconds a session is kept for resumption; 0: the engine's default. */
    public final long sessionTimeout;
    /** Sessions kept for resumption at most; 0: the engine's default. */
    public final long sessionCacheSize;

    public EngineSettings(boolean client, X509ExtendedKeyManager keys, X509TrustManager trust, String[] protocols,
                          String[] cipherSuites, String[] applicationProtocols, long sessionTimeout, long sessionCacheSize) {
        this.client = client;
        this.keys = keys;
        this.trust = trust;
        this.protocols = protocols.clone();
        this.cipherSuites = cipherSuites.clone();
        this.applicationProtocols = applicationProtocols == null ? null : applicationProtocols.clone();
        this.sessionTimeout = sessionTimeout;
        this.sessionCacheSize = sessionCacheSize;
    }
}
