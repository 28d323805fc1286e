package fastrandom.support;

/**
 * The test build's way to make a call fail: a service that only the test
 * build's jar provides ({@code META-INF/services}, test/java). Shipped code
 * never implements, holds or sets one; it names its sites to {@link Faults}.
 */
public interface FaultInjector {
    /**
     * Throws, as the call at {@code site} would fail, when the test says it
     * fails now; else returns. Sites: "aes:cipher", "aes:init", "aes:aad",
     * "aes:update", "aes:final" (the JDK's AES), "pbkdf2:SHA-256" (getting
     * a JDK digest), "install:OpenSSL::PKey::RSA" (replacing a class's
     * methods).
     */
    void at(String site);
}
