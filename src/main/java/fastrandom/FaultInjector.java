package fastrandom;

/**
 * The test build's way to make a call fail, or to hand code a stand-in for
 * what it uses: a service that only the test build's jar provides
 * ({@code META-INF/services}, test/java). Shipped code never implements,
 * holds or sets one; it names its sites to {@link Faults}.
 */
public interface FaultInjector {
    /**
     * Throws, as the call at {@code site} would fail, when the test says it
     * fails now, or does what a fault there would do around it; else
     * returns. Sites: "aes:cipher", "aes:init", "aes:aad", "aes:update",
     * "aes:final" (the JDK's AES), "pbkdf2:SHA-256" (getting a JDK digest),
     * "install:OpenSSL::PKey::RSA" (replacing a class's methods),
     * "copy:checked" (a native library's private copy, written and checked,
     * before its name is compared with the file checked and it is loaded: a
     * test may replace the file, as another process of this user could).
     */
    void at(String site);

    /**
     * What the code at {@code site} uses in place of {@code value}: a
     * stand-in the test set (which may wrap {@code value}), or {@code value}
     * itself. Sites: "random:source" (a thread's own generator's
     * BlockSource, when the generator is made), "random:seeds" (the
     * EntropySource every generator takes each seed from: the primary DRBG),
     * "random:entropy" (the primary's: the OS, mixed with the CPU),
     * "random:policy" (the ReseedPolicy of a generator being made, and the
     * primary's age limit).
     */
    Object substitute(String site, Object value);
}
