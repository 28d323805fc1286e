package fastrandom.text;

import fastrandom.random.BufferedRandom;

/**
 * Uniform random strings over an alphabet of single-byte characters: each
 * character is an index drawn by rejection from as few random bits as
 * the alphabet needs, so every character is equally likely.
 */
public final class Alphabet {
    private final byte[] symbols;
    private final int bits;
    private final long mask;

    public Alphabet(byte[] symbols) {
        if (symbols.length == 0) throw new IllegalArgumentException("empty alphabet");
        this.symbols = symbols.clone();
        this.bits = symbols.length == 1 ? 0 : 32 - Integer.numberOfLeadingZeros(symbols.length - 1);
        this.mask = (1L << bits) - 1;
    }

    public int size() {
        return symbols.length;
    }

    public byte[] randomString(BufferedRandom random, int length) {
        byte[] out = new byte[length];
        if (bits == 0) {
            java.util.Arrays.fill(out, symbols[0]);
            return out;
        }
        int filled = 0;
        long pool = 0;
        int poolBits = 0;
        while (filled < length) {
            if (poolBits < bits) {
                pool = random.nextLong();
                poolBits = 64;
            }
            int index = (int) (pool & mask);
            pool >>>= bits;
            poolBits -= bits;
            if (index < symbols.length) out[filled++] = symbols[index];
        }
        return out;
    }
}
