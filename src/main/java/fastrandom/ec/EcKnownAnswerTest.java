package fastrandom.ec;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

import fastrandom.jni.EcKey;
import fastrandom.jni.XdhKey;

/**
 * The known-answer test the EC engine must pass before it is used, on every
 * curve it serves ({@link EcCurve}: P-256, P-384, P-521, secp256k1), each
 * with two fixed keys (private values: SHA-256 (P-256) or SHA-512 (the
 * others, reduced mod n - 1, plus 1) of a fixed text each; they protect
 * nothing) and results made by MRI's OpenSSL: a signature of a fixed digest
 * must verify and one with a bit changed must not; a signature made here
 * must verify; both ECDH secrets (one from a key whose public point the
 * engine computes, one from a key given its point) must be MRI's; a key
 * OpenSSL generates must agree with a fixed key on their ECDH secret both
 * ways (so its public point is its private value's). A curve
 * that fails is left out of the engine ({@link OpenSslEcEngine#serves});
 * the others stay on it.
 */
public final class EcKnownAnswerTest {
    /** One curve's vectors (hex): two key pairs, MRI's signature (r, s) of the digest by key 1, their ECDH secret. */
    public static final class Vector {
        public final EcCurve curve;
        public final String digest;
        public final String d1;
        public final String q1x;
        public final String q1y;
        public final String d2;
        public final String q2x;
        public final String q2y;
        public final String r;
        public final String s;
        public final String secret;

        Vector(EcCurve curve, String digest, String d1, String q1x, String q1y, String d2, String q2x, String q2y,
               String r, String s, String secret) {
            this.curve = curve;
            this.digest = digest;
            this.d1 = d1;
            this.q1x = q1x;
            this.q1y = q1y;
            this.d2 = d2;
            this.q2x = q2x;
            this.q2y = q2y;
            this.r = r;
            this.s = s;
            this.secret = secret;
        }
    }

    /** SHA-256 of "fast_random EC known-answer test" (P-384, P-521, secp256k1). */
    private static final String DIGEST = "61221ff2ebe1a94f722b1222c289393d761759b74a8c1e630c2bbd5036b4ad19";

