package fastrandom;

/**
 * The settings of fast_random's Java side that hold for every user of these
 * classes (one value per class loader, as the state they steer is), each
 * with its environment variable and, where plain JVM code needs one, its
 * system property. The rest of fast_random's settings belong to one JRuby
 * runtime and live in the Ruby bindings ({@code org.jruby.ext.fastrandom.Configuration},
 * which reads all of them, once, from Ruby's ENV, when fast_random is required).
 *
 * <p>A value is fixed once: by {@link #configure} (the bindings, with the
 * variable as the requiring runtime's ENV has it), or by the first
 * {@link #value()} in a JVM where no Ruby runtime configured it. Either way
 * the system property, when set and not empty, wins: {@code -D} on the
 * command line is the most deliberate choice. Nothing here reads the
 * process's environment: an initializer's {@code ENV[...] = } before
 * {@code require "fast_random"} is what counts.
 */
public enum Setting {
    /** {@code 1}: the CPU's random number instructions (RDRAND and RDSEED, RNDR and RNDRRS) look absent (tests of the fallback on any machine). */
    HIDE_CPU_RANDOM("FAST_RANDOM_HIDE_CPU_RANDOM", "fast_random.hide_cpu_random"),
    /** {@code 1}: libcrypto looks absent, for RSA and EC (tests of the fallback on any machine). */
    HIDE_LIBCRYPTO("FAST_RANDOM_HIDE_LIBCRYPTO", "fast_random.hide_libcrypto"),
    /** {@code 1}: RSA's public operations leave AVX-512 IFMA for OpenSSL's BN_mod_exp_mont (tests). */
    HIDE_IFMA("FAST_RANDOM_HIDE_IFMA", "fast_random.hide_ifma"),
    /** The :gmp engine's libgmp: auto (the default), system, bundled, or an absolute path. */
    GMP_LIBRARY("FAST_RANDOM_GMP_LIBRARY", "fast_random.gmp_library"),
    /**
     * The directory for private copies of the native libraries (a second
     * runtime's, a packaged application's): default ~/.cache/fast_random/native.
     */
    NATIVE_DIRECTORY("FAST_RANDOM_NATIVE_DIR", "fast_random.native.dir"),
    /**
     * Hex: the OpenSSL version number the native library pretends libcrypto
     * has (e.g. {@code 30000040}); honoured by the test build of the library only.
     */
    TEST_OPENSSL_VERSION("FAST_RANDOM_TEST_OPENSSL_VERSION", null);

    private final String variable;
    private final String property;
    private String value; // guarded by this
    private boolean fixed; // guarded by this

    Setting(String variable, String property) {
        this.variable = variable;
        this.property = property;
    }

    /** The environment variable, e.g. {@code FAST_RANDOM_HIDE_CPU_RANDOM}. */
    public String variable() {
        return variable;
    }

    /** The system property, or null when there is none. */
    public String property() {
        return property;
    }

    /**
     * Fixes the value from {@code environment}, the variable's value in the
     * requiring runtime's ENV (null when unset), unless it is fixed already
     * (another runtime sharing these classes came first, or a Java caller
     * used it): the first decides.
     */
    public synchronized void configure(String environment) {
        if (fixed) return;
        String set = systemProperty();
        value = set != null ? set : environment == null || environment.isEmpty() ? null : environment;
        fixed = true;
    }

    /** The value in force (null when unset); fixes it if nothing did yet. */
    public synchronized String value() {
        if (!fixed) configure(null);
        return value;
    }

    /** Whether the value is {@code 1}, the switches' "on". */
    public boolean on() {
        return "1".equals(value());
    }

    private String systemProperty() {
        if (property == null) return null;
        String set = System.getProperty(property);
        return set == null || set.isEmpty() ? null : set;
    }
}
