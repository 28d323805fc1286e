package fastrandom.rsa.jca;

import java.security.Provider;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.NullDigest;
import org.bouncycastle.crypto.digests.RIPEMD160Digest;
import org.bouncycastle.crypto.util.DigestFactory;

import fastrandom.jni.LibCrypto;

/**
 * The provider jruby-openssl gets its JCA objects from once fast_random is
 * hooked in: BouncyCastle (jruby-openssl's own instance), except for the RSA
 * signatures and ciphers, which are BC's SPIs over {@link RsaBlockEngine}
 * (which runs the selected engine, see {@code fastrandom.rsa.RsaEngines}).
 *
 * <p>Signature names are resolved by BC itself (so every alias BC knows
 * works); when BC answers with one of its RSA PKCS#1 signature classes we
 * answer with the same algorithm over our engine. Ciphers are matched on the
 * exact transformations jruby-openssl asks for, so {@code Cipher} never
 * has to set a padding on a generic RSA cipher (BC would build its own
 * engine then). Everything else is BC's service, untouched.
 */
public final class FastRsaProvider extends Provider {
    private static final long serialVersionUID = 1L;
    private static final String BC_SIGNATURE = "org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi$";

    /** BC's RSA signature class (suffix) -> our signature for that digest. */
    private static final Map<String, Supplier<Object>> SIGNATURES = new HashMap<>();

    static {
        // The DigestInfo OIDs BC's own signatures use (some of BC's OID
        // constant classes moved between versions; the numbers did not).
        // libcrypto's SHA-1 and SHA-2 (named last) make a signature one native call on the :openssl engine.
        digest("MD5", new ASN1ObjectIdentifier("1.2.840.113549.2.5"), DigestFactory::createMD5, null);
        digest("SHA1", new ASN1ObjectIdentifier("1.3.14.3.2.26"), DigestFactory::createSHA1, LibCrypto.Hash.SHA1);
        digest("SHA224", NISTObjectIdentifiers.id_sha224, DigestFactory::createSHA224, LibCrypto.Hash.SHA224);
        digest("SHA256", NISTObjectIdentifiers.id_sha256, DigestFactory::createSHA256, LibCrypto.Hash.SHA256);
        digest("SHA384", NISTObjectIdentifiers.id_sha384, DigestFactory::createSHA384, LibCrypto.Hash.SHA384);
        digest("SHA512", NISTObjectIdentifiers.id_sha512, DigestFactory::createSHA512, LibCrypto.Hash.SHA512);
        digest("SHA512_224", NISTObjectIdentifiers.id_sha512_224, DigestFactory::createSHA512_224, null);
        digest("SHA512_256", NISTObjectIdentifiers.id_sha512_256, DigestFactory::createSHA512_256, null);
        digest("SHA3_224", NISTObjectIdentifiers.id_sha3_224, DigestFactory::createSHA3_224, null);
        digest("SHA3_256", NISTObjectIdentifiers.id_sha3_256, DigestFactory::createSHA3_256, null);
        digest("SHA3_384", NISTObjectIdentifiers.id_sha3_384, DigestFactory::createSHA3_384, null);
        digest("SHA3_512", NISTObjectIdentifiers.id_sha3_512, DigestFactory::createSHA3_512, null);
        digest("RIPEMD160", new ASN1ObjectIdentifier("1.3.36.3.2.1"), RIPEMD160Digest::new, null);
        SIGNATURES.put("noneRSA", () -> new EngineSignature(new NullDigest()));
    }

    private static void digest(String bcSuffix, ASN1ObjectIdentifier oid, Supplier<Digest> digest, LibCrypto.Hash hash) {
        SIGNATURES.put(bcSuffix, () -> new EngineSignature(oid, digest.get(), hash));
    }

    /** Upper-cased transformation -> our cipher. */
    private static final Map<String, Supplier<Object>> CIPHERS = new HashMap<>();

    static {
        CIPHERS.put("RSA/ECB/NOPADDING", EngineCipher::noPadding);
        CIPHERS.put("RSA/ECB/PKCS1PADDING", EngineCipher::pkcs1);
        CIPHERS.put("RSA/ECB/OAEPWITHSHA1ANDMGF1PADDING", EngineCipher::oaep);
        CIPHERS.put("RSA/ECB/ISO9796-1PADDING", EngineCipher::iso9796d1);
    }

    private final transient Provider bouncyCastle;
    private final transient Map<String, Service> ours = new ConcurrentHashMap<>();

    public FastRsaProvider(Provider bouncyCastle) {
        super("FastRandomRSA", 1.0, "BouncyCastle (" + bouncyCastle.getInfo() + ") with RSA on fast_random's engines");
        this.bouncyCastle = bouncyCastle;
    }

    /** The BouncyCastle provider this one answers for (to put back on uninstall). */
    public Provider bouncyCastle() {
        return bouncyCastle;
    }

    @Override
    public Service getService(String type, String algorithm) {
        String key = type + "." + algorithm.toUpperCase(Locale.ROOT);
        Service service = ours.get(key);
        if (service != null) return service;
        service = ourService(type, algorithm);
        if (service == null) return bouncyCastle.getService(type, algorithm);
        ours.put(key, service);
        return service;
    }

    private Service ourService(String type, String algorithm) {
        if ("Cipher".equals(type)) {
            Supplier<Object> factory = CIPHERS.get(algorithm.toUpperCase(Locale.ROOT));
            return factory == null ? null : new EngineService("Cipher", algorithm, EngineCipher.class.getName(),
                    factory);
        }
        if ("Signature".equals(type)) {
            Service bc = bouncyCastle.getService(type, algorithm);
            if (bc == null || !bc.getClassName().startsWith(BC_SIGNATURE)) return null;
            Supplier<Object> factory = SIGNATURES.get(bc.getClassName().substring(BC_SIGNATURE.length()));
            return factory == null ? null : new EngineService("Signature", bc.getAlgorithm(), EngineSignature.class.getName(),
                    factory);
        }
        return null;
    }

    @Override
    public Set<Service> getServices() {
        Set<Service> services = new LinkedHashSet<>(bouncyCastle.getServices());
        services.addAll(ours.values());
        return services;
    }

    @Override
    public String getProperty(String key) {
        String value = super.getProperty(key);
        return value != null ? value : bouncyCastle.getProperty(key);
    }

    /** A service whose instances we construct ourselves (no reflection). */
    private final class EngineService extends Service {
        private final Supplier<Object> instances;

        EngineService(String type, String algorithm, String className, Supplier<Object> instances) {
            super(FastRsaProvider.this, type, algorithm, className, null, null);
            this.instances = instances;
        }

        @Override
        public Object newInstance(Object constructorParameter) {
            return instances.get();
        }
    }
}