    private static final Vector[] VECTORS = {
        new Vector(EcCurve.P256, "0984fd67edde49f788f2afa698a07e1ae8c4b4203a32159da37a81e44a9958eb",
                "804dfc0d839e153a68ae28d657b24b0670ba904243dd4f0d71df22871be60177",
                "adba314c904de8fb47555dac9ceefa369b7c7bc75800de7585d677e58fe8ba49",
                "61c7c59772c559bdd2a7eab2671bba429b5ae27f61b3afc72c129838a81ff3c2",
                "9aa35bbd53486b5ec933ad2a19a90cf0fd8b1ebabb61a781730571b610a73e9c",
                "4b354e17213324d6725871ae209f330c60cde5f307322afff12156ccd88e1d04",
                "459158efcc8f5162df89e0fd8756ef18d1ab630d017a04f3bc8888be38813a52",
                "26792f0e289fd37401af8abc2e37705a9289b530076495a011adec8e71bfbce2",
                "4d32d478c00ffd2513b996b67f5cf0cfeb0dc0f8913eaa9a394a1fbea1658d82",
                "d24b66b3100479929aa1b4fe3cfb100d3a19df007f4f80683be3c69f82df9048"),
        new Vector(EcCurve.P384, DIGEST,
                "6883be10db96764f6a37fe6345bf74f6b68549ee448ced63d0d136893406c94460a667a397a1dba66371840a692d3661",
                "05d8e41b7692f47ec15c22066c639fe32161ef54d38440756590300ff1659d5ad860910aef7f7d1eeeae7f4693baa50e",
                "5d0332f75c339634c6e73939d2c3c705d4fc51fed26fe5ed712c1fbecd78dcf01d48fb117702483bc1a8e7005a14ce2d",
                "be7dbdccf12c8e7d17212c7baf0d1414748173da9471b61f0f1f176dfe435c5845866f6fad352e9f3a18bcaf653e543f",
                "f77127ecad7bd9920f4a303a465a262897d2cf6b75a627cc46e258ee518dad21da07152bd15efb8334db4da9aa4a81e1",
                "b4196564d9c531327d04aea29ba4a62f81bd0be3f0b1d23625ae4d99e3d9945cb33d523d6c47459bf81e53927d4f88fb",
                "d5fe272ef085a22be661a4a87370eb967b242883b2b50a5ce249626170caf933939c05f16c41acd5bdbe2d75f431a417",
                "30d8496143f21a7b155bbe25e627aeeade44c21b1081a8d30a5d78238ec535dd754989c9fcddba118dd0a769a983495a",
                "bbd847027db15b7ae35c90562ec1d312809ff7e0f775423fb9d5ba8e9834ba3f3df5097be93f559f285e97d0bac51bd7"),
        new Vector(EcCurve.P521, DIGEST,
                "3de40825c05de077cd6b92ed613495b643942d42ba692388c2d46cf386a9014015d7860cce3bf9ed23a05d9e03b4d790928fa9778169bae888af0c737ba06fae",
                "0032ec06ea8e4199abde71bb6766f43c2fec6731e06e4d4b802e74f2e852afd7e45fb1efffa8972cee71b71d46f9ecad5ad9c60f570e4901fc8837763d80e2852125",
                "01eda8db872e9f7f72358547d26e32a383428639256c415e9eb1e3dd66ace9a9392a30fac59cac061540d7a81975d1003a31b5fb3913d437da32e6c8349d2b38e94f",
                "a3fa4125828c648e5d3dd576828d59b826ee2983e14d9bab6fd6612f6a5a05c3ce777dc83271577796b57bad3549569814a719546e748f22165da41af1e390cd",
                "00039f71a0e5c2eb9f8eb88f564064f867f6ea0ba09d888d27efb3fc5eb6e6d9ee41a51c77396cb43ba3007319992d0f823bd74e47a22e48a9cd6277f4ad25559bc3",
                "015ead7409bfd24e602daed254fdab91614c6afb02c56b98c612e360c4d642cc50a45c27e4d23d36e04765f56b34107b6cde2832cdd091b09bbdfcddb77854539a4f",
                "91b3204400b00bc496fdd3595c9d714d6dc78f967b6427debf0503d750afdf0d50553fa53533ba8d13dbaf9b94ec688d9843600caa02e17df574076f65463c874f",
                "01f6b468bb526fde64b5f94916b303afa3fda4e5a9b62aebc3cc6039b1953ea6dcf2fb72b471f9eb5c3d21b3219e26196aa1ea4ed29efbd5a61b92efe3910b3fce4d",
                "019c7448cd28761e6f9d5b863c4ab03f55e474d87fe0b7ca7ff4821833b99afd430ceb18687ebfb90672da4d5f8ff35eed55bc56cfcfbbce4f046bdf791ed7dd03fa"),
        new Vector(EcCurve.SECP256K1, DIGEST,
                "8eb7389e660d8c7074d6a54ff31e1fd0ac1ea353b38a806813887e03586c93d8",
                "03c168fe676f4bed10e06f909bd1ee712972ee60d8573d3e7268874ce6958dd5",
                "dd8d7e36f2084892fcc37331f1fd1356a71e164de125c98d00b8f2682485feab",
                "5c21be1de451928a5d7deb405ba5d505ee6d80efb41cd9ebba5fae0cbb469775",
                "dd3033ab828ae74de7f7156505a8a39d22a94ed7ca53954d6a39de8e28caa7ee",
                "a573f800191b9ce68bb72645117a85d7de19c5adaae6ff6f91e7556064d33853",
                "b3017b853df8524d763d97da76b8968917f290841c430ddea556eee4a71de65f",
                "dbe6a1e241207cb172bd5df33975af546f170924167542bc674e2ab60b24618e",
                "68b52b076fa48077424e9c2129c55261b655e45d7d1316de762336d771d33415"),
    };

    private EcKnownAnswerTest() {}

    /** P-256's vectors (for the checks through jruby-openssl's API at load). */
    public static Vector p256() {
        for (Vector vector : VECTORS) {
            if (vector.curve == EcCurve.P256) return vector;
        }
        throw new IllegalStateException("no P-256 vectors");
    }

    /** Every curve of {@link EcCurve}, each mapped to null when it passes, else to why not. */
    static Map<EcCurve, String> run() {
        Map<EcCurve, String> results = new EnumMap<>(EcCurve.class);
        for (EcCurve curve : EcCurve.values()) results.put(curve, "no known-answer vectors");
        for (Vector vector : VECTORS) results.put(vector.curve, run(vector));
        return results;
    }

