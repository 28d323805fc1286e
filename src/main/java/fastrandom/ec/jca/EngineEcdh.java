package fastrandom.ec.jca;

import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECPoint;
import java.util.function.Predicate;
import java.util.function.Supplier;

import javax.crypto.KeyAgreement;
import javax.crypto.KeyAgreementSpi;
import javax.crypto.SecretKey;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;

/**
 * ECDH key agreement (the raw shared secret: the x coordinate of d Q, as
 * long as a field element, as BouncyCastle's and the JDK's "ECDH") on the
 * {@code :openssl} EC engine; also as the "TlsPremasterSecret" key JSSE asks
 * for. A peer point not on the private key's curve, keys the engine does not
 * take, parameters, a request for another kind of SecretKey, the
 * {@code :java} engine and any engine failure (with one warning) go to the
 * fallback provider's own agreement: jruby-openssl's BouncyCastle (stock's
 * results and exceptions), or for the JVM-wide provider the next provider in
 * the JVM's list.
 *
 * <p>State after a secret, as the fallback's: BouncyCastle keeps the peer's
 * key, so jruby-openssl's provider gives the same secret again; the
 * JVM-wide provider forgets it, as SunEC does, so a second
 * {@code generateSecret} (any form) without {@code doPhase} throws
 * IllegalStateException, and a buffer too short is refused before anything
 * is computed, the state kept.
 */
final class EngineEcdh extends KeyAgreementSpi {
    /** The secret as JSSE's key: the raw shared secret, as the JDK's ECDH gives it. */
    private static final String TLS_PREMASTER_SECRET = "TlsPremasterSecret";

    private final Supplier<Provider> fallback;
    private final Predicate<EcCurve> takes;
    private final String algorithm;
    private final boolean jvmWide; // SunEC's state rules and wording, else BouncyCastle's

    private KeyAgreement delegate; // the fallback's, when our engine does not take the keys
    private ECPrivateKey privateKey;
    private SecureRandom random;
    private OpenSslEcEngine engine;
    private EcCurve curve;
    private ECPublicKey peer;

    EngineEcdh(Supplier<Provider> fallback, Predicate<EcCurve> takes, String algorithm, boolean jvmWide) {
        this.fallback = fallback;
        this.takes = takes;
        this.algorithm = algorithm;
        this.jvmWide = jvmWide;
    }

    @Override
    protected void engineInit(Key key, SecureRandom random) throws InvalidKeyException {
        delegate = null;
        peer = null;
        this.random = random;
        OpenSslEcEngine current = EcEngines.current();
        EcCurve keyCurve = current != null && key instanceof ECPrivateKey ? EcCurve.of(((ECPrivateKey) key).getParams(), takes.and(current::serves)) : null;
        if (keyCurve == null) {
            engine = null;
            delegate = fallback();
            delegate.init(key, random);
            return;
        }
        engine = current;
        curve = keyCurve;
        privateKey = (ECPrivateKey) key;
    }

    @Override
    protected void engineInit(Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        if (params == null) {
            engineInit(key, random);
            return;
        }
        engine = null;
        peer = null;
        delegate = fallback();
        delegate.init(key, params, random);
    }

    @Override
    protected Key engineDoPhase(Key key, boolean lastPhase) throws InvalidKeyException {
        if (delegate == null && !(lastPhase && key instanceof ECPublicKey && ours((ECPublicKey) key))) {
            delegate = fallback(); // it says what is wrong, as without us
            delegate.init(privateKey, random);
        }
        if (delegate != null) return delegate.doPhase(key, lastPhase);
        peer = (ECPublicKey) key;
        return null;
    }

    @Override
    protected byte[] engineGenerateSecret() throws IllegalStateException {
        if (delegate != null) {
            EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
            return delegate.generateSecret();
        }
        if (peer == null) throw new IllegalStateException(jvmWide ? "Not initialized correctly" // SunEC's words
                : "ECDH needs the peer's public key (doPhase) first");
        ECPoint w = peer.getW();
        try {
            byte[] secret = engine.derive(privateKey, curve, w.getAffineX(), w.getAffineY());
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.DERIVE);
            if (jvmWide) peer = null; // SunEC: one secret per doPhase
            return secret;
        } catch (EcEngineException e) {
            EngineEcdsaSignature.warnFallback(e, fallback.get(), jvmWide);
        } catch (IllegalArgumentException e) {
            // A key no engine takes: the fallback does it, as without us.
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
        try {
            KeyAgreement plain = fallback();
            plain.init(privateKey, random);
            plain.doPhase(peer, true);
            byte[] secret = plain.generateSecret();
            if (jvmWide) peer = null;
            return secret;
        } catch (InvalidKeyException e) {
            throw new IllegalStateException(e.toString(), e);
        }
    }

    @Override
    protected int engineGenerateSecret(byte[] sharedSecret, int offset) throws IllegalStateException, ShortBufferException {
        if (delegate != null) {
            EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
            return delegate.generateSecret(sharedSecret, offset);
        }
        int needed = curve.fieldBytes(); // the secret's length: refused before it is computed, the state kept
        if (sharedSecret.length - offset < needed) {
            throw new ShortBufferException(jvmWide ? "Need " + needed + " bytes, only " + (sharedSecret.length - offset) + " available"
                    : "ECKeyAgreement - buffer too short");
        }
        byte[] secret = engineGenerateSecret();
        System.arraycopy(secret, 0, sharedSecret, offset, secret.length);
        java.util.Arrays.fill(secret, (byte) 0);
        return secret.length;
    }

    @Override
    protected SecretKey engineGenerateSecret(String secretAlgorithm) throws NoSuchAlgorithmException, InvalidKeyException {
        if (delegate == null && TLS_PREMASTER_SECRET.equalsIgnoreCase(secretAlgorithm)) {
            return new SecretKeySpec(engineGenerateSecret(), TLS_PREMASTER_SECRET);
        }
        if (delegate == null) {
            if (peer == null) throw new IllegalStateException("ECDH needs the peer's public key (doPhase) first");
            delegate = fallback(); // how a secret becomes a key for another algorithm is the fallback's
            delegate.init(privateKey, random);
            delegate.doPhase(peer, true);
            peer = null;
        }
        return delegate.generateSecret(secretAlgorithm);
    }

    /** Whether the peer's key is on our private key's curve, its point on it. */
    private boolean ours(ECPublicKey key) {
        ECPoint w = key.getW();
        return EcCurve.of(key.getParams()) == curve && w != null && w != ECPoint.POINT_INFINITY
                && curve.contains(w.getAffineX(), w.getAffineY());
    }

    private KeyAgreement fallback() throws InvalidKeyException {
        Provider provider = fallback.get();
        try {
            if (provider == null) throw new NoSuchAlgorithmException("no other provider");
            return KeyAgreement.getInstance(algorithm, provider);
        } catch (NoSuchAlgorithmException e) {
            throw new InvalidKeyException(algorithm + " is not available: " + e.getMessage(), e);
        }
    }
}
