package fastrandom.random;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A test hook: while recording, every DRBG that is instantiated or reseeded
 * records one-way digests (SHA-256, first 128 bits) of the seed it took and
 * of the state it got, so a test can show that no two generators ever start
 * from the same seed or state, even when their threads start at the same
 * instant, without seeing a seed or a state.
 *
 * <p>Off by default: then the only cost is one volatile read when a
 * generator is created or reseeded, never on the per-call path.
 */
public final class SeedLog {
    public enum Event { INSTANTIATE, RESEED }

    /** One seeding: which generator, what happened, and the two digests (hex). */
    public static final class Entry {
        public final Event event;
        public final long generator;
        public final String thread;
        public final String seedDigest;
        public final String stateDigest;

        Entry(Event event, long generator, String thread, String seedDigest, String stateDigest) {
            this.event = event;
            this.generator = generator;
            this.thread = thread;
            this.seedDigest = seedDigest;
            this.stateDigest = stateDigest;
        }
    }

    private static final int DIGEST_BYTES = 16;
    private static final ConcurrentLinkedQueue<Entry> ENTRIES = new ConcurrentLinkedQueue<>();
    private static volatile boolean recording;

    private SeedLog() {}

    /** Forgets earlier entries and records from now on. */
    public static void start() {
        ENTRIES.clear();
        recording = true;
    }

    /** Stops recording and returns what was recorded, in order. */
    public static List<Entry> stop() {
        recording = false;
        List<Entry> entries = new ArrayList<>(ENTRIES);
        ENTRIES.clear();
        return entries;
    }

    static boolean recording() {
        return recording;
    }

    static void record(Event event, long generator, byte[] seed, CtrDrbg drbg) {
        MessageDigest sha256 = CtrDrbg.sha256();
        String seedDigest = hex(sha256.digest(seed));
        ENTRIES.add(new Entry(event, generator, Thread.currentThread().toString(), seedDigest, hex(drbg.stateDigest())));
    }

    private static String hex(byte[] digest) {
        StringBuilder text = new StringBuilder(2 * DIGEST_BYTES);
        for (int i = 0; i < DIGEST_BYTES; i++) text.append(String.format("%02x", digest[i] & 0xff));
        return text.toString();
    }
}
