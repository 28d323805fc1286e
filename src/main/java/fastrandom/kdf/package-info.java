/**
 * Key derivation: {@link fastrandom.kdf.Pbkdf2}, PBKDF2 with HMAC on the
 * JDK's digests. May import {@code fastrandom.jni} (for its names of the
 * hashes) only.
 */
package fastrandom.kdf;
