package fastrandom.jni;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import fastrandom.Setting;

/**
 * OpenSSL's libcrypto for RSA (exponentiations, and PKCS#1 v1.5 signatures
 * in one call each), through fast_random's JNI library, which opens
 * {@code libcrypto.so.3} (OpenSSL 3.x), else {@code libcrypto.so.1.1}
 * (OpenSSL 1.1.1), with dlopen the first time it is needed
 * ({@link #load()}), never when the gem is required.
 *
 * <p>Native keys are {@link Key} objects; their handles never leave this
 * class, and a key is freed only once no call on it is running, so no use of
 * this API (from Java or Ruby) can pass OpenSSL a stale or made-up pointer.
 *
 * <p>{@code FAST_RANDOM_HIDE_LIBCRYPTO=1} ({@link Setting#HIDE_LIBCRYPTO})
 * makes libcrypto look absent (to test the fallback on any machine);
 * {@link Setting#HIDE_IFMA} and, in the test build,
 * {@link Setting#TEST_OPENSSL_VERSION} reach the C side when it is opened.
 */
public final class LibCrypto {
    static final String HIDE_VARIABLE = Setting.HIDE_LIBCRYPTO.variable();

    private static Boolean loaded; // guarded by LibCrypto.class
    private static String failure;
    private static String version;
    private static String soname;
    private static volatile String noneOpened; // why no libcrypto could be opened (the library loaded), once known
    static volatile boolean usable; // read by EcKey.liveVerifyTables without loading

    private static final AtomicInteger LIVE_KEYS = new AtomicInteger();

    /** dlopen and dlsym; null on success, else why libcrypto cannot be used. */
    private static native String open();
    private static native String version0();
    private static native String soname0();
    private static native long versionNumber0();
    /** Public operations stay off AVX-512 IFMA (before any key is made). */
    private static native void hideIfma0();
    private static native long newPrivateKey(byte[] n, byte[] e, byte[] d, byte[] p, byte[] q,
                                             byte[] dmp1, byte[] dmq1, byte[] iqmp, boolean checkResults);
    private static native long newPublicKey(byte[] n, byte[] e);
    private static native void freeKey(long handle);
    private static native byte[] privateRaw(long handle, byte[] input);
    private static native byte[] publicRaw(long handle, byte[] input);
    private static native byte[] signPkcs1(long handle, int hash, byte[] data, int offset, int length, boolean prehashed);
    private static native boolean verifyPkcs1(long handle, int hash, byte[] data, int offset, int length,
                                              boolean prehashed, byte[] signature);
    private static native byte[] publicEncrypt(long handle, int padding, byte[] data, int offset, int length);
    private static native byte[] privateDecrypt(long handle, int padding, byte[] ciphertext);
    private static native String publicExponentiation0();
    private static native String privatePathNotice0();
    private static native long[] blindingStats0();
    private static native long[] crtStats0();
    private static native byte[] digestInfo0(int hash, byte[] digest);

    /**
     * The digests of the one-call PKCS#1 v1.5 signatures, with OpenSSL's
     * one-shot functions (the order is the C side's).
     */
    public enum Hash {
        SHA1(20), SHA224(28), SHA256(32), SHA384(48), SHA512(64);

        /** The length of the DER prefix of a DigestInfo with NULL parameters, before the digest. */
        private static final int DIGEST_INFO_PREFIX = 19;
        private static final int SHA1_DIGEST_INFO_PREFIX = 15;
        /** Padding type 1: 00 01, at least 8 bytes of ff, 00. */
        private static final int PKCS1_OVERHEAD = 11;

        private final int digestLength;

        Hash(int digestLength) {
            this.digestLength = digestLength;
        }

        public int digestLength() {
            return digestLength;
        }

        /** The DER DigestInfo of {@code digest} (what a PKCS#1 v1.5 signature with this hash encodes). */
        public byte[] digestInfo(byte[] digest) {
            requireUsable();
            return digestInfo0(ordinal(), digest);
        }

