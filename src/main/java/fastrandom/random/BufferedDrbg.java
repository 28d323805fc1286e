package fastrandom.random;

import java.util.Arrays;

/**
 * One thread's generator: a {@link CtrDrbg} seeded from an
 * {@link EntropySource}, handing out bytes from a private buffer.
 *
 * <p>Each refill is one Generate request into the buffer (its Update step
 * runs right after, so bytes still in the buffer cannot be recomputed from
 * the DRBG state, and bytes handed out are zeroed in the buffer at once).
 * The buffer starts small and doubles up to {@link CtrDrbg#MAX_BYTES_PER_REQUEST},
 * so a short-lived fiber that asks for one UUID costs a 1 KiB buffer, while a
 * busy request thread settles at 64 KiB refills.
 *
 * <p>Not thread-safe: {@link ThreadGenerators} gives each thread its own.
 */
public final class BufferedDrbg {
    static final int INITIAL_BUFFER = 1024;
    static final int MAX_BUFFER = CtrDrbg.MAX_BYTES_PER_REQUEST;

    private final CtrDrbg drbg = new CtrDrbg();
    private final EntropySource entropy;
    private final ReseedPolicy policy;
    private final byte[] personalization;

    private byte[] buffer = new byte[INITIAL_BUFFER];
    private int position = INITIAL_BUFFER; // nothing buffered yet
    private long bytesSinceSeed;
    private long seededAtNanos;
    private int seedEpoch;
    private long seeds;

    BufferedDrbg(EntropySource entropy, ReseedPolicy policy, byte[] personalization) {
        this.entropy = entropy;
        this.policy = policy;
        this.personalization = personalization;
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        entropy.fill(seed);
        drbg.instantiate(seed, personalization);
        Arrays.fill(seed, (byte) 0);
        markSeeded();
    }

    /** Fills {@code out[offset, offset + length)} with random bytes. */
    public void nextBytes(byte[] out, int offset, int length) {
        checkEpoch();
        while (length > 0) {
            int available = buffer.length - position;
            if (available == 0) {
                if (length >= MAX_BUFFER && buffer.length == MAX_BUFFER) {
                    // A large request skips the buffer: whole Generate requests straight into out.
                    int chunk = MAX_BUFFER;
                    reseedIfDue();
                    drbg.generate(out, offset, chunk, null);
                    bytesSinceSeed += chunk;
                    ThreadGenerators.countGenerated(chunk);
                    offset += chunk;
                    length -= chunk;
                    continue;
                }
                refill();
                available = buffer.length;
            }
            int n = Math.min(length, available);
            System.arraycopy(buffer, position, out, offset, n);
            Arrays.fill(buffer, position, position + n, (byte) 0);
            position += n;
            offset += n;
            length -= n;
        }
    }

    public void nextBytes(byte[] out) {
        nextBytes(out, 0, out.length);
    }

    /** 64 random bits. */
    public long nextLong() {
        checkEpoch();
        if (buffer.length - position < 8) {
            byte[] eight = new byte[8];
            nextBytes(eight, 0, 8);
            long value = bigEndianLong(eight, 0);
            Arrays.fill(eight, (byte) 0);
            return value;
        }
        long value = bigEndianLong(buffer, position);
        Arrays.fill(buffer, position, position + 8, (byte) 0);
        position += 8;
        return value;
    }

    /** A uniform long in [0, bound) for bound > 0, by rejection (no modulo bias). */
    public long nextLong(long bound) {
        if (bound <= 0) throw new IllegalArgumentException("bound must be positive");
        long mask = -1L >>> Long.numberOfLeadingZeros(bound - 1 | 1);
        if ((bound & (bound - 1)) == 0) return nextLong() & (bound - 1);
        long r;
        do {
            r = nextLong() & mask;
        } while (r >= bound);
        return r;
    }

    /** A uniform double in [0, 1) with 53 random bits. */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** A uniform double in [0, 1]: 2^53 + 1 equally likely values. */
    public double nextDoubleInclusive() {
        return nextLong((1L << 53) + 1) * 0x1.0p-53;
    }

    /** Drops buffered output and reseeds from the entropy source now. */
    public void reseed() {
        Arrays.fill(buffer, (byte) 0);
        position = buffer.length;
        reseedNow();
    }

    public long seeds() {
        return seeds;
    }

    public int stateFingerprint() {
        return drbg.stateFingerprint();
    }

    public long bytesSinceSeed() {
        return bytesSinceSeed;
    }

    private void checkEpoch() {
        if (seedEpoch != ThreadGenerators.reseedEpoch()) reseed();
    }

    private void refill() {
        if (buffer.length < MAX_BUFFER) buffer = new byte[buffer.length * 2];
        reseedIfDue();
        drbg.generate(buffer, 0, buffer.length, null);
        bytesSinceSeed += buffer.length;
        ThreadGenerators.countGenerated(buffer.length);
        position = 0;
    }

    private void reseedIfDue() {
        if (policy.due(bytesSinceSeed, seededAtNanos, System.nanoTime())) reseedNow();
    }

    private void reseedNow() {
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        entropy.fill(seed);
        drbg.reseed(seed, personalization);
        Arrays.fill(seed, (byte) 0);
        markSeeded();
    }

    private void markSeeded() {
        bytesSinceSeed = 0;
        seededAtNanos = System.nanoTime();
        seedEpoch = ThreadGenerators.reseedEpoch();
        seeds++;
        ThreadGenerators.countSeed();
    }

    private static long bigEndianLong(byte[] b, int i) {
        return ((b[i] & 0xffL) << 56) | ((b[i + 1] & 0xffL) << 48) | ((b[i + 2] & 0xffL) << 40)
                | ((b[i + 3] & 0xffL) << 32) | ((b[i + 4] & 0xffL) << 24) | ((b[i + 5] & 0xffL) << 16)
                | ((b[i + 6] & 0xffL) << 8) | (b[i + 7] & 0xffL);
    }
}
