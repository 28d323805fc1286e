package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SignatureException;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;

import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.DigestInfo;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.NullDigest;
import org.bouncycastle.crypto.encodings.PKCS1Encoding;
import org.bouncycastle.crypto.engines.RSABlindedEngine;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi;

import fastrandom.jni.LibCrypto;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngine;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;
import fastrandom.support.EngineRegistry;
import fastrandom.support.SignatureInput;

/**
 * An RSA PKCS#1 v1.5 signature, for one digest: BouncyCastle's own SPI
 * (DigestInfo encoding, padding, verification) over {@link RsaBlockEngine},
 * and, on the {@code :openssl} engine with SHA-1 or SHA-2, one native call
 * per signature or verification ({@link OpenSslRsaEngine#signPkcs1}): the
 * message (hashed in the call, or here as it streams in when long:
 * {@link SignatureInput}), DigestInfo, padding and
 * exponentiation, with everything per key cached.
 *
 * <p>Results are BouncyCastle's, byte for byte: signatures are
 * deterministic, and verification accepts exactly what BouncyCastle's
 * {@link DigestSignatureSpi} accepts (a signature shorter than the modulus
 * is read as left-padded with zeros, a longer one or one not below n is
 * false, the DigestInfo with or without its NULL parameters). A key is
 * validated by BouncyCastle on its first use, as stock does, with stock's
 * exceptions. Anything the native call does not take (other keys, keys too
 * short for the digest, keys whose CRT values do not belong together) and
 * any engine failure run on BouncyCastle's code, as on stock.
 */
final class EngineSignature extends DigestSignatureSpi {
    private final ASN1ObjectIdentifier digestOid;
    private final LibCrypto.Hash hash; // null: never the one-call path

    // The one-call path, set by init when it takes the key; null: BouncyCastle's SPI (super).
    private OpenSslRsaEngine engine;
    private RSAPrivateCrtKey jcaSigningKey;
    private RsaPrivateKey signingKey;
    private RSAPublicKey verifyingKey;
    private final SignatureInput message;

    /** With a DigestInfo for {@code digestOid} (SHA256withRSA and the like); {@code hash} when libcrypto has it. */
    EngineSignature(ASN1ObjectIdentifier digestOid, Digest digest, LibCrypto.Hash hash) {
        super(digestOid, digest, new PKCS1Encoding(new RsaBlockEngine()));
        this.digestOid = digestOid;
        this.hash = hash;
        this.message = new SignatureInput(hash);
    }

    /** Without DigestInfo (NONEwithRSA: the data is signed as given). */
    EngineSignature(Digest digest) {
        super(digest, new PKCS1Encoding(new RsaBlockEngine()));
        this.digestOid = null;
        this.hash = null;
        this.message = new SignatureInput(null); // unused: NONEwithRSA never takes the one-call path
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
        reset();
        OpenSslRsaEngine openssl = oneCallEngine();
        RsaPrivateKey crt = openssl != null && key instanceof RSAPrivateCrtKey ? crtKey((RSAPrivateCrtKey) key) : null;
        if (crt == null || !holdsDigestInfo(crt.modulus)) {
            super.engineInitSign(key);
            return;
        }
        if (!openssl.hasCached(crt)) super.engineInitSign(key); // BouncyCastle validates a key new to us, as stock
        engine = openssl;
        jcaSigningKey = (RSAPrivateCrtKey) key;
        signingKey = crt;
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        reset();
        OpenSslRsaEngine openssl = oneCallEngine();
        if (openssl == null || !(key instanceof RSAPublicKey) || !usablePublicKey((RSAPublicKey) key)) {
            super.engineInitVerify(key);
            return;
        }
        RSAPublicKey rsa = (RSAPublicKey) key;
        if (!openssl.hasCached(rsa.getModulus(), rsa.getPublicExponent())) super.engineInitVerify(key);
        engine = openssl;
        verifyingKey = rsa;
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
        if (engine == null) {
            super.engineUpdate(b);
        } else {
            engineUpdate(new byte[] {b}, 0, 1);
        }
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        if (engine == null) {
            super.engineUpdate(b, off, len);
        } else {
            message.update(b, off, len);
        }
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
        if (engine == null) return super.engineSign();
        if (signingKey == null) throw new SignatureException("object not initialized for signing");
        RsaEngine current = engine;
        try {
            byte[] signature = engine.signPkcs1(signingKey, hash, message.data(), 0, message.length(), message.prehashed());
            RsaStats.count(OpenSslRsaEngine.NAME, true);
            return signature;
        } catch (InconsistentKeyException e) {
            // Not a key an engine takes: BouncyCastle signs it, and fails on it exactly as stock does.
            RsaStats.count(RsaEngines.JAVA, true);
            return plainSign(message.digest());
        } catch (RsaEngineException e) {
            warnFallback(current, e);
            RsaStats.count(RsaEngines.JAVA, true);
            return plainSign(message.digest());
        } finally {
            reset();
        }
    }

