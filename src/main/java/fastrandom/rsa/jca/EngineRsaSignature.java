package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.SignatureException;
import java.security.interfaces.RSAPublicKey;
import java.util.function.Supplier;

import fastrandom.jni.LibCrypto;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.Operands;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;
import fastrandom.support.EngineRegistry;
import fastrandom.support.FallbackSignatureSpi;
import fastrandom.support.SignatureInput;

/**
 * An RSA PKCS#1 v1.5 signature (SHA*withRSA) on the {@code :openssl}
 * engine, for both providers: one native call per signature or
 * verification ({@link OpenSslRsaEngine#signPkcs1}; the message hashed in
 * it, or here as it streams in when long: {@link SignatureInput}), with
 * DigestInfo, padding and exponentiation, and everything per key cached.
 * Signatures are deterministic, so they are the fallback's, byte for byte;
 * verification accepts the DigestInfo with or without its NULL parameters,
 * as BouncyCastle does.
 *
 * <p>Keys the engine does not take (no CRT values, an even or oversized
 * modulus, one too short for the DigestInfo, an algorithm other than
 * "RSA"), digests libcrypto lacks, other engines, and NONEwithRSA go to the
 * fallback provider's own signature: for jruby-openssl BouncyCastle's SPI
 * over {@link RsaBlockEngine} ({@link RsaBlockProvider}: stock's results
 * and exceptions, with the {@code :gmp} and {@code :java} engines), for the
 * JVM-wide provider the next provider in the JVM's list. A key new to the
 * engine is first shown to the fallback, which refuses what it would
 * refuse without us. When the engine fails in the middle, with one warning,
 * the finisher's RSA cipher (BouncyCastle's, or the next provider's)
 * completes the operation on the digest ({@link PlainRsa}).
 *
 * <p>One rule differs between the providers, as it does between their
 * fallbacks: a signature that is not exactly as long as the modulus is read
 * as BouncyCastle reads it for jruby-openssl (shorter: left-padded with
 * zeros; longer: false), and refused with the JDK's SignatureException for
 * the JVM-wide provider.
 */
public final class EngineRsaSignature extends FallbackSignatureSpi {
    private final String algorithm; // the fallback's name for it
    private final LibCrypto.Hash hash; // null: never the one-call path
    private final Supplier<Provider> fallback;
    private final Supplier<Provider> finisher;
    private final boolean jvmWide;

    private OpenSslRsaEngine engine;
    private PrivateKey jcaSigningKey;
    private RsaPrivateKey signingKey;
    private RSAPublicKey verifyingKey;

    /**
     * {@code algorithm} as {@code fallback} names it, on {@code hash}
     * (null: always the fallback's); {@code finisher} completes what the
     * engine fails; {@code jvmWide}: for the JVM-wide provider.
     */
    EngineRsaSignature(String algorithm, LibCrypto.Hash hash, Supplier<Provider> fallback, Supplier<Provider> finisher,
                       boolean jvmWide) {
        super(hash);
        this.algorithm = algorithm;
        this.hash = hash;
        this.fallback = fallback;
        this.finisher = finisher;
        this.jvmWide = jvmWide;
    }

    /**
     * The JVM-wide provider's {@code algorithm} (SHA256withRSA and the like)
     * on {@code hash}, falling back on {@code next} (the next provider with
     * that signature) and finishing a failed operation on {@code nextCipher}
     * (the next provider with RSA ciphers). Needs no BouncyCastle.
     */
    public static EngineRsaSignature jvmWide(String algorithm, LibCrypto.Hash hash, Supplier<Provider> next,
                                             Supplier<Provider> nextCipher) {
        return new EngineRsaSignature(algorithm, hash, next, nextCipher, true);
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom random) throws InvalidKeyException {
        forgetKey();
        OpenSslRsaEngine openssl = hash == null ? null : RsaKeys.openssl();
        RsaPrivateKey crt = openssl == null ? null : RsaKeys.crt(key);
        if (crt == null || Operands.byteLength(crt.modulus) < hash.minimumModulusBytes()) {
            handOverSign(fallback.get(), algorithm, key, random);
            return;
        }
        if (!openssl.hasCached(crt)) signature(fallback.get(), algorithm).initSign(key);
        engine = openssl;
        jcaSigningKey = key;
        signingKey = crt;
        signHere();
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        forgetKey();
        OpenSslRsaEngine openssl = hash == null ? null : RsaKeys.openssl();
        if (openssl == null || !RsaKeys.usable(key)
                || Operands.byteLength(((RSAPublicKey) key).getModulus()) < hash.minimumModulusBytes()) {
            handOverVerify(fallback.get(), algorithm, key);
            return;
        }
        RSAPublicKey rsa = (RSAPublicKey) key;
        if (!openssl.hasCached(rsa.getModulus(), rsa.getPublicExponent())) signature(fallback.get(), algorithm).initVerify(key);
        engine = openssl;
        verifyingKey = rsa;
        verifyHere();
    }

