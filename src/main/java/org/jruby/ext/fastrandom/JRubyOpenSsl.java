package org.jruby.ext.fastrandom;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyModule;
import org.jruby.exceptions.JumpException;
import org.jruby.exceptions.RaiseException;
import org.jruby.exceptions.Unrescuable;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.PKeyAccess;
import fastrandom.jca.ProviderHook;

/**
 * What the loaded jruby-openssl is and has, which decides what fast_random
 * puts into it ({@link OpenSSLHook}): not its version number, past the
 * floor, but whether what each capability cannot do without is there
 * ({@link #require}), and, on a release the suite has not run on, whether
 * the known-answer checks through jruby-openssl's own Ruby API pass
 * ({@link OpenSSLChecks}). So a newer jruby-openssl gets the hooks as soon
 * as it is out, when they hold on it, and each capability that does not
 * hold stays stock with one warning naming why.
 */
final class JRubyOpenSsl {
    /** The oldest jruby-openssl fast_random hooks into (in JRuby 9.4.8.0; README, "Supported versions"). */
    static final String OLDEST = "0.15.0";

    /**
     * The releases the suite runs on: those the JRubies of script/env.sh
     * bundle, and 0.16.1 built from its tag (bin/test's jruby-openssl pass).
     * Any other release (a newer one, or a gem between these) is checked at
     * load ({@link OpenSSLChecks}).
     */
    static final Set<String> TESTED = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            "0.15.0", "0.15.3", "0.15.4", "0.15.5", "0.15.6", "0.16.0", "0.16.1", "0.16.2")));

    /**
     * What fast_random can put into jruby-openssl, each whole or not at all
     * (X509: {@code Certificate#sign}, {@code #verify} and {@code CRL#verify},
     * which run on RSA's and EC's engines: {@link X509Hooks}).
     */
    enum Capability {
        RSA("RSA"), EC("EC"), AES("AES"), PBKDF2("PBKDF2"), RANDOM("OpenSSL::Random"), X509("X.509"), TLS("TLS");

        final String label;

        Capability(String label) {
            this.label = label;
        }
    }

    /** A jruby-openssl without what a capability needs, or failing its check at load: the capability stays stock. */
    static final class Unusable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message);
        }
    }

    private JRubyOpenSsl() {}

    /** {@code JOpenSSL::VERSION}, or "unknown". */
    static String version(Ruby runtime) {
        RubyModule jopenssl = runtime.getModule("JOpenSSL");
        IRubyObject version = jopenssl == null ? null : jopenssl.getConstantAt("VERSION");
        return version == null || version.isNil() ? "unknown" : version.toString();
    }

    /**
     * Why nothing of this jruby-openssl is touched (a release older than
     * {@link #OLDEST}), or null. A version that does not read as numbers
     * passes: what it has decides, as for any release not tested.
     */
    static String tooOld(Ruby runtime) {
        String version = version(runtime);
        int[] parts = numbers(version);
        if (parts == null || compare(parts, numbers(OLDEST)) >= 0) return null;
        return "jruby-openssl " + version + " is older than fast_random supports (" + OLDEST
                + " and later): RSA, EC, AES, PBKDF2, OpenSSL::Random and SSLSocket's data path stay jruby-openssl's own";
    }

    /** Whether the suite runs on this release ({@link #TESTED}); any other is checked at load. */
    static boolean tested(Ruby runtime) {
        return TESTED.contains(version(runtime));
    }

    /**
     * Throws {@link Unusable}, naming everything missing, unless this
     * jruby-openssl has what {@code capability} cannot do without: the
     * provider it wraps (RSA, EC, AES), the Java accessors of its keys (RSA,
     * EC), the methods it exists to replace ({@code Cipher#update} and
     * {@code #auth_data=}, {@code KDF.pbkdf2_hmac}), the fields of
     * jruby-openssl's Cipher that {@code auth_data=} reads (AES).
     * Methods a release may or may not have are replaced where present and
     * checked where present, never required; Ruby files loaded after
     * jruby-openssl's Java classes (where a release may define methods in
     * Ruby) are not looked at. Changes nothing.
     */
    static void require(Ruby runtime, Capability capability) {
        Needs needs = new Needs(runtime);
        switch (capability) {
            case RSA:
                needs.provider();
                needs.javaKeys("OpenSSL::PKey::RSA");
                break;
            case EC:
                needs.provider();
                needs.javaKeys("OpenSSL::PKey::EC");
                break;
            case AES:
                needs.provider();
                needs.instanceMethods("OpenSSL::Cipher", "update", "auth_data=");
                needs.cipherFields();
                break;
            case PBKDF2:
                needs.singletonMethods("OpenSSL::KDF", "pbkdf2_hmac");
                break;
            case TLS:
                needs.instanceMethods(SSLSocketMethods.CLASS, SSLSocketMethods.NAMES);
                needs.sslSocketFields();
                break;
            default: // OpenSSL::Random's methods are fast_random's own, and the hook waits for the module; X509Hooks looks itself
                throw new IllegalArgumentException(capability.name());
        }
        needs.check(capability);
    }

    /**
     * Runs the known-answer checks of {@code capability} through
     * jruby-openssl's Ruby API when this release is not one the suite runs
     * on; throws {@link Unusable} saying what failed (a wrong answer, or a
     * StandardError or Java exception instead of one). Ruby's control flow
     * (Interrupt, Thread#kill, throw) goes on as it is. Call once the
     * capability is installed, and take it out again when this throws
     * anything.
     */
    static void checkAtLoad(ThreadContext context, Capability capability) {
        check(context, capability, "at load");
    }

    /**
     * {@link #checkAtLoad}, for a capability checked at another time
     * ({@code when}, as the message says it: "at its first use").
     */
    static void check(ThreadContext context, Capability capability, String when) {
        if (tested(context.runtime)) return;
        String failure;
        try {
            failure = OpenSSLChecks.run(context, capability);
        } catch (RuntimeException | LinkageError e) {
            if (isControlFlow(context, e)) throw e;
            failure = "it raised " + OpenSSLChecks.describe(context, e);
        }
        if (failure != null) {
            throw new Unusable("jruby-openssl " + version(context.runtime) + ", a release fast_random was not tested on, failed "
                    + "fast_random's " + capability.label + " check " + when + ": " + failure);
        }
    }

    /**
     * Whether {@code e} is Ruby's control flow rather than a failure: a
     * signal (Interrupt) or {@code exit}, or a jump that is no exception
     * (Thread#kill, throw, break). Every other Ruby exception, a
     * NotImplementedError or a LoadError too, is a failure.
     */
    static boolean isControlFlow(ThreadContext context, Throwable e) {
        if (e instanceof RaiseException) {
            IRubyObject exception = ((RaiseException) e).getException();
            return context.runtime.getSignalException().isInstance(exception) || context.runtime.getSystemExit().isInstance(exception);
        }
        return e instanceof JumpException || e instanceof Unrescuable;
    }

    /** What one capability needs, gathered before anything is decided, so that the message lists all of it. */
    private static final class Needs {
        private final Ruby runtime;
        private final Set<String> missing = new LinkedHashSet<>();

        Needs(Ruby runtime) {
            this.runtime = runtime;
        }

        /** SecurityHelper's provider, which fast_random's RSA, EC and AES wrap ({@link ProviderHook}). */
        void provider() {
            String lacking = ProviderHook.missing(runtime.getJRubyClassLoader());
            if (lacking != null) missing.add(lacking);
        }

        /** The module itself. */
        private RubyModule module(String path) {
            if (!OpenSSLHook.defined(runtime, path)) {
                missing.add(path);
                return null;
            }
            return runtime.getClassFromPath(path);
        }

        /** Instance methods of {@code path}, defined there or inherited. */
        void instanceMethods(String path, String... names) {
            RubyModule module = module(path);
            if (module == null) return;
            for (String name : names) {
                DynamicMethod method = module.searchMethod(name);
                if (method == null || method.isUndefined()) missing.add(path + "#" + name);
            }
        }

        /** Methods of {@code path}'s singleton class (module functions). */
        void singletonMethods(String path, String... names) {
            RubyModule module = module(path);
            if (module == null) return;
            for (String name : names) {
                DynamicMethod method = module.getSingletonClass().searchMethod(name);
                if (method == null || method.isUndefined()) missing.add(path + "." + name);
            }
        }

        /** The fields of jruby-openssl's Cipher that {@code auth_data=} reads ({@link CipherFields}). */
        void cipherFields() {
            String lacking = CipherFields.missing(runtime.getJRubyClassLoader());
            if (lacking != null) missing.add(lacking);
        }

        /** The members of jruby-openssl's SSLSocket that the data path reads and calls ({@link SSLSocketFields}). */
        void sslSocketFields() {
            String lacking = SSLSocketFields.missing(runtime.getJRubyClassLoader());
            if (lacking != null) missing.add(lacking);
        }

        /** The JCA keys behind {@code path}'s objects, read through {@link PKeyAccess}. */
        void javaKeys(String path) {
            RubyModule module = module(path);
            if (!(module instanceof RubyClass)) return;
            Class<?> type;
            try {
                type = ((RubyClass) module).allocate().getClass();
            } catch (RuntimeException e) {
                missing.add(path + ".allocate");
                return;
            }
            if (!PKeyAccess.supports(type)) missing.add(type.getName() + "#getPrivateKey and #getPublicKey");
        }

        void check(Capability capability) {
            if (missing.isEmpty()) return;
            throw new Unusable("jruby-openssl " + version(runtime) + " has no " + String.join(", ", missing)
                    + ", which fast_random's " + capability.label + " needs");
        }
    }

    /** Up to three dot-separated numbers at the start of a version. */
    private static final java.util.regex.Pattern VERSION_NUMBERS = java.util.regex.Pattern.compile("\\A(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?");

    /**
     * The first three numbers of a version, each read up to its first
     * non-digit ("0.14.0-SNAPSHOT" is 0.14.0, "0.16.3.dev" 0.16.3), or null
     * when it does not start with a number.
     */
    private static int[] numbers(String version) {
        java.util.regex.Matcher matcher = VERSION_NUMBERS.matcher(version);
        if (!matcher.find()) return null;
        int[] parts = new int[3];
        try {
            for (int i = 0; i < parts.length; i++) parts[i] = matcher.group(i + 1) == null ? 0 : Integer.parseInt(matcher.group(i + 1));
        } catch (NumberFormatException e) { // more digits than an int
            return null;
        }
        return parts;
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) return Integer.compare(a[i], b[i]);
        }
        return 0;
    }
}
