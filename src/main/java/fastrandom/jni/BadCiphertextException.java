package fastrandom.jni;

/**
 * An RSA ciphertext did not decrypt to a well-padded message. Says nothing
 * more (which check failed would be an oracle), and is not a failure of
 * libcrypto: the key answered.
 */
public final class BadCiphertextException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadCiphertextException(String message) {
        super(message);
    }
}
