package fastrandom.rsa;

import java.math.BigInteger;
import java.util.Arrays;

import javax.crypto.BadPaddingException;

import fastrandom.support.KeyCache;
import fastrandom.jni.BadCiphertextException;
import fastrandom.jni.LibCrypto;
import fastrandom.jni.LibCryptoException;
import fastrandom.support.Diagnostics;

/**
 * The {@code :openssl} engine: RSA in OpenSSL's libcrypto, 3.x or 1.1.1 (loaded with
 * dlopen through fast_random's JNI library, see {@link LibCrypto}).
 *
 * <p>Each private key becomes one native key, validated in C and built
 * on the key's first use, cached against {@link RsaPrivateKey#identity}
 * (see {@link KeyCache}), so that work is done once, not per call. Its
 * private operation is OpenSSL's own (blinded, CRT, checked with e,
 * unblinded in constant time), or, on AVX-512 IFMA for primes of one
 * length above 1024 bits, fast_random's own fixed-width CRT (rsa_crt.c,
 * blinded by rsa_blinding.c) where that is faster; see the README's
 * security notes. Public keys are cached the same way against the
 * modulus instance, keeping the Montgomery context for n. PKCS#1 v1.5
 * signatures with SHA-1 and SHA-2 are one native call each
 * ({@link #signPkcs1}, {@link #verifyPkcs1}).
 *
 * <p>Faults: every CRT result is checked with the public exponent and, on
 * a mismatch, recomputed without CRT (by OpenSSL's rsa_ossl_mod_exp, or
 * ours the same way), so a fault in the CRT step, the one that could
 * reveal a prime factor, never leaves C. {@link #crtChecksResults()} proves
 * that once per process, with a key whose CRT exponent is corrupted; only
 * if it did not would every result also be checked again (one more public
 * exponentiation). A libcrypto known to be bad for a path (3.0.4's IFMA
 * code) is not used for it, with one warning.
 *
 * <p>Thread-safe: one native key serves any number of threads at once.
 */
public final class OpenSslRsaEngine implements RsaEngine {
    public static final String NAME = "openssl";

    /** OpenSSL's OPENSSL_RSA_MAX_MODULUS_BITS: it refuses larger private keys. */
    public static final int MAX_MODULUS_BITS = 16384;
    /** OpenSSL_version_num() of OpenSSL 3.0.0: below it, a 1.1.1 release. */
    private static final long OPENSSL_3 = 0x30000000L;

    /** Lookups of a cached key before falling back to a key for one call (see privateOperation). */
    private static final int LOOKUP_ATTEMPTS = 3;

    private static volatile Boolean crtChecksResults; // probed once

    private final boolean checkResults = !crtChecksResults();
    private final KeyCache<LibCrypto.Key> privateKeys;
    private final KeyCache<LibCrypto.Key> publicKeys;

    public OpenSslRsaEngine() {
        this(KeyCache.DEFAULT_CAPACITY);
    }

    /**
     * An engine caching at most {@code capacity} private and as many public
     * native keys. A key leaving the cache is closed, which frees it once the
     * operations running on it end (see {@link LibCrypto.Key#close()}); a
     * caller that meets a closed key looks it up again.
     */
    public OpenSslRsaEngine(int capacity) {
        this.privateKeys = new KeyCache<>(capacity, LibCrypto.Key::close, key -> !key.isClosed());
        this.publicKeys = new KeyCache<>(capacity, LibCrypto.Key::close, key -> !key.isClosed());
        String notice = LibCrypto.privatePathNotice(); // a known-bad libcrypto: what it changes, once
        if (notice == null) return;
        // A 1.1.1 letter does not say whether the vendor backported a fix (RHEL 8's 1.1.1k and Ubuntu
        // 20.04's 1.1.1f carry CVE-2022-4304's): a warning no one could act on, so only under $VERBOSE.
        if (LibCrypto.versionNumber() >= OPENSSL_3) Diagnostics.warnOnce(notice);
        else Diagnostics.warnOnceIfVerbose(notice);
    }

