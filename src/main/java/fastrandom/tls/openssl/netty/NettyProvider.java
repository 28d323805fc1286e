package fastrandom.tls.openssl.netty;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.X509ExtendedKeyManager;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.KeyManagerFactoryWrapper;
import io.netty.util.internal.InternalThreadLocalMap;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;

import fastrandom.tls.openssl.EngineContext;
import fastrandom.tls.openssl.EngineProvider;
import fastrandom.tls.openssl.EngineSettings;
import fastrandom.tls.openssl.OpenSslTlsEngine;

/**
 * The engine on netty's {@code OpenSslEngine} over netty-tcnative's static
 * BoringSSL. Contexts are netty's non-reference-counted ones (their
 * {@code SSL_CTX} freed when collected), built with jruby-openssl's key and
 * trust managers, its protocols and cipher suites, no hostname check of
 * netty's (jruby-openssl's Ruby code does it after the handshake, as
 * stock's), and an allocator that keeps nothing per thread (no pool, no
 * thread-local cache: a redeployed application's class loader is not
 * held by a thread pool's threads).
 */
public final class NettyProvider implements EngineProvider {
    /** Direct buffers for the engine's copies of heap buffers, freed at once, no leak tracking. */
    private static final ByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(true, true, true);

    /** BoringSSL's TLS 1.3 suites: always all three. */
    private static final Set<String> TLS13 = Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")));

    /** Whether BouncyCastle, which fast_random's RSA engines work through, is there (jruby-openssl's: not in plain Java). */
    private static final boolean BOUNCY_CASTLE = bouncyCastle();

    private String version;
    /** {@code ReferenceCountedOpenSslEngine.isSessionReused()}: BoringSSL's SSL_session_reused (netty keeps it package-private). */
    private Method sessionReused;

    /**
     * Drops what netty keeps for the calling thread (its InternalThreadLocalMap,
     * whose value holds netty's classes and so this class loader): after each
     * call into netty, so that no thread that outlives a runtime (a server's
     * pool thread, the main thread of an embedding application) keeps its
     * class loaders.
     */
    static void leave() {
        InternalThreadLocalMap.remove();
    }

    /** Initializes netty's OpenSSL support (the JNI library loaded first, by {@link NativeLoad}); fails saying why it is unavailable. */
    public NettyProvider() throws SSLException {
        try {
            initialize();
        } finally {
            leave();
        }
    }

