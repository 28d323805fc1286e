package fastrandom.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Tests: the {@link FaultInjector} the test build's jar provides (its
 * {@code META-INF/services}), which {@link Faults} finds when its first site
 * is reached. Failures are set per area, the part of a site before its
 * colon ("aes", "pbkdf2", "install"): AesFaults, Pbkdf2Faults and
 * InstallFaults set them.
 */
public final class TestFaultInjector implements FaultInjector {
    private static final Map<String, Consumer<String>> FAILING = new ConcurrentHashMap<>();
    private static volatile boolean found;

    /** ServiceLoader's. */
    public TestFaultInjector() {}

    /**
     * Calls at the sites of {@code area} go to {@code failing} (with the
     * rest of the site's name), which throws to make one fail; null: none.
     * Throws if fast_random found no injector: the test jar was loaded after
     * its first site was reached.
     */
    public static void set(String area, Consumer<String> failing) {
        Faults.at("test:probe");
        if (!found) {
            throw new IllegalStateException("fast_random's fault sites have no injector: the test jar must be loaded"
                    + " before fast_random reaches its first site (require it first)");
        }
        if (failing == null) FAILING.remove(area);
        else FAILING.put(area, failing);
    }

    @Override
    public void at(String site) {
        int colon = site.indexOf(':');
        String area = site.substring(0, colon);
        if ("test".equals(area)) {
            found = true;
            return;
        }
        Consumer<String> failing = FAILING.get(area);
        if (failing != null) failing.accept(site.substring(colon + 1));
    }
}
