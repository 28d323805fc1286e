package fastrandom.rsa.jca;

import java.lang.reflect.Constructor;
import java.math.BigInteger;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;

import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.ShortBufferException;

import org.bouncycastle.crypto.AsymmetricBlockCipher;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.encodings.ISO9796d1Encoding;
import org.bouncycastle.crypto.encodings.OAEPEncoding;
import org.bouncycastle.jcajce.provider.asymmetric.rsa.CipherSpi;

import fastrandom.jni.LibCrypto;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngine;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaStats;
import fastrandom.support.EngineRegistry;

/**
 * An RSA cipher (BC's own SPI and paddings) over {@link RsaBlockEngine}: the
 * four transformations jruby-openssl asks for, built as BC builds them.
 *
 * <p>On the {@code :openssl} engine, encryption with a public key and
 * PKCS#1 v1.5 or OAEP (SHA-1) padding is one native call
 * ({@link OpenSslRsaEngine#publicEncrypt}): OpenSSL pads, with random bytes
 * from its own DRBG as in MRI, and encrypts. (The SecureRandom the JCA
 * hands {@code init}, the JDK's default when jruby-openssl gives none, is
 * not used then.) BouncyCastle still takes the key at {@code init} (and
 * rejects what stock rejects), and a message too long for the padding, or
 * an engine failure, goes through BouncyCastle's code, as on stock.
 * Decryption stays BouncyCastle's, so its behaviour on bad padding, which
 * must not become an oracle, is stock's.
 *
 * <p>One difference: input too long for the key, which BC reports with
 * unchecked exceptions ({@code DataLengthException},
 * {@code ArrayIndexOutOfBoundsException}) that jruby-openssl lets through to
 * Ruby as Java exceptions, is reported as an {@link IllegalBlockSizeException}
 * with BC's message, which jruby-openssl raises as
 * {@code OpenSSL::PKey::RSAError}, the class MRI raises.
 */
final class EngineCipher extends CipherSpi {
    private static final byte[] NOTHING = new byte[0];

    private final LibCrypto.Padding padding; // null: never the one-call path

    // The one-call path, set by init when it takes the key; null: BouncyCastle's SPI (super).
    private OpenSslRsaEngine engine;
    private RSAPublicKey encryptingKey;
    private byte[] message = new byte[0];
    private int length;

    private EngineCipher(AsymmetricBlockCipher cipher, LibCrypto.Padding padding) {
        super(cipher);
        this.padding = padding;
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        engine = null;
        encryptingKey = null;
        reset();
        super.engineInit(opmode, key, params, random);
        if (padding == null || params != null || opmode != Cipher.ENCRYPT_MODE || !(key instanceof RSAPublicKey)) return;
        RsaEngine current = RsaEngines.current();
        RSAPublicKey rsa = (RSAPublicKey) key;
        if (current instanceof OpenSslRsaEngine && usable(rsa)) {
            engine = (OpenSslRsaEngine) current;
            encryptingKey = rsa;
        }
    }

    @Override
    protected byte[] engineUpdate(byte[] input, int inputOffset, int inputLength) {
        if (engine == null) return super.engineUpdate(input, inputOffset, inputLength);
        append(input, inputOffset, inputLength);
        return new byte[0];
    }

    @Override
    protected int engineUpdate(byte[] input, int inputOffset, int inputLength, byte[] output, int outputOffset) {
        if (engine == null) return super.engineUpdate(input, inputOffset, inputLength, output, outputOffset);
        append(input, inputOffset, inputLength);
        return 0;
    }

    @Override
    protected byte[] engineDoFinal(byte[] input, int inputOffset, int inputLength)
            throws IllegalBlockSizeException, BadPaddingException {
        try {
            if (engine != null) {
                byte[] encrypted = encryptInOneCall(input, inputOffset, inputLength);
                if (encrypted != null) return encrypted;
                return super.engineDoFinal(NOTHING, 0, 0); // the message is in BouncyCastle's buffer now
            }
            return super.engineDoFinal(input, inputOffset, inputLength);
        } catch (DataLengthException | ArrayIndexOutOfBoundsException e) {
            throw tooLong(e);
        }
    }

