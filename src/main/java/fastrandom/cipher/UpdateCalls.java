package fastrandom.cipher;

import java.util.function.Predicate;

import javax.crypto.Cipher;

/**
 * jruby-openssl's {@code Cipher#update} as the bindings see it, for what
 * the cipher cannot see: an update that raises in jruby-openssl after the
 * cipher's update returned (its IV bookkeeping can, after {@code
 * iv_len=}): stock's plaintext from that update is lost with the
 * exception, and its final gives only the rest, so a GCM decryption, which
 * holds its plaintext until the final, must drop that update's part too;
 * whether a decryption's tag comes by {@code auth_tag=} (its data is then
 * all ciphertext, which the bound on held plaintext counts); and, for
 * {@code auth_data=}, whether AAD given now comes after the message's data.
 *
 * <p>One instance per provider, held by it and by the bindings that wrap
 * jruby-openssl's {@code update} around it ({@code CipherMethods}): there
 * is no static way in, and an instance made elsewhere is seen by no
 * cipher.
 */
public final class UpdateCalls {
    /**
     * While jruby-openssl's update runs on this thread: [0] TRUE, or the
     * GCM decryption whose update returned plaintext it holds (while the
     * bindings ask about AAD: ASKING, or the answer, LATE); [1] the Ruby
     * Cipher, [2] what says whether its tag comes at the final; else nulls.
     * An Object[], cleared when the update ends, so that the thread keeps
     * no object of ours past an undeploy.
     */
    private final ThreadLocal<Object[]> current = ThreadLocal.withInitial(() -> new Object[3]);
    // Markers of aadIsLate's question and answer: JDK classes, so the thread's slot keeps no class of ours.
    private static final Object ASKING = new Object[0];
    private static final Object LATE = new Object[0];

    /**
     * jruby-openssl's {@code update} is about to call a cipher on this
     * thread for {@code caller}; {@code tagAtFinal} says, if a GCM
     * decryption asks, whether the Cipher has its tag by {@code auth_tag=}
     * (its data is then all ciphertext).
     */
    public void starts(Object caller, Predicate<Object> tagAtFinal) {
        Object[] slot = current.get();
        slot[0] = Boolean.TRUE;
        slot[1] = caller;
        slot[2] = tagAtFinal;
    }

    /** jruby-openssl's {@code update} has returned, or raised. */
    public void ends() {
        Object[] slot = current.get();
        slot[0] = null;
        slot[1] = null;
        slot[2] = null;
    }

    /** jruby-openssl's {@code update} raised: the GCM decryption it called, if any, drops that update's plaintext. */
    public void raised() {
        Object[] slot = current.get();
        Object cipher = slot[0];
        slot[0] = null;
        if (cipher instanceof AesCipher) ((AesCipher) cipher).dropLastUpdate();
    }

    /**
     * Whether AAD given now to {@code cipher} (one of this provider's, with
     * its message initialized) comes too late: its message has data, or is
     * refused. Asked through {@link Cipher#getIV}, which a JCA cipher always
     * passes on to its SPI, and which answers no differently.
     */
    public boolean aadIsLate(Cipher cipher) {
        Object[] slot = current.get();
        Object before = slot[0];
        slot[0] = ASKING;
        try {
            cipher.getIV();
            return slot[0] == LATE;
        } finally {
            slot[0] = before;
        }
    }

    /** Whether the bindings ask this thread's cipher if AAD is late ({@link #aadIsLate}). */
    boolean askingForAad() {
        return current.get()[0] == ASKING;
    }

    /** The cipher's answer to {@link #aadIsLate}: it is. */
    void aadLate() {
        current.get()[0] = LATE;
    }

    /** Whether, within jruby-openssl's update, the Cipher's tag comes at the final (else a decryption's may end its data). */
    @SuppressWarnings("unchecked")
    boolean tagAtFinal() {
        Object[] slot = current.get();
        return slot[2] != null && ((Predicate<Object>) slot[2]).test(slot[1]);
    }

    /** {@code cipher}'s GCM decryption update returned, holding its plaintext (noted only within jruby-openssl's update). */
    void returned(AesCipher cipher) {
        Object[] slot = current.get();
        if (slot[0] != null) slot[0] = cipher;
    }
}
