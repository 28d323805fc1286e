package fastrandom.rsa;

import fastrandom.support.KeyCache;
import java.math.BigInteger;
import java.util.Arrays;

import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;

import com.squareup.crypto.rsa.NativeRSAEngine;
import com.squareup.jnagmp.Gmp;
import com.squareup.jnagmp.GmpInteger;

import fastrandom.FastRandom;

/**
 * The {@code :gmp} engine: Square's bouncycastle-rsa {@code NativeRSAEngine}
 * (CRT with jnagmp's {@code Gmp.modPowSecure}, GMP's constant-time
 * {@code mpz_powm_sec}, for private keys; {@code mpz_powm} for public ones),
 * with what it lacks added around it:
 * <ul>
 *   <li><b>blinding</b>: the engine works on {@code input * r^e mod n} for a
 *       fresh random r per call (from fast_random's DRBG), and the result is
 *       multiplied by {@code r^-1}, so nothing that meets the secret exponents
 *       is related to the caller's input (as BouncyCastle's
 *       {@code RSABlindedEngine} does around its own core);</li>
 *   <li><b>a fault check</b>: the result raised to e must give the input back,
 *       or nothing is returned (a fault in one CRT half would otherwise hand
 *       out a multiple of one prime);</li>
 *   <li><b>per-key caching</b>: {@code NativeRSAEngine.init} copies the key
 *       into GMP's memory, so one initialised engine per key is kept (see
 *       {@link KeyCache}) instead of one per operation.</li>
 * </ul>
 * Only loaded once {@link GmpLibrary} has loaded GMP, with jruby-openssl's
 * BouncyCastle on the class path. Thread-safe: an initialised
 * {@code NativeRSAEngine} is only read by {@code processBlock}, and jnagmp
 * keeps its scratch space per thread.
 */
public final class GmpRsaEngine implements RsaEngine {
    public static final String NAME = "gmp";

    private final KeyCache<Prepared> privateKeys;
    private final KeyCache<Prepared> publicKeys;

    /** Throws {@link RsaEngineException} (saying why) when GMP cannot be used here. */
    public GmpRsaEngine() {
        this(KeyCache.DEFAULT_CAPACITY);
    }

