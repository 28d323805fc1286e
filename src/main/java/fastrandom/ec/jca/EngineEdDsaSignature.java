package fastrandom.ec.jca;

import java.io.ByteArrayOutputStream;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.util.function.Supplier;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jcajce.interfaces.EdDSAPrivateKey;
import org.bouncycastle.jcajce.interfaces.EdDSAPublicKey;

import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jni.EdDsaKey;
import fastrandom.support.EngineRegistry;

/**
 * An EdDSA signature (Ed25519, Ed448: RFC 8032, as jruby-openssl's
 * {@code OpenSSL::PKey} signs and verifies with BouncyCastle's keys) on
 * the {@code :openssl} EC engine: OpenSSL's EdDSA, one native call per
 * signature or verification over the whole message, which EdDSA takes in
 * one piece (so it is kept here until then, as BouncyCastle keeps it).
 * Signatures are deterministic: byte for byte BouncyCastle's and MRI's.
 *
 * <p>Public keys of small order, which OpenSSL's equation lets any
 * signature of the identity's form match, never get here: BouncyCastle
 * refuses them when the key is made (so does jruby-openssl, whatever the
 * encoding), as MRI's OpenSSL does not.
 *
 * <p>Keys of another curve than the algorithm's, keys that are not
 * BouncyCastle's, the {@code :java} engine and any engine failure (with one
 * warning) go to BouncyCastle's own signature, whose results and
 * exceptions are stock's.
 */
final class EngineEdDsaSignature extends SignatureSpi {
    private final Provider bouncyCastle;
    private final String algorithm; // as asked for: "Ed25519", "Ed448" or "EdDSA"
    private final EdDsaKey.Type only; // the curve the algorithm names, or null for EdDSA (the key's)

    private final ByteArrayOutputStream message = new ByteArrayOutputStream();
    private OpenSslEcEngine engine;
    private EdDsaKey.Type type;
    private EdDSAPrivateKey signingKey;
    private EdDSAPublicKey verifyingKey;
    private Signature handedOver; // BouncyCastle's, when this one does not run here

    EngineEdDsaSignature(Provider bouncyCastle, String algorithm, EdDsaKey.Type only) {
        this.bouncyCastle = bouncyCastle;
        this.algorithm = algorithm;
        this.only = only;
    }

    /** The curve of a BouncyCastle EdDSA key the engine takes for this algorithm, or null. */
    private EdDsaKey.Type typeOf(Object key, OpenSslEcEngine current) {
        if (current == null || !(key instanceof EdDSAPrivateKey || key instanceof EdDSAPublicKey)) return null;
        String name = ((java.security.Key) key).getAlgorithm();
        EdDsaKey.Type keyType = "Ed25519".equalsIgnoreCase(name) ? EdDsaKey.Type.ED25519
                : "Ed448".equalsIgnoreCase(name) ? EdDsaKey.Type.ED448 : null;
        return keyType != null && (only == null || only == keyType) && current.serves(keyType) ? keyType : null;
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
        engineInitSign(key, null);
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom random) throws InvalidKeyException {
        forget();
        OpenSslEcEngine current = EcEngines.current();
        EdDsaKey.Type keyType = typeOf(key, current);
        if (keyType == null) {
            handedOver = bouncyCastle();
            if (random == null) handedOver.initSign(key);
            else handedOver.initSign(key, random);
            return;
        }
        engine = current;
        type = keyType;
        signingKey = (EdDSAPrivateKey) key;
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        forget();
        OpenSslEcEngine current = EcEngines.current();
        EdDsaKey.Type keyType = typeOf(key, current);
        if (keyType == null) {
            handedOver = bouncyCastle();
            handedOver.initVerify(key);
            return;
        }
        engine = current;
        type = keyType;
        verifyingKey = (EdDSAPublicKey) key;
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
        if (handedOver != null) handedOver.update(b);
        else if (ready()) message.write(b);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        if (handedOver != null) handedOver.update(b, off, len);
        else if (ready()) message.write(b, off, len);
    }

    private boolean ready() throws SignatureException {
        if (signingKey == null && verifyingKey == null) throw new SignatureException("object not initialized for signature or verification");
        return true;
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
        if (handedOver != null) {
            byte[] signature = handedOver.sign();
            EcStats.count(EcEngines.JAVA, EcStats.Operation.SIGN);
            return signature;
        }
        if (signingKey == null) throw new SignatureException("object not initialized for signature");
        byte[] data = message.toByteArray();
        message.reset();
        try {
            byte[] signature = engine.signEdDsa(signingKey, type, () -> seed(signingKey), data, 0, data.length);
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.SIGN);
            return signature;
        } catch (EcEngineException e) {
            EcStats.fellBack(e, EngineRegistry.JRUBY_OPENSSL_CODE);
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.SIGN);
        try {
            Signature plain = bouncyCastle();
            plain.initSign(signingKey);
            plain.update(data);
            return plain.sign();
        } catch (InvalidKeyException e) {
            throw new SignatureException(e.toString(), e);
        }
    }

    @Override
    protected boolean engineVerify(byte[] signature) throws SignatureException {
        if (handedOver != null) {
            boolean valid = handedOver.verify(signature);
            EcStats.count(EcEngines.JAVA, EcStats.Operation.VERIFY);
            return valid;
        }
        if (verifyingKey == null) throw new SignatureException("object not initialized for verification");
        byte[] data = message.toByteArray();
        message.reset();
        try {
            boolean valid = engine.verifyEdDsa(verifyingKey, type, verifyingKey::getPointEncoding, data, 0, data.length, signature);
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.VERIFY);
            return valid;
        } catch (EcEngineException e) {
            EcStats.fellBack(e, EngineRegistry.JRUBY_OPENSSL_CODE);
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.VERIFY);
        try {
            Signature plain = bouncyCastle();
            plain.initVerify(verifyingKey);
            plain.update(data);
            return plain.verify(signature);
        } catch (InvalidKeyException e) {
            throw new SignatureException(e.toString(), e);
        }
    }

    /** The private key's seed (RFC 8032's private key), from its PKCS#8 encoding; the caller wipes it (the parsed encoding is not). */
    private static byte[] seed(EdDSAPrivateKey key) {
        byte[] encoded = key.getEncoded();
        try {
            return ASN1OctetString.getInstance(PrivateKeyInfo.getInstance(encoded).parsePrivateKey()).getOctets();
        } catch (java.io.IOException | RuntimeException e) {
            throw new EcEngineException("cannot read the EdDSA private key: " + e, e);
        } finally {
            java.util.Arrays.fill(encoded, (byte) 0);
        }
    }

    /** BouncyCastle's own signature for the algorithm (it has one: this service stands in for it). */
    private Signature bouncyCastle() {
        try {
            return Signature.getInstance(algorithm, bouncyCastle);
        } catch (NoSuchAlgorithmException e) {
            throw new java.security.ProviderException("BouncyCastle's " + algorithm, e);
        }
    }

    private void forget() {
        message.reset();
        engine = null;
        type = null;
        signingKey = null;
        verifyingKey = null;
        handedOver = null;
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) {
        throw new java.security.InvalidParameterException("no parameters");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) {
        throw new java.security.InvalidParameterException("no parameters");
    }
}
