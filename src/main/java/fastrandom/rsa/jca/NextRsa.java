package fastrandom.rsa.jca;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SignatureException;
import java.util.function.BiFunction;

import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;

/**
 * The JVM-wide provider's way out when the engine fails in the middle of a
 * signature (the message already hashed or encoded): the next provider's
 * RSA Cipher applies the key to what we hold, with its own blinding and
 * checks, so the caller still gets a correct result.
 */
final class NextRsa {
    private NextRsa() {}

    /** The next provider's RSA with {@code padding} ("PKCS1Padding": block type 1; "NoPadding") applied with a private key. */
    static byte[] privateEncrypt(BiFunction<String, String, Provider> next, String padding, PrivateKey key, byte[] data)
            throws SignatureException {
        try {
            Cipher cipher = cipher(next, padding);
            cipher.init(Cipher.ENCRYPT_MODE, key);
            return cipher.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new SignatureException("RSA signing failed on " + providerName(next) + ": " + e.getMessage(), e);
        }
    }

    /** {@code signature} opened with the public key and unpadded by the next provider; null when it is not well padded. */
    static byte[] publicDecrypt(BiFunction<String, String, Provider> next, String padding, PublicKey key, byte[] signature)
            throws SignatureException {
        try {
            Cipher cipher = cipher(next, padding);
            cipher.init(Cipher.DECRYPT_MODE, key);
            return cipher.doFinal(signature);
        } catch (BadPaddingException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new SignatureException("RSA verification failed on " + providerName(next) + ": " + e.getMessage(), e);
        }
    }

    /** The next provider's Cipher for {@code transformation} (for a cipher that cannot finish on the engine). */
    static Cipher cipher(BiFunction<String, String, Provider> next, String transformation, int mode, Key key)
            throws GeneralSecurityException {
        Provider provider = next.apply("Cipher", "RSA");
        if (provider == null) throw new java.security.NoSuchAlgorithmException("no other provider has RSA ciphers");
        Cipher cipher = Cipher.getInstance(transformation, provider);
        cipher.init(mode, key);
        return cipher;
    }

    private static Cipher cipher(BiFunction<String, String, Provider> next, String padding) throws GeneralSecurityException {
        Provider provider = next.apply("Cipher", "RSA");
        if (provider == null) throw new java.security.NoSuchAlgorithmException("no other provider has RSA ciphers");
        return Cipher.getInstance("RSA/ECB/" + padding, provider);
    }

    /** What a fallback through the next provider's RSA cipher runs on, for the warning: "the next JCA provider (SunJCE)". */
    static String cipherFallback(BiFunction<String, String, Provider> next) {
        return "the next JCA provider (" + providerName(next) + ")";
    }

    private static String providerName(BiFunction<String, String, Provider> next) {
        Provider provider = next.apply("Cipher", "RSA");
        return provider == null ? "no provider" : provider.getName();
    }
}
