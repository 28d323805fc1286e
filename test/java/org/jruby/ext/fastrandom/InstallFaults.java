package org.jruby.ext.fastrandom;

import java.util.function.Predicate;

/**
 * Tests: makes installing fast_random's methods into a jruby-openssl class
 * fail ({@link StockMethods#install}), as an incompatible release would. In
 * the test build's jar only (test/java, {@code rake test_builds}).
 */
public final class InstallFaults {
    private InstallFaults() {}

    /** Installs into the classes {@code failing} accepts (by name, e.g. "OpenSSL::PKey::RSA") fail; null: none. */
    public static void set(Predicate<String> failing) {
        StockMethods.faults = failing;
    }
}
