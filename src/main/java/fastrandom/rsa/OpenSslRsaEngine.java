package fastrandom.rsa;

import fastrandom.jni.LibCrypto;
import fastrandom.jni.LibCryptoException;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * The {@code :openssl} engine: RSA exponentiations in OpenSSL's libcrypto 3
 * (loaded with dlopen through fast_random's JNI library, see
 * {@link LibCrypto}).
 *
 * <p>Each private key becomes one OpenSSL RSA object, built on the key's first
 * use and cached against {@link RsaPrivateKey#identity} (see
 * {@link KeyCache}), so OpenSSL's per-key work (Montgomery contexts for
 * n, p and q; the blinding factors) is done once, not per call. A private
 * operation is OpenSSL's blinded, constant-time CRT (RSA_private_encrypt with
 * no padding), and its result is checked with the public exponent in C
 * before it is returned. Public keys are cached the same way against the
 * modulus instance, keeping OpenSSL's Montgomery context for n.
 *
 * <p>Thread-safe: one native key serves any number of threads at once.
 */
public final class OpenSslRsaEngine implements RsaEngine {
    public static final String NAME = "openssl";

    /** OpenSSL's OPENSSL_RSA_MAX_MODULUS_BITS: it refuses larger private keys. */
    static final int MAX_MODULUS_BITS = 16384;

    /** Lookups of a cached key before falling back to a key for one call (see privateOperation). */
    private static final int LOOKUP_ATTEMPTS = 3;

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
            if (key.identity != null) {
                BigInteger[] values = key.cacheValues();
                for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
                    LibCrypto.Key nativeKey = privateKeys.get(key.identity, values, () -> nativePrivateKey(key));
                    out = nativeKey.privateRaw(in);
                    if (out != null) return new BigInteger(1, out);
                    // Evicted and closed by another thread between lookup and use: look again.
                }
            }
            // No identity to cache against (or the cache keeps losing the key): a key for this call only.
            LibCrypto.Key once = nativePrivateKey(key);
            try {
                out = once.privateRaw(in);
                return new BigInteger(1, out);
            } finally {
                once.close();
            }
        } finally {
            Arrays.fill(in, (byte) 0);
            if (out != null) Arrays.fill(out, (byte) 0);
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
        BigInteger[] values = Operands.publicValues(publicExponent);
        for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
            LibCrypto.Key nativeKey = publicKeys.get(modulus, values, () -> LibCrypto.newPublicKey(modulus, publicExponent));
            byte[] out = nativeKey.publicRaw(in);
            if (out != null) return new BigInteger(1, out);
        }
        return new BigInteger(1, LibCrypto.publicRawStateless(modulus, publicExponent, in));
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

    private static LibCrypto.Key nativePrivateKey(RsaPrivateKey key) {
        key.checkConsistent();
        return LibCrypto.newPrivateKey(key.modulus, key.publicExponent, key.privateExponent,
                                       key.p, key.q, key.dP, key.dQ, key.qInv);
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
            return failure == null ? null : "OpenSSL RSA self-test: " + failure;
        } finally {
            engine.clearCaches();
        }
    }
}
