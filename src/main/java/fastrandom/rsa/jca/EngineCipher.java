package fastrandom.rsa.jca;

import java.lang.reflect.Constructor;

import javax.crypto.BadPaddingException;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.ShortBufferException;

import org.bouncycastle.crypto.AsymmetricBlockCipher;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.encodings.ISO9796d1Encoding;
import org.bouncycastle.crypto.encodings.OAEPEncoding;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.CipherSpi;

/**
 * An RSA cipher (BC's own SPI and paddings) over {@link RsaBlockEngine}: the
 * four transformations jruby-openssl asks for, built as BC builds them.
 *
 * <p>One difference: input too long for the key, which BC reports with
 * unchecked exceptions ({@code DataLengthException},
 * {@code ArrayIndexOutOfBoundsException}) that jruby-openssl lets through to
 * Ruby as Java exceptions, is reported as an {@link IllegalBlockSizeException}
 * with BC's message, which jruby-openssl raises as
 * {@code OpenSSL::PKey::RSAError}, the class MRI raises.
 */
final class EngineCipher extends CipherSpi {
    private EngineCipher(AsymmetricBlockCipher cipher) {
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

    /** RSA/ECB/NoPadding. */
    static EngineCipher noPadding() {
        return new EngineCipher(new RsaBlockEngine());
    }

    /**
     * RSA/ECB/PKCS1Padding, with BC's CustomPKCS1Encoding as BC's own
     * PKCS1v1_5Padding cipher uses (its decryption's behaviour on bad padding,
     * which must not become an oracle, is BC's, unchanged).
     */
    static EngineCipher pkcs1() {
        return new EngineCipher(customPkcs1(new RsaBlockEngine()));
    }

    /** RSA/ECB/OAEPWithSHA1AndMGF1Padding (SHA-1 and MGF1-SHA-1, as BC's default spec). */
    static EngineCipher oaep() {
        return new EngineCipher(new OAEPEncoding(new RsaBlockEngine()));
    }

    /** RSA/ECB/ISO9796-1Padding. */
    static EngineCipher iso9796d1() {
        return new EngineCipher(new ISO9796d1Encoding(new RsaBlockEngine()));
    }

    private static final String CUSTOM_PKCS1 = "org.bouncycastle.jcajce.provider.asymmetric.rsa.CustomPKCS1Encoding";
    private static volatile Constructor<?> customPkcs1;

    // CustomPKCS1Encoding is package-private in BC; it is what BC's
    // PKCS1v1_5Padding cipher wraps its engine in.
    private static AsymmetricBlockCipher customPkcs1(AsymmetricBlockCipher engine) {
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
