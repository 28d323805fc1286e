package fastrandom.ec;

import java.math.BigInteger;
import java.security.spec.ECField;
import java.security.spec.ECFieldFp;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Predicate;

/**
 * The curves the EC engine takes, by OpenSSL's name and number (its NID):
 * NIST P-256, P-384, P-521 and SEC 2's secp256k1, all of cofactor 1. A Java
 * key's curve is recognized by its domain parameters (field, a, b,
 * generator, order, cofactor), so a key with explicit parameters is
 * recognized as well as one that names its curve, whatever provider made
 * it. The parameters below are the standard ones (SEC 2, FIPS 186), as
 * OpenSSL's {@code EC::Group} prints them. Anything else stays on the
 * Java code.
 */
public enum EcCurve {
    P256("prime256v1", 415,
         "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
         "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
         "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
         "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
         "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
         "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"),
    P384("secp384r1", 715,
         "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
         "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffc",
         "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
         "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
         "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
         "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973"),
    P521("secp521r1", 716,
         "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
         "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc",
         "51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
         "00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
         "011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650",
         "01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409"),
    SECP256K1("secp256k1", 714,
         "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
         "0",
         "7",
         "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
         "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
         "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

    /** Recognized parameter objects (by identity), so each is compared once. */
    private static final Map<ECParameterSpec, EcCurve> RECOGNIZED = new WeakHashMap<>();

    private final String opensslName;
    private final int nid;
    private final BigInteger p;
    private final BigInteger a;
    private final BigInteger b;
    private final BigInteger gx;
    private final BigInteger gy;
    private final BigInteger order;

    EcCurve(String opensslName, int nid, String p, String a, String b, String gx, String gy, String order) {
        this.opensslName = opensslName;
        this.nid = nid;
        this.p = new BigInteger(p, 16);
        this.a = new BigInteger(a, 16);
        this.b = new BigInteger(b, 16);
        this.gx = new BigInteger(gx, 16);
        this.gy = new BigInteger(gy, 16);
        this.order = new BigInteger(order, 16);
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
        return order;
    }

    /** The length of a field element (a coordinate, an ECDH secret) in bytes. */
    public int fieldBytes() {
        return (p.bitLength() + 7) / 8;
    }

    /** The curve of these domain parameters, or null when it is none of ours. */
    public static EcCurve of(ECParameterSpec spec) {
        if (spec == null) return null;
        synchronized (RECOGNIZED) {
            if (RECOGNIZED.containsKey(spec)) return RECOGNIZED.get(spec);
        }
        EcCurve found = null;
        for (EcCurve curve : values()) {
            if (curve.matches(spec)) found = curve;
        }
        synchronized (RECOGNIZED) {
            RECOGNIZED.put(spec, found);
        }
        return found;
    }

    /**
     * Whether OpenSSL's code for this curve beats BouncyCastle's, which
     * jruby-openssl computes with; where it does not, the engine leaves
     * jruby-openssl's keys on that curve to BouncyCastle, so fast_random is
     * never slower than stock. OpenSSL 3.0 has dedicated code for P-256
     * (ecp_nistz256) and P-521 (ecp_nistp521) only; for P-384 and secp256k1
     * it runs its generic prime-field code, while BouncyCastle has
     * hand-written SecP384R1 and SecP256K1 arithmetic (measured 2026-11-24:
     * stock signs 3.3x faster on P-384 and about 2.7x on secp256k1). The
     * JDK's SunEC has no such code, so the JVM-wide provider takes all four.
     */
    public boolean beatsBouncyCastle() {
        return this == P256 || this == P521;
    }

    /** The curve of these domain parameters when {@code takes} accepts it, else null. */
    public static EcCurve of(ECParameterSpec spec, Predicate<EcCurve> takes) {
        EcCurve curve = of(spec);
        return curve != null && takes.test(curve) ? curve : null;
    }

    /** The curve of a jruby-openssl (BouncyCastle) key's parameters when the engine takes it from BouncyCastle's code, else null. */
    public static EcCurve ofBouncyCastleKey(ECParameterSpec spec) {
        return of(spec, EcCurve::beatsBouncyCastle);
    }

    /** Whether (x, y) lies on this curve (y^2 = x^3 + a x + b mod p, both coordinates below p). */
    public boolean contains(BigInteger x, BigInteger y) {
        if (x.signum() < 0 || y.signum() < 0 || x.compareTo(p) >= 0 || y.compareTo(p) >= 0) return false;
        BigInteger right = x.pow(3).add(a.multiply(x)).add(b).mod(p);
        return y.multiply(y).mod(p).equals(right);
    }

    private boolean matches(ECParameterSpec spec) {
        ECField field = spec.getCurve().getField();
        ECPoint g = spec.getGenerator();
        return field instanceof ECFieldFp && ((ECFieldFp) field).getP().equals(p)
                && spec.getCurve().getA().equals(a) && spec.getCurve().getB().equals(b)
                && g.getAffineX().equals(gx) && g.getAffineY().equals(gy)
                && spec.getOrder().equals(order) && spec.getCofactor() == 1;
    }
}
