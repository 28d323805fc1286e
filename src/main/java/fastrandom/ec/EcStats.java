package fastrandom.ec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many EC operations ran on which engine, process-wide: what
 * {@code FastRandom::EC.stats} reports. {@code java} counts what
 * jruby-openssl's own code did: on the {@code :java} engine, for curves or
 * keys the engine does not take, and after an engine failure.
 */
public final class EcStats {
    public static final String[] ENGINES = {OpenSslEcEngine.NAME, EcEngines.JAVA};
    /** What is counted, in this order. */
    public enum Operation { SIGN, VERIFY, DERIVE, GENERATE }

    private static final LongAdder[][] COUNTS = new LongAdder[ENGINES.length][Operation.values().length];
    private static final LongAdder FALLBACKS = new LongAdder();

    static {
        for (LongAdder[] engine : COUNTS) {
            for (int i = 0; i < engine.length; i++) engine[i] = new LongAdder();
        }
    }

    private EcStats() {}

    public static void count(String engine, Operation operation) {
        for (int i = 0; i < ENGINES.length; i++) {
            if (ENGINES[i].equals(engine)) {
                COUNTS[i][operation.ordinal()].increment();
                return;
            }
        }
    }

    /**
     * The openssl engine failed ({@code e}) and {@code instead} did the
     * operation: warned once per wording, and counted.
     */
    public static void fellBack(EcEngineException e, String instead) {
        EcEngines.ENGINES.warnFailure(OpenSslEcEngine.NAME, e, instead);
        FALLBACKS.increment();
    }

    /** engine -> [signatures, verifications, derivations, key generations]. */
    public static Map<String, long[]> operations() {
        Map<String, long[]> result = new LinkedHashMap<>();
        for (int i = 0; i < ENGINES.length; i++) {
            long[] counts = new long[Operation.values().length];
            for (int j = 0; j < counts.length; j++) counts[j] = COUNTS[i][j].sum();
            result.put(ENGINES[i], counts);
        }
        return result;
    }

    public static long fallbacks() {
        return FALLBACKS.sum();
    }
}
