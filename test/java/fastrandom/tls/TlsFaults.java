package fastrandom.tls;

import java.util.concurrent.atomic.AtomicInteger;

import fastrandom.TestFaultInjector;

/**
 * Tests: fault injection into {@link Records}, through the test build's
 * {@link TestFaultInjector} (test/java, {@code rake test_builds}): the
 * shipped jar has no way to set it. Sites: "unwrapped" (a read, once the
 * engine has opened a record) and "seal" (a write, before the engine takes
 * anything).
 */
public final class TlsFaults {
    private TlsFaults() {}

    /** The next {@code times} calls reaching {@code site} throw IllegalStateException("injected at tls:SITE"); the rest go on. */
    public static void failAt(String site, int times) {
        AtomicInteger left = new AtomicInteger(times);
        TestFaultInjector.set("tls", reached -> {
            if (reached.equals(site) && left.getAndDecrement() > 0) throw new IllegalStateException("injected at tls:" + site);
        });
    }

    /** No more faults. */
    public static void clear() {
        TestFaultInjector.set("tls", null);
    }
}
