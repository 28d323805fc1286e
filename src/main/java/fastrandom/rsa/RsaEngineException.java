package fastrandom.rsa;

/**
 * An engine could not compute a result: the native library failed, or the
 * result did not pass the public-exponent check. Never carries secret values.
 */
public class RsaEngineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RsaEngineException(String message) {
        super(message);
    }

    public RsaEngineException(String message, Throwable cause) {
        super(message, cause);
    }
}
