package fastrandom.jca;

import java.security.InvalidAlgorithmParameterException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyPairGeneratorSpi;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;

import fastrandom.random.GeneratorSecureRandom;

/**
 * BouncyCastle's key pair generator (RSA or EC, as jruby-openssl asks for
 * it in {@code OpenSSL::PKey::RSA.generate}, {@code EC.generate} and
 * {@code EC#generate_key!}) drawing from fast_random's generators
 * ({@link GeneratorSecureRandom#OPENSSL}) instead of the SecureRandom
 * jruby-openssl hands it (on JRuby 10, a new JDK SecureRandom per key).
 * Parameters, checks, errors and keys are BouncyCastle's.
 */
final class RandomizedKeyPairGenerator extends KeyPairGeneratorSpi {
    private final KeyPairGenerator bouncyCastle;

    RandomizedKeyPairGenerator(KeyPairGenerator bouncyCastle) {
        this.bouncyCastle = bouncyCastle;
    }

    @Override
    public void initialize(int keySize, SecureRandom random) {
        bouncyCastle.initialize(keySize, GeneratorSecureRandom.OPENSSL);
    }

    @Override
    public void initialize(AlgorithmParameterSpec params, SecureRandom random) throws InvalidAlgorithmParameterException {
        bouncyCastle.initialize(params, GeneratorSecureRandom.OPENSSL);
    }

    @Override
    public KeyPair generateKeyPair() {
        return bouncyCastle.generateKeyPair();
    }
}
