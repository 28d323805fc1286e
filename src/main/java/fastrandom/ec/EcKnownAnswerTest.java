package fastrandom.ec;

import java.math.BigInteger;
import java.util.Arrays;

import fastrandom.jni.EcKey;

/**
 * The known-answer test the EC engine must pass before it is used, on
 * P-256 with two fixed keys (private values: SHA-256 of a fixed text each;
 * they protect nothing) and results made by MRI's OpenSSL: a signature of a
 * fixed digest must verify and one with a bit changed must not; a
 * signature made here must verify; both ECDH secrets must be MRI's.
 */
final class EcKnownAnswerTest {
    private static final int P256 = 415;
    private static final String D1 = "804dfc0d839e153a68ae28d657b24b0670ba904243dd4f0d71df22871be60177";
    private static final String Q1X = "adba314c904de8fb47555dac9ceefa369b7c7bc75800de7585d677e58fe8ba49";
    private static final String Q1Y = "61c7c59772c559bdd2a7eab2671bba429b5ae27f61b3afc72c129838a81ff3c2";
    private static final String D2 = "9aa35bbd53486b5ec933ad2a19a90cf0fd8b1ebabb61a781730571b610a73e9c";
    private static final String Q2X = "4b354e17213324d6725871ae209f330c60cde5f307322afff12156ccd88e1d04";
    private static final String Q2Y = "459158efcc8f5162df89e0fd8756ef18d1ab630d017a04f3bc8888be38813a52";
    private static final String DIGEST = "0984fd67edde49f788f2afa698a07e1ae8c4b4203a32159da37a81e44a9958eb";
    private static final String R = "26792f0e289fd37401af8abc2e37705a9289b530076495a011adec8e71bfbce2";
    private static final String S = "4d32d478c00ffd2513b996b67f5cf0cfeb0dc0f8913eaa9a394a1fbea1658d82";
    private static final String SECRET = "d24b66b3100479929aa1b4fe3cfb100d3a19df007f4f80683be3c69f82df9048";

    private EcKnownAnswerTest() {}

    static String run() {
        EcKey key1 = null;
        EcKey key2 = null;
        EcKey public1 = null;
        try {
            key1 = EcKey.newPrivateKey(P256, hex(D1), null, null);
            key2 = EcKey.newPrivateKey(P256, hex(D2), hex(Q2X), hex(Q2Y));
            public1 = EcKey.newPublicKey(P256, hex(Q1X), hex(Q1Y));
            byte[] digest = hex(DIGEST).toByteArray();
            digest = Arrays.copyOfRange(digest, digest.length - 32, digest.length);
            if (!public1.verify(null, digest, 0, 32, true, hex(R), hex(S))) return "MRI's signature did not verify";
            if (public1.verify(null, digest, 0, 32, true, hex(R), hex(S).flipBit(7))) return "a wrong signature verified";
            BigInteger[] rs = derIntegers(key1.sign(null, digest, 0, 32, true));
            if (rs == null || !public1.verify(null, digest, 0, 32, true, rs[0], rs[1])) return "our signature did not verify";
            byte[] secret = hex(SECRET).toByteArray();
            secret = Arrays.copyOfRange(secret, secret.length - 32, secret.length);
            if (!Arrays.equals(key1.derive(hex(Q2X), hex(Q2Y)), secret)) return "wrong ECDH secret";
            if (!Arrays.equals(key2.derive(hex(Q1X), hex(Q1Y)), secret)) return "wrong ECDH secret (the other way)";
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "failed: " + e;
        } finally {
            for (EcKey key : new EcKey[] {key1, key2, public1}) {
                if (key != null) key.close();
            }
        }
    }

    /** r and s of a P-256 signature, SEQUENCE { INTEGER, INTEGER } (short lengths only), or null. */
    private static BigInteger[] derIntegers(byte[] der) {
        if (der.length < 8 || der[0] != 0x30 || der[1] != der.length - 2 || der[2] != 0x02) return null;
        int rLength = der[3];
        int at = 4 + rLength;
        if (at + 2 > der.length || der[at] != 0x02 || at + 2 + der[at + 1] != der.length) return null;
        BigInteger r = new BigInteger(1, Arrays.copyOfRange(der, 4, at));
        BigInteger s = new BigInteger(1, Arrays.copyOfRange(der, at + 2, der.length));
        return new BigInteger[] {r, s};
    }

    private static BigInteger hex(String digits) {
        return new BigInteger(digits, 16);
    }
}
