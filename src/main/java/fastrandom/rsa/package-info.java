/**
 * The RSA engines: {@code :openssl} (libcrypto through the native layer),
 * {@code :gmp} (libgmp through jnagmp and JNA) and the registry that picks
 * one ({@link fastrandom.rsa.RsaEngines}, a known-answer self-test before
 * first use), their statistics, and EMSA-PSS. The JCA services built on
 * them are in {@code rsa.jca}. May import {@code fastrandom.jni} and
 * {@code fastrandom.support}.
 */
package fastrandom.rsa;
