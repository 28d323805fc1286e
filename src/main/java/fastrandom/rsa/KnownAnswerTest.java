package fastrandom.rsa;

import java.math.BigInteger;
import java.security.spec.RSAPrivateCrtKeySpec;

/**
 * The known-answer test every RSA engine must pass before it is used: a
 * fixed 2048-bit key (generated once with {@code openssl genrsa 2048}; it
 * protects nothing), an input (a PKCS#1 v1.5 SHA-256 signature block) and
 * input^d mod n, computed with Ruby's Integer#pow and checked against MRI's
 * OpenSSL ({@code private_encrypt} with {@code NO_PADDING}).
 */
public final class KnownAnswerTest {
    private static final String N = "c0cb84c0dc997c09d37d7b76cdfb6a6b0314dd8b72eefacf14a3b0bd3dfb26eb"
            + "c64c1982377301f7e8bdb8167e745695c62ed1bb694650163c92686163bfb2ba"
            + "5d32c33734f8035377d8eeed6bfe76a6027f240e088f6f26e277cb5c471e9917"
            + "b8165dd644a0ceb64590aa287c5f12d5bd2630dea84c3da9b76a7ce338691f9a"
            + "236bd1c65b193569972222f7f635dfa61f241c86dfc0d569623885176e28fb37"
            + "ba5db2c4a40aea5de05a7b4a5c2bafc133e3bf71a73dfe9bcc8acb3750839a5e"
            + "2500ccb0c59ac7dce22549d1fd4fb33fdb687ecb3d5a3df11f565822545fcd7a"
            + "700aaca085470c0fe2d0898f02f04887ea8b8cef1f293a2729ea142bcf554201";
    private static final String E = "10001";
    private static final String D = "1ef9b3eb0ea6644ce9db5bd65332e53eab409375bfb210beeba87f11709f64f9"
            + "f5a2ad68840328da4d5d09f2274006d74a7fa437d1aab7dc52c00d2034980c9d"
            + "afb2a3b5bf7f677d66208706c3569f767da932c04474d31d72be5f808476b08f"
            + "2487076d911a2b0c12f232bc8d7af2fa3f491f09ef0d4cccf3489b27209d9733"
            + "73c04f55a90893fe2fdf38da56d22fde29bc762558f6370eb1f64e36e6da0dac"
            + "626539a266342aaa9c23b15831c90ec4992ab3355e87d4155cf37ad59f42b5ad"
            + "44f8cbb3e0b339e1a379b9f58975744166645b55567c8cebca7dd7aa7df876c2"
            + "18cdd5a97c8112221e26aa4b2855fbd17781a1b53e8ecdf2049ba8a0326fb549";
    private static final String P = "e03dc7b56ca9522cb439e3b9d464e1c1f4eddc4c7673ea6252b616546edf0e8f"
            + "8579222c44714de310893a5ab1bc6161165afb48695019e9a03bdaac32d6f910"
            + "91c7278d9dac8f5f3e46cb068dc3fa616320cfbfae130a881b550f7f479036c4"
            + "fe2042dd20298603a6d178ccfd65d0b0acec1c6fdd58b4e28154b07b84fe7eed";
    private static final String Q = "dc199a3a8bb296b830f3f8f0f28713a47fec51aa3c16ee6efc08f97c103f782a"
            + "1e9b8da0444eb8240b6fd234fd77ef939f902c28213f692edf2e28c3914c160a"
            + "6b82465cc7810af1bfa64c56eb5baff3280489f6b1103219e7881b0e029ce10e"
            + "2c26f6f061a95abe0cd5c8aff763330fbf60835ac4fe026bfebe4710627598e5";
    private static final String DP = "45fd22630eda3e4ab3a9c9d90b60bd51d3479655cb36dcb5f988d9a95abd8606"
            + "e7aaea2e94e22464359a0f3b9573ed94e6ec58b7be1f0127791a9562dfaf5727"
            + "83c87c20e8509ea32485e60252a71373e803aab3f1fa01747fcb69bdd9313ad6"
            + "fb5648684a0c8bc681ffa94b99df78665c628971a4cd760fa83c2da52fda5af5";
    private static final String DQ = "86002061dc835237b9b60fadc23a72bf0812fc75443841d9d8202ea455d00e7c"
            + "b63dc62ff8e6643dada8dab5e04b90d4b3a4b6fd87a06f8d55db687e088be62f"
            + "59dceab1b9d4dab0ec197708c42a02296c07b76735cdc272faff66595545e5cf"
            + "171a71e54fd027aae56d92cd6f3439f63071b607213ff481838a9d0160b06ff1";
    private static final String QINV = "1fd483312fd9bd1ea2ce2cdf694166966ffda5153a2d7b3427aff284a7a255f8"
            + "87949b8ea29937616fdb02c9b06524191762cec73a012c79d59a2efa954c4e79"
            + "227abdaa222aa8264347d90b5e9bed382cc50474983bdf68d227faaa3dd57bff"
            + "7eea0299d3fdada065c4faa3b2a6aea27ccaaf5bce18d64cda180a5ac088d141";
    private static final String INPUT = "1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
            + "fffffffffffffffffffff003031300d060960864801650304020105000420df6"
            + "2e93612079c9b4d0771acdb19b97e37b74850cf18aacfafd434d36192989e";
    private static final String OUTPUT = "3dcbe5885c2d216a0760fd5f6a50669e6691fe5a8d1855cc1da7c530466ad243"
            + "b21c363f73191686f7f045a7f06c006921c00e8dfe71602caf5aa2b9fc0e8c57"
            + "73fa00455235a89985aafa0b904ce3dc32d82cb510503b599f4036cd8deaa949"
            + "39e9035e1f89decc4b582227f7030c060da11803c06ffe2e66aaa78f36e1df6b"
            + "fcd4c2c366c95a41a2a8cc3a5c455713cd6224d7116efb2466cc6247e1caa67e"
            + "a74f24da57860b5048048bcee0018d5d9c3d5d328532770039b451c3653d0cc7"
            + "23ac9cdf07e1d1ba48e0dfed0c271198463adb030e6719802e2d83c6966a45ef"
            + "18f61408a57e7c573d1a1ba04b220b6da118c8b84c139c7901b5d3e76268de95";

