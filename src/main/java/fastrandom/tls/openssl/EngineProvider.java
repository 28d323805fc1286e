package fastrandom.tls.openssl;

import java.util.Set;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/** The OpenSSL engine's library, as loaded by {@link EngineClassLoader}: implemented in {@code fastrandom.tls.openssl.netty}. */
public interface EngineProvider {
    /** The TLS library: "BoringSSL". */
    String version();

    /** The cipher suites the library can negotiate, in JSSE's names. */
    Set<String> cipherSuites();

    /** The TLS 1.3 cipher suites the library always offers together (BoringSSL's cannot be chosen one by one). */
    Set<String> fixedTls13CipherSuites();

    /** Whether {@code engine} (one of this provider's) resumed a session in its handshake. */
    boolean sessionReused(SSLEngine engine);

    /** A context for {@code settings}; SSLException when the library refuses them. */
    EngineContext newContext(EngineSettings settings) throws SSLException;
}
