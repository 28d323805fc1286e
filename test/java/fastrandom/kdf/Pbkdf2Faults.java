package fastrandom.kdf;

import java.util.function.Consumer;

import fastrandom.TestFaultInjector;

/**
 * Tests: fault injection into {@link Pbkdf2}'s JDK digests, through the
 * test build's {@link TestFaultInjector} (test/java, {@code rake
 * test_builds}): the shipped jar has no way to set it.
 */
public final class Pbkdf2Faults {
    private Pbkdf2Faults() {}

    /** {@code failing} is told the JDK name ("SHA-256") of each digest about to be made, and throws to fail it; null: none. */
    public static void set(Consumer<String> failing) {
        TestFaultInjector.set("pbkdf2", failing);
    }
}
