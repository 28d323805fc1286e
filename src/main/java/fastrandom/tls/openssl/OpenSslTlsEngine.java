package fastrandom.tls.openssl;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * The OpenSSL engine as jruby-openssl's SSLSocket sees it: netty's engine,
 * with one difference in what {@code unwrap} says, so that jruby-openssl's
 * code (written to JSSE, which unwraps one record a call) reads it right.
 * BoringSSL unwraps every whole record it is given in one call: the peer's
 * last handshake message and its close_notify together (a TLS 1.3 client
 * that closes right after its handshake) come back as CLOSED with the
 * handshake FINISHED, and jruby-openssl's handshake step then stops short
 * of making the bytes it unwrapped readable (its buffer left cleared, a
 * read returning 16 KiB of nothing the peer sent). Here that result says
 * OK: the handshake finishes as JSSE's would, whatever came with it is
 * read, and the next read finds the engine's inbound side done (the end).
 * Everything else goes to netty's engine as it is.
 *
 * <p>After each call, {@code leave} runs on the calling thread: netty keeps
 * per-thread state (its InternalThreadLocalMap, in a JDK ThreadLocal) whose
 * value holds netty's classes, and so the engine's class loader and the
 * runtime's, for as long as the thread lives (a server's pool thread
 * outlives a redeploy); the provider's {@code leave} drops it.
 */
public final class OpenSslTlsEngine extends SSLEngine {
    private static final Method APPLICATION_PROTOCOL = method("getApplicationProtocol");
    private static final Method HANDSHAKE_APPLICATION_PROTOCOL = method("getHandshakeApplicationProtocol");

    private final SSLEngine engine;
    private final Runnable leave;

    /** netty's {@code engine}, as jruby-openssl is to see it; {@code leave} runs after each call. */
    public OpenSslTlsEngine(SSLEngine engine, Runnable leave) {
        super(engine.getPeerHost(), engine.getPeerPort());
        this.engine = engine;
        this.leave = leave;
    }

    /** SSLEngine's Java 9 methods (ALPN), called where the JDK has them (the gem's classes are built for Java 8). */
    private static Method method(String name) {
        try {
            return SSLEngine.class.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** netty's engine underneath. */
    public SSLEngine engine() {
        return engine;
    }

    @Override
    public SSLEngineResult unwrap(ByteBuffer src, ByteBuffer[] dsts, int offset, int length) throws SSLException {
        SSLEngineResult result;
        try {
            result = engine.unwrap(src, dsts, offset, length);
        } catch (IllegalStateException | UnsupportedOperationException e) {
            throw failed(e);
        } finally {
            leave.run();
        }
        if (result.getStatus() == SSLEngineResult.Status.CLOSED
                && result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
            return new SSLEngineResult(SSLEngineResult.Status.OK, SSLEngineResult.HandshakeStatus.FINISHED,
                    result.bytesConsumed(), result.bytesProduced());
        }
        return result;
    }

    @Override
    public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
        try {
            return engine.wrap(srcs, offset, length, dst);
        } catch (IllegalStateException | UnsupportedOperationException e) {
            throw failed(e);
        } finally {
            leave.run();
        }
    }

    /**
     * What netty's engine threw where JSSE's throws an SSLException (its
     * native state gone, say): as one, so that jruby-openssl raises its
     * SSLError, never a Java exception.
     */
    private static SSLException failed(RuntimeException e) {
        return new SSLException("the OpenSSL engine failed: " + e, e);
    }

    /** A call of netty's engine that throws nothing checked, then {@code leave}. */
    private <T> T call(java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } finally {
            leave.run();
        }
    }

    /** The same, for one that returns nothing. */
    private void run(Runnable call) {
        try {
            call.run();
        } finally {
            leave.run();
        }
    }

    @Override public Runnable getDelegatedTask() { return call(engine::getDelegatedTask); }

    @Override
    public void closeInbound() throws SSLException {
        try {
            engine.closeInbound();
        } finally {
            leave.run();
        }
    }

    @Override public boolean isInboundDone() { return call(engine::isInboundDone); }

    @Override public void closeOutbound() { run(engine::closeOutbound); }

    @Override public boolean isOutboundDone() { return call(engine::isOutboundDone); }

    @Override public String[] getSupportedCipherSuites() { return call(engine::getSupportedCipherSuites); }

    @Override public String[] getEnabledCipherSuites() { return call(engine::getEnabledCipherSuites); }

    @Override public void setEnabledCipherSuites(String[] suites) { run(() -> engine.setEnabledCipherSuites(suites)); }

    @Override public String[] getSupportedProtocols() { return call(engine::getSupportedProtocols); }

    @Override public String[] getEnabledProtocols() { return call(engine::getEnabledProtocols); }

    @Override public void setEnabledProtocols(String[] protocols) { run(() -> engine.setEnabledProtocols(protocols)); }

    @Override public SSLSession getSession() { return call(engine::getSession); }

    @Override public SSLSession getHandshakeSession() { return call(engine::getHandshakeSession); }

    @Override
    public void beginHandshake() throws SSLException {
        try {
            engine.beginHandshake();
        } finally {
            leave.run();
        }
    }

    @Override public SSLEngineResult.HandshakeStatus getHandshakeStatus() { return call(engine::getHandshakeStatus); }

    @Override public void setUseClientMode(boolean mode) { run(() -> engine.setUseClientMode(mode)); }

    @Override public boolean getUseClientMode() { return call(engine::getUseClientMode); }

    @Override public void setNeedClientAuth(boolean need) { run(() -> engine.setNeedClientAuth(need)); }

    @Override public boolean getNeedClientAuth() { return call(engine::getNeedClientAuth); }

    @Override public void setWantClientAuth(boolean want) { run(() -> engine.setWantClientAuth(want)); }

    @Override public boolean getWantClientAuth() { return call(engine::getWantClientAuth); }

    @Override public void setEnableSessionCreation(boolean flag) { run(() -> engine.setEnableSessionCreation(flag)); }

    @Override public boolean getEnableSessionCreation() { return call(engine::getEnableSessionCreation); }

    @Override public SSLParameters getSSLParameters() { return call(engine::getSSLParameters); }

    @Override public void setSSLParameters(SSLParameters parameters) { run(() -> engine.setSSLParameters(parameters)); }

    /** The ALPN protocol agreed (Java 9's SSLEngine method; this class is built for Java 8). */
    public String getApplicationProtocol() {
        return call(APPLICATION_PROTOCOL);
    }

    /** The ALPN protocol being agreed (Java 9's SSLEngine method). */
    public String getHandshakeApplicationProtocol() {
        return call(HANDSHAKE_APPLICATION_PROTOCOL);
    }

    private String call(Method method) {
        if (method == null) throw new UnsupportedOperationException("this JDK's SSLEngine has no ALPN");
        try {
            return (String) method.invoke(engine);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } finally {
            leave.run();
        }
    }
}
