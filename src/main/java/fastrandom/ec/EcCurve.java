package fastrandom.ec;

import java.math.BigInteger;
import java.security.spec.ECField;
import java.security.spec.ECFieldFp;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.util.Map;
import java.util.WeakHashMap;

import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.ec.CustomNamedCurves;

/**
 * The curves the EC engine takes, by OpenSSL's name and number (its NID):
 * NIST P-256, P-384, P-521 and SEC 2's secp256k1, all of cofactor 1. A Java
 * key's curve is recognized by its domain parameters (field, a, b,
 * generator, order, cofactor), compared with BouncyCastle's own table, so
 * a key with explicit parameters (as {@code EC.generate} makes) is
 * recognized as well as one that names its curve. Anything else stays on
 * jruby-openssl's code.
 */
public enum EcCurve {
    P256("prime256v1", "secp256r1", 415),
    P384("secp384r1", "secp384r1", 715),
    P521("secp521r1", "secp521r1", 716),
    SECP256K1("secp256k1", "secp256k1", 714);

    /** Recognized parameter objects (identity), so each is compared once. */
    private static final Map<ECParameterSpec, EcCurve> RECOGNIZED = new WeakHashMap<>();
    private static final EcCurve NONE = null;

    private final String opensslName;
    private final String bouncyCastleName;
    private final int nid;
    private volatile Parameters parameters;

    EcCurve(String opensslName, String bouncyCastleName, int nid) {
        this.opensslName = opensslName;
        this.bouncyCastleName = bouncyCastleName;
        this.nid = nid;
    }

    /** OpenSSL's short name (what {@code OpenSSL::PKey::EC::Group#curve_name} says). */
    public String opensslName() {
        return opensslName;
    }

    /** OpenSSL's NID of the curve. */
    public int nid() {
        return nid;
    }

    /** The order of the generator. */
    public BigInteger order() {
        return parameters().order;
    }

    /** The length of a field element (a coordinate, an ECDH secret) in bytes. */
    public int fieldBytes() {
        return (parameters().p.bitLength() + 7) / 8;
    }

    /** The curve of these domain parameters, or null when it is none of ours. */
    public static EcCurve of(ECParameterSpec spec) {
        if (spec == null) return null;
        synchronized (RECOGNIZED) {
            if (RECOGNIZED.containsKey(spec)) return RECOGNIZED.get(spec);
        }
        EcCurve found = NONE;
        for (EcCurve curve : values()) {
            if (curve.parameters().matches(spec)) found = curve;
        }
        synchronized (RECOGNIZED) {
            RECOGNIZED.put(spec, found);
        }
        return found;
    }

    /** Whether (x, y) lies on this curve (y^2 = x^3 + a x + b mod p, both coordinates below p). */
    public boolean contains(BigInteger x, BigInteger y) {
        Parameters c = parameters();
        if (x.signum() < 0 || y.signum() < 0 || x.compareTo(c.p) >= 0 || y.compareTo(c.p) >= 0) return false;
        BigInteger right = x.pow(3).add(c.a.multiply(x)).add(c.b).mod(c.p);
        return y.multiply(y).mod(c.p).equals(right);
    }

    private Parameters parameters() {
        Parameters p = parameters;
        if (p == null) parameters = p = new Parameters(CustomNamedCurves.getByName(bouncyCastleName));
        return p;
    }

    /** The domain parameters, from BouncyCastle's table. */
    private static final class Parameters {
        final BigInteger p;
        final BigInteger a;
        final BigInteger b;
        final BigInteger gx;
        final BigInteger gy;
        final BigInteger order;
        final BigInteger cofactor;

        Parameters(X9ECParameters x9) {
            this.p = x9.getCurve().getField().getCharacteristic();
            this.a = x9.getCurve().getA().toBigInteger();
            this.b = x9.getCurve().getB().toBigInteger();
            org.bouncycastle.math.ec.ECPoint g = x9.getG().normalize();
            this.gx = g.getAffineXCoord().toBigInteger();
            this.gy = g.getAffineYCoord().toBigInteger();
            this.order = x9.getN();
            this.cofactor = x9.getH();
        }

        boolean matches(ECParameterSpec spec) {
            ECField field = spec.getCurve().getField();
            ECPoint g = spec.getGenerator();
            return field instanceof ECFieldFp && ((ECFieldFp) field).getP().equals(p)
                    && spec.getCurve().getA().equals(a) && spec.getCurve().getB().equals(b)
                    && g.getAffineX().equals(gx) && g.getAffineY().equals(gy)
                    && spec.getOrder().equals(order) && BigInteger.valueOf(spec.getCofactor()).equals(cofactor);
        }
    }
}
