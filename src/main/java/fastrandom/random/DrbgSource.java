package fastrandom.random;

import java.util.Arrays;

/**
 * The default source: a {@link CtrDrbg} seeded from an {@link EntropySource},
 * reseeded when its {@link ReseedPolicy} says so (checked at every request),
 * and after any request that failed part-way: whatever state a failure left
 * behind is never generated from again without fresh seed material.
 */
public final class DrbgSource implements BlockSource {
    private final CtrDrbg drbg;
    private final EntropySource entropy;
    private final ReseedPolicy policy;
    private final byte[] personalization;
    private final long serial;
    private long bytesSinceSeed;
    private long seededAtNanos;
    private long seeds;
    private boolean failed;

    /** {@code serial}: the generator's number in the process, for the {@link SeedLog}. */
    DrbgSource(EntropySource entropy, ReseedPolicy policy, byte[] personalization, long serial) {
        this(new CtrDrbg(), entropy, policy, personalization, serial);
    }

    /** A source over a given DRBG (tests inject faults through its {@link AesCtr}). */
    public DrbgSource(CtrDrbg drbg, EntropySource entropy, ReseedPolicy policy, byte[] personalization, long serial) {
        this.drbg = drbg;
        this.entropy = entropy;
        this.policy = policy;
        this.personalization = personalization;
        this.serial = serial;
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        try {
            entropy.fill(seed);
            drbg.instantiate(seed, personalization);
            if (SeedLog.recording()) SeedLog.record(SeedLog.Event.INSTANTIATE, serial, seed, drbg);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        markSeeded();
    }

    @Override
    public int maxRequest() {
        return CtrDrbg.MAX_BYTES_PER_REQUEST;
    }

    @Override
    public int minBuffer() {
        return 1024;
    }

    @Override
    public void fill(byte[] out, int offset, int length) {
        if (failed || policy.due(bytesSinceSeed, seededAtNanos, System.nanoTime())) reseed();
        failed = true; // until the request completes
        drbg.generate(out, offset, length, null);
        failed = false;
        bytesSinceSeed += length;
    }

    @Override
    public void reseed() {
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        try {
            entropy.fill(seed);
            drbg.reseed(seed, personalization);
            if (SeedLog.recording()) SeedLog.record(SeedLog.Event.RESEED, serial, seed, drbg);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        failed = false;
        markSeeded();
    }

    @Override
    public long seeds() {
        return seeds;
    }

    @Override
    public long bytesSinceSeed() {
        return bytesSinceSeed;
    }

    @Override
    public long stateFingerprint() {
        return drbg.stateFingerprint();
    }

    /** A copy of the DRBG in its current state (tests). */
    CtrDrbg copyOfDrbg() {
        return drbg.copy();
    }

    @Override
    public void wipe() {
        drbg.wipe();
    }

    private void markSeeded() {
        bytesSinceSeed = 0;
        seededAtNanos = System.nanoTime();
        seeds++;
    }
}
