package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.interfaces.RSAKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.InvalidParameterSpecException;
import java.security.spec.MGF1ParameterSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;

import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

import fastrandom.jni.LibCrypto;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.Operands;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;

/**
 * An RSA cipher on the {@code :openssl} engine, for both providers:
 * encryption with a public key and PKCS#1 v1.5 or OAEP padding (SHA-1,
 * MGF1-SHA-1, no label: BouncyCastle's and the JDK's default) is one native
 * call ({@link OpenSslRsaEngine#publicEncrypt}: OpenSSL pads, with random
 * bytes from its own DRBG as in MRI, and encrypts; the SecureRandom given
 * to init is not used then). For the JVM-wide provider, so are raw RSA
 * (NoPadding) and decryption with a private CRT key (the blinded private
 * operation, then OpenSSL's constant-time unpadding).
 *
 * <p>Everything else goes to the fallback provider's own cipher with the
 * same transformation: for jruby-openssl BouncyCastle's SPI over
 * {@link RsaBlockEngine} ({@link RsaBlockProvider}: stock's results and
 * exceptions, on the {@code :gmp} and {@code :java} engines too), for the
 * JVM-wide provider the next provider in the JVM's list. That is: keys the
 * engine does not take ({@link RsaKeys}), other engines (the one selected
 * at init serves the operation), parameters other than none or OAEP's
 * default (TLS's premaster-secret ones), key wrapping, encryption with a
 * private key, decryption with a public one; and, with one warning, an
 * operation the engine fails, which the fallback's cipher does whole.
 * jruby-openssl's services are its exact transformations (the JCA sets a
 * mode or padding only on the JVM-wide provider's generic "RSA").
 *
 * <p>Where the providers differ ({@code jvmWide}), as their fallbacks do:
 * <ul>
 * <li>jruby-openssl's fallback is initialised at every init, so
 *     BouncyCastle takes the key, or refuses it with stock's exception, and
 *     answers getOutputSize, getBlockSize and getParameters; the next
 *     provider sees a key only when it has the operation.</li>
 * <li>Decryption and raw RSA stay BouncyCastle's for jruby-openssl, so its
 *     behaviour on bad padding, which must not become an oracle, and its
 *     exceptions are stock's (RsaBlockEngine runs them on the engines).</li>
 * <li>A message too long for the padding goes to BouncyCastle, which
 *     refuses it in its own words (an IllegalBlockSizeException, see
 *     {@link RsaBlockProvider.RsaCipher}); the JVM-wide provider refuses it
 *     in the JDK's.</li>
 * <li>After an engine failure BouncyCastle's code runs on
 *     {@link RsaBlockEngine}, which counts what it does and warns as
 *     jruby-openssl's code; the next provider is counted as java here, and
 *     named in the warning.</li>
 * </ul>
 */
public final class EngineRsaCipher extends CipherSpi {
    private static final byte[] NOTHING = new byte[0];

    private final Supplier<Provider> fallback;
    private final boolean jvmWide;

    private String paddingName; // the fallback's transformation is RSA/ECB/paddingName
    private LibCrypto.Padding padding; // null: raw RSA (for jruby-openssl, NoPadding and ISO 9796-1: never ours)

    private int mode;
    private Key jcaKey;
    private AlgorithmParameterSpec params;
    private SecureRandom random;
    private OpenSslRsaEngine engine; // set when the one call has the operation
    private Cipher delegate; // the fallback's, initialised with init's arguments, or null
    private RSAPublicKey publicKey; // encryption, ours
    private RsaPrivateKey privateKey; // decryption, ours
    private int modulusBytes;
    private byte[] buffer = NOTHING;
    private int length;

