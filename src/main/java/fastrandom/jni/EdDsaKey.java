package fastrandom.jni;

/**
 * One native EdDSA key (an OpenSSL EVP_PKEY of type Ed25519 or Ed448, made
 * from its raw bytes), through fast_random's JNI library
 * (ext/fast_random_native/eddsa_key.c): RFC 8032 signatures and
 * verifications. The handle never leaves this class; {@link #close()}
 * frees the key once the calls running on it end, after which the
 * operations answer null. Thread-safe.
 */
public final class EdDsaKey extends NativeKey {
    /** The curves, by OpenSSL's key type (its NID). */
    public enum Type {
        ED25519(1087, 32), ED448(1088, 57);

        final int nid;
        final int keyBytes;

        Type(int nid, int keyBytes) {
            this.nid = nid;
            this.keyBytes = keyBytes;
        }

        /** The length of a private seed or a public key's encoding, in bytes. */
        public int keyBytes() {
            return keyBytes;
        }

        /** The length of a signature, in bytes. */
        public int signatureBytes() {
            return 2 * keyBytes;
        }
    }

    private static native long newPrivate(int type, byte[] seed);
    private static native long newPublic(int type, byte[] point);
    private static native void free(long handle);
    private static native byte[] publicBytes(long handle);
    private static native byte[] sign(long handle, byte[] data, int offset, int length);
    private static native boolean verify(long handle, byte[] data, int offset, int length, byte[] signature, int signatureOffset,
                                         int signatureLength);

    private final boolean privateKey;

    private EdDsaKey(long pointer, boolean privateKey) {
        super(pointer, EdDsaKey::free, "EdDSA key");
        this.privateKey = privateKey;
    }

    /** A private key from its seed (RFC 8032's private key: 32 bytes for Ed25519, 57 for Ed448). */
    public static EdDsaKey newPrivateKey(Type type, byte[] seed) {
        LibCrypto.requireUsable();
        return new EdDsaKey(newPrivate(type.nid, seed), true);
    }

    /** A public key from its encoding (RFC 8032), which OpenSSL takes as given. */
    public static EdDsaKey newPublicKey(Type type, byte[] point) {
        LibCrypto.requireUsable();
        return new EdDsaKey(newPublic(type.nid, point), false);
    }

    public boolean isPrivate() {
        return privateKey;
    }

    /** The public key's encoding (for a private key, derived from its seed); null when closed. */
    public byte[] publicKey() {
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return publicBytes(h);
        } finally {
            handle.release();
        }
    }

    /** The signature of {@code data[offset, offset + length)}; null when the key has been closed. */
    public byte[] sign(byte[] data, int offset, int length) {
        if (!privateKey) throw new LibCryptoException("not a private key");
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return sign(h, data, offset, length);
        } finally {
            handle.release();
        }
    }

    /**
     * Whether {@code signature} is this key's signature of
     * {@code data[offset, offset + length)} (false for one of the wrong
     * length or not canonical); null when the key has been closed.
     */
    public Boolean verify(byte[] data, int offset, int length, byte[] signature) {
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return verify(h, data, offset, length, signature, 0, signature.length);
        } finally {
            handle.release();
        }
    }

}
