package fastrandom.ec.jca;

import java.security.InvalidAlgorithmParameterException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyPairGeneratorSpi;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.function.BiFunction;

import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jni.XdhKey;

/**
 * The JVM-wide provider's X25519 and X448 key pair generator (as JSSE asks
 * for a TLS 1.3 key share): the private scalar drawn from the caller's
 * random source, as the JDK's generator draws it, the public u-coordinate
 * computed by OpenSSL (the costly part), the keys built by the next
 * provider's {@code KeyFactory} (the JDK's own key classes, which JSSE
 * casts to), and the native key kept for the agreement the key is made
 * for. Parameters it does not take (and an engine failure, with one
 * warning) go to the next provider's generator, whose checks and errors
 * hold.
 */
final class EngineXdhKeyPairGenerator extends KeyPairGeneratorSpi {
    private final String algorithm; // "XDH", "X25519" or "X448", as asked for
    private final BiFunction<String, String, Provider> next;
    private XdhKey.Type type;
    private SecureRandom random;
    private KeyPairGenerator handedOver; // the next provider's, for what this one does not take

    EngineXdhKeyPairGenerator(String algorithm, BiFunction<String, String, Provider> next) {
        this.algorithm = algorithm;
        this.next = next;
        this.type = "X448".equals(algorithm) ? XdhKey.Type.X448 : XdhKey.Type.X25519; // the JDK's defaults
    }

    @Override
    public void initialize(int keySize, SecureRandom random) {
        XdhKey.Type sized = keySize == 255 ? XdhKey.Type.X25519 : keySize == 448 ? XdhKey.Type.X448 : null;
        if (sized == null || !allows(sized)) {
            KeyPairGenerator plain = nextGenerator();
            plain.initialize(keySize, random); // its error leaves this generator as it was, as the JDK's does
            handedOver = plain;
            return;
        }
        handedOver = null;
        type = sized;
        this.random = random;
    }

    @Override
    public void initialize(AlgorithmParameterSpec params, SecureRandom random) throws InvalidAlgorithmParameterException {
        XdhKey.Type named = named(params);
        if (named == null || !allows(named)) {
            KeyPairGenerator plain = nextGenerator();
            plain.initialize(params, random); // its error leaves this generator as it was, as the JDK's does
            handedOver = plain;
            return;
        }
        handedOver = null;
        type = named;
        this.random = random;
    }

    private boolean allows(XdhKey.Type candidate) {
        return "XDH".equals(algorithm) || candidate.name().equals(algorithm);
    }

    /** The curve a NamedParameterSpec (Java 11) names, or null. */
    static XdhKey.Type named(AlgorithmParameterSpec params) {
        if (params == null || !"java.security.spec.NamedParameterSpec".equals(params.getClass().getName())) return null;
        try {
            Object name = params.getClass().getMethod("getName").invoke(params);
            return "X25519".equalsIgnoreCase(String.valueOf(name)) ? XdhKey.Type.X25519
                    : "X448".equalsIgnoreCase(String.valueOf(name)) ? XdhKey.Type.X448 : null;
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    @Override
    public KeyPair generateKeyPair() {
        if (handedOver != null) return handedOver.generateKeyPair();
        OpenSslEcEngine engine = EcEngines.current();
        if (engine != null && engine.serves(type)) {
            byte[] scalar = new byte[type.keyBytes()];
            (random != null ? random : new SecureRandom()).nextBytes(scalar);
            try {
                KeyPair pair = engine.generateXdh(type, scalar, this::keys);
                EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.GENERATE);
                return pair;
            } catch (EcEngineException e) {
                EngineEcdsaSignature.warnFallback(e, next.apply("KeyPairGenerator", algorithm), true);
            } finally {
                Arrays.fill(scalar, (byte) 0);
            }
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.GENERATE);
        KeyPairGenerator plain = nextGenerator();
        try {
            plain.initialize(type.keyBytes() == 32 ? 255 : 448, random != null ? random : new SecureRandom());
        } catch (RuntimeException e) {
            throw new ProviderException("the next provider's " + algorithm + " generator: " + e, e);
        }
        return plain.generateKeyPair();
    }

    /** The next provider's keys for a scalar and its u-coordinate. */
    private KeyPair keys(byte[] scalar, byte[] point) {
        try {
            KeyFactory factory = KeyFactory.getInstance("XDH", next.apply("KeyFactory", "XDH"));
            byte[] encoded = XdhEncoding.privateKey(type, scalar);
            try {
                return new KeyPair(factory.generatePublic(new X509EncodedKeySpec(XdhEncoding.publicKey(type, point))),
                        factory.generatePrivate(new PKCS8EncodedKeySpec(encoded)));
            } finally {
                Arrays.fill(encoded, (byte) 0);
            }
        } catch (NoSuchAlgorithmException | InvalidKeySpecException | RuntimeException e) {
            throw new EcEngineException("the next provider's XDH KeyFactory: " + e, e);
        }
    }

    private KeyPairGenerator nextGenerator() {
        try {
            return KeyPairGenerator.getInstance(algorithm, next.apply("KeyPairGenerator", algorithm));
        } catch (NoSuchAlgorithmException | RuntimeException e) {
            throw new ProviderException("no other provider has " + algorithm + " key pairs", e);
        }
    }
}
