package fastrandom.rsa;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many RSA operations ran on which engine, process-wide: what
 * {@code FastRandom::RSA.stats} reports, so an application (or a test) can
 * see that its signatures really ran on the fast engine. {@code java} counts
 * the operations BouncyCastle did itself: on the {@code :java} engine, for
 * keys without CRT values, and after an engine failure.
 */
public final class RsaStats {
    public static final String[] ENGINES = {OpenSslRsaEngine.NAME, GmpRsaEngine.NAME, RsaEngines.JAVA};

    private static final LongAdder[][] COUNTS = new LongAdder[ENGINES.length][2];
    private static final LongAdder FALLBACKS = new LongAdder();

    static {
        for (LongAdder[] engine : COUNTS) {
            engine[0] = new LongAdder();
            engine[1] = new LongAdder();
        }
    }

    private RsaStats() {}

    /** One operation on {@code engine} ("openssl", "gmp" or "java"), with a private or public key. */
    public static void count(String engine, boolean privateKey) {
        for (int i = 0; i < ENGINES.length; i++) {
            if (ENGINES[i].equals(engine)) {
                COUNTS[i][privateKey ? 0 : 1].increment();
                return;
            }
        }
    }

    /**
     * {@code engine} failed ({@code e}) and {@code instead} did the
     * operation: warned once per wording, and counted.
     */
    public static void fellBack(String engine, RsaEngineException e, String instead) {
        RsaEngines.ENGINES.warnFailure(engine, e, instead);
        FALLBACKS.increment();
    }

    /** engine -> [private operations, public operations]. */
    public static Map<String, long[]> operations() {
        Map<String, long[]> result = new LinkedHashMap<>();
        for (int i = 0; i < ENGINES.length; i++) result.put(ENGINES[i], new long[] {COUNTS[i][0].sum(), COUNTS[i][1].sum()});
        return result;
    }

    public static long fallbacks() {
        return FALLBACKS.sum();
    }
}
