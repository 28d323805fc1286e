package fastrandom.jni;

/**
 * Fault injection into the native library, for the test suite: present
 * only in the test build of the library that {@code bin/test} builds and
 * loads ({@code -DFAST_RANDOM_TEST_BUILD}, see the Rakefile). The shipped
 * library has none of it, so with it every method here throws
 * {@link UnsupportedOperationException} and nothing in the JVM can corrupt
 * or fail a native operation on purpose.
 */
public final class NativeTestHooks {
    private NativeTestHooks() {}

    private static native boolean present0();
    private static native void injectCrtFaults0(int count);
    private static native void injectBlindingFailures0(int count);
    private static native void verifyTables0(int after, int faults);
    private static native void injectTableVerifyFailures0(int count);
    private static native void injectGenerateFailures0(int count);
    private static native void injectXdhFailures0(int count);
    private static native void ecWrongAnswers0(int nid);
    private static native void pretendOpenSslVersion0(long version);

    /** Whether the loaded native library is the test build. */
    public static boolean present() {
        if (!LibCrypto.load()) return false;
        try {
            return present0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * The next {@code count} results of fast_random's own CRT are corrupted in
     * the p half, as a fault would corrupt them (0 stops it).
     */
    public static void injectCrtFaults(int count) {
        requirePresent();
        injectCrtFaults0(count);
    }

    /** The next {@code count} batches of blinding factors fail, as when OpenSSL's DRBG fails (0 stops it). */
    public static void injectBlindingFailures(int count) {
        requirePresent();
        injectBlindingFailures0(count);
    }

    /**
     * An EC key gets its verification table after {@code after}
     * verifications (0: never; -1: the defaults, 1,024 on P-256 and 16 on
     * P-521), and the next {@code faults} table builds fail as when OpenSSL
     * runs out of memory (the key then verifies without one, for good).
     */
    public static void verifyTables(int after, int faults) {
        requirePresent();
        verifyTables0(after, faults);
    }

    /**
     * The next {@code count} verifications on an EC verification table fail
     * midway, as when an OpenSSL call in them runs out of memory:
     * {@code ECDSA_do_verify} then decides (0 stops it).
     */
    public static void injectTableVerifyFailures(int count) {
        requirePresent();
        injectTableVerifyFailures0(count);
    }

    /** The next {@code count} EC key generations fail, as when OpenSSL's random generator does (0 stops it). */
    public static void injectGenerateFailures(int count) {
        requirePresent();
        injectGenerateFailures0(count);
    }

    /** The next {@code count} X25519/X448 generations or agreements fail, as when OpenSSL runs out of memory (0 stops it). */
    public static void injectXdhFailures(int count) {
        requirePresent();
        injectXdhFailures0(count);
    }

    /**
     * ECDH secrets and ECDSA verdicts of native EC keys on the curve with
     * OpenSSL's number {@code nid} come out wrong (a bit of the secret
     * flipped, the verdict inverted), for tests of the EC known-answer
     * test; 0 stops it.
     */
    public static void ecWrongAnswers(int nid) {
        requirePresent();
        ecWrongAnswers0(nid);
    }

    /**
     * Called by {@link LibCrypto#load()} once libcrypto is open, with
     * {@code FAST_RANDOM_TEST_OPENSSL_VERSION} ({@link fastrandom.Setting#TEST_OPENSSL_VERSION},
     * hex, null when unset): the test build's C side then reports that
     * version number as libcrypto's, to take the paths a known-bad OpenSSL
     * takes. The shipped library has no such function, and nothing changes.
     */
    static void pretendOpenSslVersion(String hex) {
        if (hex == null) return;
        long version;
        try {
            String digits = hex.trim();
            if (digits.startsWith("0x") || digits.startsWith("0X")) digits = digits.substring(2); // as strtoul reads hex
            version = Long.parseLong(digits, 16);
        } catch (NumberFormatException e) {
            return; // as strtoul did: no number, no pretence
        }
        try {
            pretendOpenSslVersion0(version);
        } catch (UnsatisfiedLinkError e) {
            // the shipped library: no test hooks
        }
    }

    private static void requirePresent() {
        if (!present()) throw new UnsupportedOperationException("fault injection needs the test build of the native library");
    }
}
