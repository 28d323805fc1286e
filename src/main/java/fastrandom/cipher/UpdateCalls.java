package fastrandom.cipher;

/**
 * jruby-openssl's {@code Cipher#update} as the bindings see it, for the one
 * case the cipher cannot see: an update that raises in jruby-openssl after
 * the cipher's update returned (its IV bookkeeping can, after {@code
 * iv_len=}). Stock's plaintext from that update is lost with the
 * exception, and its final gives only the rest; so a GCM decryption, which
 * holds its plaintext until the final, must drop that update's part too.
 *
 * <p>One instance per provider, held by it and by the bindings that wrap
 * jruby-openssl's {@code update} around it ({@code CipherMethods}): there
 * is no static way in, and an instance made elsewhere is seen by no
 * cipher.
 */
public final class UpdateCalls {
    /**
     * While jruby-openssl's update runs on this thread: TRUE, or the GCM
     * decryption whose update returned plaintext it holds; else null. An
     * Object[], so that the thread keeps no class of ours past an undeploy.
     */
    private final ThreadLocal<Object[]> current = ThreadLocal.withInitial(() -> new Object[1]);

    /** jruby-openssl's {@code update} is about to call a cipher on this thread. */
    public void starts() {
        current.get()[0] = Boolean.TRUE;
    }

    /** jruby-openssl's {@code update} has returned, or raised. */
    public void ends() {
        current.get()[0] = null;
    }

    /** jruby-openssl's {@code update} raised: the GCM decryption it called, if any, drops that update's plaintext. */
    public void raised() {
        Object[] slot = current.get();
        Object cipher = slot[0];
        slot[0] = null;
        if (cipher instanceof AesCipher) ((AesCipher) cipher).dropLastUpdate();
    }

    /** {@code cipher}'s GCM decryption update returned, holding its plaintext (noted only within jruby-openssl's update). */
    void returned(AesCipher cipher) {
        Object[] slot = current.get();
        if (slot[0] != null) slot[0] = cipher;
    }
}
