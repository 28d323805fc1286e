/**
 * Symmetric ciphers: {@link fastrandom.cipher.AesCipher}, jruby-openssl's
 * AES in GCM, CBC and CTR modes on the JDK's AES, BouncyCastle's behaviour
 * kept, a message's state explicit; {@code JdkMessage}, the JDK path;
 * {@code Replay}, what BouncyCastle is given to go on with a message;
 * {@code HeldPlaintext}, GCM decryption's plaintext until the tag is
 * checked; {@link fastrandom.cipher.UpdateCalls}, jruby-openssl's
 * {@code update} as the bindings see it; {@code MemoryBudget} and {@code
 * Buffer}, the bytes open messages hold, within one budget, zeroed when
 * done; {@code JdkCipher}, the thread's spare JDK ciphers, re-keyed with
 * zeros between messages. May import {@code fastrandom.support} only.
 */
package fastrandom.cipher;