    private KnownAnswerTest() {}

    /** The fixed key (its identity a fresh object). */
    static RsaPrivateKey key() {
        return new RsaPrivateKey(hex(N), hex(E), hex(D), hex(P), hex(Q), hex(DP), hex(DQ), hex(QINV), new Object());
    }

    /** The fixed key as the JCA takes it (for the checks through jruby-openssl's API at load). */
    public static RSAPrivateCrtKeySpec keySpec() {
        return new RSAPrivateCrtKeySpec(hex(N), hex(E), hex(D), hex(P), hex(Q), hex(DP), hex(DQ), hex(QINV));
    }

    /** The input: a PKCS#1 v1.5 SHA-256 signature block. */
    public static BigInteger input() {
        return hex(INPUT);
    }

    /** input^d mod n. */
    public static BigInteger output() {
        return hex(OUTPUT);
    }

    /**
     * The one-call PKCS#1 v1.5 signature path of {@code engine}: the input is
     * the signature block of a SHA-256 digest (its last 32 bytes), so signing
     * that digest must give the output, which must verify, and a signature
     * with one bit changed must not. Null when all pass, else what failed.
     */
    static String runPkcs1(OpenSslRsaEngine engine) {
        try {
            RsaPrivateKey key = key();
            byte[] block = input().toByteArray();
            byte[] digest = java.util.Arrays.copyOfRange(block, block.length - 32, block.length);
            int length = (key.modulus.bitLength() + 7) / 8;
            byte[] signature = engine.signPkcs1(key, fastrandom.jni.LibCrypto.Hash.SHA256, digest, 0, digest.length, true);
            if (!new BigInteger(1, signature).equals(output()) || signature.length != length) {
                return "wrong PKCS#1 v1.5 signature";
            }
            if (!engine.verifyPkcs1(key.modulus, key.publicExponent, fastrandom.jni.LibCrypto.Hash.SHA256,
                    digest, 0, digest.length, true, signature)) {
                return "a good PKCS#1 v1.5 signature did not verify";
            }
            signature[length / 2] ^= 1;
            if (engine.verifyPkcs1(key.modulus, key.publicExponent, fastrandom.jni.LibCrypto.Hash.SHA256,
                    digest, 0, digest.length, true, signature)) {
                return "a bad PKCS#1 v1.5 signature verified";
            }
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "PKCS#1 v1.5 failed: " + e;
        }
    }

    /**
     * Runs the test through {@code engine}: the private operation on the fixed
     * input (twice, the second time with whatever the engine cached), on 0, 1
     * and n-1; the public operation back; and a key with a corrupted CRT
     * exponent, which must give the right answer or an error, never a wrong
     * answer. Null when all pass, else what failed.
     */
    static String run(RsaEngine engine) {
        try {
            BigInteger n = hex(N);
            BigInteger e = hex(E);
            BigInteger d = hex(D);
            BigInteger p = hex(P);
            BigInteger q = hex(Q);
            BigInteger dP = hex(DP);
            BigInteger dQ = hex(DQ);
            BigInteger qInv = hex(QINV);
            BigInteger input = hex(INPUT);
            BigInteger expected = hex(OUTPUT);
            RsaPrivateKey key = new RsaPrivateKey(n, e, d, p, q, dP, dQ, qInv, new Object());
            for (int i = 0; i < 2; i++) {
                if (!engine.privateOperation(key, input).equals(expected)) return "wrong private-key result";
            }
            BigInteger nMinus1 = n.subtract(BigInteger.ONE);
            for (BigInteger fixed : new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, nMinus1}) {
                // 0^d = 0, 1^d = 1 and (-1)^d = -1 (d is odd).
                if (!engine.privateOperation(key, fixed).equals(fixed)) return "wrong private-key result for 0, 1 or n-1";
            }
            if (!engine.publicOperation(n, e, expected).equals(input)) return "wrong public-key result";
            if (!engine.publicOperation(n, e, nMinus1).equals(nMinus1)) return "wrong public-key result for n-1";

            RsaPrivateKey faulty = new RsaPrivateKey(n, e, d, p, q, dP.flipBit(1), dQ, qInv, new Object());
            try {
                if (!engine.privateOperation(faulty, input).equals(expected)) {
                    return "a key with a corrupted CRT exponent gave a wrong result";
                }
            } catch (RsaEngineException refused) {
                // refused by the public-exponent check: what we want
            }
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "failed: " + e;
        }
    }

    private static BigInteger hex(String digits) {
        return new BigInteger(digits, 16);
    }
}
