package fastrandom.jca;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.CodeSource;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import fastrandom.ec.jca.EcServices;
import fastrandom.jni.LibCrypto;
import fastrandom.random.Call;
import fastrandom.support.Diagnostics;
import fastrandom.rsa.jca.EngineRsaCipher;
import fastrandom.rsa.jca.EngineRsaSignature;
import fastrandom.rsa.jca.JvmRsaPssSignature;

/**
 * The JVM-wide provider, opt-in ({@code FastRandom.install_jca_provider}):
 * registered first in the JVM's list, it makes fast_random's generators the
 * default {@code new SecureRandom()} (declared thread-safe, so nextBytes
 * takes no lock) and serves RSA and EC signatures, RSA ciphers and ECDH on
 * the native engines for any Java key, so Java code in the process (JSSE's
 * TLS handshakes, X.509 signing, UUID.randomUUID once it is first called
 * after the install, JDBC drivers, clients) runs on them.
 *
 * <p>Every service hands what it does not take (another key class, a curve
 * or parameters it has no engine for, another engine selected, an engine
 * failure) to the next provider in the list that offers it, the one that
 * would have answered without us ({@link NextProvider}); their
 * {@code SupportedKeyClasses} let the JCA skip us for other keys.
 * {@code SecureRandom.getInstanceStrong()} and SecureRandoms asked for by
 * algorithm name stay the JDK's.
 *
 * <p>JVM-wide, so it has one owner at a time: the runtime (any object
 * standing for one; null for plain Java callers) whose {@link #install}
 * put it in the list. Another runtime's install, while it is there, answers
 * false with a warning. The owner's teardown ({@link #tearDown}) takes it
 * out of the list and cuts every tie the JDK may keep to it: the object in
 * the list is a {@code fastrandom.jca.detached.ProviderShell}, loaded apart
 * from the runtime (see that package), whose SecureRandoms go over to the
 * JDK's generator then; so a torn-down runtime's class loader can be
 * collected even where the JDK cached one of them (UUID.randomUUID's, the
 * default of its crypto classes).
 */
public final class JvmProvider {
    /** The provider's name in the JVM's list. */
    public static final String NAME = "FastRandom";
    /** Its SecureRandom algorithm: fast_random's per-thread NIST CTR_DRBG generators. */
    public static final String SECURE_RANDOM = "FastRandom";

    private static final String INFO = "fast_random: SecureRandom on per-thread CTR_DRBG generators; RSA and EC on OpenSSL's libcrypto";
    private static final String SHELL = "fastrandom.jca.detached.ProviderShell";
    private static final String[] SHELL_CLASSES = { SHELL, SHELL + "$ShellService", "fastrandom.jca.detached.ForwardingSecureRandomSpi" };

    private static final String RSA_KEYS = "java.security.interfaces.RSAPublicKey|java.security.interfaces.RSAPrivateKey";
    private static final String EC_KEYS = "java.security.interfaces.ECPublicKey|java.security.interfaces.ECPrivateKey";
    private static final String XDH_KEYS = "java.security.interfaces.XECPublicKey|java.security.interfaces.XECPrivateKey";

    /** The provider this class loader put in the JVM's list, while it is there as far as we know; or null. */
    private static Installed current; // guarded by JvmProvider.class
    /** Every provider this class loader made, by owner, to cut loose at the owner's teardown. */
    private static final List<Installed> MADE = new ArrayList<>(); // guarded by JvmProvider.class

    private JvmProvider() {}

    /** One provider made by {@link #install}: the shell in the list and the ties its owner's teardown cuts. */
    private static final class Installed {
        final Object owner;
        final Provider shell;
        final AtomicReference<BiFunction<String, String, Object>> instances;
        final AtomicReference<Consumer<byte[]>> randomBytes;

        Installed(Object owner, Provider shell, AtomicReference<BiFunction<String, String, Object>> instances,
                  AtomicReference<Consumer<byte[]>> randomBytes) {
            this.owner = owner;
            this.shell = shell;
            this.instances = instances;
            this.randomBytes = randomBytes;
        }
    }

