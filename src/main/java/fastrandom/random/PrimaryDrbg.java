package fastrandom.random;

import java.util.Arrays;

/**
 * The process's primary DRBG: the one generator seeded from the OS (through
 * {@link MixedEntropy}), from which every other generator, each thread's and
 * the shared ones, takes its seeds. As OpenSSL 3's primary DRBG feeds its
 * per-thread public and private DRBGs, and as NIST SP 800-90C's sub-DRBGs
 * take their seeds from a parent DRBG: a CTR_DRBG with AES-256 (security
 * strength 256 bits) seeds generators of the same strength, and each child
 * seed is 384 bits of its output, full entropy as far as any bounded
 * attacker can tell. A new thread or fiber therefore costs one AES-CTR
 * request here, never an OS read.
 *
 * <p>The primary reseeds from the OS when its seed is older than the reseed
 * policy's age limit (60 s) at the next child seeding, after a failed
 * request, and at once on {@code reseed!}: so every child's state is at most
 * one age limit plus its own away from fresh OS entropy, and after
 * {@code reseed!} every child reseeds from a primary that has just taken
 * fresh OS entropy. Thread-safe: one lock, held only for a 48-byte request
 * (and, rarely, an OS read).
 */
final class PrimaryDrbg implements EntropySource {
    /** The primary's number in the {@link SeedLog}; the other generators count from 1. */
    static final long SERIAL = 0;

    private static final byte[] PERSONALIZATION_LABEL = "fast_random primary".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private CtrDrbg drbg; // guarded by this; made at the first seed (the JCE is not touched before)
    private boolean instantiated;
    private boolean failed;
    private long seededAtNanos;
    private int seedEpoch;
    private long seeds;

    /** Fills {@code seed} (a child's entropy input) from the primary, reseeding it from the OS first when due. */
    @Override
    public synchronized void fill(byte[] seed) {
        int epoch = ThreadGenerators.reseedEpoch();
        if (!instantiated || failed || epoch != seedEpoch
                || System.nanoTime() - seededAtNanos >= ThreadGenerators.reseedPolicy().maxAgeNanos) {
            seedFromOs(epoch);
        }
        failed = true; // until the request completes
        drbg.generate(seed, 0, seed.length, null);
        failed = false;
    }

    @Override
    public String name() {
        return ThreadGenerators.entropySource().name();
    }

    /** Takes fresh OS entropy now (reseed!), on behalf of {@code epoch}. */
    synchronized void reseed(int epoch) {
        seedFromOs(epoch);
    }

    /** Seeds taken from the OS so far. */
    synchronized long seeds() {
        return seeds;
    }

    private void seedFromOs(int epoch) {
        byte[] seed = new byte[CtrDrbg.SEED_LENGTH];
        try {
            ThreadGenerators.entropySource().fill(seed);
            if (drbg == null) drbg = new CtrDrbg();
            if (instantiated) {
                drbg.reseed(seed, null);
            } else {
                drbg.instantiate(seed, personalization());
                instantiated = true;
            }
            if (SeedLog.recording()) {
                SeedLog.record(seeds == 0 ? SeedLog.Event.INSTANTIATE : SeedLog.Event.RESEED, SERIAL, seed, drbg);
            }
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
        failed = false;
        seedEpoch = epoch;
        seededAtNanos = System.nanoTime();
        seeds++;
        ThreadGenerators.countSeed();
    }

    private static byte[] personalization() {
        byte[] p = new byte[CtrDrbg.SEED_LENGTH];
        System.arraycopy(PERSONALIZATION_LABEL, 0, p, 0, PERSONALIZATION_LABEL.length);
        long now = System.nanoTime();
        long wall = System.currentTimeMillis();
        for (int i = 0; i < 8; i++) {
            p[32 + i] = (byte) (now >>> (8 * i));
            p[40 + i] = (byte) (wall >>> (8 * i));
        }
        return p;
    }
}
