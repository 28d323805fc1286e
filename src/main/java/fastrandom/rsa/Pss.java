package fastrandom.rsa;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * EMSA-PSS, the encoding of RSASSA-PSS signatures (RFC 8017, section 9.1),
 * with MGF1, and the salt length an encoding shows: what the JVM-wide
 * provider's RSASSA-PSS signature and OpenSSL::PKey::RSA's PSS methods
 * ({@code rsa.jca.PssSigning}) put around the engines' exponentiations.
 * Stateless; the digests are the caller's (one for the message and the
 * encoding, one for MGF1).
 */
public final class Pss {
    private Pss() {}

    /**
     * EM for {@code mHash} (the message's digest) with a fresh salt of
     * {@code saltLength} bytes, for a modulus of {@code modulusBits} bits
     * (emBits = modulusBits - 1): emLen bytes. Throws IllegalArgumentException
     * when the modulus is too short for the digest and salt.
     */
    public static byte[] encode(byte[] mHash, MessageDigest digest, MessageDigest mgfDigest, int saltLength,
                                int modulusBits, SecureRandom random) {
        checkFits(mHash.length, saltLength, modulusBits);
        byte[] salt = new byte[saltLength];
        random.nextBytes(salt);
        return encode(mHash, salt, digest, mgfDigest, modulusBits);
    }

    /** EM for {@code mHash} with this salt (the caller's, drawn as it chooses), as above. */
    public static byte[] encode(byte[] mHash, byte[] salt, MessageDigest digest, MessageDigest mgfDigest, int modulusBits) {
        int saltLength = salt.length;
        checkFits(mHash.length, saltLength, modulusBits);
        int emBits = modulusBits - 1;
        int emLength = (emBits + 7) / 8;
        int hLength = mHash.length;
        byte[] h = hashOfPrefixed(digest, mHash, salt, 0);
        byte[] em = new byte[emLength];
        int dbLength = emLength - hLength - 1;
        em[dbLength - saltLength - 1] = 0x01; // PS (zeros) || 0x01 || salt
        System.arraycopy(salt, 0, em, dbLength - saltLength, saltLength);
        mask(em, dbLength, h, mgfDigest);
        em[0] &= (byte) (0xff >>> (8 * emLength - emBits));
        System.arraycopy(h, 0, em, dbLength, hLength);
        em[emLength - 1] = (byte) 0xbc;
        return em;
    }

    private static void checkFits(int hLength, int saltLength, int modulusBits) {
        int emLength = (modulusBits - 1 + 7) / 8;
        if (saltLength < 0 || emLength < hLength + saltLength + 2) {
            throw new IllegalArgumentException("RSA key too short for this digest and salt length");
        }
    }

    /**
     * Whether {@code em} (the signature raised to e, as emLen bytes: its
     * top byte dropped when emBits is a multiple of 8, which must then be
     * zero, as the caller checks) is a valid EMSA-PSS encoding of
     * {@code mHash} with a salt of {@code saltLength} bytes.
     */
    public static boolean verify(byte[] mHash, byte[] em, MessageDigest digest, MessageDigest mgfDigest, int saltLength,
                                 int modulusBits) {
        int emBits = modulusBits - 1;
        int emLength = (emBits + 7) / 8;
        int hLength = mHash.length;
        if (em.length != emLength || saltLength < 0 || emLength < hLength + saltLength + 2) return false;
        if (em[emLength - 1] != (byte) 0xbc) return false;
        int topBits = 8 * emLength - emBits;
        if ((em[0] & (0xff << (8 - topBits)) & 0xff) != 0) return false;
        byte[] db = dataBlock(em, hLength, mgfDigest, emBits);
        int separator = db.length - saltLength - 1;
        for (int i = 0; i < separator; i++) {
            if (db[i] != 0) return false;
        }
        if (db[separator] != 0x01) return false;
        byte[] expected = hashOfPrefixed(digest, mHash, db, separator + 1);
        return MessageDigest.isEqual(expected, Arrays.copyOfRange(em, db.length, db.length + hLength));
    }

    /**
     * The salt length {@code em} (emLen bytes, as for {@link #verify}) shows
     * (RFC 8017 9.1.2 steps 4-10, read rather than checked: the bits above
     * emBits are ignored), or -1 when it is no well-formed EMSA-PSS encoding
     * with a hash of {@code hLength} bytes: what verification with salt
     * length "auto" verifies with.
     */
    public static int saltLength(byte[] em, int hLength, MessageDigest mgfDigest, int modulusBits) {
        int emBits = modulusBits - 1;
        int emLength = (emBits + 7) / 8;
        if (em.length != emLength || emLength < hLength + 2 || em[emLength - 1] != (byte) 0xbc) return -1;
        byte[] db = dataBlock(em, hLength, mgfDigest, emBits);
        for (int i = 0; i < db.length; i++) {
            if (db[i] == 0x01) return db.length - i - 1;
            if (db[i] != 0x00) return -1;
        }
        return -1;
    }

    /** DB: maskedDB (em's first emLen - hLen - 1 bytes) unmasked with MGF1(H), its bits above emBits cleared. */
    private static byte[] dataBlock(byte[] em, int hLength, MessageDigest mgfDigest, int emBits) {
        int dbLength = em.length - hLength - 1;
        byte[] h = Arrays.copyOfRange(em, dbLength, dbLength + hLength);
        byte[] db = Arrays.copyOf(em, dbLength);
        mask(db, dbLength, h, mgfDigest);
        db[0] &= (byte) (0xff >>> (8 * em.length - emBits));
        return db;
    }

    /** Hash(00 x 8 || mHash || salt), the salt being {@code source[from..]}. */
    private static byte[] hashOfPrefixed(MessageDigest digest, byte[] mHash, byte[] source, int from) {
        digest.reset();
        digest.update(new byte[8]);
        digest.update(mHash);
        digest.update(source, from, source.length - from);
        return digest.digest();
    }

    /** target[0, length) ^= MGF1(seed, length). */
    private static void mask(byte[] target, int length, byte[] seed, MessageDigest mgfDigest) {
        byte[] counter = new byte[4];
        int done = 0;
        for (int c = 0; done < length; c++) {
            counter[0] = (byte) (c >>> 24);
            counter[1] = (byte) (c >>> 16);
            counter[2] = (byte) (c >>> 8);
            counter[3] = (byte) c;
            mgfDigest.reset();
            mgfDigest.update(seed);
            mgfDigest.update(counter);
            byte[] block = mgfDigest.digest();
            for (int i = 0; i < block.length && done < length; i++) target[done++] ^= block[i];
        }
    }
}