    /**
     * RSA/ECB/{@code paddingName}, one native call with {@code padding}
     * (null: raw RSA, for the JVM-wide provider only), falling back on
     * {@code fallback}'s cipher of that transformation; {@code jvmWide}: for
     * the JVM-wide provider.
     */
    EngineRsaCipher(String paddingName, LibCrypto.Padding padding, Supplier<Provider> fallback, boolean jvmWide) {
        this.paddingName = paddingName;
        this.padding = padding;
        this.fallback = fallback;
        this.jvmWide = jvmWide;
    }

    /**
     * The JVM-wide provider's RSA cipher (PKCS#1 v1.5 until a padding is
     * set), falling back on {@code next} (the next provider with RSA
     * ciphers). Needs no BouncyCastle.
     */
    public static EngineRsaCipher jvmWide(Supplier<Provider> next) {
        return new EngineRsaCipher("PKCS1Padding", LibCrypto.Padding.PKCS1, next, true);
    }

    @Override
    protected void engineSetMode(String mode) throws NoSuchAlgorithmException {
        if (!"ECB".equalsIgnoreCase(mode) && !"NONE".equalsIgnoreCase(mode)) {
            throw new NoSuchAlgorithmException("Unsupported mode " + mode);
        }
    }

    @Override
    protected void engineSetPadding(String name) throws NoSuchPaddingException {
        switch (name.toUpperCase(Locale.ROOT)) {
            case "NOPADDING": padding = null; break;
            case "PKCS1PADDING": padding = LibCrypto.Padding.PKCS1; break;
            case "OAEPPADDING": case "OAEPWITHSHA1ANDMGF1PADDING": case "OAEPWITHSHA-1ANDMGF1PADDING":
                padding = LibCrypto.Padding.OAEP_SHA1;
                break;
            default: throw new NoSuchPaddingException("Unsupported padding " + name);
        }
        paddingName = name;
    }

    @Override
    protected int engineGetBlockSize() {
        return delegate != null ? delegate.getBlockSize() : 0;
    }

    @Override
    protected int engineGetOutputSize(int inputLen) {
        return delegate != null ? delegate.getOutputSize(inputLen) : modulusBytes;
    }