        /** The shortest modulus, in bytes, that holds a signature with this digest. */
        public int minimumModulusBytes() {
            return (this == SHA1 ? SHA1_DIGEST_INFO_PREFIX : DIGEST_INFO_PREFIX) + digestLength + PKCS1_OVERHEAD;
        }
    }

    /** The encryption paddings of {@link Key#publicEncrypt} (the values are OpenSSL's). */
    public enum Padding {
        /** RSAES-PKCS1-v1_5: at most k - 11 bytes. */
        PKCS1(1, 11),
        /** RSAES-OAEP with SHA-1 and MGF1-SHA-1, no label: at most k - 42 bytes. */
        OAEP_SHA1(4, 42);

        private final int openssl;
        private final int overhead;

        Padding(int openssl, int overhead) {
            this.openssl = openssl;
            this.overhead = overhead;
        }

        /** The longest message a modulus of {@code modulusBytes} bytes takes with this padding. */
        public int maxMessageBytes(int modulusBytes) {
            return modulusBytes - overhead;
        }
    }

    private LibCrypto() {}

    /** Loads the JNI library and libcrypto if that has not been tried yet; true when usable. */
    public static boolean load() {
        if (usable) return true;
        synchronized (LibCrypto.class) {
            if (loaded != null) return loaded;
            if (Setting.HIDE_LIBCRYPTO.on()) {
                failure = "libcrypto hidden by " + HIDE_VARIABLE;
            } else if (!NativeLibrary.load()) {
                failure = NativeLibrary.failure();
            } else {
                try {
                    failure = open();
                    noneOpened = failure;
                    if (failure == null) {
                        if (Setting.HIDE_IFMA.on()) hideIfma0();
                        NativeTestHooks.pretendOpenSslVersion(Setting.TEST_OPENSSL_VERSION.value());
                        version = version0();
                        soname = soname0();
                    }
                } catch (UnsatisfiedLinkError e) {
                    failure = "the native library has no OpenSSL support (rebuild it): " + e.getMessage();
                }
            }
            loaded = failure == null;
            usable = loaded;
            return loaded;
        }
    }

    /** Why libcrypto cannot be used, or null when it can (loads it first). */
    public static String failure() {
        if (load()) return null;
        synchronized (LibCrypto.class) {
            return failure;
        }
    }

    /** OpenSSL's version string (e.g. "OpenSSL 3.0.19 27 Jan 2026"), or null when unusable. */
    public static String version() {
        if (!load()) return null;
        synchronized (LibCrypto.class) {
            return version;
        }
    }

    /**
     * OpenSSL_version_num() of the libcrypto opened (0x30000130 for 3.0.19,
     * 0x1010117f for 1.1.1w; in the test build what
     * {@code FAST_RANDOM_TEST_OPENSSL_VERSION} pretends), 0 when unusable.
     */
    public static long versionNumber() {
        return load() ? versionNumber0() : 0;
    }

    /** The libcrypto opened, {@code "libcrypto.so.3"} or {@code "libcrypto.so.1.1"}, or null when unusable. */
    public static String soname() {
        if (!load()) return null;
        synchronized (LibCrypto.class) {
            return soname;
        }
    }

    /**
     * Why no libcrypto could be opened ("no usable libcrypto: ...", each
     * soname tried), without loading anything; null when one was, when
     * none was tried yet, or when the reason is not libcrypto's absence
     * (the native library's, or {@code FAST_RANDOM_HIDE_LIBCRYPTO}).
     */
    public static String noneOpened() {
        return noneOpened;
    }

    /**
     * What the engines run on, e.g. {@code "libcrypto.so.1.1 (OpenSSL 1.1.1w  11 Sep 2023)"},
     * without loading anything: null until libcrypto has been opened and
     * where it cannot be (for the engines' stats).
     */
    public static String openedDescription() {
        if (!usable) return null;
        synchronized (LibCrypto.class) {
            return soname + " (" + version + ")";
        }
    }

