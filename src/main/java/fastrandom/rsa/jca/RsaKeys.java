package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.Key;
import java.security.SignatureException;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;

import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.Operands;
import fastrandom.rsa.RsaEngine;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;

/** What the JVM-wide provider's RSA services take: which keys, and the engine. */
final class RsaKeys {
    private RsaKeys() {}

    /** The selected engine when it is {@code :openssl} (the one-call paths need it), else null. */
    static OpenSslRsaEngine openssl() {
        RsaEngine engine = RsaEngines.current();
        return engine instanceof OpenSslRsaEngine ? (OpenSslRsaEngine) engine : null;
    }

    /** Our form of a CRT private key, or null when a value is missing or the modulus is not one we take. */
    static RsaPrivateKey crt(Object key) {
        if (!(key instanceof RSAPrivateCrtKey) || !plainRsa((Key) key)) return null;
        RSAPrivateCrtKey k = (RSAPrivateCrtKey) key;
        BigInteger[] parts = {k.getModulus(), k.getPublicExponent(), k.getPrivateExponent(), k.getPrimeP(),
                              k.getPrimeQ(), k.getPrimeExponentP(), k.getPrimeExponentQ(), k.getCrtCoefficient()};
        for (BigInteger part : parts) {
            if (part == null || part.signum() <= 0) return null;
        }
        if (!parts[0].testBit(0) || parts[0].bitLength() > OpenSslRsaEngine.MAX_MODULUS_BITS) return null;
        // The key object keeps its modulus instance for life: engines cache per-key state against it.
        return new RsaPrivateKey(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7], parts[0]);
    }

    /** Whether the engines take this public key (an odd modulus of at most 16384 bits, a positive exponent). */
    static boolean usable(Object key) {
        if (!(key instanceof RSAPublicKey) || !plainRsa((Key) key)) return false;
        BigInteger n = ((RSAPublicKey) key).getModulus();
        BigInteger e = ((RSAPublicKey) key).getPublicExponent();
        return n != null && e != null && n.signum() > 0 && n.testBit(0) && e.signum() > 0
                && n.bitLength() <= OpenSslRsaEngine.MAX_MODULUS_BITS;
    }

    /**
     * Whether the key is a plain RSA key: an "RSASSA-PSS" key carries
     * restrictions on its use that the next provider enforces.
     */
    private static boolean plainRsa(Key key) {
        return "RSA".equalsIgnoreCase(key.getAlgorithm());
    }

    /** As the JDK's RSA signatures: a signature to verify is exactly as long as the modulus. */
    static void requireSignatureLength(byte[] signature, BigInteger modulus) throws SignatureException {
        int expected = Operands.byteLength(modulus);
        if (signature.length != expected) {
            throw new SignatureException("Bad signature length: got " + signature.length + " but was expecting " + expected);
        }
    }
}