    @Override
    protected int engineDoFinal(byte[] input, int inputOffset, int inputLength, byte[] output, int outputOffset)
            throws IllegalBlockSizeException, BadPaddingException, ShortBufferException {
        try {
            if (engine != null) {
                byte[] encrypted = encryptInOneCall(input, inputOffset, inputLength);
                if (encrypted == null) return super.engineDoFinal(NOTHING, 0, 0, output, outputOffset);
                if (output.length - outputOffset < encrypted.length) throw new ShortBufferException("output buffer too short for input.");
                System.arraycopy(encrypted, 0, output, outputOffset, encrypted.length);
                return encrypted.length;
            }
            return super.engineDoFinal(input, inputOffset, inputLength, output, outputOffset);
        } catch (DataLengthException | ArrayIndexOutOfBoundsException e) {
            throw tooLong(e);
        }
    }

    /**
     * The buffered message and {@code input}, encrypted in one native call;
     * null when BouncyCastle must do it (a message too long for the padding,
     * which BC refuses with stock's exception, or an engine failure), with
     * the whole message handed to BouncyCastle's buffer then.
     */
    private byte[] encryptInOneCall(byte[] input, int inputOffset, int inputLength) {
        if (input != null) append(input, inputOffset, inputLength);
        RsaEngine current = engine;
        int modulusBytes = (encryptingKey.getModulus().bitLength() + 7) / 8;
        try {
            if (length <= padding.maxMessageBytes(modulusBytes)) {
                byte[] encrypted = engine.publicEncrypt(encryptingKey.getModulus(), encryptingKey.getPublicExponent(),
                        padding, message, 0, length);
                RsaStats.count(OpenSslRsaEngine.NAME, false);
                return encrypted;
            }
        } catch (RsaEngineException e) {
            RsaStats.fellBack(current.name(), e, EngineRegistry.JRUBY_OPENSSL_CODE);
        } finally {
            engine = null; // what follows, if anything, is BouncyCastle's
        }
        super.engineUpdate(message, 0, length);
        reset();
        return null;
    }

    private boolean usable(RSAPublicKey key) {
        BigInteger n = key.getModulus();
        BigInteger e = key.getPublicExponent();
        return n != null && e != null && n.signum() > 0 && n.testBit(0) && e.signum() > 0
                && n.bitLength() <= OpenSslRsaEngine.MAX_MODULUS_BITS
                && padding.maxMessageBytes((n.bitLength() + 7) / 8) >= 0;
    }

    private void append(byte[] input, int offset, int count) {
        if (count <= 0) return;
        if (length + count > message.length) message = Arrays.copyOf(message, Math.max(length + count, 2 * message.length));
        System.arraycopy(input, offset, message, length, count);
        length += count;
    }

    private void reset() {
        Arrays.fill(message, 0, length, (byte) 0);
        length = 0;
    }

    private static IllegalBlockSizeException tooLong(RuntimeException e) {
        IllegalBlockSizeException error = new IllegalBlockSizeException(e.getMessage());
        error.initCause(e);
        return error;
    }

    /** RSA/ECB/NoPadding. */
    static EngineCipher noPadding() {
        return new EngineCipher(new RsaBlockEngine(), null);
    }

    /**
     * RSA/ECB/PKCS1Padding, with BC's CustomPKCS1Encoding as BC's own
     * PKCS1v1_5Padding cipher uses (its decryption's behaviour on bad padding,
     * which must not become an oracle, is BC's, unchanged).
     */
    static EngineCipher pkcs1() {
        return new EngineCipher(customPkcs1(new RsaBlockEngine()), LibCrypto.Padding.PKCS1);
    }

    /** RSA/ECB/OAEPWithSHA1AndMGF1Padding (SHA-1 and MGF1-SHA-1, as BC's default spec). */
    static EngineCipher oaep() {
        return new EngineCipher(new OAEPEncoding(new RsaBlockEngine()), LibCrypto.Padding.OAEP_SHA1);
    }

    /** RSA/ECB/ISO9796-1Padding. */
    static EngineCipher iso9796d1() {
        return new EngineCipher(new ISO9796d1Encoding(new RsaBlockEngine()), null);
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
