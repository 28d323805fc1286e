package fastrandom.kdf;

import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import fastrandom.jni.LibCrypto;

/**
 * The digest a PBKDF2 call names, as OpenSSL 3 (and so MRI) reads the name:
 * its own names and aliases ({@code SHA256}, {@code SHA2-256},
 * {@code RSA-SHA256}, {@code sha256WithRSAEncryption}, {@code ssl3-sha1}),
 * JRuby's {@code SHA-256}, and dotted OIDs, any case. SHA-1 and SHA-2 are
 * derived by {@link Pbkdf2}; SHA-512/224, SHA-512/256 and SHA-3 go to
 * jruby-openssl under a name it knows; BLAKE2b-512, BLAKE2s-256 and
 * MD5-SHA1, which neither names, are made here; the SHAKEs are digests
 * PBKDF2 cannot use. Other names are not known here.
 */
public final class DigestNames {
    /** What a name stands for. */
    public static final class Named {
        /** The hash derived here, or null. */
        public final LibCrypto.Hash hash;
        /** Otherwise the name jruby-openssl derives it under, or null. */
        public final String stockName;
        /** An extendable-output function (SHAKE): a digest OpenSSL's PBKDF2 refuses. */
        public final boolean extendable;
        /** Otherwise a digest neither the JDK nor jruby-openssl names, made here, or null. */
        public final Supplier<MessageDigest> other;
        /** And its HMAC block size. */
        public final int blockSize;

        Named(LibCrypto.Hash hash, String stockName, boolean extendable) {
            this(hash, stockName, extendable, null, 0);
        }

        Named(LibCrypto.Hash hash, String stockName, boolean extendable, Supplier<MessageDigest> other, int blockSize) {
            this.hash = hash;
            this.stockName = stockName;
            this.extendable = extendable;
            this.other = other;
            this.blockSize = blockSize;
        }
    }

    private static final String NIST_HASH = "2.16.840.1.101.3.4.2.";
    private static final Map<String, Named> NAMES = new HashMap<>();

    static {
        name(new Named(LibCrypto.Hash.SHA1, null, false), "SHA1", "SHA-1", "SSL3-SHA1", "RSA-SHA1", "RSA-SHA1-2",
                "SHA1WITHRSAENCRYPTION", "1.3.14.3.2.26");
        sha2(LibCrypto.Hash.SHA224, "224", "4");
        sha2(LibCrypto.Hash.SHA256, "256", "1");
        sha2(LibCrypto.Hash.SHA384, "384", "2");
        sha2(LibCrypto.Hash.SHA512, "512", "3");
        truncated("224", "5");
        truncated("256", "6");
        sha3("224", "7");
        sha3("256", "8");
        sha3("384", "9");
        sha3("512", "10");
        Named shake = new Named(null, null, true);
        name(shake, "SHAKE128", "SHAKE-128", NIST_HASH + "11", "SHAKE256", "SHAKE-256", NIST_HASH + "12");
        // BLAKE2 from jruby-openssl's BouncyCastle, loaded with openssl (and looked up only when used), by OpenSSL's names and OIDs.
        name(new Named(null, null, false, made(() -> new org.bouncycastle.jcajce.provider.digest.Blake2b.Blake2b512()), 128),
                "BLAKE2B512", "BLAKE2B-512", "1.3.6.1.4.1.1722.12.2.1.16");
        name(new Named(null, null, false, made(() -> new org.bouncycastle.jcajce.provider.digest.Blake2s.Blake2s256()), 64),
                "BLAKE2S256", "BLAKE2S-256", "1.3.6.1.4.1.1722.12.2.2.8");
        name(new Named(null, null, false, made(Md5Sha1::new), 64), "MD5-SHA1");
    }

    private DigestNames() {}

    /** What {@code name} stands for, or null for a name not known here. */
    public static Named lookUp(String name) {
        return NAMES.get(name.toUpperCase(Locale.ROOT));
    }

    /**
     * Whether {@code name} is one that jruby-openssl reads and OpenSSL does
     * not: SHA512/224 and SHA512/256 without a "SHA-" or "SHA2-" in front.
     */
    public static boolean onlyStockReads(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return upper.equals("SHA512/224") || upper.equals("SHA512/256");
    }

    private static void sha2(LibCrypto.Hash hash, String bits, String oid) {
        name(new Named(hash, null, false), "SHA" + bits, "SHA-" + bits, "SHA2-" + bits, "RSA-SHA" + bits,
                "SHA" + bits + "WITHRSAENCRYPTION", NIST_HASH + oid);
    }

    private static void truncated(String bits, String oid) {
        name(new Named(null, "SHA512/" + bits, false), "SHA512-" + bits, "SHA-512/" + bits, "SHA2-512/" + bits,
                "RSA-SHA512/" + bits, "SHA512-" + bits + "WITHRSAENCRYPTION", NIST_HASH + oid);
    }

    private static void sha3(String bits, String oid) {
        name(new Named(null, "SHA3-" + bits, false), "SHA3-" + bits, "RSA-SHA3-" + bits,
                "ID-RSASSA-PKCS1-V1_5-WITH-SHA3-" + bits, NIST_HASH + oid);
    }

    /** {@code make}, whose failure to load a class (BouncyCastle out of reach) is an IllegalStateException, as Pbkdf2's digests' are. */
    private static Supplier<MessageDigest> made(Supplier<MessageDigest> make) {
        return () -> {
            try {
                return make.get();
            } catch (LinkageError e) {
                throw new IllegalStateException(String.valueOf(e), e);
            }
        };
    }

    private static void name(Named named, String... names) {
        for (String name : names) NAMES.put(name, named);
    }
}
