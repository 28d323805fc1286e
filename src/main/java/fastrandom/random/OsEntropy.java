package fastrandom.random;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Entropy from the operating system that never blocks: on Linux and other
 * Unix systems the JDK's {@code NativePRNGNonBlocking}, whose seed bytes are
 * read straight from /dev/urandom (never /dev/random). Elsewhere the JDK's
 * default {@link SecureRandom} (on Windows, seeded by the system's CNG).
 */
public final class OsEntropy implements EntropySource {
    public static final OsEntropy INSTANCE = new OsEntropy();

    private final SecureRandom source;
    private final String name;

    private OsEntropy() {
        SecureRandom random;
        try {
            random = SecureRandom.getInstance("NativePRNGNonBlocking");
        } catch (NoSuchAlgorithmException e) {
            random = new SecureRandom();
        }
        this.source = random;
        this.name = random.getAlgorithm();
    }

    @Override
    public void fill(byte[] seed) {
        // generateSeed reads the OS source directly, without NativePRNG's
        // SHA1PRNG mixing; NativePRNG synchronizes internally.
        byte[] fresh = source.generateSeed(seed.length);
        System.arraycopy(fresh, 0, seed, 0, seed.length);
        java.util.Arrays.fill(fresh, (byte) 0);
    }

    @Override
    public String name() {
        return name;
    }
}
