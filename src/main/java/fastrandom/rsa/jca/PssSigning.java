package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.SecureRandom;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Locale;

import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;
import org.bouncycastle.crypto.signers.PSSSigner;
import org.bouncycastle.crypto.util.DigestFactory;

/**
 * RSASSA-PSS (RFC 8017 section 8.1) with BouncyCastle's own {@link PSSSigner}
 * over {@link RsaBlockEngine}, for the PSS methods of OpenSSL::PKey::RSA.
 *
 * <p>jruby-openssl builds its PSS signers around a {@code new RSABlindedEngine()}
 * of its own rather than asking its security provider, so no provider can
 * reach them; {@code org.jruby.ext.fastrandom.RsaPssMethods} takes those calls instead
 * and comes here. The padding is BC's, as in jruby-openssl; only the
 * exponentiation runs on the selected engine.
 */
public final class PssSigning {
    /** {@code verify}'s salt length when it is to be read from the signature (MRI's {@code :auto}). */
    public static final int RECOVER_SALT_LENGTH = -1;

    private PssSigning() {}

    /**
     * The digests jruby-openssl's PSS code knows, by the names it accepts
     * (case and dashes ignored): SHA1 (or SHA), SHA256, SHA384, SHA512. Null
     * for any other name.
     */
    public static Digest digest(String name) {
        switch (name.toUpperCase(Locale.ROOT).replace("-", "")) {
            case "SHA1": case "SHA": return DigestFactory.createSHA1();
            case "SHA256": return DigestFactory.createSHA256();
            case "SHA384": return DigestFactory.createSHA384();
            case "SHA512": return DigestFactory.createSHA512();
            default: return null;
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
                              byte[] input, boolean prehashed, SecureRandom random) throws CryptoException {
        PSSSigner signer = signer(digest, mgf1Digest, saltLength, prehashed);
        RSAPrivateCrtKeyParameters parameters = new RSAPrivateCrtKeyParameters(key.getModulus(), key.getPublicExponent(),
                key.getPrivateExponent(), key.getPrimeP(), key.getPrimeQ(), key.getPrimeExponentP(),
                key.getPrimeExponentQ(), key.getCrtCoefficient());
        signer.init(true, new ParametersWithRandom(parameters, random));
        signer.update(input, 0, input.length);
        return signer.generateSignature();
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
        if (saltLength == RECOVER_SALT_LENGTH) {
            saltLength = recoverSaltLength(parameters, signature, digest(digest).getDigestSize(), digest(mgf1Digest));
            if (saltLength < 0) return false;
        }
        PSSSigner verifier = signer(digest, mgf1Digest, saltLength, prehashed);
        verifier.init(false, parameters);
        verifier.update(input, 0, input.length);
        return verifier.verifySignature(signature);
    }

    private static PSSSigner signer(String digest, String mgf1Digest, int saltLength, boolean prehashed) {
        Digest content = digest(digest);
        Digest mgf1 = digest(mgf1Digest);
        if (content == null || mgf1 == null) throw new IllegalArgumentException("Unsupported digest for PSS: " + (content == null ? digest : mgf1Digest));
        RsaBlockEngine engine = new RsaBlockEngine();
        return prehashed
                ? PSSSigner.createRawSigner(engine, content, mgf1, saltLength, PSSSigner.TRAILER_IMPLICIT)
                : new PSSSigner(engine, content, mgf1, saltLength);
    }

    /**
     * The salt length a PSS signature was made with (RFC 8017 9.1.2 steps
     * 4-10, read rather than checked), or -1 when it is no well-formed PSS
     * encoding. The verification proper is PSSSigner's, with this length.
     */
    static int recoverSaltLength(RSAKeyParameters key, byte[] signature, int hashLength, Digest mgf1) {
        BigInteger modulus = key.getModulus();
        int modulusBits = modulus.bitLength();
        int emLength = emLength(modulusBits);
        BigInteger s = new BigInteger(1, signature);
        if (signature.length > (modulusBits + 7) / 8 || s.compareTo(modulus) >= 0) return -1;

        RsaBlockEngine engine = new RsaBlockEngine();
        engine.init(true, key); // "encryption": the output keeps its full length
        byte[] em = lastBytes(engine.processBlock(signature, 0, signature.length), emLength);
        if (em == null || emLength < hashLength + 2 || em[emLength - 1] != (byte) 0xbc) return -1;

        int dbLength = emLength - hashLength - 1;
        byte[] db = mgf1(mgf1, em, dbLength, hashLength, dbLength);
        for (int i = 0; i < dbLength; i++) db[i] ^= em[i];
        int unusedBits = 8 * emLength - (modulusBits - 1);
        db[0] &= (byte) (0xff >>> unusedBits);
        for (int i = 0; i < dbLength; i++) {
            if (db[i] == 0x01) return dbLength - i - 1;
            if (db[i] != 0x00) return -1;
        }
        return -1;
    }

    /** MGF1 (RFC 8017 B.2.1) of {@code seed[offset, offset + length)}, {@code maskLength} bytes. */
    private static byte[] mgf1(Digest digest, byte[] seed, int offset, int length, int maskLength) {
        byte[] mask = new byte[maskLength];
        byte[] block = new byte[digest.getDigestSize()];
        byte[] counter = new byte[4];
        for (int done = 0, c = 0; done < maskLength; c++) {
            counter[0] = (byte) (c >>> 24);
            counter[1] = (byte) (c >>> 16);
            counter[2] = (byte) (c >>> 8);
            counter[3] = (byte) c;
            digest.update(seed, offset, length);
            digest.update(counter, 0, 4);
            digest.doFinal(block, 0);
            int n = Math.min(block.length, maskLength - done);
            System.arraycopy(block, 0, mask, done, n);
            done += n;
        }
        return mask;
    }

    /** emLen = ceil((modBits - 1) / 8). */
    private static int emLength(int modulusBits) {
        return (modulusBits - 1 + 7) / 8;
    }

    /** The last {@code length} bytes of {@code bytes}, which must all be zeros before them; else null. */
    private static byte[] lastBytes(byte[] bytes, int length) {
        if (bytes.length < length) {
            byte[] padded = new byte[length];
            System.arraycopy(bytes, 0, padded, length - bytes.length, bytes.length);
            return padded;
        }
        for (int i = 0; i < bytes.length - length; i++) {
            if (bytes[i] != 0) return null;
        }
        byte[] tail = new byte[length];
        System.arraycopy(bytes, bytes.length - length, tail, 0, length);
        return tail;
    }
}
