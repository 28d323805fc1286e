package fastrandom.cipher;

import javax.crypto.Cipher;

/**
 * jruby-openssl's {@code Cipher#update} as the bindings see it, for what
 * the cipher cannot see: an update that raises in jruby-openssl after the
 * cipher's update returned (its IV bookkeeping can, after {@code
 * iv_len=}): stock's plaintext from that update is lost with the
 * exception, and its final gives only the rest, so a GCM decryption, which
 * holds its plaintext until the final, must drop that update's part too;
 * and whether a decryption's tag comes by {@code auth_tag=} (its data is
 * then all ciphertext, which the bound on held plaintext counts).
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
     * bindings tell a cipher its message was dropped: DROPPED); [1] whether
     * the tag comes at the final (given by {@code auth_tag=}); else nulls.
     * An Object[], so that the thread keeps no class of ours past an
     * undeploy.
     */
    private static final Object DROPPED = new Object[0]; // a JDK class: the thread's slot keeps no class of ours
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
     * jruby-openssl has dropped the message under way on {@code cipher}
     * ({@code iv=}, {@code encrypt}, {@code decrypt}: it initializes its
     * cipher again before the next one): fast_random's cipher behind it
     * forgets what that message held now, not at that init. Reaches it
     * through {@link Cipher#getIV}, which a JCA cipher always passes on.
     */
    public void messageDropped(Cipher cipher) {
        Object[] slot = current.get();
        Object before = slot[0];
        slot[0] = DROPPED;
        try {
            cipher.getIV();
        } finally {
            slot[0] = before;
        }
    }

    /** Whether the bindings are telling the cipher its message was dropped ({@link #messageDropped}). */
    boolean dropping() {
        return current.get()[0] == DROPPED;
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
