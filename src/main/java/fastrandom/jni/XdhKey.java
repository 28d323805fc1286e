package fastrandom.jni;

/**
 * One native X25519 or X448 private key (an OpenSSL EVP_PKEY), through
 * fast_random's JNI library (ext/fast_random_native/xdh_key.c), made from
 * its raw scalar (its public u-coordinate computed at once), and RFC 7748 key agreement
 * with a peer's public u-coordinate. The handle never leaves this class;
 * {@link #close()} frees the key once the calls running on it end, after
 * which {@link #derive} answers null. Thread-safe.
 */
public final class XdhKey extends NativeKey {
    /** The curves, by OpenSSL's key type (its NID). */
    public enum Type {
        X25519(1034, 32), X448(1035, 56);

        final int nid;
        final int keyBytes;

        Type(int nid, int keyBytes) {
            this.nid = nid;
            this.keyBytes = keyBytes;
        }

        /** The length of a private scalar, a public u-coordinate and a shared secret, in bytes. */
        public int keyBytes() {
            return keyBytes;
        }
    }

    private static native long newPrivate(int type, byte[] raw, byte[] publicOut);
    private static native void free(long handle);
    private static native byte[] derive(long handle, byte[] peer);

    private final byte[] publicKey;

    private XdhKey(long pointer, byte[] publicKey) {
        super(pointer, XdhKey::free, "XDH key");
        this.publicKey = publicKey;
    }

    /** A private key from its raw bytes (RFC 7748's scalar, as given: OpenSSL clamps it). */
    public static XdhKey newPrivateKey(Type type, byte[] raw) {
        LibCrypto.requireUsable();
        byte[] point = new byte[type.keyBytes];
        return new XdhKey(newPrivate(type.nid, raw, point), point);
    }

    /** The public u-coordinate (a copy). */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /**
     * The shared secret with the peer's public u-coordinate; throws
     * {@link LibCryptoException} when OpenSSL refuses it (a peer of small
     * order gives all zeros) or fails; null when the key has been closed.
     */
    public byte[] derive(byte[] peer) {
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return derive(h, peer);
        } finally {
            handle.release();
        }
    }

}
