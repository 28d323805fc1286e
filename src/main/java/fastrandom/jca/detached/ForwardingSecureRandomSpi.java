package fastrandom.jca.detached;

import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.Security;
import java.security.SecureRandomSpi;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The SPI of the SecureRandoms the JVM-wide provider hands out: the
 * installing runtime's generators while it lives, then (the JDK may keep
 * such a SecureRandom in a static field for good) the JDK's default
 * generator, made on first need. Seeds given to it are ignored while the
 * runtime's generators serve it (they seed themselves from the OS);
 * {@code generateSeed} is the JDK default's.
 */
public final class ForwardingSecureRandomSpi extends SecureRandomSpi {
    private static final long serialVersionUID = 1L;

    private final transient AtomicReference<Consumer<byte[]>> randomBytes;
    private transient volatile SecureRandom jdk;

    ForwardingSecureRandomSpi(AtomicReference<Consumer<byte[]>> randomBytes) {
        this.randomBytes = randomBytes;
    }

    @Override
    protected void engineSetSeed(byte[] seed) {
        if (randomBytes.get() == null) jdk().setSeed(seed);
    }

    @Override
    protected void engineNextBytes(byte[] bytes) {
        Consumer<byte[]> source = randomBytes.get();
        if (source != null) {
            source.accept(bytes);
        } else {
            jdk().nextBytes(bytes);
        }
    }

    @Override
    protected byte[] engineGenerateSeed(int length) {
        return jdk().generateSeed(length);
    }

    /** The JDK's generator: what {@code new SecureRandom()} gives without a fast_random provider in the list. */
    private SecureRandom jdk() {
        SecureRandom random = jdk;
        if (random == null) {
            synchronized (this) {
                if (jdk == null) jdk = firstOther();
                random = jdk;
            }
        }
        return random;
    }

    /**
     * The first SecureRandom of the first provider in the JVM's list that is
     * not a fast_random shell (any runtime's: each has its own class, so
     * compared by name), preferring NativePRNG as the SUN provider's
     * default does; the JDK's DRBG when there is none.
     */
    private static SecureRandom firstOther() {
        for (Provider provider : Security.getProviders()) {
            if (provider.getClass().getName().equals(ProviderShell.class.getName())) continue;
            Provider.Service chosen = provider.getService("SecureRandom", "NativePRNG");
            if (chosen == null) {
                for (Provider.Service service : provider.getServices()) {
                    if ("SecureRandom".equals(service.getType())) {
                        chosen = service;
                        break;
                    }
                }
            }
            if (chosen == null) continue;
            try {
                return SecureRandom.getInstance(chosen.getAlgorithm(), provider);
            } catch (NoSuchAlgorithmException e) {
                // listed but unusable: the next provider
            }
        }
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new ProviderException("no SecureRandom outside fast_random's provider", e);
        }
    }
}
