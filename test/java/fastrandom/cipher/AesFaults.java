package fastrandom.cipher;

import java.util.function.Predicate;

/**
 * Tests: fault injection into {@link AesCipher}'s JDK calls. In the test
 * build's jar only (test/java, {@code rake test_builds}): the shipped jar
 * has no way to set it.
 */
public final class AesFaults {
    private AesFaults() {}

    /** JDK calls at the steps {@code failing} accepts ("cipher", "init", "aad", "update", "final") throw; null: none. */
    public static void set(Predicate<String> failing) {
        AesCipher.faults = failing;
    }
}
