package fastrandom.random;

/**
 * AES-256 in counter mode, as {@link CtrDrbg} uses it: keyed with the DRBG's
 * key K and a counter block, it encrypts from that counter on (each
 * {@link #apply} starts again at the counter given to {@link #key}).
 *
 * <p>What an implementation keeps between calls is part of the DRBG's state
 * as a heap dump shows it, so {@link #key} must leave nothing behind from
 * earlier keys or counters (see {@link JceAesCtr}). Not thread-safe.
 */
public interface AesCtr {
    /** Keys the cipher with a 32-byte {@code key} and a 16-byte initial {@code counter}. */
    void key(byte[] key, byte[] counter);

    /**
     * Writes {@code in[inOffset, inOffset + length)} XOR the keystream from
     * the keyed counter to {@code out[outOffset, ...)}.
     */
    void apply(byte[] in, int inOffset, int length, byte[] out, int outOffset);

    /** Overwrites everything derived from a key; {@link #key} must be called before further use. */
    void wipe();
}
