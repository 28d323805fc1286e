package org.jruby.ext.fastrandom;

import static org.jruby.ext.fastrandom.Reflection.field;
import static org.jruby.ext.fastrandom.Reflection.get;
import static org.jruby.ext.fastrandom.Reflection.method;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * What {@link OpenSslEngines} reads of jruby-openssl's
 * {@code OpenSSL::SSL::SSLContext} (its Java class,
 * {@code org.jruby.ext.openssl.SSLContext}) to give a socket the OpenSSL
 * engine with the context's own settings: its internal context (the state
 * {@code setup} froze: key, certificate, store, verify mode, ALPN, session
 * timeout), the key and trust managers it gives JSSE, made anew on that
 * state, the protocols and cipher suites its own code enables on an engine,
 * and the socket's context and {@code session=}. The same names in
 * every release from 0.15.0 to 0.16.2; a release without them leaves every
 * handshake on JSSE, with one warning ({@link OpenSslEngines}).
 */
final class SSLContextFields {
    private static final String CONTEXT_CLASS = "org.jruby.ext.openssl.SSLContext";
    private static final String SOCKET_CLASS = "org.jruby.ext.openssl.SSLSocket";

    private final Class<?> contextType;
    private final Field internalContext;
    private final Field sessionCacheSize;
    /** What jruby-openssl reads again for each socket's engine, not frozen by setup: ciphers, options, ssl_version, min/max_version. */
    private final Field[] perEngine;
    private final Method createJsseEngine;
    private final Field alpnProtocols;
    private final Field alpnSelectCallback;
    private final Field timeout;
    private final Constructor<?> keyManager;
    private final Constructor<?> trustManager;
    private final Method lastVerifyResult;
    private final Field socketContext;
    private final Field socketSession;
    private final Field socketVerifyResult;

    private SSLContextFields(ClassLoader loader) throws ReflectiveOperationException {
        contextType = Class.forName(CONTEXT_CLASS, false, loader);
        Class<?> internal = Class.forName(CONTEXT_CLASS + "$InternalContext", false, loader);
        internalContext = field(contextType, "internalContext", internal);
        sessionCacheSize = field(contextType, "sessionCacheSize", int.class);
        perEngine = new Field[] {field(contextType, "ciphers", String.class), field(contextType, "options", long.class),
            field(contextType, "protocol", String.class), field(contextType, "minProtocolVersion", int.class),
            field(contextType, "maxProtocolVersion", int.class), sessionCacheSize};
        createJsseEngine = method(contextType, "createSSLEngine", String.class, int.class);
        alpnProtocols = field(internal, "alpnProtocols", String[].class);
        alpnSelectCallback = internal.getDeclaredField("alpnSelectCallback");
        alpnSelectCallback.setAccessible(true);
        timeout = field(internal, "timeout", int.class);
        keyManager = constructor(Class.forName(CONTEXT_CLASS + "$KeyManagerImpl", false, loader), internal);
        trustManager = constructor(Class.forName(CONTEXT_CLASS + "$TrustManagerImpl", false, loader), internal);
        if (!X509ExtendedKeyManager.class.isAssignableFrom(keyManager.getDeclaringClass())
                || !X509TrustManager.class.isAssignableFrom(trustManager.getDeclaringClass())) {
            throw new NoSuchMethodException("its key and trust managers are not X509ExtendedKeyManager and X509TrustManager");
        }
        lastVerifyResult = method(contextType, "getLastVerifyResult");
        Class<?> socketType = Class.forName(SOCKET_CLASS, false, loader);
        socketContext = field(socketType, "sslContext", contextType);
        socketVerifyResult = field(socketType, "verifyResult", int.class);
        socketSession = socketType.getDeclaredField("setSession");
        socketSession.setAccessible(true);
    }

    /** jruby-openssl's, from {@code loader}; ReflectiveOperationException saying what it lacks. */
    static SSLContextFields of(ClassLoader loader) throws ReflectiveOperationException {
        return new SSLContextFields(loader);
    }


    private static Constructor<?> constructor(Class<?> owner, Class<?>... parameters) throws NoSuchMethodException {
        Constructor<?> constructor = owner.getDeclaredConstructor(parameters);
        constructor.setAccessible(true);
        return constructor;
    }

    /**
     * The settings jruby-openssl reads again for each socket's engine, as
     * they are now (setup does not freeze them: {@code ciphers=},
     * {@code options=}, {@code ssl_version=}, {@code min_version=},
     * {@code max_version=}, {@code session_cache_size=} still change what
     * the next socket gets).
     */
    java.util.List<Object> perEngineSettings(Object context) {
        Object[] values = new Object[perEngine.length];
        for (int i = 0; i < values.length; i++) values[i] = get(perEngine[i], context);
        return java.util.Arrays.asList(values);
    }

    /** The socket's SSLContext (a jruby-openssl one), or null (also for a socket of another class loader's jruby-openssl). */
    Object context(Object socket) {
        if (!socketContext.getDeclaringClass().isInstance(socket)) return null;
        return get(socketContext, socket);
    }

    /**
     * Sets the socket's {@code verify_result} to its context's last one, as
     * jruby-openssl does after a handshake step that ran the engine's
     * delegated tasks (netty hands the certificate's verification to one);
     * for the steps that fail before any task ran.
     */
    void copyVerifyResult(Object socket) throws ReflectiveOperationException {
        Object context = context(socket);
        if (context == null) return;
        socketVerifyResult.setInt(socket, (Integer) call(lastVerifyResult, context));
    }

    /** Whether {@code session=} gave the socket a session to resume. */
    boolean sessionSet(Object socket) {
        return get(socketSession, socket) != null;
    }

    /** The context's state frozen by {@code setup}, or null before it. */
    Object internal(Object context) {
        if (!contextType.isInstance(context)) return null;
        return get(internalContext, context);
    }

    /** The key manager jruby-openssl gives JSSE, on {@code internal}. */
    X509ExtendedKeyManager keyManager(Object internal) throws ReflectiveOperationException {
        return (X509ExtendedKeyManager) keyManager.newInstance(internal);
    }

    /** The trust manager jruby-openssl gives JSSE (its store, verify mode and verify_callback), on {@code internal}. */
    X509TrustManager trustManager(Object internal) throws ReflectiveOperationException {
        return (X509TrustManager) trustManager.newInstance(internal);
    }

    /**
     * A JSSE engine of the context's, as jruby-openssl makes it for a
     * socket: the protocols (ssl_version, min/max_version, options) and
     * cipher suites (ciphers) its own code enables.
     */
    SSLEngine jsseEngine(Object context) throws ReflectiveOperationException {
        return (SSLEngine) call(createJsseEngine, context, null, 0);
    }

    /** alpn_protocols, or null. */
    String[] alpnProtocols(Object internal) {
        return (String[]) get(alpnProtocols, internal);
    }

    /** Whether alpn_select_cb is set. */
    boolean alpnSelectCallback(Object internal) {
        return get(alpnSelectCallback, internal) != null;
    }

    /** The context's session timeout, in seconds (0: none set). */
    int timeout(Object internal) {
        return (Integer) get(timeout, internal);
    }

    /** session_cache_size (0: none set). */
    int sessionCacheSize(Object context) {
        return (Integer) get(sessionCacheSize, context);
    }


    private static Object call(Method method, Object self, Object... args) throws ReflectiveOperationException {
        try {
            return method.invoke(self, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw e;
        }
    }
}
