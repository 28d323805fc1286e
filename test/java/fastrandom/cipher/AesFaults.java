package fastrandom.cipher;

import java.security.ProviderException;
import java.util.function.Predicate;

import fastrandom.TestFaultInjector;

/**
 * Tests: fault injection into {@link AesCipher}'s JDK calls, through the
 * test build's {@link TestFaultInjector} (test/java, {@code rake
 * test_builds}): the shipped jar has no way to set it.
 */
public final class AesFaults {
    private AesFaults() {}

    /** JDK calls at the steps {@code failing} accepts ("cipher", "init", "aad", "update", "final") throw; null: none. */
    public static void set(Predicate<String> failing) {
        TestFaultInjector.set("aes", failing == null ? null : step -> {
            if (failing.test(step)) throw new ProviderException("injected failure of the JDK's AES at " + step);
        });
    }
}
