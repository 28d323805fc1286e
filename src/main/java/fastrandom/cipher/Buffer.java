package fastrandom.cipher;

import java.util.Arrays;

/**
 * Bytes a message holds (GCM's AAD, a decryption's ciphertext until the
 * JDK's final, the plaintext BouncyCastle gave before the tag is checked),
 * in one array that grows as they come: the thread's spare one when it is
 * big enough (a message's copy then costs no allocation), zeroed when the
 * message is done and, if small, given back to the thread. An array past
 * {@link #UNCOUNTED} is counted to the {@link MemoryBudget}; a buffer that
 * cannot get the bytes does not grow, and says so.
 */
final class Buffer {
    private static final byte[] NONE = new byte[0];
    /** The largest array a thread keeps between messages, and the largest one not counted to the budget. */
    static final int UNCOUNTED = 1 << 17;
    private static final ThreadLocal<byte[][]> SPARE = ThreadLocal.withInitial(() -> new byte[1][]);

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

    private boolean grow(long size) {
        if (size > Integer.MAX_VALUE - 8) return false;
        if (bytes == NONE) {
            byte[][] spare = SPARE.get();
            if (spare[0] != null && spare[0].length >= size) {
                bytes = spare[0];
                spare[0] = null;
                return true;
            }
        }
        // Doubling, or refused: growing by less would copy the message over and over near the budget's end.
        int newSize = capacity(Math.max(size, 2L * bytes.length));
        if (newSize > UNCOUNTED && !count(newSize)) return false;
        byte[] old = bytes;
        bytes = Arrays.copyOf(old, newSize);
        Arrays.fill(old, 0, length, (byte) 0); // no copy of the message left behind
        if (old.length > UNCOUNTED) MemoryBudget.giveBack(grant, old.length);
        return true;
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

    /** Counts {@code size} more bytes to this buffer, if the budget has them. */
    private boolean count(int size) {
        MemoryBudget.Grant more = MemoryBudget.take(this, grant, size);
        if (more == null) return false;
        grant = more;
        return true;
    }

    /** Forgets the bytes: zeroed, the array goes back to the thread if it is worth keeping, the budget's count back to it. */
    void clear() {
        if (bytes == NONE) return;
        Arrays.fill(bytes, 0, length, (byte) 0);
        if (bytes.length <= UNCOUNTED) {
            byte[][] spare = SPARE.get();
            if (spare[0] == null || spare[0].length < bytes.length) spare[0] = bytes;
        }
        bytes = NONE;
        length = 0;
        MemoryBudget.giveBackAll(grant);
        grant = null;
    }
}
