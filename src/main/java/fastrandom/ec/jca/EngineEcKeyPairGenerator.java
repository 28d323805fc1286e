package fastrandom.ec.jca;

import java.math.BigInteger;
import java.security.InvalidAlgorithmParameterException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyPairGeneratorSpi;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.util.function.Supplier;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;

/**
 * EC key generation on the {@code :openssl} engine: OpenSSL's own
 * generator, as MRI's, for a curve the parameters name that {@code curves}
 * resolves (for jruby-openssl, an {@link ECGenParameterSpec} name on a curve
 * the engine takes from BouncyCastle, the keys built as BouncyCastle's
 * generator builds them: {@link BouncyCastleEcKeys}; for the JVM-wide
 * provider, P-256 and P-521 however named, the keys the next provider's
 * own: {@link JdkEcKeys}). Everything else (other curves and parameters,
 * the {@code :java} engine, an engine failure with one warning) is the
 * fallback generator's (BouncyCastle's, or the next provider's), with its
 * checks and errors; it is made and initialized only when it generates.
 * The fallback draws from {@code random} when one is given (jruby-openssl:
 * fast_random's generators, not the new JDK SecureRandom per key it
 * passes on JRuby 10), else from the caller's.
 */
final class EngineEcKeyPairGenerator extends KeyPairGeneratorSpi {
    /** What a curve's keys are built as. */
    interface CurveKeys {
        EcCurve curve();

        KeyPair keyPair(BigInteger d, BigInteger x, BigInteger y);
    }

    /** The keys on the curve the parameters name, or null for the fallback. */
    interface Curves {
        CurveKeys resolve(AlgorithmParameterSpec params);
    }

    /**
     * Whether a key may come from OpenSSL's generator when the caller gives
     * {@code random}: for jruby-openssl, always (it passes a fresh JDK
     * SecureRandom per key, nothing it chose); for the JVM-wide provider,
     * unless the caller's random source is one a seed makes repeat, which
     * the next provider's generator then draws from (so a seeded one makes
     * the same keys again).
     */
    interface RandomPolicy {
        boolean allowsOpenSsl(SecureRandom random);
    }

    private final Supplier<KeyPairGenerator> makeFallback;
    private final SecureRandom random;
    private final Curves curves;
    private final RandomPolicy randomPolicy;
    private final boolean jvmWide;
    private final Supplier<Provider> fallbackProvider; // for the warning's words
    private KeyPairGenerator fallback;
    /** The keys of the last initialize when the engine may take them, else null. */
    private CurveKeys named;
    /** That initialize's parameters, not given to the fallback yet; null once they are. */
    private AlgorithmParameterSpec pending;
    private SecureRandom pendingRandom;

    EngineEcKeyPairGenerator(Supplier<KeyPairGenerator> fallback, SecureRandom random, Curves curves, RandomPolicy randomPolicy,
                             boolean jvmWide, Supplier<Provider> fallbackProvider) {
        this.makeFallback = fallback;
        this.random = random;
        this.curves = curves;
        this.randomPolicy = randomPolicy;
        this.jvmWide = jvmWide;
        this.fallbackProvider = fallbackProvider;
    }

    private KeyPairGenerator fallback() {
        if (fallback == null) fallback = makeFallback.get();
        return fallback;
    }

    private SecureRandom randomFor(SecureRandom given) {
        return random != null ? random : given;
    }

    @Override
    public void initialize(int keySize, SecureRandom given) {
        if (randomFor(given) == null) fallback().initialize(keySize);
        else fallback().initialize(keySize, randomFor(given)); // its error leaves this generator as it was
        named = null;
        pending = null;
    }

    @Override
    public void initialize(AlgorithmParameterSpec params, SecureRandom given) throws InvalidAlgorithmParameterException {
        CurveKeys keys = randomPolicy.allowsOpenSsl(given) ? curves.resolve(params) : null;
        if (keys != null) {
            named = keys;
            pending = params; // a curve the fallback takes: nothing to check now
            pendingRandom = given;
            return;
        }
        if (randomFor(given) == null) fallback().initialize(params);
        else fallback().initialize(params, randomFor(given)); // its error leaves this generator as it was
        named = null;
        pending = null;
    }

    @Override
    public KeyPair generateKeyPair() {
        CurveKeys keys = named;
        // The first generation in a process does not wait for the engine's self-test (19 ms cold: more than stock's).
        OpenSslEcEngine engine = keys != null ? EcEngines.currentWithoutWaiting() : null;
        if (engine != null && engine.serves(keys.curve())) {
            try {
                KeyPair pair = engine.generate(keys.curve(), keys::keyPair);
                EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.GENERATE);
                return pair;
            } catch (EcEngineException e) {
                EngineEcdsaSignature.warnFallback(e, fallbackProvider.get(), jvmWide);
            }
        }
        if (pending != null) {
            try {
                if (randomFor(pendingRandom) == null) fallback().initialize(pending);
                else fallback().initialize(pending, randomFor(pendingRandom));
            } catch (InvalidAlgorithmParameterException e) {
                throw new IllegalStateException("the fallback refused a curve it named: " + e.getMessage(), e);
            }
            pending = null;
        }
        EcStats.count(EcEngines.JAVA, EcStats.Operation.GENERATE);
        return fallback().generateKeyPair();
    }
}
