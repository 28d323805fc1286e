package fastrandom.cipher;

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
     * bindings ask about AAD: ASKING, or the answer, LATE); [1] whether
     * the tag comes at the final (given by {@code auth_tag=}); else nulls.
     * An Object[], so that the thread keeps no class of ours past an
     * undeploy.
     */
    // Markers of aadIsLate's question and answer: JDK classes, so the thread's slot keeps no class of ours.
    private static final Object ASKING = new Object[0];
    private static final Object LATE = new Object[0];
    private final ThreadLocal<Object[]> current = ThreadLocal.withInitial(() -> new Object[2]);

    /**
     * jruby-openssl's {@code update} is about to call a cipher on this
     * thread; {@code tagAtFinal}: the Cipher has a tag by {@code
     * auth_tag=} (a decryption's data is then all ciphertext).
     */
    public void starts(boolean tagAtFinal) {
        Object[] slot = current.get();
        slot[0] = Boolean.TRUE;
        slot[1] = tagAtFinal ? Boolean.TRUE : null;
    }

    /** jruby-openssl's {@code update} has returned, or raised. */
    public void ends() {
        Object[] slot = current.get();
        slot[0] = null;
        slot[1] = null;
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
    boolean tagAtFinal() {
        return current.get()[1] != null;
    }

    /** {@code cipher}'s GCM decryption update returned, holding its plaintext (noted only within jruby-openssl's update). */
    void returned(AesCipher cipher) {
        Object[] slot = current.get();
        if (slot[0] != null) slot[0] = cipher;
    }
}