    /**
     * Puts the provider first in the JVM's list, owned by {@code owner};
     * false (the list unchanged) when this class loader's provider already
     * is in it, or another runtime's is (then with a warning, once).
     */
    public static synchronized boolean install(Object owner) {
        Provider registered = Security.getProvider(NAME);
        if (registered != null) {
            if (current == null || registered != current.shell) {
                Diagnostics.warnOnce("the JVM-wide provider " + NAME + " is already installed by another JRuby runtime "
                        + "in this JVM (" + registered.getClass().getClassLoader() + "); it stays that runtime's until "
                        + "it is torn down or uninstalls it, and this runtime's install_jca_provider does nothing");
            }
            return false;
        }
        Installed made = make(owner);
        if (Security.insertProviderAt(made.shell, 1) == -1) return false; // another one came first
        MADE.add(made);
        current = made;
        return true;
    }

    /** Takes this class loader's provider out of the JVM's list, the others keeping their order; false when it was not in it. */
    public static synchronized boolean uninstall() {
        if (!installed()) return false;
        Security.removeProvider(NAME);
        current = null;
        return true;
    }

    /** Whether this class loader's provider is in the JVM's list (not another runtime's). */
    public static synchronized boolean installed() {
        return current != null && Security.getProvider(NAME) == current.shell;
    }

    /**
     * {@code owner} (a runtime) is being torn down: the provider it
     * installed leaves the JVM's list, and every provider it made stops
     * reaching into it (SecureRandoms the JDK kept go over to the JDK's
     * generator; new instances are refused).
     */
    public static synchronized void tearDown(Object owner) {
        if (current != null && current.owner == owner) {
            uninstall();
            current = null; // also when someone else took it out of the list
        }
        for (Iterator<Installed> made = MADE.iterator(); made.hasNext(); ) {
            Installed provider = made.next();
            if (provider.owner != owner) continue;
            provider.instances.set(null);
            provider.randomBytes.set(null);
            made.remove();
        }
    }

    /** A new provider, registered nowhere yet. */
    private static Installed make(Object owner) {
        AtomicReference<BiFunction<String, String, Object>> instances = new AtomicReference<>();
        AtomicReference<Consumer<byte[]>> randomBytes = new AtomicReference<>(new RandomBytes());
        Provider shell = newShell(instances, randomBytes);
        Services services = new Services(shell);
        instances.set(services);
        return new Installed(owner, shell, instances, randomBytes);
    }

    /** Fills arrays from the calling thread's generator (what the shell's SecureRandoms forward to). */
    private static final class RandomBytes implements Consumer<byte[]> {
        @Override
        public void accept(byte[] bytes) {
            Call.RANDOM_BYTES.generator().nextBytes(bytes, 0, bytes.length);
        }
    }

    /**
     * A ProviderShell from a class loader of its own over this jar (parent:
     * the JDK's platform loader); from ours, with a warning, when the jar
     * cannot be read that way.
     */
    private static Provider newShell(AtomicReference<BiFunction<String, String, Object>> instances,
                                     AtomicReference<Consumer<byte[]>> randomBytes) {
        Class<?> shell;
        try {
            shell = detachedShell();
        } catch (Exception | LinkageError e) {
            Diagnostics.warnOnce("the JVM-wide provider's classes could not be loaded apart from this runtime (" + e
                    + "); a SecureRandom of it that the JDK keeps will keep this runtime reachable after its teardown");
            try {
                shell = Class.forName(SHELL, true, JvmProvider.class.getClassLoader());
            } catch (ClassNotFoundException missing) {
                throw new IllegalStateException("fast_random's jar has no " + SHELL, missing);
            }
        }
        try {
            Constructor<?> constructor = shell.getConstructor(String.class, double.class, String.class,
                    AtomicReference.class, AtomicReference.class);
            return (Provider) constructor.newInstance(NAME, 1.0, INFO, instances, randomBytes);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make the JVM-wide provider", e);
        }
    }

