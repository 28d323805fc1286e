package fastrandom.cipher;

import java.util.Arrays;

/**
 * Bytes a message holds (GCM's AAD and data, the plaintext BouncyCastle
 * gave before the tag is checked), zeroed when the message is done. Its
 * bytes past the first {@link #UNCOUNTED} are counted to the {@link
 * MemoryBudget}, each once, as they come (a decryption's tag not counted);
 * a buffer that cannot count them takes none of them, and says so.
 *
 * <p>Where they are: one array up to {@link #FIRST}, grown by doubling (a
 * message up to 128 KiB is one array, which the JDK's final takes as it
 * is); past it, further arrays of up to {@link #PIECE}, never copied. So
 * past its first array a message's heap is about what the budget counts
 * (its first array may be up to twice what it holds, at most 128 KiB), and
 * no array is large enough for G1 to give it whole regions. A message
 * the JDK's final takes whole is put in one array then ({@link
 * #contiguous}).
 *
 * <p>Each thread keeps two spare first arrays for its next messages (a
 * message's copy then costs no allocation): one up to {@link #UNCOUNTED},
 * and one up to {@link #FIRST}.
 */
final class Buffer {
    private static final byte[] NONE = new byte[0];
    /** Bytes of each buffer the budget does not count: a cookie's or an API payload's message; three buffers per open Cipher. */
    static final int UNCOUNTED = 1 << 14;
    /** The largest first array, and the largest a thread keeps. */
    private static final int FIRST = 1 << 17;
    /** The largest later array: under half of G1's smallest region (1 MiB), so that none is a humongous object. */
    private static final int PIECE = 1 << 18;
    /** The thread's spares: [0] up to UNCOUNTED, [1] up to FIRST. */
    private static final ThreadLocal<byte[][]> SPARE = ThreadLocal.withInitial(() -> new byte[2][]);

    /** A run of bytes taken from a buffer: a cipher's update. */
    interface Reader {
        /** Takes {@code length} bytes of {@code bytes} from {@code offset}. */
        void read(byte[] bytes, int offset, int length);
    }

    /** The first bytes: all of them while there are no pieces, else the full first array. */
    private byte[] first = NONE;
    /** The arrays after the first, each full but the last; the first {@link #pieceCount} are in use. */
    private byte[][] pieces;
    private int pieceCount;
    /** Bytes in the last piece. */
    private int lastFill;
    int length;
    /** The budget's count of these bytes (null: none counted). */
    private MemoryBudget.Grant grant;

    /**
     * Appends, leaving {@code room} spare bytes if an array has to be made;
     * {@code tag}: how many of the last bytes may be a decryption's tag,
     * which the budget does not count. False, with nothing appended, when
     * the budget has not room for the bytes it counts.
     */
    boolean append(byte[] src, int offset, int len, int room, int tag) {
        if (!count((long) length + len - tag)) return false;
        int end = offset + len;
        if (pieceCount == 0) {
            if (first.length - length < len && first.length < FIRST) growFirst((long) length + len + room);
            int n = Math.min(len, first.length - length);
            System.arraycopy(src, offset, first, length, n);
            length += n;
            offset += n;
        }
        while (offset < end) {
            if (pieceCount == 0 || lastFill == pieces[pieceCount - 1].length) addPiece((long) end - offset + room);
            byte[] piece = pieces[pieceCount - 1];
            int n = Math.min(end - offset, piece.length - lastFill);
            System.arraycopy(src, offset, piece, lastFill, n);
            lastFill += n;
            length += n;
            offset += n;
        }
        return true;
    }

    /**
     * Counts to the budget the bytes up to {@code end} past the uncounted
     * ones that it has not counted yet; false, counting nothing, if it has
     * not room for them. Under the buffer's lock: a Cipher misused from two
     * threads must not make the budget's count drift.
     */
    private boolean count(long end) {
        long past = end - UNCOUNTED;
        if (past <= 0) return true; // a small message's path: no lock, no shared count
        synchronized (this) {
            long more = past - MemoryBudget.counted(grant);
            if (more <= 0) return true;
            MemoryBudget.Grant taken = MemoryBudget.take(this, grant, more);
            if (taken == null) return false;
            grant = taken;
        }
        return true;
    }

    /** Forgets its last {@code count} bytes (zeroed), and gives back their count. */
    void truncate(int count) {
        for (int left = count; left > 0; ) {
            if (pieceCount == 0) {
                Arrays.fill(first, length - left, length, (byte) 0);
                length -= left;
                break;
            }
            int n = Math.min(left, lastFill);
            Arrays.fill(pieces[pieceCount - 1], lastFill - n, lastFill, (byte) 0);
            lastFill -= n;
            length -= n;
            left -= n;
            if (lastFill == 0) {
                pieces[--pieceCount] = null;
                if (pieceCount > 0) lastFill = pieces[pieceCount - 1].length;
            }
        }
        synchronized (this) {
            long extra = MemoryBudget.counted(grant) - Math.max(0, length - UNCOUNTED);
            if (extra > 0) MemoryBudget.giveBack(grant, extra);
        }
    }