    /** Why this engine cannot run here (libcrypto missing, hidden, or the JNI library), or null. */
    public static String unavailableReason() {
        return LibCrypto.failure();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public BigInteger privateOperation(RsaPrivateKey key, BigInteger input) {
        try {
            return privateOnNativeKey(key, input);
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    @Override
    public BigInteger publicOperation(BigInteger modulus, BigInteger publicExponent, BigInteger input) {
        try {
            return publicOnNativeKey(modulus, publicExponent, input);
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    private BigInteger privateOnNativeKey(RsaPrivateKey key, BigInteger input) {
        requireUsable();
        BigInteger modulus = key.modulus;
        Operands.checkInput(input, modulus);
        byte[] in = Operands.fixedLength(input, LibCrypto.byteLength(modulus));
        byte[] out = null;
        try {
            out = withPrivateKey(key, nativeKey -> nativeKey.privateRaw(in));
            return new BigInteger(1, out);
        } finally {
            Arrays.fill(in, (byte) 0);
            if (out != null) Arrays.fill(out, (byte) 0);
        }
    }

    /**
     * The PKCS#1 v1.5 signature of {@code data[offset, offset + length)}
     * hashed with {@code hash} (or of that digest when {@code prehashed}),
     * in one native call: digest, DigestInfo, padding and the private
     * operation. The modulus must hold it ({@link LibCrypto.Hash#minimumModulusBytes()}).
     * Throws {@link InconsistentKeyException} for a key no engine takes,
     * {@link RsaEngineException} when the engine fails (nothing is released).
     */
    public byte[] signPkcs1(RsaPrivateKey key, LibCrypto.Hash hash, byte[] data, int offset, int length, boolean prehashed) {
        requireUsable();
        try {
            return withPrivateKey(key, nativeKey -> nativeKey.signPkcs1(hash, data, offset, length, prehashed));
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    /**
     * Whether {@code signature} (exactly as long as the modulus) is a
     * PKCS#1 v1.5 signature of the data (or digest), in one native call,
     * accepting what BouncyCastle accepts (see {@link LibCrypto.Key#verifyPkcs1}).
     */
    public boolean verifyPkcs1(BigInteger modulus, BigInteger publicExponent, LibCrypto.Hash hash,
                               byte[] data, int offset, int length, boolean prehashed, byte[] signature) {
        requireUsable();
        try {
            Boolean valid = withPublicKey(modulus, publicExponent,
                    nativeKey -> nativeKey.verifyPkcs1(hash, data, offset, length, prehashed, signature));
            return valid != null && valid;
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    /**
     * {@code data[offset, offset + length)} encrypted with the public key and
     * {@code padding} in one native call (padding, random bytes from
     * OpenSSL's DRBG as in MRI, exponentiation); the message must fit
     * ({@link LibCrypto.Padding#maxMessageBytes}).
     */
    public byte[] publicEncrypt(BigInteger modulus, BigInteger publicExponent, LibCrypto.Padding padding,
                                byte[] data, int offset, int length) {
        requireUsable();
        try {
            return withPublicKey(modulus, publicExponent, nativeKey -> nativeKey.publicEncrypt(padding, data, offset, length));
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    /**
     * {@code ciphertext} (exactly as long as the modulus) decrypted with the
     * private key and {@code padding} in one native call: the blinded
     * private operation (the CRT, its result checked) and OpenSSL's
     * constant-time unpadding. Throws
     * {@link BadPaddingException} when it is not a well-padded message,
     * {@link InconsistentKeyException} for a key no engine takes,
     * {@link RsaEngineException} when the engine fails.
     */
    public byte[] privateDecrypt(RsaPrivateKey key, LibCrypto.Padding padding, byte[] ciphertext) throws BadPaddingException {
        requireUsable();
        try {
            return withPrivateKey(key, nativeKey -> nativeKey.privateDecrypt(padding, ciphertext));
        } catch (BadCiphertextException e) {
            throw new BadPaddingException("Decryption error"); // the JDK's words
        } catch (LibCryptoException e) {
            throw new RsaEngineException(e.getMessage(), e);
        }
    }

    /** Whether a native key for these exact values is cached (the key was used before and validated then). */
    public boolean hasCached(RsaPrivateKey key) {
        return key.identity != null && privateKeys.peek(key.identity, key.cacheValues()) != null;
    }

    /** Whether a native public key for these exact values is cached. */
    public boolean hasCached(BigInteger modulus, BigInteger publicExponent) {
        return publicKeys.peek(modulus, Operands.publicValues(publicExponent)) != null;
    }

    /**
     * Runs {@code operation} on the cached native key for {@code key} (built
     * and cached on first use), looking again if another thread closed it
     * meanwhile (an operation on a closed key answers null); a key with no
     * identity to cache against gets a native key for this call only.
     */
    private <T> T withPrivateKey(RsaPrivateKey key, java.util.function.Function<LibCrypto.Key, T> operation) {
        if (key.identity != null) {
            BigInteger[] values = key.cacheValues();
            for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
                T result = operation.apply(privateKeys.get(key.identity, values, () -> nativePrivateKey(key)));
                if (result != null) return result;
            }
        }
        LibCrypto.Key once = nativePrivateKey(key);
        try {
            return operation.apply(once);
        } finally {
            once.close();
        }
    }

    private <T> T withPublicKey(BigInteger modulus, BigInteger publicExponent,
                                java.util.function.Function<LibCrypto.Key, T> operation) {
        BigInteger[] values = Operands.publicValues(publicExponent);
        for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
            LibCrypto.Key nativeKey = publicKeys.get(modulus, values, () -> LibCrypto.newPublicKey(modulus, publicExponent));
            T result = operation.apply(nativeKey);
            if (result != null) return result;
        }
        LibCrypto.Key once = LibCrypto.newPublicKey(modulus, publicExponent);
        try {
            return operation.apply(once);
        } finally {
            once.close();
        }
    }

    private BigInteger publicOnNativeKey(BigInteger modulus, BigInteger publicExponent, BigInteger input) {
        requireUsable();
        Operands.checkInput(input, modulus);
        if (publicExponent.signum() <= 0) throw new IllegalArgumentException("RSA public exponent must be positive");
        if (!modulus.testBit(0) || modulus.bitLength() > MAX_MODULUS_BITS) {
            // Not an RSA modulus OpenSSL's Montgomery code takes; nothing here is secret.
            return input.modPow(publicExponent, modulus);
        }
        byte[] in = Operands.fixedLength(input, LibCrypto.byteLength(modulus));
        byte[] out = withPublicKey(modulus, publicExponent, nativeKey -> nativeKey.publicRaw(in));
        return new BigInteger(1, out);
    }

    /** The cache of native private keys (for diagnostics and tests). */
    public KeyCache<LibCrypto.Key> privateKeyCache() {
        return privateKeys;
    }

    /** The cache of native public keys (for diagnostics and tests). */
    public KeyCache<LibCrypto.Key> publicKeyCache() {
        return publicKeys;
    }

    /** Frees every cached native key now. */
    public void clearCaches() {
        privateKeys.clear();
        publicKeys.clear();
    }

    private LibCrypto.Key nativePrivateKey(RsaPrivateKey key) {
        key.checkConsistent();
        return LibCrypto.newPrivateKey(key.modulus, key.publicExponent, key.privateExponent,
                                       key.p, key.q, key.dP, key.dQ, key.qInv, checkResults);
    }

    /** Whether the engine checks every private result in C too (only when libcrypto's own check is not there). */
    public boolean checksResults() {
        return checkResults;
    }

    /**
     * Whether the private operation checks its CRT results itself: a key
     * whose CRT exponent dP is corrupted (which makes the CRT result wrong
     * modulo p, exactly what a fault would) must still give the right
     * answer, recomputed without CRT, when nothing else checks it. Probed
     * once per process, on the known-answer key; false when libcrypto is
     * unusable.
     */
    public static boolean crtChecksResults() {
        Boolean probed = crtChecksResults;
        if (probed != null) return probed;
        synchronized (OpenSslRsaEngine.class) {
            if (crtChecksResults == null) crtChecksResults = probeCrtCheck();
            return crtChecksResults;
        }
    }

    private static boolean probeCrtCheck() {
        if (LibCrypto.failure() != null) return false;
        RsaPrivateKey key = KnownAnswerTest.key();
        LibCrypto.Key faulty = LibCrypto.newPrivateKey(key.modulus, key.publicExponent, key.privateExponent,
                key.p, key.q, key.dP.flipBit(1), key.dQ, key.qInv, false);
        try {
            byte[] in = Operands.fixedLength(KnownAnswerTest.input(), LibCrypto.byteLength(key.modulus));
            return new BigInteger(1, faulty.privateRaw(in)).equals(KnownAnswerTest.output());
        } catch (LibCryptoException e) {
            return false;
        } finally {
            faulty.close();
        }
    }

    private static void requireUsable() {
        String why = LibCrypto.failure();
        if (why != null) throw new RsaEngineException("the openssl RSA engine is unavailable: " + why);
    }

    /**
     * The known-answer test ({@link KnownAnswerTest}) through a fresh engine.
     * Null when it passes, else why not (or why OpenSSL is unavailable).
     */
    public static String selfTest() {
        String why = LibCrypto.failure();
        if (why != null) return why;
        OpenSslRsaEngine engine = new OpenSslRsaEngine(2);
        try {
            String failure = KnownAnswerTest.run(engine);
            if (failure == null) failure = KnownAnswerTest.runPkcs1(engine);
            return failure == null ? null : "OpenSSL RSA self-test: " + failure;
        } finally {
            engine.clearCaches();
        }
    }
}
