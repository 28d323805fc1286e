package fastrandom.random;

/**
 * Loads and initializes, on a short-lived daemon thread, what the first
 * generator needs (the OS entropy source and the JCE's AES-CTR), so that
 * work overlaps with the rest of application boot instead of delaying the
 * first SecureRandom call. This class touches nothing itself, so the
 * caller's thread does none of that work. The warm-up DRBG runs on a fixed
 * all-zero seed and its output is discarded: nothing it computes is used.
 */
public final class WarmUp {
    private WarmUp() {}

    public static void startInBackground() {
        Thread thread = new Thread(WarmUp::run, "fast_random-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    private static void run() {
        OsEntropy.INSTANCE.name();
        CtrDrbg drbg = new CtrDrbg();
        drbg.instantiate(new byte[CtrDrbg.SEED_LENGTH], null);
        drbg.generate(new byte[CtrDrbg.BLOCK_LENGTH], 0, CtrDrbg.BLOCK_LENGTH, null);
        drbg.wipe();
    }
}
