package fastrandom;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Tests: the {@link FaultInjector} the test build's jar provides (its
 * {@code META-INF/services}), which {@link Faults} finds when its first site
 * is reached. Failures are set per area, the part of a site before its
 * colon ("aes", "pbkdf2", "install"): AesFaults, Pbkdf2Faults and
 * InstallFaults set them. Stand-ins are set per site ("random:seeds"):
 * GeneratorFaults sets them.
 */
public final class TestFaultInjector implements FaultInjector {
    private static final Map<String, Consumer<String>> FAILING = new ConcurrentHashMap<>();
    private static final Map<String, UnaryOperator<Object>> STAND_INS = new ConcurrentHashMap<>();
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
        requireFound();
        if (failing == null) FAILING.remove(area);
        else FAILING.put(area, failing);
    }

    /**
     * The code at {@code site} uses what {@code standIn} makes of its value,
     * a {@code type}, instead of the value; null: the value itself. Throws
     * as {@link #set} does.
     */
    public static <T> void setStandIn(String site, Class<T> type, UnaryOperator<T> standIn) {
        requireFound();
        if (standIn == null) STAND_INS.remove(site);
        else STAND_INS.put(site, value -> standIn.apply(type.cast(value)));
    }

    private static void requireFound() {
        Faults.at("test:probe");
        if (!found) {
            throw new IllegalStateException("fast_random's fault sites have no injector: the test jar must be loaded"
                    + " before fast_random reaches its first site (require it first)");
        }
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

    @Override
    public Object substitute(String site, Object value) {
        UnaryOperator<Object> standIn = STAND_INS.get(site);
        return standIn == null ? value : standIn.apply(value);
    }
}