    /**
     * Tests: the next {@code operations} operations on native keys, RSA or
     * EC (any thread), fail with a {@link LibCryptoException}, as a libcrypto call
     * that fails does, without calling libcrypto: what the engines do then
     * is what they do when OpenSSL fails. Only with the test build of the
     * native library ({@link NativeTestHooks#present()}); with the shipped
     * one, any count but 0 throws {@link UnsupportedOperationException}.
     */
    public static void injectFaults(int operations) {
        if (operations != 0 && !NativeTestHooks.present()) {
            throw new UnsupportedOperationException("fault injection needs the test build of the native library");
        }
        NativeHandle.injectFaults(operations);
    }

    /**
     * What the public operations (verification, encryption) run on:
     * {@code "ifma"} (fast_random's AVX-512 IFMA code, where the CPU has it
     * and {@code FAST_RANDOM_HIDE_IFMA=1} does not hide it) or
     * {@code "openssl"} (BN_mod_exp_mont); null when libcrypto is unusable.
     */
    public static String publicExponentiation() {
        return load() ? publicExponentiation0() : null;
    }

    /**
     * What a known-bad libcrypto changes, for one warning, or null: on
     * 3.0.4 (its AVX-512 IFMA code for 1024-bit primes is broken) those keys
     * run on fast_random's own CRT; before 3.0.8, and 1.1.1t on 1.1.1,
     * OpenSSL's RSA unblinding is not constant-time. Null when libcrypto is
     * unusable.
     */
    public static String privatePathNotice() {
        return load() ? privatePathNotice0() : null;
    }

    /**
     * The blinding of fast_random's own RSA private operation
     * (rsa_blinding.c), process-wide: {batches made, blinding pairs made,
     * blinded private operations}; zeros before libcrypto was loaded. Each
     * pair serves 32 operations, and a batch of 8 pairs costs one modular
     * inversion. Keys on OpenSSL's private operation are blinded by OpenSSL
     * and not counted here.
     */
    public static long[] blindingStats() {
        return usable ? blindingStats0() : new long[3];
    }

    /**
     * RSA private operations by fast_random's own CRT (rsa_crt.c, on AVX-512
     * IFMA), process-wide: {operations, results that failed the check with
     * the public exponent and were recomputed without CRT}; zeros before
     * libcrypto was loaded.
     */
    public static long[] crtStats() {
        return usable ? crtStats0() : new long[2];
    }

    /** Native keys (RSA and EC) created and not yet freed, process-wide. */
    public static int liveKeys() {
        return LIVE_KEYS.get();
    }

    /**
     * A native private key in CRT form. The values go to OpenSSL as
     * big-endian magnitudes; the temporary arrays are zeroed at once.
     * OpenSSL checks the CRT result of every private operation with the
     * public exponent (recomputing without CRT on a mismatch); with
     * {@code checkResults} every final result is also checked in C, and
     * one that fails is never returned.
     */
    public static Key newPrivateKey(BigInteger n, BigInteger e, BigInteger d, BigInteger p, BigInteger q,
                                    BigInteger dP, BigInteger dQ, BigInteger qInv, boolean checkResults) {
        requireUsable();
        byte[][] values = { magnitude(n), magnitude(e), magnitude(d), magnitude(p), magnitude(q),
                            magnitude(dP), magnitude(dQ), magnitude(qInv) };
        try {
            long handle = newPrivateKey(values[0], values[1], values[2], values[3], values[4],
                                        values[5], values[6], values[7], checkResults);
            return new Key(handle, true, byteLength(n));
        } finally {
            for (byte[] value : values) Arrays.fill(value, (byte) 0);
        }
    }

    /** A native public key: n, e and OpenSSL's Montgomery context for n. */
    public static Key newPublicKey(BigInteger n, BigInteger e) {
        requireUsable();
        return new Key(newPublicKey(magnitude(n), magnitude(e)), false, byteLength(n));
    }

    /** The length of a modulus in bytes, as OpenSSL counts it. */
    public static int byteLength(BigInteger modulus) {
        return (modulus.bitLength() + 7) / 8;
    }

    /** Counts a native key (RSA or EC) created. */
    static void keyCreated() {
        LIVE_KEYS.incrementAndGet();
    }

    static void keyFreed() {
        LIVE_KEYS.decrementAndGet();
    }

