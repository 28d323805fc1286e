package fastrandom.rsa;

/**
 * A private key whose CRT values do not belong together (after
 * {@code set_factors} with other primes, say). Engines refuse it; the
 * operation then runs on jruby-openssl's code, which fails as stock does.
 */
public final class InconsistentKeyException extends RsaEngineException {
    private static final long serialVersionUID = 1L;

    public InconsistentKeyException() {
        super("the key's CRT values do not belong to its modulus and private exponent");
    }
}
