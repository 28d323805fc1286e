package fastrandom.jca;

import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import fastrandom.ec.jca.EcServices;
import fastrandom.jni.LibCrypto;
import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.jca.JvmRsaCipher;
import fastrandom.rsa.jca.JvmRsaPssSignature;
import fastrandom.rsa.jca.JvmRsaSignature;

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
 */
public final class JvmProvider extends Provider {
    private static final long serialVersionUID = 1L;

    /** The provider's name in the JVM's list. */
    public static final String NAME = "FastRandom";
    /** Its SecureRandom algorithm: fast_random's per-thread NIST CTR_DRBG generators. */
    public static final String SECURE_RANDOM = "FastRandom";

    private static final String RSA_KEYS = "java.security.interfaces.RSAPublicKey|java.security.interfaces.RSAPrivateKey";
    private static final String EC_KEYS = "java.security.interfaces.ECPublicKey|java.security.interfaces.ECPrivateKey";

    private static final JvmProvider INSTANCE = new JvmProvider();

    private JvmProvider() {
        super(NAME, 1.0, "fast_random: SecureRandom on per-thread CTR_DRBG generators; RSA and EC on OpenSSL's libcrypto");
        BiFunction<String, String, Provider> next = (type, algorithm) -> NextProvider.after(this, type, algorithm);

        // First: the SecureRandom new SecureRandom() picks is the first one its provider registered.
        service("SecureRandom", SECURE_RANDOM, attributes("ThreadSafe", "true"), GeneratorSecureRandom.Spi::new);

        rsaSignature("SHA1withRSA", LibCrypto.Hash.SHA1, next, "1.2.840.113549.1.1.5", "1.3.14.3.2.29");
        rsaSignature("SHA224withRSA", LibCrypto.Hash.SHA224, next, "1.2.840.113549.1.1.14");
        rsaSignature("SHA256withRSA", LibCrypto.Hash.SHA256, next, "1.2.840.113549.1.1.11");
        rsaSignature("SHA384withRSA", LibCrypto.Hash.SHA384, next, "1.2.840.113549.1.1.12");
        rsaSignature("SHA512withRSA", LibCrypto.Hash.SHA512, next, "1.2.840.113549.1.1.13");
        service("Signature", "RSASSA-PSS", attributes("SupportedKeyClasses", RSA_KEYS),
                () -> new JvmRsaPssSignature(next), withOid("1.2.840.113549.1.1.10", "PSS"));
        service("Cipher", "RSA", attributes("SupportedKeyClasses", RSA_KEYS, "SupportedModes", "ECB|NONE",
                        "SupportedPaddings", "NOPADDING|PKCS1PADDING|OAEPPADDING|OAEPWITHSHA1ANDMGF1PADDING|OAEPWITHSHA-1ANDMGF1PADDING"),
                () -> new JvmRsaCipher(next));

        ecdsa("SHA1withECDSA", LibCrypto.Hash.SHA1, "1.2.840.10045.4.1");
        ecdsa("SHA224withECDSA", LibCrypto.Hash.SHA224, "1.2.840.10045.4.3.1");
        ecdsa("SHA256withECDSA", LibCrypto.Hash.SHA256, "1.2.840.10045.4.3.2");
        ecdsa("SHA384withECDSA", LibCrypto.Hash.SHA384, "1.2.840.10045.4.3.3");
        ecdsa("SHA512withECDSA", LibCrypto.Hash.SHA512, "1.2.840.10045.4.3.4");
        ecdsa("NONEwithECDSA", null);
        service("KeyAgreement", "ECDH", attributes("SupportedKeyClasses", EC_KEYS),
                () -> EcServices.jvmKeyAgreement(() -> NextProvider.after(this, "KeyAgreement", "ECDH")));
    }

    /**
     * Puts the provider first in the JVM's list; false when it already is
     * in the list (where it stays).
     */
    public static synchronized boolean install() {
        if (installed()) return false;
        Security.insertProviderAt(INSTANCE, 1);
        return true;
    }

    /** Takes the provider out of the JVM's list, the others keeping their order; false when it was not in it. */
    public static synchronized boolean uninstall() {
        if (!installed()) return false;
        Security.removeProvider(NAME);
        return true;
    }

    /** Whether the provider is in the JVM's list. */
    public static boolean installed() {
        return Security.getProvider(NAME) == INSTANCE;
    }

    /** The provider itself (registered or not). */
    public static Provider instance() {
        return INSTANCE;
    }

    private void rsaSignature(String name, LibCrypto.Hash hash, BiFunction<String, String, Provider> next, String... oids) {
        service("Signature", name, attributes("SupportedKeyClasses", RSA_KEYS), () -> new JvmRsaSignature(name, hash, next),
                withOid(oids));
    }

    private void ecdsa(String name, LibCrypto.Hash hash, String... oids) {
        service("Signature", name, attributes("SupportedKeyClasses", EC_KEYS),
                () -> EcServices.jvmSignature(name, hash, () -> NextProvider.after(this, "Signature", name)), withOid(oids));
    }

    private void service(String type, String algorithm, Map<String, String> attributes, Supplier<Object> instances,
                         List<String> aliases) {
        putService(new Instances(this, type, algorithm, aliases, attributes, instances));
    }

    private void service(String type, String algorithm, Map<String, String> attributes, Supplier<Object> instances) {
        service(type, algorithm, attributes, instances, Collections.emptyList());
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

    /** A service whose instances we construct ourselves (no reflection; the class name says where they come from). */
    private static final class Instances extends Service {
        private final transient Supplier<Object> instances;

        Instances(Provider provider, String type, String algorithm, List<String> aliases, Map<String, String> attributes,
                  Supplier<Object> instances) {
            super(provider, type, algorithm, instances.get().getClass().getName(), aliases, attributes);
            this.instances = instances;
        }

        @Override
        public Object newInstance(Object constructorParameter) throws NoSuchAlgorithmException {
            if (constructorParameter != null) {
                throw new NoSuchAlgorithmException(getType() + "." + getAlgorithm() + " from " + NAME + " takes no parameters");
            }
            return instances.get();
        }
    }
}
