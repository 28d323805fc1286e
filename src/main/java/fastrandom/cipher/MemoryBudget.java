package fastrandom.cipher;

import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One budget for the bytes all open GCM messages hold (of this class
 * loader: in practice the JVM's, as one jruby-openssl per JVM is the
 * rule): a sixteenth of the most heap the JVM will use ({@code
 * Runtime.maxMemory()}, about {@code -Xmx}): 8 MiB under {@code
 * -Xmx128m}, 128 MiB under 2 GiB.
 *
 * <p>What counts: each byte a {@link Buffer} holds past its first {@link
 * Buffer#UNCOUNTED} (16 KiB), once, as it comes: a message's AAD and its
 * data (an encryption's plaintext, a decryption's ciphertext, or its
 * plaintext on BouncyCastle), a decryption's tag not counted. A message's
 * first 16 KiB of each are not counted (a cookie, an API payload: counting
 * costs a lock, an allocation and a shared count a message); that is at
 * most 48 KiB an open Cipher, whose three buffers they are. So a
 * decryption holds its plaintext back while the bytes counted for all open
 * messages, its own with them, stay within the budget: alone, with AAD of
 * 16 KiB at most, up to the budget and 16 KiB of ciphertext. A buffer
 * that cannot count the bytes it is given takes none of them, and its
 * message goes on as stock's does ({@link AesCipher}: a decryption then
 * releases plaintext before the tag is checked, as stock and MRI always
 * do). Bytes go back when the message is done (final, a new init, a
 * refusal) or, for a Cipher dropped in the middle of a message, when the
 * garbage collector finds its buffer unreachable (a phantom reference,
 * polled at the next request).
 *
 * <p>Why a sixteenth: a held message costs the heap up to about three
 * times what it holds (at its final, the data kept, the array the JDK
 * takes it in and the output the final makes), so held messages stay
 * within about a fifth of the heap and the application keeps the rest;
 * and where it matters most, many large messages open at once in a small
 * heap, the live heap stays within the budget and 8 MiB of stock's (40 GCM
 * streams of 15 MiB each way under {@code -Xmx512m}: 71 MiB, stock 37;
 * test/cipher/aes_memory_test.rb).
 * A buffer's arrays are about what it holds ({@link Buffer}), so counting
 * bytes is counting heap.
 */
final class MemoryBudget {
    /** The budget, in bytes. */
    static final long BYTES = Math.min(Runtime.getRuntime().maxMemory(), 1L << 40) / 16;

    private static final AtomicLong HELD = new AtomicLong();
    private static final LongAdder REFUSED = new LongAdder();
    private static final ReferenceQueue<Buffer> COLLECTED = new ReferenceQueue<>();
    /** The grants of buffers holding counted bytes, kept reachable until given back. */
    private static final Set<Grant> GRANTS = ConcurrentHashMap.newKeySet();

    private MemoryBudget() {}

    /**
     * The bytes counted to one buffer, given back by it or when the garbage
     * collector finds it unreachable. Its buffer changes it only under the
     * buffer's own lock, so a Cipher misused from two threads cannot make
     * the count drift; once unreachable, nothing else changes it.
     */
    static final class Grant extends PhantomReference<Buffer> {
        private long bytes;

        private Grant(Buffer owner) {
            super(owner, COLLECTED);
        }
    }

    /** Whether the budget has {@code bytes} more free now. */
    static boolean hasRoom(long bytes) {
        giveBackCollected();
        return HELD.get() + bytes <= BYTES;
    }

    /** Bytes held now, by all open messages (those of Ciphers collected mid-message given back first). */
    static long held() {
        giveBackCollected();
        return HELD.get();
    }

    /** The bytes counted to {@code grant} (none for null). Under its buffer's lock. */
    static long counted(Grant grant) {
        return grant == null ? 0 : grant.bytes;
    }

    /** Requests refused because the budget was used (a message that went on as stock's asked once or twice). */
    static long refused() {
        return REFUSED.sum();
    }

    /**
     * Counts {@code bytes} more to {@code owner}'s grant (null: it has none
     * yet), if the budget has them. Returns the grant, or null when the
     * budget has no room (nothing counted then).
     */
    static Grant take(Buffer owner, Grant grant, long bytes) {
        giveBackCollected();
        long held;
        do {
            held = HELD.get();
            if (held + bytes > BYTES) {
                REFUSED.increment();
                return null;
            }
        } while (!HELD.compareAndSet(held, held + bytes));
        if (grant == null) {
            grant = new Grant(owner);
            GRANTS.add(grant);
        }
        grant.bytes += bytes; // under the owner's lock (Buffer), which also guards the grant
        return grant;
    }

    /** Gives back {@code bytes} of {@code grant}'s (bytes its buffer no longer holds). */
    static void giveBack(Grant grant, long bytes) {
        grant.bytes -= bytes;
        HELD.addAndGet(-bytes);
    }

    /** Gives back all of {@code grant}'s bytes (its buffer holds none now, and drops the grant); null: none. */
    static void giveBackAll(Grant grant) {
        if (grant == null || !GRANTS.remove(grant)) return;
        grant.clear();
        HELD.addAndGet(-grant.bytes);
        grant.bytes = 0;
    }

    /** Gives back the bytes of buffers the garbage collector found unreachable (messages never finished). */
    private static void giveBackCollected() {
        for (Reference<? extends Buffer> collected; (collected = COLLECTED.poll()) != null; ) {
            Grant grant = (Grant) collected;
            if (GRANTS.remove(grant)) HELD.addAndGet(-grant.bytes);
        }
    }
}
