/**
 * RSA's JCA services over the engines: PKCS#1 v1.5 and PSS signatures and
 * the RSA cipher, in one form for jruby-openssl's provider (over
 * BouncyCastle's SPIs) and one for the JVM-wide provider (handing what they
 * do not take to the next provider). May import {@code fastrandom.rsa},
 * {@code fastrandom.random} (salts), {@code fastrandom.jni},
 * {@code fastrandom.support} and BouncyCastle.
 */
package fastrandom.rsa.jca;
