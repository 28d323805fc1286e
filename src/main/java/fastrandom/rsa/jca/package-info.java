/**
 * RSA's JCA services over the engines: the PKCS#1 v1.5 signature and the
 * RSA cipher ({@link fastrandom.rsa.jca.EngineRsaSignature},
 * {@link fastrandom.rsa.jca.EngineRsaCipher}), one SPI each for both providers, falling back on
 * BouncyCastle's SPIs over the engines for jruby-openssl's provider and on
 * the next provider for the JVM-wide one; and PSS, for the JVM-wide
 * provider and for jruby-openssl's PSS methods. May import
 * {@code fastrandom.rsa}, {@code fastrandom.random} (salts),
 * {@code fastrandom.jni}, {@code fastrandom.support} and BouncyCastle (not
 * in what the JVM-wide provider loads, which must work without it).
 */
package fastrandom.rsa.jca;
