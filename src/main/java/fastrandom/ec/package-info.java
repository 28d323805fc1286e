/**
 * The EC engine: P-256 and P-521 on libcrypto through the native layer
 * (P-384 and secp256k1 stay on BouncyCastle, faster there), the registry
 * that enables it per curve after a known-answer self-test
 * ({@link fastrandom.ec.EcEngines}), and its statistics. May import
 * {@code fastrandom.jni} and {@code fastrandom.support}.
 */
package fastrandom.ec;
