package fastrandom.cipher;

import java.util.Arrays;

/**
 * GCM decryption's plaintext, released only once the tag is verified: on
 * BouncyCastle, the plaintext its updates gave (on the JDK path the
 * plaintext comes at the final, from the ciphertext {@link Replay} keeps);
 * and, on both paths, what each update would have released on stock (its
 * range of the plaintext), so that the ranges whose update raised in
 * jruby-openssl after it returned are never released ({@link
 * UpdateCalls}): stock's caller lost them with the exception.
 *
 * <p>At most {@link Replay#LIMIT} bytes, within the {@link MemoryBudget};
 * past either the message streams as stock's ({@link #hold} says so).
 */
final class HeldPlaintext {
    private static final long[] NO_RANGES = new long[0];

    /** BouncyCastle's plaintext so far (its updates', the dropped ranges taken out). */
    private final Buffer plaintext = new Buffer();
    /** What the last update would have released: the plaintext's range [from, to). */
    private long lastFrom, lastTo;
    /** Ranges never to be released (start, end), in order. */
    private long[] dropped = NO_RANGES;
    private int droppedCount;

    /** Bytes held (on BouncyCastle). */
    int length() {
        return plaintext.length;
    }

    /** An update would have released (on stock: returned) plaintext {@code from} to {@code to}. */
    void released(long from, long to) {
        lastFrom = from;
        lastTo = to;
    }

    /**
     * Holds {@code out}, BouncyCastle's plaintext from an update (zeroed
     * then); false, holding nothing of it, past the limit or the budget.
     */
    boolean hold(byte[] out) {
        if ((long) plaintext.length + out.length > Replay.LIMIT) return false;
        long from = plaintext.length;
        if (!plaintext.append(out, 0, out.length, 0, 0)) return false;
        released(from, plaintext.length);
        Arrays.fill(out, (byte) 0);
        return true;
    }

    /** Whether {@link #hold} of {@code len} more bytes may fail now (the limit, or the budget as it stands). */
    boolean mayNotHold(int len) {
        return (long) plaintext.length + len > Replay.LIMIT || plaintext.mayBeRefused(len, 0);
    }

    /** All the plaintext held (a copy), which is forgotten. */
    byte[] takeAll() {
        byte[] all = plaintext.copy();
        plaintext.clear();
        return all;
    }

    /**
     * The last update raised in jruby-openssl after it returned: its range
     * is never released ({@code onBouncyCastle}: it is taken out of the
     * held plaintext; on the JDK path, remembered for the final).
     */
    void dropLast(boolean onBouncyCastle) {
        if (lastTo == lastFrom) return;
        if (onBouncyCastle) {
            if (lastTo == plaintext.length) plaintext.truncate((int) (lastTo - lastFrom));
        } else {
            if (droppedCount * 2 == dropped.length) dropped = Arrays.copyOf(dropped, Math.max(4, dropped.length * 2));
            dropped[droppedCount * 2] = lastFrom;
            dropped[droppedCount * 2 + 1] = lastTo;
            droppedCount++;
        }
        lastFrom = lastTo = 0;
    }

    /** {@code all} (the plaintext from the message's start, zeroed then) without the ranges never to be released. */
    byte[] withoutDropped(byte[] all) {
        if (droppedCount == 0 || all == null) return all;
        byte[] kept = new byte[all.length];
        int length = 0;
        long at = 0;
        for (int i = 0; i < droppedCount; i++) {
            int from = (int) Math.min(dropped[2 * i], all.length);
            int to = (int) Math.min(dropped[2 * i + 1], all.length);
            if (from > at) {
                System.arraycopy(all, (int) at, kept, length, (int) (from - at));
                length += (int) (from - at);
            }
            at = Math.max(at, to);
        }
        if (at < all.length) {
            System.arraycopy(all, (int) at, kept, length, (int) (all.length - at));
            length += (int) (all.length - at);
        }
        Arrays.fill(all, (byte) 0);
        byte[] out = Arrays.copyOf(kept, length);
        Arrays.fill(kept, (byte) 0);
        return out;
    }

    /** Forgets everything (zeroed, the budget's bytes back). */
    void clear() {
        plaintext.clear();
        droppedCount = 0;
        lastFrom = lastTo = 0;
    }
}
