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
        int newSize = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, 2L * bytes.length));
        if (newSize > UNCOUNTED && !count(newSize)) {
            if (size >= newSize) return false;
            newSize = (int) size; // room for what comes, if not for doubling
            if (newSize > UNCOUNTED && !count(newSize)) return false;
        }
        byte[] old = bytes;
        bytes = Arrays.copyOf(old, newSize);
        Arrays.fill(old, 0, length, (byte) 0); // no copy of the message left behind
        if (old.length > UNCOUNTED) MemoryBudget.giveBack(grant, old.length);
        return true;
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