    static byte[] magnitude(BigInteger value) {
        if (value == null || value.signum() < 0) throw new LibCryptoException("RSA key values must be non-negative");
        return value.toByteArray(); // a leading zero sign byte, if any, is harmless to BN_bin2bn
    }

    static void requireUsable() {
        if (!load()) throw new LibCryptoException("OpenSSL is not available: " + failure());
    }

    /**
     * One native RSA key. Thread-safe: any number of threads may run
     * operations on it at once. {@link #close()} frees it once the
     * operations running at that moment end; after that the operations
     * return null.
     */
    public static final class Key extends NativeKey {
        private final boolean privateKey;
        private final int modulusBytes;

        private Key(long pointer, boolean privateKey, int modulusBytes) {
            super(pointer, LibCrypto::freeKey, "key");
            this.privateKey = privateKey;
            this.modulusBytes = modulusBytes;
        }

        public boolean isPrivate() {
            return privateKey;
        }

        /** The modulus length in bytes: the length of every input and output. */
        public int modulusBytes() {
            return modulusBytes;
        }

        /**
         * {@code input^d mod n} (input big-endian, exactly {@link #modulusBytes()}
         * long; see {@link LibCrypto#newPrivateKey} for the checks); null when
         * the key has been closed.
         */
        public byte[] privateRaw(byte[] input) {
            requirePrivate();
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.privateRaw(h, input);
            } finally {
                release();
            }
        }

        /** {@code input^e mod n}; null when the key has been closed. */
        public byte[] publicRaw(byte[] input) {
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.publicRaw(h, input);
            } finally {
                release();
            }
        }

        /**
         * The PKCS#1 v1.5 signature ({@link #modulusBytes()} long) of
         * {@code data[offset, offset + length)}, hashed with {@code hash} in
         * the same call, or of that digest when {@code prehashed}; null when
         * the key has been closed. The modulus must hold it
         * ({@link Hash#minimumModulusBytes()}).
         */
        public byte[] signPkcs1(Hash hash, byte[] data, int offset, int length, boolean prehashed) {
            requirePrivate();
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.signPkcs1(h, hash.ordinal(), data, offset, length, prehashed);
            } finally {
                release();
            }
        }

        /**
         * Whether {@code signature} (exactly {@link #modulusBytes()} long) is
         * a PKCS#1 v1.5 signature of {@code data[offset, offset + length)}
         * (or of that digest when {@code prehashed}), its DigestInfo with or
         * without NULL parameters, as BouncyCastle accepts; false for a
         * signature not below n. Null when the key has been closed.
         */
        public Boolean verifyPkcs1(Hash hash, byte[] data, int offset, int length, boolean prehashed, byte[] signature) {
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.verifyPkcs1(h, hash.ordinal(), data, offset, length, prehashed, signature);
            } finally {
                release();
            }
        }

        /**
         * {@code data[offset, offset + length)} encrypted with the public
         * key and {@code padding}, its random bytes from OpenSSL's DRBG
         * ({@link #modulusBytes()} long; the message at most
         * {@link Padding#maxMessageBytes}); null when the key has been closed.
         */
        public byte[] publicEncrypt(Padding padding, byte[] data, int offset, int length) {
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.publicEncrypt(h, padding.openssl, data, offset, length);
            } finally {
                release();
            }
        }

        /**
         * {@code ciphertext} (exactly {@link #modulusBytes()} long) decrypted
         * with the private key and {@code padding} (the blinded private
         * operation, then OpenSSL's constant-time unpadding); throws {@link BadCiphertextException}
         * when it is not a well-padded message, {@link LibCryptoException}
         * when libcrypto fails; null when the key has been closed.
         */
        public byte[] privateDecrypt(Padding padding, byte[] ciphertext) {
            requirePrivate();
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.privateDecrypt(h, padding.openssl, ciphertext);
            } finally {
                release();
            }
        }

        private void requirePrivate() {
            if (!privateKey) throw new LibCryptoException("not a private key");
        }

        private long acquire() {
            return handle.acquire();
        }

        private void release() {
            handle.release();
        }
    }
}
