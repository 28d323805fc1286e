/**
 * Symmetric ciphers: {@link fastrandom.cipher.AesCipher}, jruby-openssl's
 * AES in GCM, CBC and CTR modes on the JDK's AES, BouncyCastle's behaviour
 * kept (the message's states, the replay to BouncyCastle); {@code
 * JdkCipher}, the JDK's cipher a message runs on and the thread's spares,
 * re-keyed with zeros between messages; {@code Buffer}, the bytes a
 * message keeps, zeroed when it is done. May import {@code
 * fastrandom.support} only.
 */
package fastrandom.cipher;
