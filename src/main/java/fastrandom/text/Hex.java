package fastrandom.text;

/** Lowercase hexadecimal, as Ruby's {@code unpack1("H*")} writes it. */
public final class Hex {
    private static final byte[] DIGITS = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** Both digits of every byte value: PAIRS[2b] and PAIRS[2b + 1]. */
    private static final byte[] PAIRS = new byte[512];

    static {
        for (int b = 0; b < 256; b++) {
            PAIRS[2 * b] = DIGITS[b >>> 4];
            PAIRS[2 * b + 1] = DIGITS[b & 0xf];
        }
    }

    private Hex() {}

    /** Two ASCII digits per input byte. */
    public static byte[] encode(byte[] in, int offset, int length) {
        byte[] out = new byte[length * 2];
        for (int i = 0; i < length; i++) {
            int pair = 2 * (in[offset + i] & 0xff);
            out[2 * i] = PAIRS[pair];
            out[2 * i + 1] = PAIRS[pair + 1];
        }
        return out;
    }

    /**
     * Writes the low {@code digits} (even) hex digits of {@code value}, most
     * significant first, at {@code at}: a byte, so two digits, per step.
     */
    public static void putDigits(byte[] out, int at, long value, int digits) {
        for (int i = at + digits - 2; i >= at; i -= 2) {
            int pair = 2 * (int) (value & 0xff);
            out[i] = PAIRS[pair];
            out[i + 1] = PAIRS[pair + 1];
            value >>>= 8;
        }
    }
}