    @Override
    protected byte[] engineGetIV() {
        return null;
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
        if (delegate != null) return delegate.getParameters();
        if (padding != LibCrypto.Padding.OAEP_SHA1) return null;
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("OAEP");
            parameters.init(OAEPParameterSpec.DEFAULT);
            return parameters;
        } catch (NoSuchAlgorithmException | InvalidParameterSpecException e) {
            throw new ProviderException("could not encode the OAEP parameters", e);
        }
    }

    @Override
    protected int engineGetKeySize(Key key) throws InvalidKeyException {
        if (!(key instanceof RSAKey)) throw new InvalidKeyException("not an RSA key: " + key);
        return ((RSAKey) key).getModulus().bitLength();
    }

    @Override
    protected void engineInit(int opmode, Key key, SecureRandom random) throws InvalidKeyException {
        try {
            init(opmode, key, null, random);
        } catch (InvalidAlgorithmParameterException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        init(opmode, key, params, random);
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameters params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        AlgorithmParameterSpec spec = null;
        if (params != null) {
            try {
                spec = params.getParameterSpec(OAEPParameterSpec.class);
            } catch (InvalidParameterSpecException e) {
                throw new InvalidAlgorithmParameterException("wrong parameters for RSA: " + e.getMessage(), e);
            }
        }
        init(opmode, key, spec, random);
    }

    private void init(int opmode, Key key, AlgorithmParameterSpec spec, SecureRandom secureRandom)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        forget();
        mode = opmode;
        jcaKey = key;
        params = spec;
        random = secureRandom;
        if (!jvmWide) delegate = fallbackCipher(); // BouncyCastle takes the key, or refuses it as stock does
        OpenSslRsaEngine openssl = RsaKeys.openssl();
        if (openssl != null && (spec == null || (padding == LibCrypto.Padding.OAEP_SHA1 && isDefaultOaep(spec)))) {
            if (opmode == Cipher.ENCRYPT_MODE && (padding != null || jvmWide) && RsaKeys.usable(key)) {
                publicKey = (RSAPublicKey) key;
                modulusBytes = Operands.byteLength(publicKey.getModulus());
            } else if (opmode == Cipher.DECRYPT_MODE && jvmWide) {
                privateKey = RsaKeys.crt(key);
                if (privateKey != null) modulusBytes = Operands.byteLength(privateKey.modulus);
            }
            if (publicKey != null || privateKey != null) engine = openssl;
        }
        if (engine == null && delegate == null) delegate = fallbackCipher();
    }

    @Override
    protected byte[] engineUpdate(byte[] input, int offset, int len) {
        if (engine == null) return delegate.update(input, offset, len);
        append(input, offset, len);
        return NOTHING;
    }

    @Override
    protected int engineUpdate(byte[] input, int offset, int len, byte[] output, int outputOffset)
            throws ShortBufferException {
        if (engine == null) return delegate.update(input, offset, len, output, outputOffset);
        append(input, offset, len);
        return 0;
    }

    @Override
    protected byte[] engineDoFinal(byte[] input, int offset, int len)
            throws IllegalBlockSizeException, BadPaddingException {
        if (engine == null) return input == null ? delegate.doFinal() : delegate.doFinal(input, offset, len);
        append(input, offset, len);
        try {
            return finish();
        } finally {
            Arrays.fill(buffer, (byte) 0);
            length = 0;
        }
    }

    @Override
    protected int engineDoFinal(byte[] input, int offset, int len, byte[] output, int outputOffset)
            throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
        if (engine == null) {
            return input == null ? delegate.doFinal(output, outputOffset)
                    : delegate.doFinal(input, offset, len, output, outputOffset);
        }
        if (output.length - outputOffset < modulusBytes) { // checked first, so the call can be made again
            throw new ShortBufferException("Output buffer too small: " + modulusBytes + " bytes needed");
        }
        byte[] result = engineDoFinal(input, offset, len);
        System.arraycopy(result, 0, output, outputOffset, result.length);
        Arrays.fill(result, (byte) 0);
        return result.length;
    }

    // Key wrapping is always the fallback's (init hands WRAP_MODE and UNWRAP_MODE over).
    @Override
    protected byte[] engineWrap(Key key) throws IllegalBlockSizeException, InvalidKeyException {
        if (delegate == null) throw new IllegalStateException("Cipher not initialized for wrapping keys");
        return delegate.wrap(key);
    }

    @Override
    protected Key engineUnwrap(byte[] wrappedKey, String wrappedKeyAlgorithm, int wrappedKeyType)
            throws InvalidKeyException, NoSuchAlgorithmException {
        if (delegate == null) throw new IllegalStateException("Cipher not initialized for unwrapping keys");
        return delegate.unwrap(wrappedKey, wrappedKeyAlgorithm, wrappedKeyType);
    }

    /**
     * The operation on everything buffered: one native call, or the
     * fallback's cipher on the whole message when it is too long for the
     * padding (for jruby-openssl) or the engine fails.
     */
    private byte[] finish() throws IllegalBlockSizeException, BadPaddingException {
        boolean decrypting = privateKey != null;
        int limit = padding == null || decrypting ? modulusBytes : padding.maxMessageBytes(modulusBytes);
        if (length <= limit) {
            try {
                byte[] result = decrypting ? decrypt() : encrypt();
                RsaStats.count(OpenSslRsaEngine.NAME, decrypting);
                return result;
            } catch (InconsistentKeyException e) {
                // Not a key an engine takes: the fallback does it, or says why not.
            } catch (RsaEngineException e) {
                EngineRsaSignature.warnFallback(e, fallback.get(), jvmWide);
            }
            if (jvmWide) RsaStats.count(RsaEngines.JAVA, decrypting); // RsaBlockEngine counts its own
        } else if (jvmWide) {
            throw new IllegalBlockSizeException("Data must not be longer than " + limit + " bytes"); // the JDK's words
        }
        return delegate().doFinal(buffer, 0, length);
    }

    private byte[] encrypt() throws BadPaddingException {
        BigInteger n = publicKey.getModulus();
        if (padding != null) return engine.publicEncrypt(n, publicKey.getPublicExponent(), padding, buffer, 0, length);
        BigInteger m = new BigInteger(1, Arrays.copyOf(buffer, length));
        if (m.compareTo(n) >= 0) throw new BadPaddingException("Message is larger than modulus");
        return Operands.fixedLength(engine.publicOperation(n, publicKey.getPublicExponent(), m), modulusBytes);
    }

    private byte[] decrypt() throws BadPaddingException {
        byte[] ciphertext = new byte[modulusBytes]; // a shorter one is read as left-padded with zeros, as the JDK
        System.arraycopy(buffer, 0, ciphertext, modulusBytes - length, length);
        if (new BigInteger(1, ciphertext).compareTo(privateKey.modulus) >= 0) {
            throw new BadPaddingException("Message is larger than modulus");
        }
        // A ciphertext that does not unpad: BadPaddingException("Decryption error"), the JDK's.
        if (padding != null) return engine.privateDecrypt(privateKey, padding, ciphertext);
        BigInteger m = engine.privateOperation(privateKey, new BigInteger(1, ciphertext));
        return Operands.fixedLength(m, modulusBytes);
    }

    private void append(byte[] input, int offset, int len) {
        if (input == null || len <= 0) return;
        if (length + len > buffer.length) {
            byte[] grown = Arrays.copyOf(buffer, Math.max(length + len, modulusBytes + 1));
            Arrays.fill(buffer, (byte) 0);
            buffer = grown;
        }
        System.arraycopy(input, offset, buffer, length, len);
        length += len;
    }

    /** The fallback's cipher for this operation: the one made at init, or one made now. */
    private Cipher delegate() {
        if (delegate == null) {
            try {
                delegate = fallbackCipher();
            } catch (InvalidKeyException | InvalidAlgorithmParameterException e) {
                throw new ProviderException(PlainRsa.name(fallback.get()) + "'s RSA cipher did not take the key: "
                        + e.getMessage(), e);
            }
        }
        return delegate;
    }

    /** The fallback's cipher of this transformation, initialised with init's arguments. */
    private Cipher fallbackCipher() throws InvalidKeyException, InvalidAlgorithmParameterException {
        Cipher cipher;
        try {
            cipher = PlainRsa.cipher(fallback.get(), paddingName);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
        cipher.init(mode, jcaKey, params, random);
        return cipher;
    }

    private static boolean isDefaultOaep(AlgorithmParameterSpec params) {
        if (!(params instanceof OAEPParameterSpec)) return false;
        OAEPParameterSpec oaep = (OAEPParameterSpec) params;
        return isSha1(oaep.getDigestAlgorithm()) && "MGF1".equalsIgnoreCase(oaep.getMGFAlgorithm())
                && oaep.getMGFParameters() instanceof MGF1ParameterSpec
                && isSha1(((MGF1ParameterSpec) oaep.getMGFParameters()).getDigestAlgorithm())
                && oaep.getPSource() instanceof PSource.PSpecified
                && ((PSource.PSpecified) oaep.getPSource()).getValue().length == 0;
    }

    private static boolean isSha1(String name) {
        return "SHA-1".equalsIgnoreCase(name) || "SHA1".equalsIgnoreCase(name) || "SHA".equalsIgnoreCase(name);
    }

    private void forget() {
        Arrays.fill(buffer, (byte) 0);
        length = 0;
        mode = 0;
        jcaKey = null;
        params = null;
        random = null;
        engine = null;
        delegate = null;
        publicKey = null;
        privateKey = null;
        modulusBytes = 0;
    }
}
