package fastrandom.ec.jca;

import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.ProviderException;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.function.Supplier;

import javax.crypto.KeyAgreement;
import javax.crypto.KeyAgreementSpi;
import javax.crypto.SecretKey;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jni.XdhKey;

/**
 * The JVM-wide provider's X25519 and X448 key agreement (RFC 7748, as JSSE
 * asks for a TLS 1.3 shared secret) on the {@code :openssl} EC engine: one
 * native call, on the native key the generator kept for a key it made
 * ({@link EngineXdhKeyPairGenerator}), else one built from the key's
 * encoding. Keys, parameters and calls it does not take go to the next
 * provider's agreement, as does a peer OpenSSL refuses (all zeros: a point
 * of small order), so that provider's exception is what the caller gets;
 * only if that provider accepts what OpenSSL refused did the engine fail,
 * which is warned once.
 */
final class EngineXdh extends KeyAgreementSpi {
    private static final String TLS_PREMASTER = "TlsPremasterSecret";

    private final String algorithm; // "XDH", "X25519" or "X448", as asked for
    private final Supplier<Provider> next;
    private PrivateKey privateKey;
    private XdhKey.Type type;
    private OpenSslEcEngine engine;
    private PublicKey peer;
    private byte[] secret;
    private KeyAgreement handedOver; // the next provider's, for what this one does not take

    EngineXdh(String algorithm, Supplier<Provider> next) {
        this.algorithm = algorithm;
        this.next = next;
    }

    @Override
    protected void engineInit(Key key, SecureRandom random) throws InvalidKeyException {
        OpenSslEcEngine current = EcEngines.current();
        XdhKey.Type keyType = key instanceof PrivateKey ? XdhEncoding.typeOf(key) : null;
        if (current == null || keyType == null || !current.serves(keyType) || !("XDH".equals(algorithm) || keyType.name().equals(algorithm))) {
            KeyAgreement plain = nextAgreement();
            plain.init(key, random); // its exception leaves this agreement as it was, as the JDK's does
            forget();
            handedOver = plain;
            return;
        }
        forget();
        engine = current;
        privateKey = (PrivateKey) key;
        type = keyType;
    }

    @Override
    protected void engineInit(Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        if (params == null || EngineXdhKeyPairGenerator.named(params) == XdhEncoding.typeOf(key)) {
            engineInit(key, random);
            return;
        }
        KeyAgreement plain = nextAgreement();
        plain.init(key, params, random);
        forget();
        handedOver = plain;
    }

    @Override
    protected Key engineDoPhase(Key key, boolean lastPhase) throws InvalidKeyException {
        if (handedOver != null) return handedOver.doPhase(key, lastPhase);
        if (privateKey == null) throw new IllegalStateException("Not initialized");
        if (secret != null) throw new IllegalStateException("Phase already executed"); // the JDK's words
        if (!lastPhase || !(key instanceof PublicKey) || XdhEncoding.typeOf(key) != type) return viaNext().doPhase(key, lastPhase);
        peer = (PublicKey) key;
        try {
            secret = engine.deriveXdh(privateKey, type, () -> XdhEncoding.raw(privateKey, type), XdhEncoding.raw(key, type));
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.DERIVE);
            return null;
        } catch (EcEngineException e) {
            // A refused peer (small order) is the next provider's to refuse; if it does not, the engine failed.
            KeyAgreement plain = viaNext();
            plain.doPhase(key, true);
            EngineEcdsaSignature.warnFallback(e, plain.getProvider(), true);
            return null;
        }
    }

    /** The next provider's agreement, initialized with this one's private key, taking over from here. */
    private KeyAgreement viaNext() throws InvalidKeyException {
        KeyAgreement plain = nextAgreement();
        plain.init(privateKey);
        forget();
        handedOver = plain;
        EcStats.count(EcEngines.JAVA, EcStats.Operation.DERIVE);
        return plain;
    }

    @Override
    protected byte[] engineGenerateSecret() throws IllegalStateException {
        if (handedOver != null) return handedOver.generateSecret();
        byte[] result = takeSecret();
        return result;
    }

    @Override
    protected int engineGenerateSecret(byte[] sharedSecret, int offset) throws IllegalStateException, ShortBufferException {
        if (handedOver != null) return handedOver.generateSecret(sharedSecret, offset);
        if (secret == null) throw new IllegalStateException("Not initialized correctly");
        if (sharedSecret.length - offset < secret.length) { // the JDK's check and words (a null array: its NullPointerException)
            throw new ShortBufferException("Need " + secret.length + " bytes, only " + (sharedSecret.length - offset) + " available");
        }
        byte[] result = takeSecret();
        System.arraycopy(result, 0, sharedSecret, offset, result.length);
        Arrays.fill(result, (byte) 0);
        return result.length;
    }

    @Override
    protected SecretKey engineGenerateSecret(String secretAlgorithm) throws IllegalStateException, NoSuchAlgorithmException,
            InvalidKeyException {
        if (handedOver != null) return handedOver.generateSecret(secretAlgorithm);
        if (!TLS_PREMASTER.equals(secretAlgorithm)) { // the next provider's answer (its names, its errors)
            KeyAgreement plain = viaNextAgain();
            return plain.generateSecret(secretAlgorithm);
        }
        byte[] result = takeSecret();
        try {
            return new SecretKeySpec(result, secretAlgorithm);
        } finally {
            Arrays.fill(result, (byte) 0);
        }
    }

    /** For a secret already derived here: the next provider's agreement, with the same keys. */
    private KeyAgreement viaNextAgain() throws InvalidKeyException {
        if (secret == null) throw new IllegalStateException("Not initialized correctly");
        PublicKey peerKey = peer;
        KeyAgreement plain = viaNext();
        plain.doPhase(peerKey, true);
        return plain;
    }

    /** The secret, after which the agreement waits for its next peer (as the JDK's does). */
    private byte[] takeSecret() {
        if (secret == null) throw new IllegalStateException("Not initialized correctly");
        byte[] result = secret;
        secret = null;
        peer = null;
        return result;
    }

    private KeyAgreement nextAgreement() {
        try {
            return KeyAgreement.getInstance(algorithm, next.get());
        } catch (NoSuchAlgorithmException | RuntimeException e) {
            throw new ProviderException("no other provider has " + algorithm + " key agreement", e);
        }
    }

    private void forget() {
        if (secret != null) Arrays.fill(secret, (byte) 0);
        secret = null;
        peer = null;
        privateKey = null;
        type = null;
        engine = null;
        handedOver = null;
    }
}
