package fastrandom.rsa.jca;

import java.security.Provider;
import java.util.function.Supplier;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.encodings.PKCS1Encoding;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi;

/**
 * BouncyCastle's RSA signature and cipher SPIs over {@link RsaBlockEngine}:
 * what jruby-openssl's provider hands an operation to when the one-call
 * paths do not take it, so that the {@code :gmp} and {@code :java} engines
 * (and BouncyCastle's own checks and exceptions) do it as on stock. It is
 * the counterpart of the next provider the JVM-wide services fall back on.
 * Not registered with the JVM; {@link RsaServices} adds the services, under
 * its own names.
 */
final class RsaBlockProvider extends Provider {
    private static final long serialVersionUID = 1L;

    /** The one instance: its services are stateless factories. */
    static final RsaBlockProvider INSTANCE = new RsaBlockProvider();

    @SuppressWarnings("deprecation") // Provider(String, String, String) is Java 9's
    private RsaBlockProvider() {
        super("FastRandom-RsaBlockEngine", 1.0, "BouncyCastle's RSA over fast_random's engines (internal)");
    }

    /** Adds {@code type}.{@code algorithm}, whose instances {@code instances} makes. */
    void add(String type, String algorithm, Supplier<Object> instances) {
        putService(new Service(this, type, algorithm, RsaBlockEngine.class.getName(), null, null) {
            @Override
            public Object newInstance(Object constructorParameter) {
                return instances.get();
            }
        });
    }

    /** BouncyCastle's PKCS#1 v1.5 signature over our block engine (its constructors are protected). */
    static final class Pkcs1Signature extends DigestSignatureSpi {
        /** With a DigestInfo for {@code digestOid} (SHA256withRSA and the like). */
        Pkcs1Signature(ASN1ObjectIdentifier digestOid, Digest digest) {
            super(digestOid, digest, new PKCS1Encoding(new RsaBlockEngine()));
        }

        /** Without DigestInfo (NONEwithRSA: the data is signed as given). */
        Pkcs1Signature(Digest digest) {
            super(digest, new PKCS1Encoding(new RsaBlockEngine()));
        }
    }
}
