package fastrandom.random;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import fastrandom.jni.CpuRandom;
import fastrandom.Faults;

/**
 * Which generator serves a call: a thread (platform or virtual, so a Ruby
 * thread or a fiber) that has made fewer than {@link #OWN_AFTER_CALLS} calls
 * draws from a {@link SharedGenerators shared generator}, under its lock;
 * from that call on it has a {@link BufferedRandom} of its own, created then,
 * and its hot path is a ThreadLocal lookup and one volatile read, with no
 * lock shared between threads. Every generator, shared or owned, is a
 * CTR_DRBG seeded from the {@link PrimaryDrbg}, the only one seeded from the OS.
 * While the process starts (until {@link WarmUp} has initialized the JCE in
 * the background, a few tens of milliseconds), calls are served straight from
 * the OS instead, so the first call does not wait for it.
 *
 * <p>What the generators are made of (the primary's entropy, the seeds,
 * the reseed limits, a thread's own block source) is fixed: only the test
 * build's fault injector can stand others in, at the "random:" sites of
 * {@link Faults#substitute}.
 */
public final class ThreadGenerators {
    /** The call on which a thread gets its own generator (before, it shares). */
    public static final int OWN_AFTER_CALLS = 16;

    private static final AtomicLong GENERATORS = new AtomicLong();
    private static final LongAdder SEEDS = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();
    private static volatile int reseedEpoch;
    private static volatile Backend backend = Backend.DRBG;

    private static final PrimaryDrbg PRIMARY = new PrimaryDrbg();
    private static final EntropySource PRIMARY_SEEDS = new PrimarySeeds();
    private static final SharedGenerators SHARED = new SharedGenerators(Runtime.getRuntime().availableProcessors());
    /** Serves DRBG-backend calls while the process starts (see {@link WarmUp#done()}). */
    private static final BufferedRandom STARTING = new BufferedRandom(Backend.DRBG, new OsSource(), 0, 0, true);

    /**
     * Per thread: a WeakReference to its own BufferedRandom, or until it has
     * one an {@code int[1]} counting its calls. Only JDK objects: a thread
     * outlives a JRuby runtime (an application server's request threads
     * outlive the web application), and a value of one of our classes in its
     * ThreadLocalMap would keep the runtime's class loader, and so the whole
     * runtime, reachable from that thread after the runtime is torn down.
     */
    private static final ThreadLocal<Object> CURRENT = new ThreadLocal<>();
    /** What keeps each thread's own generator alive while its thread is: its one strong reference. */
    private static final Map<Thread, BufferedRandom> OWNED = Collections.synchronizedMap(new WeakHashMap<>());

    private ThreadGenerators() {}

    /** The generator for a call on this thread, for the current backend (see the class comment). */
    public static BufferedRandom forCall() {
        Object local = CURRENT.get();
        if (local instanceof WeakReference) {
            Object own = ((WeakReference<?>) local).get();
            if (own != null && ((BufferedRandom) own).backend() == backend) return (BufferedRandom) own;
            return own();
        }
        if (!WarmUp.done() && backend == Backend.DRBG) {
            WarmUp.calledBeforeWarm();
            return STARTING;
        }
        int[] calls = (int[]) local;
        if (calls == null) {
            calls = new int[1];
            CURRENT.set(calls);
        }
        if (++calls[0] >= OWN_AFTER_CALLS) return own();
        return SHARED.forCurrentThread(backend);
    }

    /**
     * The calling thread's own generator for the current backend, created
     * now if it has none yet (tests and {@code thread_state} use this; calls
     * get there by {@link #forCall()}).
     */
    public static BufferedRandom own() {
        BufferedRandom own = ownOrNull();
        Backend wanted = backend;
        if (own != null && own.backend() == wanted) return own;
        if (own != null) {
            CURRENT.remove(); // a failed create below must not leave the wiped one in place
            OWNED.remove(Thread.currentThread());
            own.wipe();
        }
        own = create(wanted, false);
        OWNED.put(Thread.currentThread(), own);
        CURRENT.set(new WeakReference<>(own));
        return own;
    }