    private static String run(Vector v) {
        int nid = v.curve.nid();
        EcKey key1 = null;
        EcKey key2 = null;
        EcKey public1 = null;
        EcKey generated = null;
        try {
            key1 = EcKey.newPrivateKey(nid, hex(v.d1), null, null);
            key2 = EcKey.newPrivateKey(nid, hex(v.d2), hex(v.q2x), hex(v.q2y));
            public1 = EcKey.newPublicKey(nid, hex(v.q1x), hex(v.q1y));
            byte[] digest = fixed(v.digest, 32);
            if (!public1.verify(null, digest, 0, 32, true, hex(v.r), hex(v.s))) return "MRI's signature did not verify";
            if (public1.verify(null, digest, 0, 32, true, hex(v.r), hex(v.s).flipBit(7))) return "a wrong signature verified";
            BigInteger[] rs = derIntegers(key1.sign(null, digest, 0, 32, true));
            if (rs == null || !public1.verify(null, digest, 0, 32, true, rs[0], rs[1])) return "our signature did not verify";
            byte[] secret = fixed(v.secret, v.curve.fieldBytes());
            if (!Arrays.equals(key1.derive(hex(v.q2x), hex(v.q2y)), secret)) return "wrong ECDH secret";
            if (!Arrays.equals(key2.derive(hex(v.q1x), hex(v.q1y)), secret)) return "wrong ECDH secret (the other way)";
            // A generated key: its point is d G when ECDH with key2 agrees both ways.
            BigInteger[] values = EcKey.generate(nid, v.curve.fieldBytes());
            generated = EcKey.newPrivateKey(nid, values[0], values[1], values[2]);
            if (!Arrays.equals(generated.derive(hex(v.q2x), hex(v.q2y)), key2.derive(values[1], values[2]))) {
                return "a generated key's public point is not its private value's";
            }
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "failed: " + e;
        } finally {
            for (EcKey key : new EcKey[] {key1, key2, public1, generated}) {
                if (key != null) key.close();
            }
        }
    }

    /**
     * r and s of a DER signature, SEQUENCE { INTEGER, INTEGER } (short and
     * one-byte long lengths: up to P-521's), or null.
     */
    private static BigInteger[] derIntegers(byte[] der) {
        if (der == null || der.length < 8 || der[0] != 0x30) return null;
        int[] at = {1};
        int sequence = length(der, at);
        if (sequence != der.length - at[0]) return null;
        BigInteger[] values = new BigInteger[2];
        for (int i = 0; i < 2; i++) {
            if (at[0] >= der.length || der[at[0]++] != 0x02) return null;
            int n = length(der, at);
            if (n <= 0 || at[0] + n > der.length) return null;
            values[i] = new BigInteger(1, Arrays.copyOfRange(der, at[0], at[0] + n));
            at[0] += n;
        }
        return at[0] == der.length ? values : null;
    }

    /** A DER length at at[0] (moved past it), or -1. */
    private static int length(byte[] der, int[] at) {
        if (at[0] >= der.length) return -1;
        int first = der[at[0]++] & 0xff;
        if (first < 0x80) return first;
        if (first != 0x81 || at[0] >= der.length) return -1;
        return der[at[0]++] & 0xff;
    }

    /** RFC 7748's section 6 vectors: Alice's scalar, Bob's scalar, Bob's public u, the shared secret (hex). */
    private static final String[][] XDH_VECTORS = {
        {"77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
         "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
         "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
         "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"},
        {"9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b",
         "1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d6927c120bb5ee8972b0d3e21374c9c921b09d1b0366f10b65173992d",
         "3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609",
         "07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d"},
    };

    /**
     * XDH's known-answer test (RFC 7748's vector of the curve): Bob's public
     * u-coordinate computed from his scalar, and the secret both ways. Null
     * when it passes, else why not.
     */
    static String xdh(XdhKey.Type type) {
        String[] v = XDH_VECTORS[type.ordinal()];
        XdhKey alice = null;
        XdhKey bob = null;
        try {
            alice = XdhKey.newPrivateKey(type, fixed(v[0], v[0].length() / 2));
            bob = XdhKey.newPrivateKey(type, fixed(v[1], v[1].length() / 2));
            if (!Arrays.equals(bob.publicKey(), fixed(v[2], v[2].length() / 2))) return "wrong public key";
            if (!Arrays.equals(alice.derive(bob.publicKey()), fixed(v[3], v[3].length() / 2))) return "wrong shared secret";
            if (!Arrays.equals(bob.derive(alice.publicKey()), fixed(v[3], v[3].length() / 2))) return "wrong shared secret (the other way)";
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "failed: " + e;
        } finally {
            if (alice != null) alice.close();
            if (bob != null) bob.close();
        }
    }

    /** The hex value as exactly {@code length} big-endian bytes. */
    private static byte[] fixed(String digits, int length) {
        byte[] raw = hex(digits).toByteArray();
        byte[] out = new byte[length];
        int n = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - n, out, length - n, n);
        return out;
    }

    private static BigInteger hex(String digits) {
        return new BigInteger(digits, 16);
    }
}
