package fastrandom.text;

import java.time.Instant;

import fastrandom.random.BufferedRandom;

/**
 * RFC 9562 UUIDs in their 36-character text form, as US-ASCII bytes, laid
 * out exactly as Ruby's {@code Random::Formatter#uuid} and {@code #uuid_v7} do.
 */
public final class Uuids {
    public static final int TEXT_LENGTH = 36;

    private Uuids() {}

    /** Version 4: 122 random bits. */
    public static byte[] v4(BufferedRandom random) {
        long high = random.nextLong();
        long low = random.nextLong();
        high = (high & 0xffff_ffff_ffff_0fffL) | 0x0000_0000_0000_4000L; // version 4
        low = (low & 0x3fff_ffff_ffff_ffffL) | 0x8000_0000_0000_0000L;   // variant 10
        return format(high, low);
    }

    /**
     * Version 7: 48-bit Unix time in milliseconds, then {@code extraTimestampBits}
     * (0..12) bits of sub-millisecond time in rand_a, the rest random, as MRI does.
     */
    public static byte[] v7(BufferedRandom random, int extraTimestampBits) {
        if (extraTimestampBits < 0 || extraTimestampBits > 12) {
            throw new IllegalArgumentException("extra_timestamp_bits must be in 0..12");
        }
        long millis;
        long randA;
        long randomHigh = random.nextLong();
        if (extraTimestampBits == 0) {
            millis = System.currentTimeMillis();
            randA = randomHigh & 0xfff;
        } else {
            Instant now = Instant.now();
            millis = now.toEpochMilli();
            long nanosInMilli = now.getNano() % 1_000_000;
            int randomBits = 12 - extraTimestampBits;
            long fraction = nanosInMilli * (1L << extraTimestampBits) / 1_000_000;
            randA = (fraction << randomBits) | (randomHigh & ((1L << randomBits) - 1));
        }
        long high = ((millis & 0xffff_ffff_ffffL) << 16) | 0x7000L | randA;
        long low = (random.nextLong() & 0x3fff_ffff_ffff_ffffL) | 0x8000_0000_0000_0000L;
        return format(high, low);
    }

    /** xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx from the 128 bits high:low. */
    public static byte[] format(long high, long low) {
        byte[] out = new byte[TEXT_LENGTH];
        Hex.putDigits(out, 0, high >>> 32, 8);
        out[8] = '-';
        Hex.putDigits(out, 9, high >>> 16, 4);
        out[13] = '-';
        Hex.putDigits(out, 14, high, 4);
        out[18] = '-';
        Hex.putDigits(out, 19, low >>> 48, 4);
        out[23] = '-';
        Hex.putDigits(out, 24, low, 12);
        return out;
    }
}
