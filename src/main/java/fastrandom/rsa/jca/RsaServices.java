package fastrandom.rsa.jca;

import java.security.Provider;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.crypto.AsymmetricBlockCipher;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.NullDigest;
import org.bouncycastle.crypto.digests.RIPEMD160Digest;
import org.bouncycastle.crypto.encodings.ISO9796d1Encoding;
import org.bouncycastle.crypto.encodings.OAEPEncoding;
import org.bouncycastle.crypto.util.DigestFactory;

import fastrandom.jni.LibCrypto;

/**
 * fast_random's RSA services for jruby-openssl's provider
 * ({@code fastrandom.jca.JRubyOpenSslProvider}): {@link EngineRsaSignature}
 * and {@link EngineRsaCipher}, falling back on BouncyCastle's SPIs over
 * fast_random's engines ({@link RsaBlockProvider}, whose services are added
 * here). (The JVM-wide provider makes its own, with no BouncyCastle.)
 * Signature names are resolved by BouncyCastle itself (so every alias it
 * knows works) and recognized by the class BouncyCastle answers with;
 * ciphers are matched on the exact transformations jruby-openssl asks for,
 * so a Cipher never has to set a padding on a generic RSA cipher (BC would
 * build its own engine then).
 */
public final class RsaServices {
    private static final String BC_SIGNATURE = "org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi$";

    private static final Object NONE = "none";

    /**
     * The tables, built on the first RSA lookup (a nested class, so a lookup
     * of anything else, say jruby-openssl's first AES cipher, does not pay
     * for building them on a cold JVM).
     */
    private static final class Tables {
        /** BC's RSA signature class (suffix) -> the digest libcrypto computes for it (NONE: none). */
        static final Map<String, Object> SIGNATURES = new HashMap<>();
        /** Upper-cased transformation -> our cipher. */
        static final Map<String, Supplier<Object>> CIPHERS = new HashMap<>();

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
            SIGNATURES.put("noneRSA", NONE);
            RsaBlockProvider.INSTANCE.add("Signature", "noneRSA", () -> new RsaBlockProvider.Pkcs1Signature(new NullDigest()));

            // The four transformations jruby-openssl asks for, BouncyCastle's ciphers built as BC builds them
            // (PKCS#1 v1.5 in BC's CustomPKCS1Encoding, OAEP with SHA-1, as BC's default spec), over our engine.
            // PKCS#1 v1.5 and OAEP encryption are one native call on the :openssl engine.
            cipher("NoPadding", null, RsaBlockEngine::new);
            cipher("PKCS1Padding", LibCrypto.Padding.PKCS1, () -> RsaBlockProvider.customPkcs1(new RsaBlockEngine()));
            cipher("OAEPWithSHA1AndMGF1Padding", LibCrypto.Padding.OAEP_SHA1, () -> new OAEPEncoding(new RsaBlockEngine()));
            cipher("ISO9796-1Padding", null, () -> new ISO9796d1Encoding(new RsaBlockEngine()));
        }

        private static void digest(String bcSuffix, ASN1ObjectIdentifier oid, Supplier<Digest> digest, LibCrypto.Hash hash) {
            SIGNATURES.put(bcSuffix, hash != null ? hash : NONE);
            RsaBlockProvider.INSTANCE.add("Signature", bcSuffix, () -> new RsaBlockProvider.Pkcs1Signature(oid, digest.get()));
        }

        /**
         * RSA/ECB/{@code paddingName}: BouncyCastle's SPI around {@code block}
         * in {@link RsaBlockProvider}, and ours over it, one native call with
         * {@code padding} (null: never).
         */
        private static void cipher(String paddingName, LibCrypto.Padding padding, Supplier<AsymmetricBlockCipher> block) {
            String transformation = "RSA/ECB/" + paddingName;
            RsaBlockProvider.INSTANCE.add("Cipher", transformation, () -> new RsaBlockProvider.RsaCipher(block.get()));
            CIPHERS.put(transformation.toUpperCase(Locale.ROOT),
                    () -> new EngineRsaCipher(paddingName, padding, () -> RsaBlockProvider.INSTANCE, false));
        }
    }

    private RsaServices() {}

    /**
     * Our signature for the one BouncyCastle ({@code bouncyCastle})
     * implements with {@code bcClassName}, or null when it is not RSA's.
     */
    public static Supplier<Object> signature(String bcClassName, Provider bouncyCastle) {
        if (!bcClassName.startsWith(BC_SIGNATURE)) return null;
        String suffix = bcClassName.substring(BC_SIGNATURE.length());
        Object hash = Tables.SIGNATURES.get(suffix);
        if (hash == null) return null;
        LibCrypto.Hash digest = hash == NONE ? null : (LibCrypto.Hash) hash;
        return () -> new EngineRsaSignature(suffix, digest, () -> RsaBlockProvider.INSTANCE, () -> bouncyCastle, false);
    }

    /** Our cipher for this exact transformation, or null. */
    public static Supplier<Object> cipher(String transformation) {
        if (!transformation.regionMatches(true, 0, "RSA/", 0, 4)) return null;
        return Tables.CIPHERS.get(transformation.toUpperCase(Locale.ROOT));
    }
}
