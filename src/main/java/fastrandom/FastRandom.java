package fastrandom;

import java.nio.charset.StandardCharsets;

import fastrandom.random.Call;
import fastrandom.random.ThreadGenerators;
import fastrandom.text.Uuids;

/**
 * The Java entry point, for JVM code running in the same process as the Ruby
 * application: the same per-thread generators that back Ruby's SecureRandom.
 * Safe to call from any thread.
 */
public final class FastRandom {
    private FastRandom() {}

    /** A random (version 4) UUID in its 36-character form. */
    public static String uuid() {
        return new String(Uuids.v4(Call.UUID.generator()), StandardCharsets.US_ASCII);
    }

    /** A time-ordered (version 7) UUID in its 36-character form. */
    public static String uuidV7() {
        return new String(Uuids.v7(Call.UUID_V7.generator(), 0), StandardCharsets.US_ASCII);
    }

    /** Fills {@code bytes} with random bytes. */
    public static void nextBytes(byte[] bytes) {
        Call.RANDOM_BYTES.generator().nextBytes(bytes, 0, bytes.length);
    }

    /** 64 random bits. */
    public static long nextLong() {
        return Call.RANDOM_NUMBER.generator().nextLong();
    }

    /** A uniform value in [0, bound); bound must be positive. */
    public static long nextLong(long bound) {
        return Call.RANDOM_NUMBER.generator().nextLong(bound);
    }

    /** Makes every thread's generator reseed from the OS before its next output. */
    public static void reseed() {
        ThreadGenerators.reseedAll();
    }
}
