package fastrandom.cipher;

/**
 * A call {@link AesCipher} refuses because its message cannot be served
 * exactly (AAD after a GCM message's data), and every later call on that
 * message until the next init. jruby-openssl raises it as a CipherError.
 */
public final class RefusedMessage extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    RefusedMessage(String message) {
        super(message);
    }
}
