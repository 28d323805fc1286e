package fastrandom.ec.jca;

import java.security.InvalidAlgorithmParameterException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyPairGeneratorSpi;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.util.function.Supplier;

import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.support.EngineRegistry;

/**
 * jruby-openssl's EC key generation ({@code EC.generate},
 * {@code EC#generate_key!}) on the {@code :openssl} engine: OpenSSL's own
 * generator, as MRI's, for a curve named in an {@link ECGenParameterSpec}
 * that the engine takes from BouncyCastle ({@link fastrandom.ec.EcCurve#beatsBouncyCastle}),
 * the key built as BouncyCastle's generator builds it
 * ({@link BouncyCastleEcKeys}) and its native key kept for its first
 * signature or ECDH. Everything else (other curves and parameters, the
 * {@code :java} engine, an engine failure with one warning) is
 * BouncyCastle's generator ({@code fallback}), with its checks and errors;
 * it is made and initialized only when it generates. Either draws from
 * {@code random} (fast_random's generators), not from the random source the
 * caller gives (on JRuby 10, jruby-openssl gives a new JDK SecureRandom per
 * key).
 */
final class EngineEcKeyPairGenerator extends KeyPairGeneratorSpi {
    private final Supplier<KeyPairGenerator> makeFallback;
    private final SecureRandom random;
    private KeyPairGenerator fallback;
    /** The curve of the last initialize when the engine may take it, else null. */
    private BouncyCastleEcKeys named;
    /** That initialize's parameters, not given to the fallback yet; null once they are. */
    private AlgorithmParameterSpec pending;

    EngineEcKeyPairGenerator(Supplier<KeyPairGenerator> fallback, SecureRandom random) {
        this.makeFallback = fallback;
        this.random = random;
    }

    private KeyPairGenerator fallback() {
        if (fallback == null) fallback = makeFallback.get();
        return fallback;
    }

    @Override
    public void initialize(int keySize, SecureRandom ignored) {
        named = null;
        pending = null;
        fallback().initialize(keySize, random);
    }

    @Override
    public void initialize(AlgorithmParameterSpec params, SecureRandom ignored) throws InvalidAlgorithmParameterException {
        BouncyCastleEcKeys keys = params instanceof ECGenParameterSpec ? BouncyCastleEcKeys.named(((ECGenParameterSpec) params).getName()) : null;
        if (keys != null && keys.curve.beatsBouncyCastle()) {
            named = keys;
            pending = params; // a name BouncyCastle takes: nothing to check now
            return;
        }
        named = null;
        pending = null;
        fallback().initialize(params, random);
    }

    @Override
    public KeyPair generateKeyPair() {
        BouncyCastleEcKeys keys = named;
        // The first generation in a process does not wait for the engine's self-test (19 ms cold: more than stock's).
        OpenSslEcEngine engine = keys != null ? EcEngines.currentWithoutWaiting() : null;
        if (engine != null && engine.serves(keys.curve)) {
            try {
                KeyPair pair = engine.generate(keys.curve, keys::keyPair);
                EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.GENERATE);
                return pair;
            } catch (EcEngineException e) {
                EcStats.fellBack(e, EngineRegistry.JRUBY_OPENSSL_CODE);
            }
        }
        if (pending != null) {
            try {
                fallback().initialize(pending, random);
            } catch (InvalidAlgorithmParameterException e) {
                throw new IllegalStateException("BouncyCastle refused a curve it named: " + e.getMessage(), e);
            }
            pending = null;
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.GENERATE);
        return fallback().generateKeyPair();
    }
}
