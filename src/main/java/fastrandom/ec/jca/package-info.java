/**
 * EC's JCA services over the engine: one ECDSA signature and one ECDH key
 * agreement, each given the provider to fall back to, serving
 * jruby-openssl's provider and the JVM-wide one alike. May import
 * {@code fastrandom.ec}, {@code fastrandom.jni} and {@code fastrandom.support}.
 */
package fastrandom.ec.jca;