    private void initialize() throws SSLException {
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE); // this copy's own: never an application's logging
        if (!OpenSsl.isAvailable()) {
            Throwable cause = OpenSsl.unavailabilityCause();
            throw new SSLException("netty-tcnative did not initialize: " + cause, cause);
        }
        if (!trustManagersWrapped()) {
            throw new SSLException("netty cannot give a trust manager the JDK's certificate algorithm constraints "
                    + "(jdk.certpath.disabledAlgorithms) in this JVM, as JSSE does: on Java 25 and later it needs "
                    + "--sun-misc-unsafe-memory-access=allow, which JRuby's launcher passes");
        }
        version = OpenSsl.versionString();
        try {
            sessionReused = ReferenceCountedOpenSslEngine.class.getDeclaredMethod("isSessionReused");
            sessionReused.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new SSLException("netty's engine has no isSessionReused(): " + e, e);
        }
    }

    @Override
    public boolean sessionReused(SSLEngine engine) {
        try {
            return (Boolean) sessionReused.invoke(engine instanceof OpenSslTlsEngine ? ((OpenSslTlsEngine) engine).engine() : engine);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("netty's isSessionReused() failed", e);
        } finally {
            leave();
        }
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public Set<String> cipherSuites() {
        return OpenSsl.availableJavaCipherSuites();
    }

    @Override
    public Set<String> fixedTls13CipherSuites() {
        return TLS13;
    }

    private static boolean bouncyCastle() {
        try {
            Class.forName("org.bouncycastle.crypto.params.RSAKeyParameters", false, NettyProvider.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Whether netty wraps a plain X509TrustManager (jruby-openssl's) as JSSE
     * does, so that the JDK's certificate algorithm constraints (MD5
     * signatures, RSA keys below 1024 bits...) apply to a peer's chain on top
     * of jruby-openssl's own verification: netty does it through
     * sun.misc.Unsafe, which it leaves alone on Java 25 and later unless the
     * JVM allows its memory access. Where it cannot, the engine would accept
     * chains JSSE refuses, so it does not run.
     */
    private static boolean trustManagersWrapped() {
        try {
            Method supported = Class.forName("io.netty.handler.ssl.OpenSslX509TrustManagerWrapper", true,
                    NettyProvider.class.getClassLoader()).getDeclaredMethod("isWrappingSupported");
            supported.setAccessible(true);
            return (Boolean) supported.invoke(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** The RSA key a server's key manager gives, or null. */
    private static java.security.PrivateKey serverKey(X509ExtendedKeyManager keys) {
        String alias = keys.chooseEngineServerAlias("RSA", null, null);
        return alias == null ? null : keys.getPrivateKey(alias);
    }

    /** A key manager's certificate chain without its private key: what BoringSSL gets where {@link RsaSigner} signs. */
    private static final class ChainOnly extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager keys;

        ChainOnly(X509ExtendedKeyManager keys) {
            this.keys = keys;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, java.security.Principal[] issuers, SSLEngine engine) {
            return keys.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers, SSLEngine engine) {
            return keys.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return keys.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return keys.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return keys.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return keys.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public java.security.cert.X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public java.security.PrivateKey getPrivateKey(String alias) {
            return null;
        }
    }

    @Override
    public EngineContext newContext(EngineSettings settings) throws SSLException {
        try {
            return build(settings);
        } finally {
            leave();
        }
    }

    private EngineContext build(EngineSettings settings) throws SSLException {
        SslContextBuilder builder;
        // A server's RSA key signs on fast_random's engine: BoringSSL gets the chain without the key
        // (netty-tcnative then hands the signatures to the signer), or it would sign with its own.
        RsaSigner signer = settings.client || settings.keys == null || !BOUNCY_CASTLE ? null : RsaSigner.of(serverKey(settings.keys));
        X509ExtendedKeyManager keyManager = signer == null ? settings.keys : new ChainOnly(settings.keys);
        // jruby-openssl's key manager gives one certificate and key a context: converted for BoringSSL once, not per handshake.
        KeyManagerFactory keys = keyManager == null ? null
                : new OpenSslCachingX509KeyManagerFactory(new KeyManagerFactoryWrapper(keyManager));
        if (settings.client) {
            builder = SslContextBuilder.forClient();
            if (keys != null) builder.keyManager(keys);
        } else {
            builder = SslContextBuilder.forServer(keys);
        }
        if (signer != null) builder.option(OpenSslContextOption.PRIVATE_KEY_METHOD, signer);
        builder.sslProvider(SslProvider.OPENSSL)
                .trustManager(settings.trust)
                .endpointIdentificationAlgorithm(null)
                .protocols(settings.protocols)
                .ciphers(Arrays.asList(settings.cipherSuites), IdentityCipherSuiteFilter.INSTANCE);
        if (settings.sessionTimeout > 0) builder.sessionTimeout(settings.sessionTimeout);
        if (settings.sessionCacheSize > 0) builder.sessionCacheSize(settings.sessionCacheSize);
        if (settings.applicationProtocols != null) {
            builder.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, settings.applicationProtocols));
        }
        SslContext context = builder.build();
        return new EngineContext() {
            @Override
            public SSLEngine newEngine(String host, int port) {
                try {
                    return new OpenSslTlsEngine(host == null ? context.newEngine(ALLOCATOR) : context.newEngine(ALLOCATOR, host, port),
                            NettyProvider::leave);
                } finally {
                    leave();
                }
            }
        };
    }
}
