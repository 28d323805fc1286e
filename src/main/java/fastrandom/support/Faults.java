package fastrandom.support;

import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The sites where tests inject failures. The injector is looked up once,
 * when the first site is reached, as a {@link FaultInjector} service of
 * this class's loader, and kept in a final field: with the shipped jars
 * there is none, every site is a no-op, and nothing a caller can reach
 * (field, method or class) puts one in later. The test build's jar must be
 * loaded before that first site (test/test_helper.rb loads it first).
 */
public final class Faults {
    private Faults() {}

    /** Lazily: loaded with the first site reached, not with fast_random. */
    private static final class Injector {
        static final FaultInjector INSTANCE = find();

        private static FaultInjector find() {
            try {
                Iterator<FaultInjector> found = ServiceLoader.load(FaultInjector.class, Faults.class.getClassLoader()).iterator();
                return found.hasNext() ? found.next() : null;
            } catch (ServiceConfigurationError e) {
                return null;
            }
        }
    }

    /** Throws where a test makes the call at {@code site} fail (see {@link FaultInjector#at}); else nothing. */
    public static void at(String site) {
        FaultInjector injector = Injector.INSTANCE;
        if (injector != null) injector.at(site);
    }
}
