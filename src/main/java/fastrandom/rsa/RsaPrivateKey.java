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
}
