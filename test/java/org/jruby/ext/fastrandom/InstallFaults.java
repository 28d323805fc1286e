package org.jruby.ext.fastrandom;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

import org.jruby.RubyModule;

import fastrandom.TestFaultInjector;

/**
 * Tests: makes installing fast_random's methods into a jruby-openssl class
 * fail ({@link StockMethods#install}), as an incompatible release would,
 * and says which of a class's methods are fast_random's now. In the test
 * build's jar only (test/java, {@code rake test_builds}), through its
 * {@link TestFaultInjector}.
 */
public final class InstallFaults {
    private InstallFaults() {}

    /** Installs into the classes {@code failing} accepts (by name, e.g. "OpenSSL::PKey::RSA") fail; null: none. */
    public static void set(Predicate<String> failing) {
        TestFaultInjector.set("install", failing == null ? null : name -> {
            if (failing.test(name)) throw new IllegalStateException("injected failure replacing methods of " + name);
        });
    }

    /** The names of {@code target}'s methods fast_random's replace now, sorted (none before an install or after an undo). */
    public static List<String> replaced(RubyModule target) {
        StockMethods kept = StockMethods.of(target);
        List<String> names = kept == null ? new ArrayList<>() : new ArrayList<>(kept.replacedNames());
        Collections.sort(names);
        return names;
    }
}
