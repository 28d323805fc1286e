package fastrandom.rsa;

import java.math.BigInteger;
import java.util.Arrays;

/** What every engine, and the JCA services over them, do with RSA numbers before and after the exponentiation. */
public final class Operands {
    private Operands() {}

    /** Refuses an input outside [0, modulus). */
    static void checkInput(BigInteger input, BigInteger modulus) {
        if (input == null || input.signum() < 0 || input.compareTo(modulus) >= 0) {
            throw new IllegalArgumentException("RSA input must be at least 0 and less than the modulus");
        }
    }

    /** What a cached public key is matched on besides its modulus instance (see {@link fastrandom.support.KeyCache}). */
    static BigInteger[] publicValues(BigInteger publicExponent) {
        return new BigInteger[] {publicExponent};
    }

    /** The length of a modulus in bytes. */
    public static int byteLength(BigInteger modulus) {
        return (modulus.bitLength() + 7) / 8;
    }

    /** {@code value} big-endian, left-padded with zeros to {@code length} bytes ({@code 0 <= value < 256^length}). */
    public static byte[] fixedLength(BigInteger value, int length) {
        byte[] raw = value.toByteArray();
        byte[] out = new byte[length];
        int n = Math.min(raw.length, length);
        System.arraycopy(raw, raw.length - n, out, length - n, n);
        Arrays.fill(raw, (byte) 0);
        return out;
    }
}
