package fastrandom.ec.jca;

import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import fastrandom.ec.EcCurve;
import fastrandom.jni.LibCrypto;

/**
 * The EC services fast_random's provider ({@code fastrandom.jca.JRubyOpenSslProvider})
 * answers with: ECDSA signatures with SHA-1 or SHA-2, or on a given digest
 * (NONEwithECDSA), ECDH key agreement and EC key generation, on the
 * {@code :openssl} EC engine ({@link EngineEcdsaSignature}, {@link EngineEcdh},
 * {@link EngineEcKeyPairGenerator}). Names are resolved by
 * BouncyCastle itself (so every alias it knows works) and recognized by the
 * class BouncyCastle answers with; what our services do not take (curves,
 * keys, parameters) they hand to BouncyCastle's own.
 */
public final class EcServices {
    private static final String BC_EC = "org.bouncycastle.jcajce.provider.asymmetric.ec.";
    private static final String NONE = "none";
    /** BC's ECDSA signature class (suffix) -> the digest libcrypto computes for it. */
    private static final Map<String, Object> SIGNATURES = new HashMap<>();

    static {
        SIGNATURES.put("SignatureSpi$ecDSA", LibCrypto.Hash.SHA1);
        SIGNATURES.put("SignatureSpi$ecDSA224", LibCrypto.Hash.SHA224);
        SIGNATURES.put("SignatureSpi$ecDSA256", LibCrypto.Hash.SHA256);
        SIGNATURES.put("SignatureSpi$ecDSA384", LibCrypto.Hash.SHA384);
        SIGNATURES.put("SignatureSpi$ecDSA512", LibCrypto.Hash.SHA512);
        SIGNATURES.put("SignatureSpi$ecDSAnone", NONE);
    }

    private EcServices() {}

    /**
     * Our service for the one BouncyCastle ({@code bouncyCastle}) implements
     * with {@code bcClassName} under {@code algorithm}, or null when it is
     * none we take.
     */
    public static Supplier<Object> service(String type, String bcClassName, Provider bouncyCastle, String algorithm) {
        if (!bcClassName.startsWith(BC_EC)) return null;
        String suffix = bcClassName.substring(BC_EC.length());
        if ("Signature".equals(type)) {
            Object hash = SIGNATURES.get(suffix);
            if (hash == null) return null;
            LibCrypto.Hash digest = hash == NONE ? null : (LibCrypto.Hash) hash;
            return () -> new EngineEcdsaSignature(() -> bouncyCastle, EcCurve::beatsBouncyCastle, algorithm, digest, false);
        }
        if ("KeyAgreement".equals(type) && "KeyAgreementSpi$DH".equals(suffix)) {
            return () -> new EngineEcdh(() -> bouncyCastle, EcCurve::beatsBouncyCastle, algorithm, false);
        }
        return null;
    }

    /**
     * jruby-openssl's EC key pair generator: OpenSSL's where the engine
     * takes the curve, else {@code bouncyCastle}'s (made when first needed),
     * drawing from {@code random} whatever random source the caller gives.
     */
    public static Supplier<Object> keyPairGenerator(Supplier<KeyPairGenerator> bouncyCastle, Provider provider, SecureRandom random) {
        return () -> new EngineEcKeyPairGenerator(bouncyCastle, random, BouncyCastleEcKeys::resolve, given -> true, false, () -> provider);
    }

    /** The JVM-wide provider's EC key pair generator: OpenSSL's for P-256 and P-521, else the next provider's. */
    public static Object jvmKeyPairGenerator(BiFunction<String, String, Provider> next) {
        Supplier<Provider> nextGenerator = () -> next.apply("KeyPairGenerator", "EC");
        return new EngineEcKeyPairGenerator(() -> {
            try {
                return KeyPairGenerator.getInstance("EC", nextGenerator.get());
            } catch (java.security.NoSuchAlgorithmException | RuntimeException e) {
                throw new java.security.ProviderException("no other provider has EC key pairs", e);
            }
        }, null, params -> JdkEcKeys.resolve(params, next), EcServices::defaultRandom, true, nextGenerator);
    }

    /**
     * Whether a caller's random source leaves the key to OpenSSL's
     * generator: none, or one of the JDK's that no seed makes repeat (the
     * JCA passes its own default when the caller gives none, made before
     * or after the provider went in). SHA1PRNG, which a seed given before
     * its first use makes repeat, and a SecureRandom subclass of the
     * caller's are the caller's to draw from.
     */
    private static boolean defaultRandom(SecureRandom random) {
        return random == null || random.getClass() == SecureRandom.class && !"SHA1PRNG".equalsIgnoreCase(random.getAlgorithm());
    }

    /** The JVM-wide provider's ECDSA signature with {@code hash} (null: NONEwithECDSA), falling back on {@code next}. */
    public static Object jvmSignature(String algorithm, LibCrypto.Hash hash, Supplier<Provider> next) {
        return new EngineEcdsaSignature(next, curve -> true, algorithm, hash, true);
    }

    /** The JVM-wide provider's X25519/X448 key pair generator ({@code algorithm}: XDH, X25519 or X448), falling back on {@code next}. */
    public static Object jvmXdhKeyPairGenerator(String algorithm, BiFunction<String, String, Provider> next) {
        return new EngineXdhKeyPairGenerator(algorithm, next);
    }

    /** The JVM-wide provider's X25519/X448 key agreement ({@code algorithm}: XDH, X25519 or X448), falling back on {@code next}. */
    public static Object jvmXdh(String algorithm, Supplier<Provider> next) {
        return new EngineXdh(algorithm, next);
    }

    /** The JVM-wide provider's ECDH, falling back on {@code next}. */
    public static Object jvmKeyAgreement(Supplier<Provider> next) {
        return new EngineEcdh(next, curve -> true, "ECDH", true);
    }
}
