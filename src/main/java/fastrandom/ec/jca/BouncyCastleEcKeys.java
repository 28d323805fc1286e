package fastrandom.ec.jca;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.spec.ECParameterSpec;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.jcajce.provider.asymmetric.ec.BCECPrivateKey;
import org.bouncycastle.jcajce.provider.asymmetric.ec.BCECPublicKey;
import org.bouncycastle.jcajce.provider.asymmetric.util.ECUtil;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.jce.spec.ECNamedCurveSpec;

import fastrandom.ec.EcCurve;

/**
 * EC key pairs as BouncyCastle's {@code KeyPairGenerator} for
 * {@code new ECGenParameterSpec(name)} makes them (what jruby-openssl's
 * {@code EC.generate} asks for): the same classes, built from the same
 * parameter objects by the same constructors, only with values OpenSSL
 * generated. So a generated key's encodings, curve name and every later
 * call on it are stock's. One per curve name BouncyCastle resolves the way
 * its generator does (by name: OIDs and names with a space, which it
 * resolves otherwise, stay on BouncyCastle's generator).
 */
final class BouncyCastleEcKeys implements EngineEcKeyPairGenerator.CurveKeys {
    /** The algorithm BouncyCastle's EC generator names its keys with. */
    private static final String ALGORITHM = "EC";
    /** Names looked up, resolved or not (the names BouncyCastle knows are a few dozen). */
    private static final ConcurrentMap<String, Optional<BouncyCastleEcKeys>> NAMED = new ConcurrentHashMap<>();

    private final EcCurve curve;
    private final ECParameterSpec spec;
    private final ECDomainParameters domain;

    private BouncyCastleEcKeys(EcCurve curve, ECParameterSpec spec, ECDomainParameters domain) {
        this.curve = curve;
        this.spec = spec;
        this.domain = domain;
    }

    /**
     * The keys on the curve {@code name} names, or null when it names none
     * of {@link EcCurve}'s or is a name this class leaves to BouncyCastle.
     */
    static BouncyCastleEcKeys named(String name) {
        if (name == null) return null;
        Optional<BouncyCastleEcKeys> known = NAMED.get(name);
        if (known == null) {
            known = Optional.ofNullable(resolve(name));
            if (NAMED.size() < 256) NAMED.putIfAbsent(name, known);
        }
        return known.orElse(null);
    }

    private static BouncyCastleEcKeys resolve(String name) {
        // BouncyCastle's generator resolves a name with a space, or an OID, by other means.
        if (name.isEmpty() || name.indexOf(' ') >= 0 || Character.isDigit(name.charAt(0))) return null;
        X9ECParameters x9 = ECUtil.getNamedCurveByName(name);
        if (x9 == null) return null;
        ECNamedCurveSpec spec = new ECNamedCurveSpec(name, x9.getCurve(), x9.getG(), x9.getN(), x9.getH(), null);
        EcCurve curve = EcCurve.of(spec);
        return curve == null ? null : new BouncyCastleEcKeys(curve, spec, new ECDomainParameters(x9.getCurve(), x9.getG(), x9.getN(), x9.getH()));
    }

    @Override
    public EcCurve curve() {
        return curve;
    }

    /**
     * For jruby-openssl's generator: the keys on the curve an
     * {@link java.security.spec.ECGenParameterSpec} names, when the engine
     * takes that curve from BouncyCastle; else null.
     */
    static BouncyCastleEcKeys resolve(java.security.spec.AlgorithmParameterSpec params) {
        BouncyCastleEcKeys keys = params instanceof java.security.spec.ECGenParameterSpec
                ? named(((java.security.spec.ECGenParameterSpec) params).getName()) : null;
        return keys != null && keys.curve.beatsBouncyCastle() ? keys : null;
    }

    /**
     * The key pair with private value d and public point (x, y), which must
     * lie on the curve (BouncyCastle checks it: IllegalArgumentException).
     */
    @Override
    public KeyPair keyPair(BigInteger d, BigInteger x, BigInteger y) {
        ECPublicKeyParameters publicValues = new ECPublicKeyParameters(domain.getCurve().createPoint(x, y), domain);
        BCECPublicKey publicKey = new BCECPublicKey(ALGORITHM, publicValues, spec, BouncyCastleProvider.CONFIGURATION);
        ECPrivateKeyParameters privateValues = new ECPrivateKeyParameters(d, domain);
        return new KeyPair(publicKey, new BCECPrivateKey(ALGORITHM, privateValues, publicKey, spec, BouncyCastleProvider.CONFIGURATION));
    }
}
