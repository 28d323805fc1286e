package fastrandom.ec.jca;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.Provider;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.util.function.BiFunction;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;

/**
 * EC key pairs as the next JCA provider (the JDK's SunEC) makes them, for
 * the JVM-wide provider's generator: its {@code AlgorithmParameters} name
 * the curve (so a name, or explicit parameters, resolve as it resolves
 * them, to its own parameter object), its {@code KeyFactory} builds the
 * keys, which are its own classes. (It does not check that the point is
 * on the curve: OpenSSL computed it, and the engine checked the private
 * value's range.) Takes
 * P-256 and P-521 (OpenSSL's dedicated code); other curves stay the next
 * provider's to generate.
 */
final class JdkEcKeys implements EngineEcKeyPairGenerator.CurveKeys {
    private final EcCurve curve;
    private final ECParameterSpec spec;
    private final BiFunction<String, String, Provider> next;

    private JdkEcKeys(EcCurve curve, ECParameterSpec spec, BiFunction<String, String, Provider> next) {
        this.curve = curve;
        this.spec = spec;
        this.next = next;
    }

    /** The keys on the curve {@code params} names (a name, or the parameters themselves), or null. */
    static JdkEcKeys resolve(AlgorithmParameterSpec params, BiFunction<String, String, Provider> next) {
        if (!(params instanceof ECParameterSpec || params instanceof ECGenParameterSpec)) return null;
        ECParameterSpec spec;
        try { // the next provider's own parameter object for the curve, as its keys carry it
            AlgorithmParameters named = AlgorithmParameters.getInstance("EC", next.apply("AlgorithmParameters", "EC"));
            named.init(params);
            spec = named.getParameterSpec(ECParameterSpec.class);
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            return null; // a curve it does not know: its generator says so
        }
        EcCurve curve = EcCurve.of(spec, EcCurve::beatsBouncyCastle);
        return curve == null ? null : new JdkEcKeys(curve, spec, next);
    }

    @Override
    public EcCurve curve() {
        return curve;
    }

    @Override
    public KeyPair keyPair(BigInteger d, BigInteger x, BigInteger y) {
        try {
            KeyFactory factory = KeyFactory.getInstance("EC", next.apply("KeyFactory", "EC"));
            return new KeyPair(factory.generatePublic(new ECPublicKeySpec(new ECPoint(x, y), spec)),
                    factory.generatePrivate(new ECPrivateKeySpec(d, spec)));
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            throw new EcEngineException("the next provider's EC KeyFactory: " + e, e);
        }
    }
}
