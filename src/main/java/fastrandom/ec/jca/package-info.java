/**
 * EC's JCA services over the engine, each given the provider to fall back
 * to, serving jruby-openssl's provider and the JVM-wide one alike: one ECDSA
 * signature, one ECDH key agreement, one EC key pair
 * generator (with the key classes of each provider: {@code BouncyCastleEcKeys},
 * {@code JdkEcKeys}), and X25519/X448 key generation and agreement for the
 * JVM-wide provider. May import {@code fastrandom.ec}, {@code fastrandom.jni}
 * and {@code fastrandom.support}.
 */
package fastrandom.ec.jca;
