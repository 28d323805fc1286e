package fastrandom;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * The sites where tests inject failures or stand-ins. The injector is
 * looked up once, when the first site is reached, as a {@link FaultInjector}
 * service of this class's loader ({@code META-INF/services}), and kept in a
 * final field: with the shipped jars there is none, every site is a no-op
 * (a substitution gives back its value), and nothing a caller can reach
 * (field, method or class) puts one in later.
 * The test build's jar must be loaded before that first site
 * (test/test_helper.rb loads it first).
 *
 * <p>The lookup is one resource lookup, not {@link java.util.ServiceLoader}:
 * the first site is reached when the first generator is made or at
 * {@code require "openssl"}, where ServiceLoader's own classes would cost
 * a cold JVM several milliseconds to find that there is no injector.
 */
public final class Faults {
    private Faults() {}

    /** Lazily: loaded with the first site reached, not with fast_random. */
    private static final class Injector {
        static final FaultInjector INSTANCE = find();

        private static FaultInjector find() {
            ClassLoader loader = Faults.class.getClassLoader();
            URL services = loader == null ? null : loader.getResource("META-INF/services/" + FaultInjector.class.getName());
            if (services == null) return null; // the shipped jars
            try (BufferedReader in = new BufferedReader(new InputStreamReader(services.openStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    int comment = line.indexOf('#');
                    String name = (comment >= 0 ? line.substring(0, comment) : line).trim();
                    if (!name.isEmpty()) return (FaultInjector) Class.forName(name, true, loader).getConstructor().newInstance();
                }
            } catch (IOException | ReflectiveOperationException | ClassCastException e) {
                return null; // a broken service file: no injector, as in the shipped jars
            }
            return null;
        }
    }

    /**
     * Whether the test build's injector is there, looked up now if no site
     * has yet: the generators' warm-up asks, on its own thread, so that no
     * caller's first generator waits for the lookup.
     */
    public static boolean present() {
        return Injector.INSTANCE != null;
    }

    /** Throws where a test makes the call at {@code site} fail (see {@link FaultInjector#at}); else nothing. */
    public static void at(String site) {
        FaultInjector injector = Injector.INSTANCE;
        if (injector != null) injector.at(site);
    }

    /**
     * What the code at {@code site} uses for {@code value}, a {@code type}:
     * a test's stand-in (see {@link FaultInjector#substitute}), else
     * {@code value}.
     */
    public static <T> T substitute(String site, Class<T> type, T value) {
        FaultInjector injector = Injector.INSTANCE;
        return injector == null ? value : type.cast(injector.substitute(site, value));
    }
}