    /** Whether the calling thread has a generator of its own yet. */
    public static boolean hasOwn() {
        return ownOrNull() != null;
    }

    private static BufferedRandom ownOrNull() {
        Object local = CURRENT.get();
        return local instanceof WeakReference ? (BufferedRandom) ((WeakReference<?>) local).get() : null;
    }

    public static Backend backend() {
        return backend;
    }

    /**
     * Switches every thread to {@code newBackend} before its next output.
     * RDRAND must be available: throws {@link IllegalStateException} saying why not.
     */
    public static void setBackend(Backend newBackend) {
        if (newBackend == Backend.RDRAND && !CpuRandom.rdrandBackend()) {
            throw new IllegalStateException("RDRAND is not available: " + CpuRandom.rdrandBackendProblem());
        }
        backend = newBackend;
    }

    /**
     * Makes every generator drop its buffered bytes and reseed before it
     * hands out anything else: the primary takes fresh OS entropy now (in the
     * caller, so a failure raises here), the caller's own generator reseeds
     * from it now, every other one at its next call.
     */
    public static void reseedAll() {
        int epoch;
        synchronized (ThreadGenerators.class) {
            epoch = ++reseedEpoch;
        }
        PRIMARY.reseed(epoch);
        if (hasOwn()) own().reseed();
    }

    /** Where the primary takes its seeds: the OS, mixed with the CPU. */
    public static EntropySource entropySource() {
        return Faults.substitute("random:entropy", EntropySource.class, OsAndCpu.ENTROPY);
    }

    /** The reseed limits: of a generator being made, and the primary's age limit. */
    static ReseedPolicy reseedPolicy() {
        return Faults.substitute("random:policy", ReseedPolicy.class, ReseedPolicy.DEFAULT);
    }

    /** Generators created (shared and own). */
    public static long generatorsCreated() {
        return GENERATORS.get();
    }

    /** Seeds taken from the OS (by the primary). */
    public static long seedsTaken() {
        return SEEDS.sum();
    }

    public static long bytesGenerated() {
        return BYTES.sum();
    }

    /** Shared generators per backend (tests). */
    public static int sharedGenerators() {
        return SHARED.size();
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

    static BufferedRandom create(Backend wanted, boolean shared) {
        int epoch = reseedEpoch; // before the seed is taken: a reseed! from now on applies to it
        long serial = GENERATORS.incrementAndGet();
        BlockSource source = wanted == Backend.RDRAND
                ? new RdrandSource()
                : new DrbgSource(PRIMARY_SEEDS, reseedPolicy(), personalization(serial), serial);
        if (!shared) source = Faults.substitute("random:source", BlockSource.class, source);
        return new BufferedRandom(wanted, source, serial, epoch, shared);
    }

    /**
     * The personalization string: distinct for every generator of this
     * process (a counter), so two generators never share a state even if
     * they were to take equal seeds.
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
    static long threadId(Thread thread) {
        return thread.getId();
    }

    private static void putLong(byte[] b, int at, long value) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) value;
            value >>>= 8;
        }
    }

    /** The one entropy source of the process, made on first use (its back-off and warnings are per instance). */
    private static final class OsAndCpu {
        static final EntropySource ENTROPY = new MixedEntropy(OsEntropy.INSTANCE);
    }

    /**
     * Every generator's seeds: the primary's output. The site is asked at
     * each (re)seed, so a test's stand-in reaches existing generators too.
     */
    private static final class PrimarySeeds implements EntropySource {
        @Override
        public void fill(byte[] seed) {
            Faults.substitute("random:seeds", EntropySource.class, PRIMARY).fill(seed);
        }

        @Override
        public String name() {
            return Faults.substitute("random:seeds", EntropySource.class, PRIMARY).name();
        }
    }
}