    @Override
    protected byte[] sign() throws SignatureException {
        try {
            byte[] signature = engine.signPkcs1(signingKey, hash, message.data(), 0, message.length(), message.prehashed());
            RsaStats.count(OpenSslRsaEngine.NAME, true);
            return signature;
        } catch (InconsistentKeyException e) {
            // Not a key an engine takes: the finisher signs it, or says why not.
        } catch (RsaEngineException e) {
            warnFallback(e, finisher.get(), jvmWide);
        }
        RsaStats.count(RsaEngines.JAVA, true);
        return PlainRsa.privateEncrypt(finisher.get(), "PKCS1Padding", jcaSigningKey, hash.digestInfo(message.digest()));
    }

    @Override
    protected boolean verify(byte[] signature) throws SignatureException {
        BigInteger n = verifyingKey.getModulus();
        int modulusBytes = Operands.byteLength(n);
        if (signature.length != modulusBytes) {
            if (jvmWide) RsaKeys.requireSignatureLength(signature, n);
            if (signature.length > modulusBytes) return false;
            signature = leftPadded(signature, modulusBytes);
        }
        try {
            boolean valid = engine.verifyPkcs1(n, verifyingKey.getPublicExponent(), hash, message.data(), 0, message.length(),
                    message.prehashed(), signature);
            RsaStats.count(OpenSslRsaEngine.NAME, false);
            return valid;
        } catch (RsaEngineException e) {
            warnFallback(e, finisher.get(), jvmWide);
        }
        RsaStats.count(RsaEngines.JAVA, false);
        byte[] digestInfo = hash.digestInfo(message.digest());
        byte[] recovered = PlainRsa.publicDecrypt(finisher.get(), "PKCS1Padding", verifyingKey, signature);
        return recovered != null
                && (MessageDigest.isEqual(recovered, digestInfo) || MessageDigest.isEqual(recovered, withoutNull(digestInfo)));
    }

    /**
     * One warning per wording that the engine failed, saying what runs such
     * operations instead: jruby-openssl's Java code, or for the JVM-wide
     * provider the next JCA provider ({@code fallback}), named.
     */
    static void warnFallback(RsaEngineException e, Provider fallback, boolean jvmWide) {
        RsaStats.fellBack(OpenSslRsaEngine.NAME, e, !jvmWide ? EngineRegistry.JRUBY_OPENSSL_CODE
                : "the next JCA provider (" + PlainRsa.name(fallback) + ")");
    }

    /**
     * The same DigestInfo without the NULL parameters of its algorithm
     * (SEQUENCE { SEQUENCE { OID }, OCTET STRING }): the other form the
     * engine's verification accepts. Every length here is DER's short form.
     */
    private static byte[] withoutNull(byte[] digestInfo) {
        int algorithmEnd = 4 + digestInfo[3]; // after the AlgorithmIdentifier, whose last two bytes are 05 00
        byte[] shorter = new byte[digestInfo.length - 2];
        System.arraycopy(digestInfo, 0, shorter, 0, algorithmEnd - 2);
        System.arraycopy(digestInfo, algorithmEnd, shorter, algorithmEnd - 2, digestInfo.length - algorithmEnd);
        shorter[1] -= 2;
        shorter[3] -= 2;
        return shorter;
    }

    private static byte[] leftPadded(byte[] value, int length) {
        byte[] padded = new byte[length];
        System.arraycopy(value, 0, padded, length - value.length, value.length);
        return padded;
    }

    private void forgetKey() {
        forget();
        engine = null;
        jcaSigningKey = null;
        signingKey = null;
        verifyingKey = null;
    }
}
