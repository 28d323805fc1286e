package fastrandom.jca.detached;

import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The provider in the JVM's list (see the package comment): its services'
 * instances come from the installing runtime's factory while that runtime
 * lives; its SecureRandoms forward to the runtime's generators, and to the
 * JDK's default generator once the runtime is gone.
 */
public final class ProviderShell extends Provider {
    private static final long serialVersionUID = 1L;

    private final transient AtomicReference<BiFunction<String, String, Object>> instances;
    private final transient AtomicReference<Consumer<byte[]>> randomBytes;

    /**
     * {@code instances} makes an SPI for (type, algorithm); {@code
     * randomBytes} fills a byte array from the runtime's generators. Both
     * are cleared when the runtime is torn down.
     */
    public ProviderShell(String name, double version, String info,
                         AtomicReference<BiFunction<String, String, Object>> instances,
                         AtomicReference<Consumer<byte[]>> randomBytes) {
        super(name, version, info);
        this.instances = instances;
        this.randomBytes = randomBytes;
    }

    /** Registers one service (the SecureRandom type is served by {@link ForwardingSecureRandomSpi}). */
    public void addService(String type, String algorithm, String className, List<String> aliases, Map<String, String> attributes) {
        putService(new ShellService(this, type, algorithm, className, aliases, attributes));
    }

    Object newInstance(String type, String algorithm) throws NoSuchAlgorithmException {
        if ("SecureRandom".equals(type)) return new ForwardingSecureRandomSpi(randomBytes);
        BiFunction<String, String, Object> factory = instances.get();
        if (factory == null) {
            throw new NoSuchAlgorithmException(type + "." + algorithm + ": the JRuby runtime that installed " + getName()
                    + " is gone");
        }
        return factory.apply(type, algorithm);
    }

    /** A service whose instances {@link #newInstance(String, String)} makes (no reflection). */
    private static final class ShellService extends Service {
        private final ProviderShell shell;

        ShellService(ProviderShell shell, String type, String algorithm, String className, List<String> aliases,
                     Map<String, String> attributes) {
            super(shell, type, algorithm, className, aliases, attributes);
            this.shell = shell;
        }

        @Override
        public Object newInstance(Object constructorParameter) throws NoSuchAlgorithmException {
            if (constructorParameter != null) {
                throw new NoSuchAlgorithmException(getType() + "." + getAlgorithm() + " from " + shell.getName()
                        + " takes no parameters");
            }
            return shell.newInstance(getType(), getAlgorithm());
        }
    }
}
