package fastrandom.ec.jca;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * The DER form of an ECDSA signature, {@code SEQUENCE { r INTEGER, s INTEGER }},
 * read strictly, as BouncyCastle's StandardDSAEncoding reads it for its
 * ECDSA signatures (and the JDK's for its own): a signature is taken only
 * when its bytes are exactly the DER encoding of two integers in [0, n).
 * Anything else (BER lengths, leading zeros, negative numbers, trailing
 * bytes, values not below the order) is refused, so what verifies here is
 * what verifies there.
 */
final class DsaEncoding {
    private DsaEncoding() {}

    /** r and s, or IllegalArgumentException when the bytes are not such a signature. */
    static BigInteger[] decode(BigInteger order, byte[] der) {
        if (der.length < 2 || der[0] != 0x30) throw malformed();
        int[] at = {1};
        int length = length(der, at);
        if (at[0] + length != der.length) throw malformed();
        BigInteger r = integer(der, at);
        BigInteger s = integer(der, at);
        if (at[0] != der.length) throw malformed();
        if (r.signum() < 0 || s.signum() < 0 || r.compareTo(order) >= 0 || s.compareTo(order) >= 0) {
            throw new IllegalArgumentException("Value out of range");
        }
        // Only the one DER encoding of (r, s) is a signature.
        if (!Arrays.equals(encode(r, s), der)) throw malformed();
        return new BigInteger[] {r, s};
    }

    /** The DER encoding of (r, s), both non-negative. */
    static byte[] encode(BigInteger r, BigInteger s) {
        byte[] rBytes = r.toByteArray();
        byte[] sBytes = s.toByteArray();
        int body = 1 + lengthOfLength(rBytes.length) + rBytes.length + 1 + lengthOfLength(sBytes.length) + sBytes.length;
        byte[] out = new byte[1 + lengthOfLength(body) + body];
        int at = 0;
        out[at++] = 0x30;
        at = putLength(out, at, body);
        for (byte[] value : new byte[][] {rBytes, sBytes}) {
            out[at++] = 0x02;
            at = putLength(out, at, value.length);
            System.arraycopy(value, 0, out, at, value.length);
            at += value.length;
        }
        return out;
    }

    private static BigInteger integer(byte[] der, int[] at) {
        if (at[0] >= der.length || der[at[0]] != 0x02) throw malformed();
        at[0]++;
        int length = length(der, at);
        if (length == 0 || at[0] + length > der.length) throw malformed();
        BigInteger value = new BigInteger(Arrays.copyOfRange(der, at[0], at[0] + length));
        at[0] += length;
        return value;
    }

    /** A definite length (short or long form); the form's minimality is checked by re-encoding. */
    private static int length(byte[] der, int[] at) {
        if (at[0] >= der.length) throw malformed();
        int first = der[at[0]++] & 0xff;
        if (first < 0x80) return first;
        int count = first & 0x7f;
        if (count == 0 || count > 3 || at[0] + count > der.length) throw malformed();
        int length = 0;
        for (int i = 0; i < count; i++) length = (length << 8) | (der[at[0]++] & 0xff);
        return length;
    }

    /** The bytes a length field takes: 1 (short form), or 1 + the bytes of the length (long form). */
    private static int lengthOfLength(int length) {
        if (length < 0x80) return 1;
        if (length < 0x100) return 2;
        if (length < 0x10000) return 3;
        return 4;
    }

    private static int putLength(byte[] out, int at, int length) {
        int extra = lengthOfLength(length) - 1;
        if (extra == 0) {
            out[at++] = (byte) length;
            return at;
        }
        out[at++] = (byte) (0x80 | extra);
        for (int i = extra - 1; i >= 0; i--) out[at++] = (byte) (length >>> (8 * i));
        return at;
    }

    private static IllegalArgumentException malformed() {
        return new IllegalArgumentException("Malformed signature");
    }
}
