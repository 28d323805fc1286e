package fastrandom.random;

import java.util.Arrays;

/**
 * The default source: a {@link CtrDrbg} seeded from an {@link EntropySource},
 * reseeded when its {@link ReseedPolicy} says so (checked at every request).
 */
final class DrbgSource implements BlockSource {
    private final CtrDrbg drbg = new CtrDrbg();
    private final EntropySource entropy;
    private final ReseedPolicy policy;
    private final byte[] personalization;
    private final long serial;
    private long bytesSinceSeed;
    private long seededAtNanos;
    private long seeds;

    /** {@code serial}: the generator's number in the process, for the {@link SeedLog}. */
    DrbgSource(EntropySource entropy, ReseedPolicy policy, byte[] personalization, long serial) {
        this.entropy = entropy;
        this.policy = policy;
        this.personalization = personalization;
        this.serial = serial;
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        entropy.fill(seed);
        drbg.instantiate(seed, personalization);
        if (SeedLog.recording()) SeedLog.record(SeedLog.Event.INSTANTIATE, serial, seed, drbg);
        Arrays.fill(seed, (byte) 0);
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
        if (policy.due(bytesSinceSeed, seededAtNanos, System.nanoTime())) reseed();
        drbg.generate(out, offset, length, null);
        bytesSinceSeed += length;
    }

    @Override
    public void reseed() {
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        entropy.fill(seed);
        drbg.reseed(seed, personalization);
        if (SeedLog.recording()) SeedLog.record(SeedLog.Event.RESEED, serial, seed, drbg);
        Arrays.fill(seed, (byte) 0);
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
        ThreadGenerators.countSeed();
    }
}
