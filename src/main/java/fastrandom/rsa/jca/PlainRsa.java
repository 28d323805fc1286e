package fastrandom.rsa.jca;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SignatureException;

import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;

/**
 * The way out when the engine fails in the middle of a signature (the
 * message already hashed or encoded): the fallback provider's RSA Cipher
 * (BouncyCastle's for jruby-openssl, the next provider's for the JVM-wide
 * one) applies the key to what we hold, with its own blinding and checks,
 * so the caller still gets a correct result.
 */
final class PlainRsa {
    private PlainRsa() {}

    /** {@code provider}'s RSA with {@code padding} ("PKCS1Padding": block type 1; "NoPadding") applied with a private key. */
    static byte[] privateEncrypt(Provider provider, String padding, PrivateKey key, byte[] data) throws SignatureException {
        try {
            Cipher cipher = cipher(provider, padding);
            cipher.init(Cipher.ENCRYPT_MODE, key);
            return cipher.doFinal(data);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new SignatureException("RSA signing failed on " + name(provider) + ": " + e.getMessage(), e);
        }
    }

    /** {@code signature} opened with the public key and unpadded by {@code provider}; null when it is not well padded. */
    static byte[] publicDecrypt(Provider provider, String padding, PublicKey key, byte[] signature) throws SignatureException {
        try {
            Cipher cipher = cipher(provider, padding);
            cipher.init(Cipher.DECRYPT_MODE, key);
            return cipher.doFinal(signature);
        } catch (BadPaddingException e) {
            return null;
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new SignatureException("RSA verification failed on " + name(provider) + ": " + e.getMessage(), e);
        }
    }

    /** The provider's name for messages, "no provider" when there is none. */
    static String name(Provider provider) {
        return provider == null ? "no provider" : provider.getName();
    }

    /** {@code provider}'s RSA/ECB/{@code padding} cipher, not initialised; NoSuchAlgorithmException when there is no provider. */
    static Cipher cipher(Provider provider, String padding) throws NoSuchAlgorithmException, NoSuchPaddingException {
        if (provider == null) throw new NoSuchAlgorithmException("no other provider has RSA ciphers");
        return Cipher.getInstance("RSA/ECB/" + padding, provider);
    }
}
