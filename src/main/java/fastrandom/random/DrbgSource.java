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
    private long bytesSinceSeed;
    private long seededAtNanos;
    private long seeds;

    DrbgSource(EntropySource entropy, ReseedPolicy policy, byte[] personalization) {
        this.entropy = entropy;
        this.policy = policy;
        this.personalization = personalization;
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        entropy.fill(seed);
        drbg.instantiate(seed, personalization);
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
    public int stateFingerprint() {
        return drbg.stateFingerprint();
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
