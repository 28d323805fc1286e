package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Locale;

import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;

import fastrandom.rsa.Operands;
import fastrandom.rsa.Pss;

/**
 * RSASSA-PSS (RFC 8017 section 8.1) for the PSS methods of
 * OpenSSL::PKey::RSA: EMSA-PSS from {@link Pss} around the selected
 * engine's exponentiation, through {@link RsaBlockEngine} (which counts it
 * and falls back as for jruby-openssl's other RSA calls).
 *
 * <p>jruby-openssl builds its PSS signers around a {@code new RSABlindedEngine()}
 * of its own rather than asking its security provider, so no provider can
 * reach them; {@code org.jruby.ext.fastrandom.RsaPssMethods} takes those calls
 * instead and comes here. What callers observe is what BouncyCastle's
 * PSSSigner (stock's) gives: its checks and their order, its exceptions, its
 * acceptance of signatures shorter than the modulus, one exponentiation per
 * call (two for a well-formed signature under {@link #RECOVER_SALT_LENGTH}:
 * one to read the salt length, one to verify).
 */
public final class PssSigning {
    /** {@code verify}'s salt length when it is to be read from the signature (MRI's {@code :auto}). */
    public static final int RECOVER_SALT_LENGTH = -1;

    private PssSigning() {}

    /**
     * A fresh digest of those jruby-openssl's PSS code knows, by the names it
     * accepts (case and dashes ignored): SHA1 (or SHA), SHA256, SHA384,
     * SHA512. Null for any other name.
     */
    public static MessageDigest digest(String name) {
        String algorithm;
        switch (name.toUpperCase(Locale.ROOT).replace("-", "")) {
            case "SHA1": case "SHA": algorithm = "SHA-1"; break;
            case "SHA256": algorithm = "SHA-256"; break;
            case "SHA384": algorithm = "SHA-384"; break;
            case "SHA512": algorithm = "SHA-512"; break;
            default: return null;
        }
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The longest salt a key of {@code modulusBits} allows with this hash (RFC 8017 9.1.1: emLen - hLen - 2). */
    public static int maxSaltLength(int modulusBits, int hashLength) {
        return emLength(modulusBits) - hashLength - 2;
    }

    /**
     * A PSS signature of {@code input}: the message itself, or, when
     * {@code prehashed}, its hash (which must be as long as the digest's output).
     */
    public static byte[] sign(RSAPrivateCrtKey key, String digest, String mgf1Digest, int saltLength,
                              byte[] input, boolean prehashed, SecureRandom random) {
        MessageDigest content = digest(digest);
        MessageDigest mgf1 = digests(digest, content, mgf1Digest);
        RsaBlockEngine engine = new RsaBlockEngine();
        engine.init(true, new ParametersWithRandom(new RSAPrivateCrtKeyParameters(key.getModulus(),
                key.getPublicExponent(), key.getPrivateExponent(), key.getPrimeP(), key.getPrimeQ(),
                key.getPrimeExponentP(), key.getPrimeExponentQ(), key.getCrtCoefficient()), random));
        int modulusBits = key.getModulus().bitLength();
        checkFits(modulusBits, content, saltLength);
        byte[] mHash = messageHash(content, input, prehashed);
        byte[] salt = new byte[saltLength];
        if (saltLength != 0) random.nextBytes(salt);
        byte[] em = Pss.encode(mHash, salt, content, mgf1, modulusBits);
        return engine.processBlock(em, 0, em.length);
    }

    /**
     * Whether {@code signature} is a PSS signature of {@code input} (message,
     * or hash when {@code prehashed}) with this salt length, or with the salt
     * length the signature itself shows when {@code saltLength} is
     * {@link #RECOVER_SALT_LENGTH}. A signature that is not a number below the
     * modulus, or shows no salt length, does not verify.
     */
    public static boolean verify(RSAPublicKey key, String digest, String mgf1Digest, int saltLength,
                                 byte[] input, boolean prehashed, byte[] signature) {
        RSAKeyParameters parameters = new RSAKeyParameters(false, key.getModulus(), key.getPublicExponent());
        int modulusBits = key.getModulus().bitLength();
        int emLength = emLength(modulusBits);
        if (saltLength == RECOVER_SALT_LENGTH) {
            int hashLength = digest(digest).getDigestLength();
            MessageDigest mgf1 = digest(mgf1Digest);
            BigInteger s = new BigInteger(1, signature);
            if (signature.length > (modulusBits + 7) / 8 || s.compareTo(key.getModulus()) >= 0) return false;
            BigInteger em = new BigInteger(1, publicOperation(parameters, signature));
            if (em.bitLength() > 8 * emLength) return false;
            saltLength = Pss.saltLength(Operands.fixedLength(em, emLength), hashLength, mgf1, modulusBits);
            if (saltLength < 0) return false;
        }
        MessageDigest content = digest(digest);
        MessageDigest mgf1 = digests(digest, content, mgf1Digest);
        RsaBlockEngine engine = new RsaBlockEngine();
        engine.init(false, parameters);
        checkFits(modulusBits, content, saltLength);
        byte[] mHash = messageHash(content, input, prehashed);
        byte[] em;
        try {
            em = engine.processBlock(signature, 0, signature.length);
        } catch (Exception e) {
            return false; // too long, or not below the modulus
        }
        if (em.length > emLength || new BigInteger(1, em).bitLength() > modulusBits - 1) return false;
        return Pss.verify(mHash, Operands.fixedLength(new BigInteger(1, em), emLength), content, mgf1, saltLength, modulusBits);
    }

    /** The MGF1 digest, both digests being known; else PSSSigner's refusal. */
    private static MessageDigest digests(String digest, MessageDigest content, String mgf1Digest) {
        MessageDigest mgf1 = digest(mgf1Digest);
        if (content == null || mgf1 == null) throw new IllegalArgumentException("Unsupported digest for PSS: " + (content == null ? digest : mgf1Digest));
        return mgf1;
    }

    /** PSSSigner's check when initialised, with its message: emBits >= 8 hLen + 8 sLen + 9. */
    private static void checkFits(int modulusBits, MessageDigest content, int saltLength) {
        if (modulusBits - 1 < 8 * content.getDigestLength() + 8 * saltLength + 9) {
            throw new IllegalArgumentException("key too small for specified hash and salt lengths");
        }
    }

    /** mHash: the input's digest, or the input when prehashed (which PSSSigner's raw form requires hLen long). */
    private static byte[] messageHash(MessageDigest content, byte[] input, boolean prehashed) {
        if (!prehashed) return content.digest(input);
        if (input.length != content.getDigestLength()) throw new IllegalStateException();
        return input;
    }

    /** The signature raised to e, through the engines (counted as one public operation). */
    private static byte[] publicOperation(RSAKeyParameters key, byte[] signature) {
        RsaBlockEngine engine = new RsaBlockEngine();
        engine.init(false, key);
        return engine.processBlock(signature, 0, signature.length);
    }

    /** emLen = ceil((modBits - 1) / 8). */
    private static int emLength(int modulusBits) {
        return (modulusBits - 1 + 7) / 8;
    }
}
