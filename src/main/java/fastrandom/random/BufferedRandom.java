package fastrandom.random;

import java.util.Arrays;

/**
 * One thread's generator: bytes from a {@link BlockSource} (the CTR_DRBG, or
 * RDRAND), handed out from a private buffer.
 *
 * <p>Each refill is one request to the source (for the DRBG, one Generate
 * request followed by its Update step, so bytes still in the buffer cannot
 * be recomputed from the DRBG state). Bytes handed out are zeroed in the
 * buffer at once. The first refill is the source's minimum and each next one
 * doubles, up to its maximum request, so a thread that asks a few times
 * costs 1 KiB, while a busy request thread settles at 64 KiB refills. Requests of a
 * whole maximum request or more skip the buffer.
 *
 * <p>Failures: whatever a fill throws (a {@link fastrandom.jni.CpuRandomFailure},
 * a StackOverflowError inside the JCE, ...), the generator is left with
 * nothing buffered: a refill fills a fresh array and publishes it only once
 * the fill has returned, and whatever a failed fill wrote is zeroed, in the
 * buffer and in the caller's array. The next call refills afresh (the
 * sources never repeat output after a failure: see {@link CtrDrbg}).
 *
 * <p>A thread's own generator is not thread-safe: {@link ThreadGenerators}
 * gives each busy thread its own. A shared one ({@link SharedGenerators})
 * takes its lock for each operation.
 */
public final class BufferedRandom {
    private final BlockSource source;
    private final Backend backend;
    private final long serial;
    private final boolean shared;
    private byte[] buffer = new byte[0]; // nothing buffered yet
    private int position;
    private int seedEpoch;

    /**
     * {@code serial}: this generator's number in the process (1, 2, ...);
     * {@code seedEpoch}: the {@link ThreadGenerators#reseedEpoch()} read
     * before {@code source} took its seed, so a {@code reseed!} that came
     * while it was seeding is not taken as done.
     */
    BufferedRandom(Backend backend, BlockSource source, long serial, int seedEpoch, boolean shared) {
        this.backend = backend;
        this.source = source;
        this.serial = serial;
        this.seedEpoch = seedEpoch;
        this.shared = shared;
    }

    /** Whether this is a shared generator (each operation under its lock). */
    public boolean isShared() {
        return shared;
    }

    Backend backend() {
        return backend;
    }

    /**
     * Fills {@code out[offset, offset + length)} with random bytes; if it
     * throws, that range is left zeroed.
     */
    public void nextBytes(byte[] out, int offset, int length) {
        if (shared) {
            synchronized (this) {
                nextBytesUnshared(out, offset, length);
            }
        } else {
            nextBytesUnshared(out, offset, length);
        }
    }

    private void nextBytesUnshared(byte[] out, int offset, int length) {
        try {
            fill(out, offset, length);
        } catch (Throwable failure) {
            Arrays.fill(out, offset, offset + length, (byte) 0);
            throw failure;
        }
    }

    private void fill(byte[] out, int offset, int length) {
        checkEpoch();
        int max = source.maxRequest();
        while (length > 0) {
            int available = buffer.length - position;
            if (available == 0) {
                if (length >= max && buffer.length == max) {
                    // A large request skips the buffer: whole requests straight into out.
                    source.fill(out, offset, max);
                    ThreadGenerators.countGenerated(max);
                    offset += max;
                    length -= max;
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
        if (shared) {
            synchronized (this) {
                return nextLongUnshared();
            }
        }
        return nextLongUnshared();
    }

    private long nextLongUnshared() {
        checkEpoch();
        if (buffer.length - position < 8) {
            byte[] eight = new byte[8];
            nextBytesUnshared(eight, 0, 8);
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
        if ((bound & (bound - 1)) == 0) return nextLong() & (bound - 1);
        long mask = -1L >>> Long.numberOfLeadingZeros(bound - 1);
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

    /**
     * Drops buffered output and reseeds the source now. The reseed request
     * counts as served only once the source has reseeded: if that throws,
     * the next call tries again.
     */
    public synchronized void reseed() {
        int epoch = ThreadGenerators.reseedEpoch();
        Arrays.fill(buffer, (byte) 0);
        position = buffer.length;
        source.reseed();
        seedEpoch = epoch;
    }

    /** This generator's number in the process, as in the {@link SeedLog}. */
    public long serial() {
        return serial;
    }

    public long seeds() {
        return source.seeds();
    }

    /** 64 bits of a one-way digest of the source's state (tests; 0 for RDRAND). */
    public long stateFingerprint() {
        return source.stateFingerprint();
    }

    /** Bytes generated but not handed out yet (tests). */
    public int buffered() {
        return buffer.length - position;
    }

    /**
     * For tests (the test build's {@code GeneratorFaults}): a copy of this
     * generator's DRBG in its current state, or null for the RDRAND
     * backend. What the copy generates is what this generator's next refill
     * would be, unless it reseeds first: of a shared generator, what other
     * threads draw next, so no shipped caller may have it.
     */
    CtrDrbg copyOfDrbg() {
        return source instanceof DrbgSource ? ((DrbgSource) source).copyOfDrbg() : null;
    }

    public long bytesSinceSeed() {
        return source.bytesSinceSeed();
    }

    /** Overwrites buffer and state: this generator is being replaced. */
    synchronized void wipe() {
        Arrays.fill(buffer, (byte) 0);
        position = buffer.length;
        source.wipe();
    }

    private void checkEpoch() {
        if (seedEpoch != ThreadGenerators.reseedEpoch()) reseed();
    }

    /** Called with nothing buffered (position == buffer.length), which stays so until the fill returns. */
    private void refill() {
        int max = source.maxRequest();
        byte[] next = buffer.length == max ? buffer
                : new byte[buffer.length == 0 ? source.minBuffer() : Math.min(2 * buffer.length, max)];
        try {
            source.fill(next, 0, next.length);
        } catch (Throwable failure) {
            Arrays.fill(next, (byte) 0);
            throw failure;
        }
        ThreadGenerators.countGenerated(next.length);
        buffer = next;
        position = 0;
    }

    private static long bigEndianLong(byte[] b, int i) {
        return ((b[i] & 0xffL) << 56) | ((b[i + 1] & 0xffL) << 48) | ((b[i + 2] & 0xffL) << 40)
                | ((b[i + 3] & 0xffL) << 32) | ((b[i + 4] & 0xffL) << 24) | ((b[i + 5] & 0xffL) << 16)
                | ((b[i + 6] & 0xffL) << 8) | (b[i + 7] & 0xffL);
    }
}
