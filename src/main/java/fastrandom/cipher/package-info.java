/**
 * Symmetric ciphers: {@link fastrandom.cipher.AesCipher}, jruby-openssl's
 * AES in GCM, CBC and CTR modes on the JDK's AES, BouncyCastle's behaviour
 * kept. May import {@code fastrandom.support} only.
 */
package fastrandom.cipher;
