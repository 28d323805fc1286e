/**
 * RSA's JCA services over the engines: the PKCS#1 v1.5 signature
 * ({@link fastrandom.rsa.jca.EngineRsaSignature}) and the RSA cipher, each
 * one class given the provider to fall back to, for jruby-openssl's provider
 * ({@link fastrandom.rsa.jca.RsaBlockProvider}: BouncyCastle's SPIs over the
 * engines) and the JVM-wide one (the next provider) alike; the JVM-wide
 * RSASSA-PSS, and the PSS methods of OpenSSL::PKey::RSA
 * ({@link fastrandom.rsa.jca.PssSigning}), both on {@code fastrandom.rsa.Pss}.
 * May import {@code fastrandom.rsa},
 * {@code fastrandom.random} (salts), {@code fastrandom.jni},
 * {@code fastrandom.support} and BouncyCastle.
 */
package fastrandom.rsa.jca;