    /**
     * Whether appending {@code more} bytes (the last {@code tag} of them
     * perhaps a tag) could be refused now: the budget has not the bytes it
     * would count. Another thread's message may take them in between: a
     * guess, for callers that must say in advance what an update may give.
     */
    boolean mayBeRefused(long more, int tag) {
        long past = length + more - tag - UNCOUNTED;
        if (past <= 0) return false;
        synchronized (this) {
            return !MemoryBudget.hasRoom(past - MemoryBudget.counted(grant));
        }
    }

    /** The first array grown to take {@code size} bytes, up to {@link #FIRST}: the thread's spare, or a copy twice as long at least. */
    private void growFirst(long size) {
        int wanted = (int) Math.min(size, FIRST);
        if (first == NONE && takeSpare(wanted)) return;
        int newSize = Math.min(FIRST, Math.max(Integer.highestOneBit(Math.max(64, wanted) * 2 - 1), 2 * first.length));
        byte[] grown = Arrays.copyOf(first, newSize);
        Arrays.fill(first, 0, length, (byte) 0); // no copy of the message left behind
        first = grown;
    }

    /** Takes the thread's spare array of at least {@code size} bytes, if it has one. */
    private boolean takeSpare(int size) {
        byte[][] spare = SPARE.get();
        int at = size <= UNCOUNTED ? 0 : 1;
        byte[] array = spare[at];
        if (array == null || array.length < size) return false;
        spare[at] = null;
        first = array;
        return true;
    }

    /**
     * A new last array for {@code size} more bytes: at least a quarter of
     * the bytes so far (few arrays for many small appends), at most {@link
     * #PIECE}.
     */
    private void addPiece(long size) {
        int pieceSize = (int) Math.min(PIECE, Math.max(size, length >>> 2));
        if (pieces == null) pieces = new byte[8][];
        else if (pieceCount == pieces.length) pieces = Arrays.copyOf(pieces, 2 * pieceCount);
        pieces[pieceCount++] = new byte[pieceSize];
        lastFill = 0;
    }

    /**
     * The bytes in one array, from its start (it may be longer): the first
     * array, or, once there are more, a copy of them all of the exact
     * length, which the buffer keeps in their place (zeroed): for a JDK
     * call that takes its input whole.
     */
    byte[] contiguous() {
        if (pieceCount == 0) return first;
        byte[] all = copy();
        forgetArrays();
        first = all;
        return all;
    }

    /** A copy of the bytes, of their exact length. */
    byte[] copy() {
        byte[] all = new byte[length];
        int at = pieceCount == 0 ? length : first.length;
        System.arraycopy(first, 0, all, 0, at);
        for (int i = 0; i < pieceCount; i++) {
            int n = i == pieceCount - 1 ? lastFill : pieces[i].length;
            System.arraycopy(pieces[i], 0, all, at, n);
            at += n;
        }
        return all;
    }

    /** Gives {@code reader} the first {@code count} bytes, an array's run at a time (no copy of them all). */
    void read(Reader reader, int count) {
        int firstRun = Math.min(count, pieceCount == 0 ? length : first.length);
        if (firstRun > 0) reader.read(first, 0, firstRun);
        int left = count - firstRun;
        for (int i = 0; i < pieceCount && left > 0; i++) {
            int n = Math.min(left, i == pieceCount - 1 ? lastFill : pieces[i].length);
            reader.read(pieces[i], 0, n);
            left -= n;
        }
    }

    /**
     * Forgets the bytes: zeroed, the first array kept as the thread's spare
     * if it is worth keeping, the budget's count back. It must work
     * whatever a Cipher misused from two threads left (a length past its
     * array, a piece gone): it ends every message, and the next init would
     * fail too.
     */
    void clear() {
        if (grant != null) {
            synchronized (this) {
                MemoryBudget.giveBackAll(grant);
                grant = null;
            }
        }
        if (first == NONE && length == 0 && pieceCount == 0) return;
        forgetArrays();
        length = 0;
    }

    /** Zeroes the bytes and lets go of the arrays (the first to the thread's spares, if it is worth keeping); the length stays. */
    private void forgetArrays() {
        byte[] array = first;
        Arrays.fill(array, 0, pieceCount == 0 ? Math.max(0, Math.min(length, array.length)) : array.length, (byte) 0);
        if (pieces != null) {
            for (int i = 0; i < pieces.length; i++) {
                if (pieces[i] == null) continue;
                Arrays.fill(pieces[i], (byte) 0); // whole: a few bytes past the last one's fill, for a message past 128 KiB
                pieces[i] = null;
            }
        }
        pieceCount = 0;
        lastFill = 0;
        first = NONE;
        if (array.length <= FIRST) {
            byte[][] spare = SPARE.get();
            int at = array.length <= UNCOUNTED ? 0 : 1;
            if (spare[at] == null || spare[at].length < array.length) spare[at] = array;
        }
    }
}