    @Override
    protected boolean engineVerify(byte[] signature) throws SignatureException {
        if (engine == null) return super.engineVerify(signature);
        if (verifyingKey == null) throw new SignatureException("object not initialized for verification");
        RsaEngine current = engine;
        try {
            // As BouncyCastle reads it: too long is false, shorter is left-padded with zeros.
            int modulusBytes = (verifyingKey.getModulus().bitLength() + 7) / 8;
            if (signature.length > modulusBytes) return false;
            byte[] padded = signature.length == modulusBytes ? signature : leftPadded(signature, modulusBytes);
            boolean valid = engine.verifyPkcs1(verifyingKey.getModulus(), verifyingKey.getPublicExponent(), hash,
                    message.data(), 0, message.length(), message.prehashed(), padded);
            RsaStats.count(OpenSslRsaEngine.NAME, false);
            return valid;
        } catch (RsaEngineException e) {
            warnFallback(current, e);
            RsaStats.count(RsaEngines.JAVA, false);
            return plainVerify(message.digest(), signature);
        } finally {
            reset();
        }
    }

    /** The engine when it takes whole signatures (the {@code :openssl} engine, a digest libcrypto has), else null. */
    private OpenSslRsaEngine oneCallEngine() {
        if (hash == null) return null;
        RsaEngine current = RsaEngines.current();
        return current instanceof OpenSslRsaEngine ? (OpenSslRsaEngine) current : null;
    }

    /** Whether a modulus this long holds this digest's DigestInfo with PKCS#1 padding (else BouncyCastle says what stock says). */
    private boolean holdsDigestInfo(BigInteger modulus) {
        return (modulus.bitLength() + 7) / 8 >= hash.minimumModulusBytes();
    }

    private boolean usablePublicKey(RSAPublicKey key) {
        BigInteger n = key.getModulus();
        BigInteger e = key.getPublicExponent();
        return n != null && e != null && n.signum() > 0 && n.testBit(0) && e.signum() > 0
                && n.bitLength() <= OpenSslRsaEngine.MAX_MODULUS_BITS && holdsDigestInfo(n);
    }

    /** Our key form of a CRT key, or null when a value is missing (BouncyCastle then does the work). */
    private static RsaPrivateKey crtKey(RSAPrivateCrtKey k) {
        BigInteger[] parts = {k.getModulus(), k.getPublicExponent(), k.getPrivateExponent(), k.getPrimeP(),
                              k.getPrimeQ(), k.getPrimeExponentP(), k.getPrimeExponentQ(), k.getCrtCoefficient()};
        for (BigInteger part : parts) {
            if (part == null || part.signum() <= 0) return null;
        }
        if (parts[0].bitLength() > OpenSslRsaEngine.MAX_MODULUS_BITS) return null;
        // The JCA key keeps its modulus instance for life: engines cache per-key state against it.
        return new RsaPrivateKey(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7], parts[0]);
    }

    private void reset() {
        engine = null;
        jcaSigningKey = null;
        signingKey = null;
        verifyingKey = null;
        message.reset();
    }

    private static void warnFallback(RsaEngine failed, RsaEngineException e) {
        RsaStats.fellBack(failed.name(), e, EngineRegistry.JRUBY_OPENSSL_CODE);
    }

    /** BouncyCastle signs the DigestInfo of {@code digest}: stock's bytes, or stock's exception. */
    private byte[] plainSign(byte[] digest) throws SignatureException {
        return new BouncyCastleNoneWithRsa().sign(jcaSigningKey, digestInfo(digest));
    }

    /** BouncyCastle's verdict, as stock's. */
    private boolean plainVerify(byte[] digest, byte[] signature) throws SignatureException {
        return new BouncyCastleNoneWithRsa().verify(verifyingKey, digestInfo(digest), signature);
    }

    private byte[] digestInfo(byte[] digest) throws SignatureException {
        try {
            return new DigestInfo(new AlgorithmIdentifier(digestOid, DERNull.INSTANCE), digest).getEncoded(ASN1Encoding.DER);
        } catch (java.io.IOException e) {
            throw new SignatureException(e.toString());
        }
    }

    private static byte[] leftPadded(byte[] value, int length) {
        byte[] padded = new byte[length];
        System.arraycopy(value, 0, padded, length - value.length, value.length);
        return padded;
    }

    /**
     * BouncyCastle's NONEwithRSA on its own RSA engine, over a DigestInfo
     * made here: exactly what its SHA*withRSA does after hashing (the same
     * encoding, padding and comparisons), for the operations the one-call
     * path hands back.
     */
    private static final class BouncyCastleNoneWithRsa extends DigestSignatureSpi {
        BouncyCastleNoneWithRsa() {
            super(new NullDigest(), new PKCS1Encoding(new RSABlindedEngine()));
        }

        byte[] sign(PrivateKey key, byte[] digestInfo) throws SignatureException {
            try {
                engineInitSign(key);
            } catch (InvalidKeyException e) {
                throw new SignatureException(e.toString());
            }
            engineUpdate(digestInfo, 0, digestInfo.length);
            return engineSign();
        }

        boolean verify(PublicKey key, byte[] digestInfo, byte[] signature) throws SignatureException {
            try {
                engineInitVerify(key);
            } catch (InvalidKeyException e) {
                throw new SignatureException(e.toString());
            }
            engineUpdate(digestInfo, 0, digestInfo.length);
            return engineVerify(signature);
        }
    }
}
