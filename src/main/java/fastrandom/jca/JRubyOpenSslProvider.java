package fastrandom.jca;

import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.ProviderException;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import fastrandom.cipher.AesCipher;
import fastrandom.cipher.UpdateCalls;
import fastrandom.ec.jca.EcServices;
import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.jca.RsaServices;

/**
 * The provider jruby-openssl gets its JCA objects from once fast_random is
 * hooked in ({@link ProviderHook}): BouncyCastle (jruby-openssl's own
 * instance), except for the services of each active capability, which are
 * fast_random's (RSA: {@link RsaServices}, EC: {@link EcServices}, AES:
 * {@link AesCipher}), and
 * that capability's key pair generator, BouncyCastle's drawing from
 * fast_random's generators ({@link RandomizedKeyPairGenerator}). Everything else, and every
 * service of a capability switched off, is BouncyCastle's, untouched.
 *
 * <p>Never in the JVM's list, and named apart from the JVM-wide provider
 * ({@link JvmProvider#NAME}): jruby-openssl asks the JVM's list for its
 * provider's name ({@code SecurityHelper.isProviderRegistered}), which must
 * not find that one.
 */
public final class JRubyOpenSslProvider extends Provider {
    /** Its name: not in the JVM's list, so no one finds it by it. */
    public static final String NAME = "FastRandom-jruby-openssl";

    private static final long serialVersionUID = 1L;

    private final transient Provider bouncyCastle;
    private static final ProviderHook.Capability[] CAPABILITIES = ProviderHook.Capability.values();
    /** The capabilities on, one bit each by ordinal ({@link ProviderHook} switches them). */
    private final AtomicInteger active = new AtomicInteger();
    /** What each capability answers, by "type.ALGORITHM": our service, or NONE (BouncyCastle's then). */
    private final transient Map<ProviderHook.Capability, Map<String, Object>> ours = new EnumMap<>(ProviderHook.Capability.class);
    private static final Object NONE = new Object();

    public JRubyOpenSslProvider(Provider bouncyCastle) {
        super(NAME, 1.0, "BouncyCastle (" + bouncyCastle.getInfo() + ") with RSA, EC and AES on fast_random's engines");
        this.bouncyCastle = bouncyCastle;
        for (ProviderHook.Capability capability : CAPABILITIES) ours.put(capability, new ConcurrentHashMap<>());
    }

    /** What the bindings see of jruby-openssl's {@code Cipher#update}, for this provider's AES ciphers. */
    private final transient UpdateCalls aesUpdates = new UpdateCalls();

    /** The bindings' view of jruby-openssl's {@code Cipher#update}, which this provider's AES ciphers are told of. */
    public UpdateCalls aesUpdates() {
        return aesUpdates;
    }

    /** The BouncyCastle provider this one answers for (to put back on uninstall). */
    public Provider bouncyCastle() {
        return bouncyCastle;
    }

    /** Whether jruby-openssl's operations of this kind go through fast_random now. */
    public boolean isActive(ProviderHook.Capability capability) {
        return (active.get() & (1 << capability.ordinal())) != 0;
    }

    void activate(ProviderHook.Capability capability, boolean on) {
        int bit = 1 << capability.ordinal();
        active.updateAndGet(bits -> on ? bits | bit : bits & ~bit);
    }

    boolean anyActive() {
        return active.get() != 0;
    }

    @Override
    public Service getService(String type, String algorithm) {
        String name = type + "." + algorithm.toUpperCase(Locale.ROOT);
        for (ProviderHook.Capability capability : CAPABILITIES) {
            if (!isActive(capability)) continue;
            Map<String, Object> answers = ours.get(capability);
            Object service = answers.get(name);
            if (service == null) {
                Service answer = ourService(capability, type, algorithm);
                service = answer != null ? answer : NONE;
                answers.put(name, service);
            }
            if (service != NONE) return (Service) service;
        }
        return bouncyCastle.getService(type, algorithm);
    }

    private Service ourService(ProviderHook.Capability capability, String type, String algorithm) {
        Service bc = bouncyCastle.getService(type, algorithm);
        Supplier<Object> factory = null;
        String source = null;
        switch (capability) {
            case RSA:
                if ("Cipher".equals(type)) factory = RsaServices.cipher(algorithm);
                else if ("Signature".equals(type) && bc != null) factory = RsaServices.signature(bc.getClassName(), bouncyCastle);
                source = RsaServices.class.getName();
                break;
            case AES:
                AesCipher.Mode mode = "Cipher".equals(type) ? AesCipher.Mode.of(algorithm) : null;
                if (mode != null) factory = () -> AesCipher.newInstance(mode, bouncyCastle, aesUpdates);
                source = AesCipher.class.getName();
                break;
            case EC:
                if (("Signature".equals(type) || "KeyAgreement".equals(type)) && bc != null) {
                    factory = EcServices.service(type, bc.getClassName(), bouncyCastle, bc.getAlgorithm());
                } else if ("KeyPairGenerator".equals(type) && bc != null && "EC".equals(bc.getAlgorithm())) {
                    factory = EcServices.keyPairGenerator(() -> bouncyCastleGenerator(bc), bouncyCastle, GeneratorSecureRandom.OPENSSL);
                }
                source = EcServices.class.getName();
                break;
            default:
                break;
        }
        if (factory == null && "KeyPairGenerator".equals(type) && bc != null && capability.name().equals(bc.getAlgorithm())) {
            // RSA's and EC's key generation, drawing from fast_random's generators.
            factory = () -> new RandomizedKeyPairGenerator(bouncyCastleGenerator(bc));
            source = RandomizedKeyPairGenerator.class.getName();
        }
        if (factory == null) return null;
        return new EngineService(type, bc != null ? bc.getAlgorithm() : algorithm, source, factory);
    }

    private static KeyPairGenerator bouncyCastleGenerator(Service bc) {
        try {
            return (KeyPairGenerator) bc.newInstance(null);
        } catch (NoSuchAlgorithmException e) {
            throw new ProviderException("BouncyCastle's " + bc.getAlgorithm() + " key pair generator", e);
        }
    }

    @Override
    public Set<Service> getServices() {
        Set<Service> services = new LinkedHashSet<>(bouncyCastle.getServices());
        for (Map<String, Object> answers : ours.values()) {
            for (Object service : answers.values()) {
                if (service instanceof Service) services.add((Service) service);
            }
        }
        return services;
    }

    @Override
    public String getProperty(String key) {
        String value = super.getProperty(key);
        return value != null ? value : bouncyCastle.getProperty(key);
    }

    /** A service whose instances we construct ourselves (no reflection; the class name only says where they come from). */
    private final class EngineService extends Service {
        private final Supplier<Object> instances;

        EngineService(String type, String algorithm, String source, Supplier<Object> instances) {
            super(JRubyOpenSslProvider.this, type, algorithm, source, null, null);
            this.instances = instances;
        }

        @Override
        public Object newInstance(Object constructorParameter) {
            return instances.get();
        }
    }
}
