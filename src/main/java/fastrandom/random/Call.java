package fastrandom.random;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a caller asks the generators for, counted per backend for
 * {@code FastRandom.stats[:calls]}: how many uuids, hex strings, ... each
 * backend has produced since the process started. The Ruby methods count as
 * the family they belong to ({@code bytes}, {@code gen_random} and
 * {@code random_bytes} as {@link #RANDOM_BYTES}, {@code uuid_v4} as
 * {@link #UUID}, {@code rand} as {@link #RANDOM_NUMBER}); the Java entry
 * points count the same way.
 *
 * <p>One {@link LongAdder} increment per call: no lock, and threads that
 * count at once update separate cells rather than one contended word.
 */
public enum Call {
    RANDOM_BYTES, HEX, BASE64, URLSAFE_BASE64, UUID, UUID_V7, ALPHANUMERIC, RANDOM_NUMBER,
    /**
     * {@code OpenSSL::Random.random_bytes} and {@code pseudo_bytes}, and
     * what jruby-openssl draws itself ({@code Cipher#random_iv} and
     * {@code random_key}, through OpenSSL::Random's holder).
     */
    OPENSSL;

    private final LongAdder[] counts = new LongAdder[Backend.values().length];

    Call() {
        for (int i = 0; i < counts.length; i++) counts[i] = new LongAdder();
    }

    /** The calling thread's generator, counting this call against its backend. */
    public BufferedRandom generator() {
        BufferedRandom random = ThreadGenerators.forCall();
        counts[random.backend().ordinal()].increment();
        return random;
    }

    /** Calls of this kind that {@code backend} has served. */
    public long count(Backend backend) {
        return counts[backend.ordinal()].sum();
    }
}
