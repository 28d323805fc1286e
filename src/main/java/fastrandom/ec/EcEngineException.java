package fastrandom.ec;

/**
 * The EC engine could not do an operation (libcrypto unusable, or a call
 * that failed). Never carries secret values. What called the engine then
 * does the operation on jruby-openssl's code, with one warning.
 */
public class EcEngineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EcEngineException(String message, Throwable cause) {
        super(message, cause);
    }
}
