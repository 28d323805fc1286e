package fastrandom.random;

import fastrandom.Faults;

/**
 * Loads and initializes, on a short-lived daemon thread, what the DRBGs need
 * (the OS entropy source and the JCE's AES-CTR, whose first use takes tens
 * of milliseconds on a cold JVM), started by the process's first call
 * ({@link ThreadGenerators#forCall()}), not at require time, where it would
 * compete with the application's boot for the cores. Until it is done,
 * calls are served straight from the OS ({@link OsSource}), so no call waits
 * for it. The warm-up DRBG runs on a fixed all-zero seed and its output is
 * discarded: nothing it computes is used.
 */
public final class WarmUp {
    private static final java.util.concurrent.atomic.AtomicBoolean STARTED = new java.util.concurrent.atomic.AtomicBoolean();
    private static final java.util.concurrent.atomic.AtomicInteger CALLS = new java.util.concurrent.atomic.AtomicInteger();
    private static volatile boolean done;

    /**
     * Whether the warm-up has finished (or failed): until then, calls are
     * served straight from the OS ({@link ThreadGenerators#forCall()}), so
     * the first call of a process does not wait for the JCE to initialize.
     */
    public static boolean done() {
        return done;
    }

    /**
     * Called by every call the OS serves while the warm-up is not done:
     * starts the warm-up at the second, once per process. The first call
     * does not pay for starting a thread, nor share the cores with the JCE's
     * initialization, and a process that asks once never pays for it.
     */
    static void calledBeforeWarm() {
        if (STARTED.get() || CALLS.getAndIncrement() < 1 || !STARTED.compareAndSet(false, true)) return;
        Thread thread = new Thread(new Task(), "fast_random-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    /** The warm-up's work. (A class, not a lambda: a lambda costs start-up time on a cold JVM.) */
    private static final class Task implements Runnable {
        @Override
        public void run() {
            warmUp();
        }
    }

    private static void warmUp() {
        try {
            Faults.present(); // looked up here: the generators' sites ask for it when one is made, on a caller's thread
            OsEntropy.INSTANCE.name();
            CtrDrbg drbg = new CtrDrbg();
            drbg.instantiate(new byte[CtrDrbg.SEED_LENGTH], null);
            drbg.generate(new byte[CtrDrbg.BLOCK_LENGTH], 0, CtrDrbg.BLOCK_LENGTH, null);
            drbg.wipe();
        } finally {
            // A failure here will show (and raise) where a generator is made.
            done = true;
        }
    }
}
