package fastrandom.cipher;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;

import javax.crypto.Cipher;

/**
 * What a GCM message keeps so that BouncyCastle can be given it again: its
 * AAD, and its data. A decryption's ciphertext is kept until the final,
 * where the JDK takes it whole (and where a JDK failure or a wrong tag
 * hands it to BouncyCastle). An encryption's plaintext is kept because
 * SunJCE refuses a GCM message past 2^31 - 1 bytes, a JDK call may fail,
 * and BouncyCastle can only go on with a message given from its start.
 * CBC and CTR keep one block, on the JDK path ({@link
 * JdkMessage#resumeOnBouncyCastle}).
 *
 * <p>A message keeps at most {@link #LIMIT} bytes of data, a decryption's
 * tag not counted (given inline at the end of the data, or by {@code
 * auth_tag=}, it is the same message), and only what the {@link
 * MemoryBudget} has room for: past either, it goes on on BouncyCastle, as
 * stock's does.
 */
final class Replay {
    /** The most ciphertext (or AAD) one message keeps. */
    static final int LIMIT = 16 << 20;

    final Buffer aad = new Buffer();
    /** The message's data: an encryption's plaintext, a decryption's ciphertext. */
    final Buffer data = new Buffer();

    /** Keeps AAD; false, keeping nothing of it, past the limit or the budget. */
    boolean keepAad(byte[] src, int offset, int len) {
        return (long) aad.length + len <= LIMIT && aad.append(src, offset, len, 0, 0);
    }

    /**
     * Keeps data; {@code tagRoom}: how many of its last bytes may be a
     * decryption's tag (counted by neither the limit nor the budget),
     * {@code room}: bytes to leave free if the buffer grows (for a tag to
     * come). False, keeping nothing of it, past the limit or the budget.
     */
    boolean keepData(byte[] src, int offset, int len, int tagRoom, int room) {
        return (long) data.length + len <= (long) LIMIT + tagRoom && data.append(src, offset, len, room, tagRoom);
    }

    /** Whether {@link #keepData} of {@code len} more bytes may fail now (the limit, or the budget as it stands). */
    boolean mayNotKeep(int len, int tagRoom) {
        return (long) data.length + len > (long) LIMIT + tagRoom || data.mayBeRefused(len, tagRoom);
    }

    /**
     * A new BouncyCastle cipher ({@code fresh}) where the GCM message is:
     * initialized, given its AAD and the first {@code len} bytes of {@code
     * data} (what it gives for them was released already, and is zeroed),
     * and finished when the message was ({@code spent}).
     */
    static Cipher replay(Cipher fresh, int opmode, Key key, AlgorithmParameterSpec spec, Buffer aad,
            Buffer data, int len, boolean spent) throws GeneralSecurityException {
        fresh.init(opmode, key, spec);
        aad.read(fresh::updateAAD, aad.length);
        data.read((bytes, offset, length) -> {
            byte[] released = fresh.update(bytes, offset, length);
            if (released != null) Arrays.fill(released, (byte) 0);
        }, len);
        if (spent) fresh.doFinal();
        return fresh;
    }

    /** Forgets everything kept (zeroed, the budget's bytes back). */
    void clear() {
        aad.clear();
        data.clear();
    }
}
