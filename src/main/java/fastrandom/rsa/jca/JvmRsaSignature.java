package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.interfaces.RSAPublicKey;
import java.util.function.BiFunction;

import fastrandom.jni.LibCrypto;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;
import fastrandom.support.SignatureInput;

/**
 * The JVM-wide provider's SHA*withRSA (RSASSA-PKCS1-v1_5), for any Java RSA
 * key: one native call per signature or verification on the {@code :openssl}
 * engine (the message hashed in it, or here as it streams in when long:
 * {@link SignatureInput}). Keys the engine does not take (no CRT values, an even or
 * oversized modulus), another engine, and any engine failure (with one
 * warning) go to the next provider in the JVM's list, with its results.
 */
public final class JvmRsaSignature extends SignatureSpi {
    private final String algorithm;
    private final LibCrypto.Hash hash;
    private final BiFunction<String, String, Provider> next; // (type, algorithm) -> the provider after ours

    private Signature delegate; // the next provider's, for what we do not take
    private OpenSslRsaEngine engine;
    private PrivateKey jcaSigningKey;
    private RsaPrivateKey signingKey;
    private RSAPublicKey verifyingKey;
    private final SignatureInput message;

    public JvmRsaSignature(String algorithm, LibCrypto.Hash hash, BiFunction<String, String, Provider> next) {
        this.algorithm = algorithm;
        this.hash = hash;
        this.next = next;
        this.message = new SignatureInput(hash);
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
        engineInitSign(key, null);
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom random) throws InvalidKeyException {
        forget();
        OpenSslRsaEngine openssl = RsaKeys.openssl();
        RsaPrivateKey crt = openssl == null ? null : RsaKeys.crt(key);
        if (crt == null || RsaKeys.modulusBytes(crt.modulus) < hash.minimumModulusBytes()) {
            delegate = next(algorithm);
            if (random == null) delegate.initSign(key);
            else delegate.initSign(key, random);
            return;
        }
        engine = openssl;
        jcaSigningKey = key;
        signingKey = crt;
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        forget();
        OpenSslRsaEngine openssl = RsaKeys.openssl();
        if (openssl == null || !RsaKeys.usable(key)
                || RsaKeys.modulusBytes(((RSAPublicKey) key).getModulus()) < hash.minimumModulusBytes()) {
            delegate = next(algorithm);
            delegate.initVerify(key);
            return;
        }
        engine = openssl;
        verifyingKey = (RSAPublicKey) key;
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
        engineUpdate(new byte[] {b}, 0, 1);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        if (delegate != null) {
            delegate.update(b, off, len);
        } else if (engine == null) {
            throw new SignatureException("object not initialized for signing or verification");
        } else {
            message.update(b, off, len);
        }
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
        if (delegate != null) return delegate.sign();
        if (signingKey == null) throw new SignatureException("object not initialized for signing");
        try {
            try {
                byte[] signature = engine.signPkcs1(signingKey, hash, message.data(), 0, message.length(), message.prehashed());
                RsaStats.count(OpenSslRsaEngine.NAME, true);
                return signature;
            } catch (InconsistentKeyException e) {
                // Not a key an engine takes: the next provider signs it, or says why not.
            } catch (RsaEngineException e) {
                warnFallback(e, NextRsa.cipherFallback(next));
            }
            RsaStats.count(RsaEngines.JAVA, true);
            byte[] digestInfo = hash.digestInfo(message.digest());
            return NextRsa.privateEncrypt(next, "PKCS1Padding", jcaSigningKey, digestInfo);
        } finally {
            reset();
        }
    }

    @Override
    protected boolean engineVerify(byte[] signature) throws SignatureException {
        if (delegate != null) return delegate.verify(signature);
        if (verifyingKey == null) throw new SignatureException("object not initialized for verification");
        BigInteger n = verifyingKey.getModulus();
        try {
            RsaKeys.requireSignatureLength(signature, n);
            try {
                boolean valid = engine.verifyPkcs1(n, verifyingKey.getPublicExponent(), hash, message.data(), 0,
                        message.length(), message.prehashed(), signature);
                RsaStats.count(OpenSslRsaEngine.NAME, false);
                return valid;
            } catch (RsaEngineException e) {
                warnFallback(e, NextRsa.cipherFallback(next));
            }
            RsaStats.count(RsaEngines.JAVA, false);
            byte[] digestInfo = hash.digestInfo(message.digest());
            byte[] recovered = NextRsa.publicDecrypt(next, "PKCS1Padding", verifyingKey, signature);
            return recovered != null && MessageDigest.isEqual(recovered, digestInfo);
        } finally {
            reset();
        }
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) {
        throw new UnsupportedOperationException("setParameter() not supported");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) {
        throw new UnsupportedOperationException("getParameter() not supported");
    }

    private Signature next(String name) throws InvalidKeyException {
        Provider provider = next.apply("Signature", name);
        try {
            if (provider == null) throw new NoSuchAlgorithmException("no other provider has " + name);
            return Signature.getInstance(name, provider);
        } catch (NoSuchAlgorithmException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    /** One warning per wording: the engine failed, and what runs such operations instead ({@code instead}). */
    static void warnFallback(RsaEngineException e, String instead) {
        RsaStats.fellBack(OpenSslRsaEngine.NAME, e, instead);
    }

    private void forget() {
        reset();
        delegate = null;
        engine = null;
        jcaSigningKey = null;
        signingKey = null;
        verifyingKey = null;
    }

    /** Back to the state after init: the same key, nothing buffered. */
    private void reset() {
        message.reset();
    }
}
