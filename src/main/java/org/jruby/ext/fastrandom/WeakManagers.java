package org.jruby.ext.fastrandom;

import java.lang.ref.WeakReference;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * jruby-openssl's key and trust managers for one SSLContext's settings,
 * reached through a weak reference to those settings (its internal
 * context), made anew for each call (they are two fields' worth), so that
 * an engine context kept for the settings ({@link OpenSslEngines}) does not
 * keep them alive: it goes when they go, with the SSLContext. While a socket
 * of the context is open, the socket holds the context, so a call never
 * finds them gone; one that did would be refused, never trusted.
 */
final class WeakManagers {
    /** Set on the thread that ran a trust manager's check (in the handshake step: netty's delegated task, or its unwrap). */
    private static final ThreadLocal<Boolean> VERIFIED = new ThreadLocal<>();

    private WeakManagers() {}

    /** Whether a trust manager's check ran on this thread since the last call; clears it. */
    static boolean takeVerified() {
        boolean verified = VERIFIED.get() != null;
        VERIFIED.remove();
        return verified;
    }

    /** Makes jruby-openssl's manager on a context's internal state. */
    @FunctionalInterface
    interface Maker<T> {
        T make(Object internal) throws ReflectiveOperationException;
    }

    private static <T> T target(WeakReference<Object> internal, Maker<T> maker) {
        Object settings = internal.get();
        if (settings == null) throw new IllegalStateException("the SSLContext of this connection is gone");
        try {
            return maker.make(settings);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jruby-openssl's manager could not be made", e);
        }
    }

    /** jruby-openssl's KeyManagerImpl, made for each call. */
    static final class Keys extends X509ExtendedKeyManager {
        private final WeakReference<Object> internal;
        private final Maker<X509ExtendedKeyManager> maker;

        Keys(Object internal, Maker<X509ExtendedKeyManager> maker) {
            this.internal = new WeakReference<>(internal);
            this.maker = maker;
        }

        private X509ExtendedKeyManager keys() {
            return target(internal, maker);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return keys().chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return keys().chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return keys().getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return keys().chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return keys().getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return keys().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys().getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys().getPrivateKey(alias);
        }
    }

    /** jruby-openssl's TrustManagerImpl (its store, verify mode and verify_callback), made for each call. */
    static final class Trust implements X509TrustManager {
        private final WeakReference<Object> internal;
        private final Maker<X509TrustManager> maker;

        Trust(Object internal, Maker<X509TrustManager> maker) {
            this.internal = new WeakReference<>(internal);
            this.maker = maker;
        }

        private X509TrustManager trust() throws CertificateException {
            try {
                return target(internal, maker);
            } catch (IllegalStateException e) {
                throw new CertificateException(e.getMessage(), e);
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            VERIFIED.set(Boolean.TRUE);
            trust().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            VERIFIED.set(Boolean.TRUE);
            trust().checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return target(internal, maker).getAcceptedIssuers();
        }
    }
}
