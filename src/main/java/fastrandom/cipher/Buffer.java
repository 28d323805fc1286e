package fastrandom.cipher;

import java.util.Arrays;

/**
 * Bytes kept for a message (its AAD, its data for a replay, GCM
 * decryption's ciphertext until the tag is verified), in one array that
 * grows as they come: the thread's spare one when it is big enough (a
 * message's copy then costs no allocation), zeroed when the message is
 * done and, if small, given back to the thread. {@link AesCipher} keeps at
 * most {@link AesCipher#REPLAY_LIMIT} bytes in one.
 */
final class Buffer {
    private static final byte[] NONE = new byte[0];
    /** The largest array a thread keeps between messages. */
    private static final int KEPT = 1 << 17;
    private static final ThreadLocal<byte[][]> SPARE = ThreadLocal.withInitial(() -> new byte[1][]);

    byte[] bytes = NONE;
    int length;

    /** Appends, leaving {@code room} spare bytes if the array has to grow. */
    void append(byte[] src, int offset, int len, int room) {
        if (bytes.length - length < len) grow((long) length + len + room);
        System.arraycopy(src, offset, bytes, length, len);
        length += len;
    }

    /** Forgets its last {@code count} bytes (zeroed). */
    void truncate(int count) {
        Arrays.fill(bytes, length - count, length, (byte) 0);
        length -= count;
    }

    private void grow(long size) {
        if (size > Integer.MAX_VALUE - 8) throw new IllegalStateException("a buffer of " + size + " bytes");
        if (bytes == NONE) {
            byte[][] spare = SPARE.get();
            if (spare[0] != null && spare[0].length >= size) {
                bytes = spare[0];
                spare[0] = null;
                return;
            }
        }
        byte[] old = bytes;
        bytes = Arrays.copyOf(old, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(size, 2L * old.length)));
        Arrays.fill(old, 0, length, (byte) 0); // no copy of the message left behind
    }

    /** Forgets the bytes: zeroed, the array goes back to the thread if it is worth keeping. */
    void clear() {
        if (bytes == NONE) return;
        Arrays.fill(bytes, 0, length, (byte) 0);
        if (bytes.length <= KEPT) {
            byte[][] spare = SPARE.get();
            if (spare[0] == null || spare[0].length < bytes.length) spare[0] = bytes;
        }
        bytes = NONE;
        length = 0;
    }
}
