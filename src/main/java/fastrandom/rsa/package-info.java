/**
 * The RSA engines: {@code :openssl} (libcrypto through the native layer),
 * {@code :gmp} (libgmp through jnagmp and JNA) and the registry that picks
 * one ({@link fastrandom.rsa.RsaEngines}, a known-answer self-test before
 * first use), their statistics, and EMSA-PSS. The JCA services built on
 * them are in {@code rsa.jca}. May import {@code fastrandom.jni},
 * {@code fastrandom.support} and, from the root package, {@code Setting}
 * and {@code FastRandom} (the generators, for blinding).
 */
package fastrandom.rsa;
