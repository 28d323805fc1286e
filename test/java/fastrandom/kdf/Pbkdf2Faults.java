package fastrandom.kdf;

import java.security.MessageDigest;
import java.util.function.Function;

/**
 * Tests: fault injection into {@link Pbkdf2}'s JDK digests. In the test
 * build's jar only (test/java, {@code rake test_builds}): the shipped jar
 * has no way to set it.
 */
public final class Pbkdf2Faults {
    private Pbkdf2Faults() {}

    /** Digests from {@code source} (by JDK name, "SHA-256"), which may throw as a failing JCE call does; null: the JDK's again. */
    public static void setDigestSource(Function<String, MessageDigest> source) {
        Pbkdf2.digests = source != null ? source : Pbkdf2.JDK_DIGESTS;
    }
}
