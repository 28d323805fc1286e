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

import javax.crypto.KeyAgreement;
import javax.crypto.KeyAgreementSpi;
import javax.crypto.SecretKey;
import javax.crypto.ShortBufferException;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.random.Diagnostics;

/**
 * ECDH key agreement (the raw shared secret: the x coordinate of d Q, as
 * long as a field element, as BouncyCastle's "ECDH") on the {@code :openssl}
 * EC engine. A peer point not on the private key's curve, keys the engine
 * does not take, parameters, a request for a SecretKey, the {@code :java}
 * engine and any engine failure (with one warning) go to BouncyCastle's own
 * agreement: stock's results and exceptions.
 */
final class EngineEcdh extends KeyAgreementSpi {
    private final Provider bouncyCastle;
    private final String algorithm;

    private KeyAgreement delegate; // BouncyCastle's, when our engine does not take the keys
    private ECPrivateKey privateKey;
    private SecureRandom random;
    private OpenSslEcEngine engine;
    private EcCurve curve;
    private ECPublicKey peer;

    EngineEcdh(Provider bouncyCastle, String algorithm) {
        this.bouncyCastle = bouncyCastle;
        this.algorithm = algorithm;
    }

    @Override
    protected void engineInit(Key key, SecureRandom random) throws InvalidKeyException {
        delegate = null;
        peer = null;
        this.random = random;
        OpenSslEcEngine current = EcEngines.current();
        EcCurve keyCurve = current != null && key instanceof ECPrivateKey ? EcCurve.of(((ECPrivateKey) key).getParams()) : null;
        if (keyCurve == null) {
            engine = null;
            delegate = bouncyCastle();
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
        delegate = bouncyCastle();
        delegate.init(key, params, random);
    }

    @Override
    protected Key engineDoPhase(Key key, boolean lastPhase) throws InvalidKeyException {
        if (delegate == null && !(lastPhase && key instanceof ECPublicKey && ours((ECPublicKey) key))) {
            delegate = bouncyCastle(); // it says what is wrong, as stock
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
        if (peer == null) throw new IllegalStateException("ECDH needs the peer's public key (doPhase) first");
        ECPoint w = peer.getW();
        try {
            byte[] secret = engine.derive(privateKey, curve, w.getAffineX(), w.getAffineY());
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.DERIVE);
            return secret;
        } catch (EcEngineException e) {
            Diagnostics.warnOnce("the openssl EC engine failed (" + e.getMessage() + "); such operations run on jruby-openssl's Java code");
            EcStats.countFallback();
        } catch (IllegalArgumentException e) {
            // A key no engine takes: BouncyCastle does it, as stock.
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
        try {
            KeyAgreement plain = bouncyCastle();
            plain.init(privateKey, random);
            plain.doPhase(peer, true);
            return plain.generateSecret();
        } catch (InvalidKeyException e) {
            throw new IllegalStateException(e.toString(), e);
        } finally {
            peer = null;
        }
    }

    @Override
    protected int engineGenerateSecret(byte[] sharedSecret, int offset) throws IllegalStateException, ShortBufferException {
        if (delegate != null) {
            EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
            return delegate.generateSecret(sharedSecret, offset);
        }
        byte[] secret = engineGenerateSecret();
        if (sharedSecret.length - offset < secret.length) throw new ShortBufferException("ECKeyAgreement - buffer too short");
        System.arraycopy(secret, 0, sharedSecret, offset, secret.length);
        java.util.Arrays.fill(secret, (byte) 0);
        return secret.length;
    }

    @Override
    protected SecretKey engineGenerateSecret(String secretAlgorithm) throws NoSuchAlgorithmException, InvalidKeyException {
        if (delegate == null) {
            if (peer == null) throw new IllegalStateException("ECDH needs the peer's public key (doPhase) first");
            delegate = bouncyCastle(); // how a secret becomes a key for an algorithm is BouncyCastle's
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

    private KeyAgreement bouncyCastle() throws InvalidKeyException {
        try {
            return KeyAgreement.getInstance(algorithm, bouncyCastle);
        } catch (NoSuchAlgorithmException e) {
            throw new InvalidKeyException(algorithm + " is not available: " + e.getMessage(), e);
        }
    }

}
