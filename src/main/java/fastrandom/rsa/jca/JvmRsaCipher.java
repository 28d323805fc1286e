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
import java.util.function.BiFunction;

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
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;

/**
 * The JVM-wide provider's RSA Cipher: encryption with a public key and
 * decryption with a private CRT key, with PKCS#1 v1.5 padding, OAEP with
 * SHA-1 and MGF1-SHA-1 and no label (the JDK's OAEP default), or none, each
 * one native call on the {@code :openssl} engine (OpenSSL pads with its own
 * DRBG's bytes, as MRI; a SecureRandom given to init is not used then, and
 * unpads in constant time). Exceptions and messages are the JDK's
 * ({@code IllegalBlockSizeException} for input too long,
 * {@code BadPaddingException} for a ciphertext that does not unpad).
 *
 * <p>Everything else goes to the next provider's RSA Cipher with the same
 * transformation, from init on: encryption with a private key or decryption
 * with a public one, key wrapping, other OAEP parameters, TLS's
 * premaster-secret parameters, keys without CRT values, another engine; and,
 * for the one operation, an engine failure.
 */
public final class JvmRsaCipher extends CipherSpi {
    private static final byte[] NOTHING = new byte[0];

    private final BiFunction<String, String, Provider> next;

    private String paddingName = "PKCS1Padding";
    private LibCrypto.Padding padding = LibCrypto.Padding.PKCS1; // null: NoPadding
    private Cipher delegate; // the next provider's, when it has the operation

    private int mode;
    private Key jcaKey;
    private RSAPublicKey publicKey; // encryption, ours
    private RsaPrivateKey privateKey; // decryption, ours
    private int modulusBytes;
    private byte[] buffer = NOTHING;
    private int length;

    public JvmRsaCipher(BiFunction<String, String, Provider> next) {
        this.next = next;
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
        return 0;
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

    private void init(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        forget();
        OpenSslRsaEngine engine = RsaKeys.openssl();
        boolean ourParameters = params == null || (padding == LibCrypto.Padding.OAEP_SHA1 && isDefaultOaep(params));
        if (engine != null && ourParameters) {
            if (opmode == Cipher.ENCRYPT_MODE && RsaKeys.usable(key)) {
                publicKey = (RSAPublicKey) key;
                modulusBytes = RsaKeys.modulusBytes(publicKey.getModulus());
            } else if (opmode == Cipher.DECRYPT_MODE) {
                privateKey = RsaKeys.crt(key);
                if (privateKey != null) modulusBytes = RsaKeys.modulusBytes(privateKey.modulus);
            }
        }
        mode = opmode;
        jcaKey = key;
        if (publicKey == null && privateKey == null) {
            delegate = nextCipher();
            delegate.init(opmode, key, params, random);
        }
    }

    @Override
    protected byte[] engineUpdate(byte[] input, int offset, int len) {
        if (delegate != null) return delegate.update(input, offset, len);
        append(input, offset, len);
        return NOTHING;
    }

    @Override
    protected int engineUpdate(byte[] input, int offset, int len, byte[] output, int outputOffset)
            throws ShortBufferException {
        if (delegate != null) return delegate.update(input, offset, len, output, outputOffset);
        append(input, offset, len);
        return 0;
    }

    @Override
    protected byte[] engineDoFinal(byte[] input, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        if (delegate != null) return delegate.doFinal(input, offset, len);
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
        if (delegate != null) return delegate.doFinal(input, offset, len, output, outputOffset);
        if (output.length - outputOffset < modulusBytes) {
            throw new ShortBufferException("Output buffer too small: " + modulusBytes + " bytes needed");
        }
        byte[] result = engineDoFinal(input, offset, len);
        System.arraycopy(result, 0, output, outputOffset, result.length);
        Arrays.fill(result, (byte) 0);
        return result.length;
    }

    // Key wrapping is always the next provider's (init hands WRAP_MODE and UNWRAP_MODE over).
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

    /** The operation on everything buffered: one native call, or the next provider's when the engine fails. */
    private byte[] finish() throws IllegalBlockSizeException, BadPaddingException {
        int limit = padding == null || privateKey != null ? modulusBytes : padding.maxMessageBytes(modulusBytes);
        if (length > limit) throw new IllegalBlockSizeException("Data must not be longer than " + limit + " bytes");
        OpenSslRsaEngine engine = RsaKeys.openssl();
        try {
            if (engine != null) {
                byte[] result = privateKey != null ? decrypt(engine) : encrypt(engine);
                RsaStats.count(OpenSslRsaEngine.NAME, privateKey != null);
                return result;
            }
        } catch (InconsistentKeyException e) {
            // Not a key an engine takes: the next provider decrypts, or says why not.
        } catch (RsaEngineException e) {
            EngineRsaSignature.warnFallback(e, next.apply("Cipher", "RSA"), true);
        }
        RsaStats.count(RsaEngines.JAVA, privateKey != null);
        try {
            Cipher cipher = nextCipher();
            cipher.init(mode, jcaKey);
            return cipher.doFinal(buffer, 0, length);
        } catch (InvalidKeyException e) {
            throw new ProviderException("the next provider's RSA cipher did not take the key: " + e.getMessage(), e);
        }
    }

    private byte[] encrypt(OpenSslRsaEngine engine) throws BadPaddingException {
        BigInteger n = publicKey.getModulus();
        if (padding != null) return engine.publicEncrypt(n, publicKey.getPublicExponent(), padding, buffer, 0, length);
        BigInteger m = new BigInteger(1, Arrays.copyOf(buffer, length));
        if (m.compareTo(n) >= 0) throw new BadPaddingException("Message is larger than modulus");
        return RsaKeys.fixedLength(engine.publicOperation(n, publicKey.getPublicExponent(), m), modulusBytes);
    }

    private byte[] decrypt(OpenSslRsaEngine engine) throws BadPaddingException {
        byte[] ciphertext = new byte[modulusBytes]; // a shorter one is read as left-padded with zeros, as the JDK
        System.arraycopy(buffer, 0, ciphertext, modulusBytes - length, length);
        if (new BigInteger(1, ciphertext).compareTo(privateKey.modulus) >= 0) {
            throw new BadPaddingException("Message is larger than modulus");
        }
        if (padding != null) return engine.privateDecrypt(privateKey, padding, ciphertext); // BadPaddingException: "Decryption error"
        BigInteger m = engine.privateOperation(privateKey, new BigInteger(1, ciphertext));
        return RsaKeys.fixedLength(m, modulusBytes);
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

    private Cipher nextCipher() throws InvalidKeyException {
        Provider provider = next.apply("Cipher", "RSA");
        try {
            if (provider == null) throw new NoSuchAlgorithmException("no other provider has RSA ciphers");
            return Cipher.getInstance("RSA/ECB/" + paddingName, provider);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
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
        delegate = null;
        jcaKey = null;
        publicKey = null;
        privateKey = null;
        modulusBytes = 0;
    }
}
