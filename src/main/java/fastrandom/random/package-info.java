/**
 * The random generators: per-thread NIST SP 800-90A CTR_DRBGs (AES-256)
 * seeded from a primary DRBG seeded from the OS, with CPU entropy
 * (RDSEED/RDRAND) mixed in through the DRBG's derivation when present, and
 * the RDRAND backend. {@link fastrandom.random.Call} names each kind of call
 * and finds the generator it draws from. May import {@code fastrandom.jni}
 * and {@code fastrandom.support}.
 */
package fastrandom.random;