    private static Class<?> detachedShell() throws Exception {
        CodeSource source = JvmProvider.class.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        // A file URL made afresh: one from elsewhere (a web app's jar: or vfs: URL) may carry a
        // URLStreamHandler of the application's, which the loader would keep reachable.
        if (location == null || !"file".equals(location.getProtocol())) {
            throw new IllegalStateException("the jar is not a file (" + location + ")");
        }
        URL jar = new java.io.File(location.toURI()).toURI().toURL();
        // Loaded now, all of them, so the loader can close the jar: it needs nothing else later.
        try (URLClassLoader loader = detachedLoader(jar)) {
            Class<?> shell = null;
            for (String name : SHELL_CLASSES) {
                Class<?> loaded = Class.forName(name, true, loader);
                if (shell == null) shell = loaded;
            }
            return shell;
        }
    }

    /**
     * A URLClassLoader over {@code jar} whose parent is the JDK's platform
     * loader, made by JDK code alone. Before Java 24 a URLClassLoader keeps
     * the access-control context of its maker's stack: the protection
     * domains of every class on it, ours and the calling runtime's (so
     * their class loaders). So it is made on a thread of the JDK's common
     * pool (whose context the JDK makes clean), by its constructor through
     * a method handle, with none of our frames on that thread's stack. A
     * pool that runs no threads makes it here, with that context.
     */
    private static URLClassLoader detachedLoader(URL jar) throws Exception {
        URL[] urls = { jar };
        ClassLoader parent = ClassLoader.getSystemClassLoader().getParent();
        if (ForkJoinPool.getCommonPoolParallelism() < 1 || Thread.currentThread() instanceof ForkJoinWorkerThread) {
            return new URLClassLoader(urls, parent); // no pool thread to use (or this is one, and would run it here)
        }
        MethodHandle constructor = MethodHandles.publicLookup().findConstructor(URLClassLoader.class,
                MethodType.methodType(void.class, URL[].class, ClassLoader.class));
        @SuppressWarnings("unchecked")
        Callable<Object> make = MethodHandleProxies.asInterfaceInstance(Callable.class,
                MethodHandles.insertArguments(constructor, 0, urls, parent));
        return (URLClassLoader) ForkJoinPool.commonPool().submit(make).get(30, TimeUnit.SECONDS);
    }

    /** The provider's services, registered in the shell, and the instances they make. */
    private static final class Services implements BiFunction<String, String, Object> {
        private final Provider shell;
        private final Method addService;
        private final Map<String, Supplier<Object>> factories = new ConcurrentHashMap<>();

        Services(Provider shell) {
            this.shell = shell;
            try {
                this.addService = shell.getClass().getMethod("addService", String.class, String.class, String.class, List.class, Map.class);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("fast_random's provider shell has no addService", e);
            }
            BiFunction<String, String, Provider> next = (type, algorithm) -> NextProvider.after(shell, type, algorithm);

            // First: the SecureRandom new SecureRandom() picks is the first one its provider registered.
            // The shell makes its instances itself (ForwardingSecureRandomSpi, over RandomBytes).
            register("SecureRandom", SECURE_RANDOM, SHELL_CLASSES[2], Collections.emptyList(), attributes("ThreadSafe", "true"));

            rsaSignature("SHA1withRSA", LibCrypto.Hash.SHA1, next, "1.2.840.113549.1.1.5", "1.3.14.3.2.29");
            rsaSignature("SHA224withRSA", LibCrypto.Hash.SHA224, next, "1.2.840.113549.1.1.14");
            rsaSignature("SHA256withRSA", LibCrypto.Hash.SHA256, next, "1.2.840.113549.1.1.11");
            rsaSignature("SHA384withRSA", LibCrypto.Hash.SHA384, next, "1.2.840.113549.1.1.12");
            rsaSignature("SHA512withRSA", LibCrypto.Hash.SHA512, next, "1.2.840.113549.1.1.13");
            service("Signature", "RSASSA-PSS", attributes("SupportedKeyClasses", RSA_KEYS),
                    () -> new JvmRsaPssSignature(next), withOid("1.2.840.113549.1.1.10", "PSS"));
            service("Cipher", "RSA", attributes("SupportedKeyClasses", RSA_KEYS, "SupportedModes", "ECB|NONE",
                            "SupportedPaddings", "NOPADDING|PKCS1PADDING|OAEPPADDING|OAEPWITHSHA1ANDMGF1PADDING|OAEPWITHSHA-1ANDMGF1PADDING"),
                    () -> EngineRsaCipher.jvmWide(() -> NextProvider.after(shell, "Cipher", "RSA")),
                    Collections.emptyList());

            ecdsa("SHA1withECDSA", LibCrypto.Hash.SHA1, "1.2.840.10045.4.1");
            ecdsa("SHA224withECDSA", LibCrypto.Hash.SHA224, "1.2.840.10045.4.3.1");
            ecdsa("SHA256withECDSA", LibCrypto.Hash.SHA256, "1.2.840.10045.4.3.2");
            ecdsa("SHA384withECDSA", LibCrypto.Hash.SHA384, "1.2.840.10045.4.3.3");
            ecdsa("SHA512withECDSA", LibCrypto.Hash.SHA512, "1.2.840.10045.4.3.4");
            ecdsa("NONEwithECDSA", null);
            service("KeyAgreement", "ECDH", attributes("SupportedKeyClasses", EC_KEYS),
                    () -> EcServices.jvmKeyAgreement(() -> NextProvider.after(shell, "KeyAgreement", "ECDH")),
                    Collections.emptyList());
            service("KeyPairGenerator", "EC", Collections.emptyMap(), () -> EcServices.jvmKeyPairGenerator(next),
                    withOid("1.2.840.10045.2.1", "EllipticCurve"));
            if (Security.getProviders("KeyFactory.XDH") != null) { // the JDK's XDH keys: Java 11 and later
                xdh("XDH");
                xdh("X25519", "1.3.101.110");
                xdh("X448", "1.3.101.111");
            }
        }

