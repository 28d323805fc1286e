package fastrandom.random;

import java.security.SecureRandom;
import java.security.SecureRandomSpi;

/**
 * A {@link SecureRandom} that draws from the calling thread's generator (see
 * {@link ThreadGenerators}), for Java APIs that want one (PSS salts, say).
 * (The JVM-wide provider's SecureRandoms reach the same generators through
 * {@code fastrandom.jca.detached.ForwardingSecureRandomSpi}.) Caller-supplied seeds are ignored:
 * the generators seed themselves from the OS. {@code generateSeed} reads the
 * OS directly. Thread-safe without a lock: every thread draws from its own
 * generator.
 */
public final class GeneratorSecureRandom extends SecureRandom {
    private static final long serialVersionUID = 1L;

    /** For fast_random's own Java callers: draws count as {@link Call#RANDOM_BYTES}. */
    public static final GeneratorSecureRandom INSTANCE = new GeneratorSecureRandom(Call.RANDOM_BYTES);
    /** For jruby-openssl's own draws ({@code Cipher#random_iv}, say): they count as {@link Call#OPENSSL}. */
    public static final GeneratorSecureRandom OPENSSL = new GeneratorSecureRandom(Call.OPENSSL);

    private GeneratorSecureRandom(Call call) {
        super(new Spi(call), null);
    }

    /** The SPI: the calling thread's generator. */
    private static final class Spi extends SecureRandomSpi {
        private static final long serialVersionUID = 1L;

        private final Call call;

        Spi(Call call) {
            this.call = call;
        }

        @Override
        protected void engineSetSeed(byte[] seed) {
            // the generators reseed from the OS on their own schedule
        }

        @Override
        protected void engineNextBytes(byte[] bytes) {
            call.generator().nextBytes(bytes, 0, bytes.length);
        }

        @Override
        protected byte[] engineGenerateSeed(int length) {
            byte[] seed = new byte[length];
            OsEntropy.INSTANCE.fill(seed);
            return seed;
        }
    }
}
