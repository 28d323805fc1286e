package fastrandom.random;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

import fastrandom.jni.CpuRandom;

/**
 * One {@link BufferedRandom} per Java thread (platform or virtual, so per Ruby
 * thread and per fiber), created on the thread's first use, from the current
 * {@link Backend}. The hot path is a ThreadLocal lookup and one volatile read:
 * no lock is shared between threads.
 */
public final class ThreadGenerators {
    private static final AtomicLong GENERATORS = new AtomicLong();
    private static final LongAdder SEEDS = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();
    private static volatile int reseedEpoch;
    private static volatile Backend backend = Backend.DRBG;

    private static volatile EntropySource entropy = new MixedEntropy(OsEntropy.INSTANCE);
    private static volatile ReseedPolicy policy = ReseedPolicy.DEFAULT;
    private static volatile UnaryOperator<BlockSource> sourceDecorator;

    private static final ThreadLocal<BufferedRandom> CURRENT = new ThreadLocal<>();

    private ThreadGenerators() {}

    /** The calling thread's generator, for the current backend. */
    public static BufferedRandom current() {
        BufferedRandom random = CURRENT.get();
        Backend wanted = backend;
        if (random == null || random.backend() != wanted) {
            if (random != null) {
                CURRENT.remove(); // a failed create below must not leave the wiped one in place
                random.wipe();
            }
            random = create(wanted);
            CURRENT.set(random);
        }
        return random;
    }

    public static Backend backend() {
        return backend;
    }

    /**
     * Switches every thread to {@code newBackend} before its next output.
     * RDRAND must be available: throws {@link IllegalStateException} saying why not.
     */
    public static void setBackend(Backend newBackend) {
        if (newBackend == Backend.RDRAND && !CpuRandom.rdrand()) {
            throw new IllegalStateException("RDRAND is not available: " + CpuRandom.unavailableReason(false));
        }
        backend = newBackend;
    }

    /**
     * Makes every thread's generator drop its buffered bytes and reseed from
     * the OS before it hands out anything else; the caller's at once.
     */
    public static void reseedAll() {
        synchronized (ThreadGenerators.class) {
            reseedEpoch++;
        }
        current().reseed();
    }

    /** The entropy source that seeds DRBGs from now on (and at their next reseed). */
    public static void setEntropySource(EntropySource source) {
        entropy = source;
    }

    public static EntropySource entropySource() {
        return entropy;
    }

    /** Replaces the reseed limits for generators created after this call (tests). */
    public static void setReseedPolicy(ReseedPolicy newPolicy) {
        policy = newPolicy;
    }

    /**
     * Tests: wraps the source of every generator created from now on (null:
     * none), to inject faults at chosen fills.
     */
    public static void setSourceDecorator(UnaryOperator<BlockSource> decorator) {
        sourceDecorator = decorator;
    }

    public static long generatorsCreated() {
        return GENERATORS.get();
    }

    public static long seedsTaken() {
        return SEEDS.sum();
    }

    public static long bytesGenerated() {
        return BYTES.sum();
    }

    static int reseedEpoch() {
        return reseedEpoch;
    }

    static void countSeed() {
        SEEDS.increment();
    }

    static void countGenerated(int bytes) {
        BYTES.add(bytes);
    }

    private static BufferedRandom create(Backend wanted) {
        int epoch = reseedEpoch; // before the seed is taken: a reseed! from now on applies to it
        long serial = GENERATORS.incrementAndGet();
        BlockSource source = wanted == Backend.RDRAND
                ? new RdrandSource()
                : new DrbgSource(new DelegatingEntropy(), policy, personalization(serial), serial);
        UnaryOperator<BlockSource> decorator = sourceDecorator;
        if (decorator != null) source = decorator.apply(source);
        return new BufferedRandom(wanted, source, serial, epoch);
    }

    /**
     * The personalization string: distinct for every generator of this
     * process (a counter), so two generators never share a state even if the
     * OS were to hand out equal seeds.
     */
    private static byte[] personalization(long serial) {
        Thread thread = Thread.currentThread();
        byte[] p = new byte[CtrDrbg.SEED_LENGTH];
        putLong(p, 0, serial);
        putLong(p, 8, System.nanoTime());
        putLong(p, 16, System.currentTimeMillis());
        putLong(p, 24, threadId(thread));
        putLong(p, 32, System.identityHashCode(thread));
        p[40] = 'f'; p[41] = 'a'; p[42] = 's'; p[43] = 't'; p[44] = '_'; p[45] = 'r'; p[46] = 'n'; p[47] = 'd';
        return p;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+; getId() works everywhere
    private static long threadId(Thread thread) {
        return thread.getId();
    }

    private static void putLong(byte[] b, int at, long value) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) value;
            value >>>= 8;
        }
    }

    /** Reads the current source at each (re)seed, so a new source applies to existing generators too. */
    private static final class DelegatingEntropy implements EntropySource {
        @Override
        public void fill(byte[] seed) {
            entropy.fill(seed);
        }

        @Override
        public String name() {
            return entropy.name();
        }
    }
}
