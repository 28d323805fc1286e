package fastrandom.rsa;

import java.math.BigInteger;

/**
 * The modular exponentiations behind RSA, one implementation per engine
 * ({@code :openssl}, {@code :gmp}, {@code :java}). Padding, digests and the
 * JCA plumbing stay in BouncyCastle and jruby-openssl; an engine only raises
 * numbers to powers. Engines are shared by every thread and must be
 * thread-safe.
 */
public interface RsaEngine {
    /** The Ruby-facing name: "openssl", "gmp" or "java". */
    String name();

    /**
     * {@code input^d mod n} for a private key, {@code 0 <= input < n}: CRT,
     * constant-time in the secret values, blinded with a fresh random factor
     * per call, and checked with the public exponent before it is returned,
     * so a faulty computation never releases a result that could leak a
     * prime factor. Throws {@link RsaEngineException} when it cannot.
     */
    BigInteger privateOperation(RsaPrivateKey key, BigInteger input);

    /** {@code input^e mod n}, {@code 0 <= input < n}. Nothing secret is involved. */
    BigInteger publicOperation(BigInteger modulus, BigInteger publicExponent, BigInteger input);
}
