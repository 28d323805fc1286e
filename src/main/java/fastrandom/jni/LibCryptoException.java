package fastrandom.jni;

/**
 * libcrypto could not do what was asked (not loaded, a bad key or input, an
 * OpenSSL error, or a result that failed its check). Never carries secret
 * values. The engines above turn it into their own exceptions.
 */
public final class LibCryptoException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LibCryptoException(String message) {
        super(message);
    }
}
