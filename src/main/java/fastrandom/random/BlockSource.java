package fastrandom.random;

/**
 * Where a thread's {@link BufferedRandom} gets its bytes: one request fills
 * at most {@link #maxRequest()} bytes. Not thread-safe: one per thread.
 *
 * <p>A fill that throws may have written part of {@code out}; the caller
 * zeroes it, and the source must not produce those bytes again.
 */
public interface BlockSource {
    /** The largest single request (a refill never asks for more). */
    int maxRequest();

    /** The smallest buffer worth refilling (per-call overhead of the source). */
    int minBuffer();

    /** Fills {@code out[offset, offset + length)}, length at most {@link #maxRequest()}. */
    void fill(byte[] out, int offset, int length);

    /** Takes fresh seed material now, where the source has any. */
    void reseed();

    /** Seeds taken so far (0 for sources without a seed). */
    long seeds();

    /** Output since the last seed. */
    long bytesSinceSeed();

    /** 64 bits of a one-way digest of the internal state, for tests (0 where there is none). */
    long stateFingerprint();

    /** Overwrites the internal state; the source is not used again. */
    void wipe();
}