        /** X25519/X448 key generation and agreement (the JDK's XDH key classes: Java 11 and later). */
        private void xdh(String name, String... oids) {
            BiFunction<String, String, Provider> next = (type, algorithm) -> NextProvider.after(shell, type, algorithm);
            service("KeyPairGenerator", name, Collections.emptyMap(), () -> EcServices.jvmXdhKeyPairGenerator(name, next), withOid(oids));
            service("KeyAgreement", name, attributes("SupportedKeyClasses", XDH_KEYS),
                    () -> EcServices.jvmXdh(name, () -> NextProvider.after(shell, "KeyAgreement", name)), withOid(oids));
        }

        @Override
        public Object apply(String type, String algorithm) {
            Supplier<Object> factory = factories.get(type + "." + algorithm);
            if (factory == null) throw new IllegalStateException("no " + type + "." + algorithm + " in " + NAME);
            return factory.get();
        }

        private void rsaSignature(String name, LibCrypto.Hash hash, BiFunction<String, String, Provider> next, String... oids) {
            service("Signature", name, attributes("SupportedKeyClasses", RSA_KEYS),
                    () -> EngineRsaSignature.jvmWide(name, hash, () -> NextProvider.after(shell, "Signature", name),
                            () -> NextProvider.after(shell, "Cipher", "RSA")),
                    withOid(oids));
        }

        private void ecdsa(String name, LibCrypto.Hash hash, String... oids) {
            service("Signature", name, attributes("SupportedKeyClasses", EC_KEYS),
                    () -> EcServices.jvmSignature(name, hash, () -> NextProvider.after(shell, "Signature", name)), withOid(oids));
        }

        private void service(String type, String algorithm, Map<String, String> attributes, Supplier<Object> instances,
                             List<String> aliases) {
            factories.put(type + "." + algorithm, instances);
            register(type, algorithm, instances.get().getClass().getName(), aliases, attributes);
        }

        private void register(String type, String algorithm, String className, List<String> aliases, Map<String, String> attributes) {
            try {
                addService.invoke(shell, type, algorithm, className, aliases, attributes);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot register " + type + "." + algorithm, e);
            }
        }
    }

    /** Each OID as an alias, plain and as "OID.x" (both forms the JDK looks up), and any other names. */
    private static List<String> withOid(String... names) {
        String[] aliases = new String[names.length * 2];
        int count = 0;
        for (String name : names) {
            aliases[count++] = name;
            if (Character.isDigit(name.charAt(0))) aliases[count++] = "OID." + name;
        }
        return Arrays.asList(Arrays.copyOf(aliases, count));
    }

    private static Map<String, String> attributes(String... keysAndValues) {
        Map<String, String> attributes = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) attributes.put(keysAndValues[i], keysAndValues[i + 1]);
        return attributes;
    }
}
