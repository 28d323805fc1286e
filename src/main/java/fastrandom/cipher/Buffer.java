package fastrandom.cipher;

import java.util.Arrays;

/**
 * Bytes a message holds (GCM's AAD and data, the plaintext BouncyCastle
 * gave before the tag is checked), in one array that grows as they come,
 * zeroed when the message is done. An array past {@link #UNCOUNTED} is
 * counted, whole, to the {@link MemoryBudget} while the buffer holds it; a
 * buffer that cannot get the bytes does not grow, and says so.
 *
 * <p>Each thread keeps two spare arrays for its next messages (a message's
 * copy then costs no allocation): one up to {@link #UNCOUNTED}, and one up
 * to {@link #KEPT}, counted again when a message takes it.
 */
final class Buffer {
    private static final byte[] NONE = new byte[0];
    /** The largest array not counted to the budget: a cookie's or an API payload's message; three per open Cipher at most. */
    static final int UNCOUNTED = 1 << 14;
    /** The largest array a thread keeps between messages. */
    private static final int KEPT = 1 << 17;
    /** The thread's spares: [0] up to UNCOUNTED, [1] up to KEPT. */
    private static final ThreadLocal<byte[][]> SPARE = ThreadLocal.withInitial(() -> new byte[2][]);

    byte[] bytes = NONE;
    int length;
    /** The budget's count of {@link #bytes}, when it is past {@link #UNCOUNTED}; else null. */
    private MemoryBudget.Grant grant;

    /**
     * Appends, leaving {@code room} spare bytes if the array has to grow;
     * false, with nothing appended, when the budget has no room for it.
     */
    boolean append(byte[] src, int offset, int len, int room) {
        if (bytes.length - length < len && !grow((long) length + len + room)) return false;
        System.arraycopy(src, offset, bytes, length, len);
        length += len;
        return true;
    }

    /** Forgets its last {@code count} bytes (zeroed). */
    void truncate(int count) {
        Arrays.fill(bytes, length - count, length, (byte) 0);
        length -= count;
    }

    /**
     * Whether appending {@code more} bytes (leaving {@code room}) could be
     * refused now: it needs the budget, which has not the bytes. Another
     * thread's message may take them in between: a guess, for callers that
     * must say in advance what an update may give.
     */
    boolean mayBeRefused(long more, int room) {
        if (bytes.length - length >= more) return false;
        long size = length + more + room;
        if (size > Integer.MAX_VALUE - 8) return true;
        int newSize = capacity(Math.max(size, 2L * bytes.length));
        return newSize > UNCOUNTED && !MemoryBudget.hasRoom(newSize);
    }

    private boolean grow(long size) {
        if (size > Integer.MAX_VALUE - 8) return false;
        if (bytes == NONE && takeSpare(size)) return true;
        // Doubling, or refused: growing by less would copy the message over and over near the budget's end.
        int newSize = capacity(Math.max(size, 2L * bytes.length));
        if (newSize <= UNCOUNTED) {
            replace(Arrays.copyOf(bytes, newSize));
            return true;
        }
        synchronized (this) { // a Cipher misused from two threads must not make the budget's count drift
            MemoryBudget.Grant more = MemoryBudget.take(this, grant, newSize);
            if (more == null) return false;
            grant = more;
            byte[] old = bytes;
            replace(Arrays.copyOf(old, newSize));
            if (old.length > UNCOUNTED) MemoryBudget.giveBack(grant, old.length);
        }
        return true;
    }

    /** Takes the thread's spare array of at least {@code size} bytes (counted, if it is the large one), if it has one. */
    private boolean takeSpare(long size) {
        byte[][] spare = SPARE.get();
        int at = size <= UNCOUNTED ? 0 : 1;
        byte[] array = spare[at];
        if (array == null || array.length < size) return false;
        if (at == 1) {
            synchronized (this) {
                MemoryBudget.Grant more = MemoryBudget.take(this, grant, array.length);
                if (more == null) return false;
                grant = more;
            }
        }
        spare[at] = null;
        bytes = array;
        return true;
    }

    /** Puts {@code grown} in place of the array, whose bytes are zeroed: no copy of the message left behind. */
    private void replace(byte[] grown) {
        Arrays.fill(bytes, 0, length, (byte) 0);
        bytes = grown;
    }

    /**
     * An array length of at least {@code size}: a power of two less 64
     * bytes, so that an array with its header fills whole regions of G1's
     * heap (a large array takes whole regions: one of 1 MiB and a few
     * bytes would take two), or the most an array can have.
     */
    private static int capacity(long size) {
        if (size > (1 << 30) - 64) return Integer.MAX_VALUE - 8;
        int powerOfTwo = Integer.highestOneBit((int) size + 63) << 1; // the least one of at least size + 64
        return powerOfTwo - 64;
    }

    /** Forgets the bytes: zeroed, the array kept as the thread's spare if it is worth keeping, the budget's count back. */
    void clear() {
        if (bytes == NONE) return;
        byte[] array = bytes;
        Arrays.fill(array, 0, length, (byte) 0);
        bytes = NONE;
        length = 0;
        if (grant != null) {
            synchronized (this) {
                MemoryBudget.giveBackAll(grant);
                grant = null;
            }
        }
        if (array.length <= KEPT) {
            byte[][] spare = SPARE.get();
            int at = array.length <= UNCOUNTED ? 0 : 1;
            if (spare[at] == null || spare[at].length < array.length) spare[at] = array;
        }
    }
}
