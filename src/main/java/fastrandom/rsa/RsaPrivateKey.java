package fastrandom.rsa;

import java.math.BigInteger;

/**
 * An RSA private key in CRT form, as the engines take it. {@code identity}
 * is an object that lives exactly as long as the key it came from (the
 * modulus {@code BigInteger} instance held by the JCA key object behind the
 * Ruby {@code OpenSSL::PKey::RSA}), so engines can cache per-key
 * precomputation against it and free that cache when the key is collected.
 */
public final class RsaPrivateKey {
    public final BigInteger modulus;
    public final BigInteger publicExponent;
    public final BigInteger privateExponent;
    public final BigInteger p;
    public final BigInteger q;
    public final BigInteger dP;
    public final BigInteger dQ;
    public final BigInteger qInv;
    public final Object identity;

    public RsaPrivateKey(BigInteger modulus, BigInteger publicExponent, BigInteger privateExponent,
                         BigInteger p, BigInteger q, BigInteger dP, BigInteger dQ, BigInteger qInv,
                         Object identity) {
        this.modulus = modulus;
        this.publicExponent = publicExponent;
        this.privateExponent = privateExponent;
        this.p = p;
        this.q = q;
        this.dP = dP;
        this.dQ = dQ;
        this.qInv = qInv;
        this.identity = identity;
    }

    /**
     * Every value but the modulus (the cache's weakly held identity): what a
     * cached native key is matched on, so a key whose values changed, or
     * another key sharing the modulus instance, never gets its native key.
     */
    BigInteger[] cacheValues() {
        return new BigInteger[] {publicExponent, privateExponent, p, q, dP, dQ, qInv};
    }

    /**
     * Throws {@link InconsistentKeyException} unless p q = n and the CRT
     * values belong to p, q and d, as every usable key's do. Stock
     * jruby-openssl fails on such a key (its fault check), and so must we,
     * rather than let OpenSSL quietly compute the right answer from d.
     */
    void checkConsistent() {
        BigInteger one = BigInteger.ONE;
        boolean consistent = p.signum() > 0 && q.signum() > 0 && p.multiply(q).equals(modulus)
                && dP.mod(p.subtract(one)).equals(privateExponent.mod(p.subtract(one)))
                && dQ.mod(q.subtract(one)).equals(privateExponent.mod(q.subtract(one)))
                && qInv.multiply(q).mod(p).equals(one);
        if (!consistent) throw new InconsistentKeyException();
    }
}
