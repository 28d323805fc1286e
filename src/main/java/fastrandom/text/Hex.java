package fastrandom.text;

/** Lowercase hexadecimal, as Ruby's {@code unpack1("H*")} writes it. */
public final class Hex {
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private Hex() {}

    /** Two ASCII digits per input byte. */
    public static byte[] encode(byte[] in, int offset, int length) {
        byte[] out = new byte[length * 2];
        for (int i = 0; i < length; i++) {
            int b = in[offset + i];
            out[2 * i] = DIGITS[(b >>> 4) & 0xf];
            out[2 * i + 1] = DIGITS[b & 0xf];
        }
        return out;
    }

    /** Writes {@code digits} hex digits of {@code value} (most significant first) at {@code at}. */
    public static void putDigits(byte[] out, int at, long value, int digits) {
        for (int i = digits - 1; i >= 0; i--) {
            out[at + i] = DIGITS[(int) (value & 0xf)];
            value >>>= 4;
        }
    }
}
