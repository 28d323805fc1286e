package fastrandom.rsa.jca;

import java.lang.reflect.Constructor;
import java.security.Provider;
import java.util.function.Supplier;

import javax.crypto.BadPaddingException;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.ShortBufferException;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.crypto.AsymmetricBlockCipher;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.encodings.PKCS1Encoding;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.CipherSpi;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.DigestSignatureSpi;

/**
 * BouncyCastle's RSA signature and cipher SPIs over {@link RsaBlockEngine}:
 * what jruby-openssl's provider hands an operation to when the one-call
 * paths do not take it, so that the {@code :gmp} and {@code :java} engines
 * (and BouncyCastle's own checks and exceptions) do it as on stock. It is
 * the counterpart of the next provider the JVM-wide services fall back on
 * ({@link EngineRsaSignature}, {@link EngineRsaCipher}). Not registered
 * with the JVM; {@link RsaServices} adds the services, under its own names
 * (signatures) or the transformations jruby-openssl asks for (ciphers).
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

    /**
     * BouncyCastle's RSA cipher SPI around {@code cipher} (a padding over
     * our block engine, or the engine itself), as BC builds its own. One
     * difference: input too long for the key, which BC reports with
     * unchecked exceptions ({@code DataLengthException},
     * {@code ArrayIndexOutOfBoundsException}) that jruby-openssl lets
     * through to Ruby as Java exceptions, is an
     * {@link IllegalBlockSizeException} with BC's message, which
     * jruby-openssl raises as {@code OpenSSL::PKey::RSAError}, the class MRI
     * raises.
     */
    static final class RsaCipher extends CipherSpi {
        RsaCipher(AsymmetricBlockCipher cipher) {
            super(cipher);
        }

        @Override
        protected byte[] engineDoFinal(byte[] input, int inputOffset, int inputLength)
                throws IllegalBlockSizeException, BadPaddingException {
            try {
                return super.engineDoFinal(input, inputOffset, inputLength);
            } catch (DataLengthException | ArrayIndexOutOfBoundsException e) {
                throw tooLong(e);
            }
        }

        @Override
        protected int engineDoFinal(byte[] input, int inputOffset, int inputLength, byte[] output, int outputOffset)
                throws IllegalBlockSizeException, BadPaddingException, ShortBufferException {
            try {
                return super.engineDoFinal(input, inputOffset, inputLength, output, outputOffset);
            } catch (DataLengthException | ArrayIndexOutOfBoundsException e) {
                throw tooLong(e);
            }
        }

        private static IllegalBlockSizeException tooLong(RuntimeException e) {
            IllegalBlockSizeException error = new IllegalBlockSizeException(e.getMessage());
            error.initCause(e);
            return error;
        }
    }

    private static final String CUSTOM_PKCS1 = "org.bouncycastle.jcajce.provider.asymmetric.rsa.CustomPKCS1Encoding";
    private static volatile Constructor<?> customPkcs1;

    /**
     * {@code engine} in BC's CustomPKCS1Encoding, as BC's own
     * PKCS1v1_5Padding cipher wraps its engine (the class is package-private
     * in BC): its decryption's behaviour on bad padding, which must not
     * become an oracle, is BC's, unchanged.
     */
    static AsymmetricBlockCipher customPkcs1(AsymmetricBlockCipher engine) {
        try {
            Constructor<?> constructor = customPkcs1;
            if (constructor == null) {
                constructor = Class.forName(CUSTOM_PKCS1, true, CipherSpi.class.getClassLoader())
                        .getDeclaredConstructor(AsymmetricBlockCipher.class);
                constructor.setAccessible(true);
                customPkcs1 = constructor;
            }
            return (AsymmetricBlockCipher) constructor.newInstance(engine);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this BouncyCastle has no usable " + CUSTOM_PKCS1, e);
        }
    }
}
