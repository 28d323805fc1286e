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
 */
public final class OpenSslTlsEngine extends SSLEngine {
    private static final Method APPLICATION_PROTOCOL = method("getApplicationProtocol");
    private static final Method HANDSHAKE_APPLICATION_PROTOCOL = method("getHandshakeApplicationProtocol");

    private final SSLEngine engine;

    /** netty's {@code engine}, as jruby-openssl is to see it. */
    public OpenSslTlsEngine(SSLEngine engine) {
        super(engine.getPeerHost(), engine.getPeerPort());
        this.engine = engine;
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
        SSLEngineResult result = engine.unwrap(src, dsts, offset, length);
        if (result.getStatus() == SSLEngineResult.Status.CLOSED
                && result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
            return new SSLEngineResult(SSLEngineResult.Status.OK, SSLEngineResult.HandshakeStatus.FINISHED,
                    result.bytesConsumed(), result.bytesProduced());
        }
        return result;
    }

    @Override
    public SSLEngineResult wrap(ByteBuffer[] srcs, int offset, int length, ByteBuffer dst) throws SSLException {
        return engine.wrap(srcs, offset, length, dst);
    }

    @Override public Runnable getDelegatedTask() { return engine.getDelegatedTask(); }

    @Override public void closeInbound() throws SSLException { engine.closeInbound(); }

    @Override public boolean isInboundDone() { return engine.isInboundDone(); }

    @Override public void closeOutbound() { engine.closeOutbound(); }

    @Override public boolean isOutboundDone() { return engine.isOutboundDone(); }

    @Override public String[] getSupportedCipherSuites() { return engine.getSupportedCipherSuites(); }

    @Override public String[] getEnabledCipherSuites() { return engine.getEnabledCipherSuites(); }

    @Override public void setEnabledCipherSuites(String[] suites) { engine.setEnabledCipherSuites(suites); }

    @Override public String[] getSupportedProtocols() { return engine.getSupportedProtocols(); }

    @Override public String[] getEnabledProtocols() { return engine.getEnabledProtocols(); }

    @Override public void setEnabledProtocols(String[] protocols) { engine.setEnabledProtocols(protocols); }

    @Override public SSLSession getSession() { return engine.getSession(); }

    @Override public SSLSession getHandshakeSession() { return engine.getHandshakeSession(); }

    @Override public void beginHandshake() throws SSLException { engine.beginHandshake(); }

    @Override public SSLEngineResult.HandshakeStatus getHandshakeStatus() { return engine.getHandshakeStatus(); }

    @Override public void setUseClientMode(boolean mode) { engine.setUseClientMode(mode); }

    @Override public boolean getUseClientMode() { return engine.getUseClientMode(); }

    @Override public void setNeedClientAuth(boolean need) { engine.setNeedClientAuth(need); }

    @Override public boolean getNeedClientAuth() { return engine.getNeedClientAuth(); }

    @Override public void setWantClientAuth(boolean want) { engine.setWantClientAuth(want); }

    @Override public boolean getWantClientAuth() { return engine.getWantClientAuth(); }

    @Override public void setEnableSessionCreation(boolean flag) { engine.setEnableSessionCreation(flag); }

    @Override public boolean getEnableSessionCreation() { return engine.getEnableSessionCreation(); }

    @Override public SSLParameters getSSLParameters() { return engine.getSSLParameters(); }

    @Override public void setSSLParameters(SSLParameters parameters) { engine.setSSLParameters(parameters); }

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
        }
    }
}