    public GmpRsaEngine(int capacity) {
        String reason = GmpLibrary.unavailableReason();
        if (reason != null) throw new RsaEngineException("the gmp RSA engine is unavailable: " + reason);
        // GMP's copies are freed by jnagmp when they are collected.
        privateKeys = new KeyCache<>(capacity, prepared -> { }, prepared -> true);
        publicKeys = new KeyCache<>(capacity, prepared -> { }, prepared -> true);
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The known-answer test through a fresh engine: null when it passes, else why not. */
    public static String selfTest() {
        String reason = GmpLibrary.unavailableReason();
        if (reason != null) return reason;
        String failure = KnownAnswerTest.run(new GmpRsaEngine(2));
        return failure == null ? null : "GMP RSA self-test: " + failure;
    }

    @Override
    public BigInteger privateOperation(RsaPrivateKey key, BigInteger input) {
        Prepared k = key.identity == null
                ? Prepared.forPrivateKey(key)
                : privateKeys.get(key.identity, key.cacheValues(), () -> Prepared.forPrivateKey(key));
        Operands.checkInput(input, k.modulus);
        byte[] block = null;
        byte[] out = null;
        try {
            BigInteger r;
            BigInteger rInverse;
            do {
                r = randomBelow(k.modulus);
                rInverse = inverse(r, k.modulus); // null when r shares a factor with n: (practically) never
            } while (rInverse == null);
            BigInteger blinded = Gmp.modPowInsecure(r, k.exponent, k.modulus).multiply(input).mod(k.modulus);

            block = Operands.fixedLength(blinded, k.modulusBytes);
            out = k.engine.processBlock(block, 0, block.length);
            BigInteger result = new BigInteger(1, out).multiply(rInverse).mod(k.modulus);

            if (!Gmp.modPowInsecure(result, k.exponent, k.modulus).equals(input)) {
                throw new RsaEngineException("the RSA private operation failed its public-exponent check (computation fault); nothing was returned");
            }
            return result;
        } catch (RsaEngineException e) {
            throw e;
        } catch (RuntimeException | LinkageError e) {
            throw new RsaEngineException("the gmp RSA engine failed: " + GmpLibrary.describe(e), e);
        } finally {
            if (block != null) Arrays.fill(block, (byte) 0);
            if (out != null) Arrays.fill(out, (byte) 0);
        }
    }

    @Override
    public BigInteger publicOperation(BigInteger modulus, BigInteger publicExponent, BigInteger input) {
        if (modulus == null || modulus.signum() <= 0 || !modulus.testBit(0)) {
            throw new IllegalArgumentException("the RSA modulus must be odd and positive");
        }
        if (publicExponent == null || publicExponent.signum() <= 0) {
            throw new IllegalArgumentException("the RSA public exponent must be positive");
        }
        Operands.checkInput(input, modulus);
        Prepared k = publicKeys.get(modulus, Operands.publicValues(publicExponent), () -> Prepared.forPublicKey(modulus, publicExponent));
        try {
            byte[] block = Operands.fixedLength(input, k.modulusBytes);
            return new BigInteger(1, k.engine.processBlock(block, 0, block.length));
        } catch (RuntimeException | LinkageError e) {
            throw new RsaEngineException("the gmp RSA engine failed: " + GmpLibrary.describe(e), e);
        }
    }

    /** Frees every cached key now. */
    public void clearCaches() {
        privateKeys.clear();
        publicKeys.clear();
    }

    /** The cache of initialised private-key engines (for diagnostics and tests). */
    public KeyCache<?> privateKeyCache() {
        return privateKeys;
    }

    /** A key's {@code NativeRSAEngine}, initialised once, and its public values in GMP's memory. */
    private static final class Prepared {
        final NativeRSAEngine engine;
        final GmpInteger modulus;
        final GmpInteger exponent;
        final int modulusBytes;

        private Prepared(RSAKeyParameters parameters, BigInteger modulus, BigInteger exponent) {
            // Decryption direction: input and output are both a whole modulus long.
            this.engine = new NativeRSAEngine();
            this.engine.init(false, parameters);
            this.modulus = new GmpInteger(modulus);
            this.exponent = new GmpInteger(exponent);
            this.modulusBytes = Operands.byteLength(modulus);
        }

        static Prepared forPrivateKey(RsaPrivateKey key) {
            check(key.modulus != null && key.publicExponent != null && key.privateExponent != null
                    && key.p != null && key.q != null && key.dP != null && key.dQ != null && key.qInv != null,
                    "the key lacks CRT parameters");
            check(key.modulus.signum() > 0 && key.publicExponent.signum() > 0, "the key's modulus and exponent must be positive");
            // mpz_powm_sec divides by zero (SIGFPE: the JVM dies) on an even modulus.
            check(key.p.signum() > 0 && key.q.signum() > 0 && key.p.testBit(0) && key.q.testBit(0),
                    "the key's primes must be odd and positive");
            check(key.dP.signum() > 0 && key.dQ.signum() > 0 && key.qInv.signum() >= 0, "the key's CRT exponents must be positive");
            key.checkConsistent();
            // A copy of the modulus: the original is the cache's identity,
            // which must not be reachable from what is cached for it.
            BigInteger modulus = copy(key.modulus);
            RSAPrivateCrtKeyParameters parameters = new RSAPrivateCrtKeyParameters(modulus, key.publicExponent,
                    key.privateExponent, key.p, key.q, key.dP, key.dQ, key.qInv.mod(key.p));
            return new Prepared(parameters, modulus, key.publicExponent);
        }

        static Prepared forPublicKey(BigInteger modulus, BigInteger exponent) {
            BigInteger copy = copy(modulus); // as above
            return new Prepared(new RSAKeyParameters(false, copy, exponent), copy, exponent);
        }

        private static BigInteger copy(BigInteger value) {
            return new BigInteger(value.signum(), value.abs().toByteArray());
        }

        private static void check(boolean condition, String message) {
            if (!condition) throw new RsaEngineException(message);
        }
    }

    private static BigInteger inverse(BigInteger value, BigInteger modulus) {
        try {
            return Gmp.modInverse(value, modulus);
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** A uniform r with 1 <= r < n, from fast_random's per-thread DRBG. */
    private static BigInteger randomBelow(BigInteger n) {
        int bits = n.bitLength();
        byte[] bytes = new byte[(bits + 7) / 8];
        int excess = bytes.length * 8 - bits;
        try {
            while (true) {
                FastRandom.nextBytes(bytes);
                bytes[0] &= (byte) (0xff >>> excess);
                BigInteger r = new BigInteger(1, bytes);
                if (r.signum() > 0 && r.compareTo(n) < 0) return r;
            }
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }
}
