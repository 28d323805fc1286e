package fastrandom.tls.openssl.netty;

import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;

import javax.net.ssl.SSLEngine;

import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;

import io.netty.handler.ssl.OpenSslPrivateKeyMethod;

import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.jca.PssSigning;
import fastrandom.rsa.jca.RsaBlockEngine;

/**
 * A server's RSA signatures in its handshakes on fast_random's RSA engine
 * when that is {@code :openssl} (OpenSSL's blinded private operation, and
 * its AVX-512 IFMA code where the CPU has it: what MRI's handshakes run on),
 * in place of BoringSSL's own. RSA-PSS (every TLS 1.3 handshake, and TLS
 * 1.2 with a client that offers it) through {@link PssSigning}, the salt
 * from fast_random's generator; PKCS#1 v1.5 (TLS 1.2 clients that offer
 * nothing else) through the JDK's Signature; RSA key exchange's
 * decryption as the raw private operation. BoringSSL checks nothing of
 * what this returns, so what stands between a fault and a key leaked by it
 * is the engine's own fault check (each private operation verified before
 * its result leaves), and for PKCS#1 the JDK provider's.
 */
final class RsaSigner implements OpenSslPrivateKeyMethod {
    private final RSAPrivateCrtKey key;

    private RsaSigner(RSAPrivateCrtKey key) {
        this.key = key;
    }

    /** A signer for {@code key}, where it is an RSA CRT key and the RSA engine is :openssl; else null (BoringSSL signs). */
    static RsaSigner of(java.security.PrivateKey key) {
        if (!(key instanceof RSAPrivateCrtKey) || !(RsaEngines.current() instanceof OpenSslRsaEngine)) return null;
        return new RsaSigner((RSAPrivateCrtKey) key);
    }

    @Override
    public byte[] sign(SSLEngine engine, int signatureAlgorithm, byte[] input) throws Exception {
        // netty's constants are not compile-time ones: no switch
        if (signatureAlgorithm == SSL_SIGN_RSA_PSS_RSAE_SHA256) return pss("SHA-256", 32, input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PSS_RSAE_SHA384) return pss("SHA-384", 48, input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PSS_RSAE_SHA512) return pss("SHA-512", 64, input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PKCS1_SHA256) return pkcs1("SHA256withRSA", input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PKCS1_SHA384) return pkcs1("SHA384withRSA", input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PKCS1_SHA512) return pkcs1("SHA512withRSA", input);
        if (signatureAlgorithm == SSL_SIGN_RSA_PKCS1_SHA1) return pkcs1("SHA1withRSA", input);
        throw new IllegalArgumentException("no RSA signature algorithm " + signatureAlgorithm);
    }

    private byte[] pss(String digest, int saltLength, byte[] input) {
        return PssSigning.sign(key, digest, digest, saltLength, input, false, GeneratorSecureRandom.OPENSSL);
    }

    private byte[] pkcs1(String algorithm, byte[] input) throws Exception {
        Signature signature = Signature.getInstance(algorithm);
        signature.initSign(key);
        signature.update(input);
        return signature.sign();
    }

    /**
     * RSA key exchange (TLS 1.2's TLS_RSA_* suites, where the context enables
     * them): the raw private operation, as long as the modulus, for BoringSSL
     * to check the padding of (in constant time, with its implicit
     * rejection); the same private operation as a signature's.
     */
    @Override
    public byte[] decrypt(SSLEngine engine, byte[] input) {
        return privateOperation(input);
    }

    private byte[] privateOperation(byte[] input) {
        RsaBlockEngine rsa = new RsaBlockEngine();
        rsa.init(true, new ParametersWithRandom(new RSAPrivateCrtKeyParameters(key.getModulus(), key.getPublicExponent(),
                key.getPrivateExponent(), key.getPrimeP(), key.getPrimeQ(), key.getPrimeExponentP(), key.getPrimeExponentQ(),
                key.getCrtCoefficient()), GeneratorSecureRandom.OPENSSL));
        return rsa.processBlock(input, 0, input.length);
    }
}
