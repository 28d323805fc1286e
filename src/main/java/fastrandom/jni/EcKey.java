package fastrandom.jni;

import java.math.BigInteger;

/**
 * One native elliptic-curve key (an OpenSSL EC_KEY on a named curve), through
 * fast_random's JNI library (ext/fast_random_native/ec_key.c): ECDSA
 * signatures and verifications, ECDH. The handle never leaves this class;
 * {@link #close()} frees the key once the calls running on it end, after
 * which the operations answer null. Thread-safe.
 */
public final class EcKey extends NativeKey {
    private static native long newPrivate(int nid, byte[] d, byte[] x, byte[] y);
    private static native long newPublic(int nid, byte[] x, byte[] y);
    private static native void generate(int nid, byte[] out);
    private static native void free(long handle);
    private static native byte[] sign(long handle, int hash, byte[] data, int offset, int length, boolean prehashed);
    private static native boolean verify(long handle, int hash, byte[] data, int offset, int length, boolean prehashed,
                                         byte[] r, byte[] s);
    private static native byte[] derive(long handle, byte[] x, byte[] y);
    private static native int liveVerifyTables0();
    private static native long tableVerifications0();

    private final boolean privateKey;

    private EcKey(long pointer, boolean privateKey) {
        super(pointer, EcKey::free, "EC key");
        this.privateKey = privateKey;
    }

    /**
     * A private key on the curve with OpenSSL's number {@code nid}: {@code d},
     * with its public point (x, y), or d G when x is null. The temporary
     * copy of d is zeroed at once.
     */
    public static EcKey newPrivateKey(int nid, BigInteger d, BigInteger x, BigInteger y) {
        LibCrypto.requireUsable();
        byte[] secret = LibCrypto.magnitude(d);
        try {
            return new EcKey(newPrivate(nid, secret, x == null ? null : LibCrypto.magnitude(x),
                    y == null ? null : LibCrypto.magnitude(y)), true);
        } finally {
            java.util.Arrays.fill(secret, (byte) 0);
        }
    }

    /**
     * A new private key on the curve with OpenSSL's number {@code nid}, from
     * OpenSSL's own generator (as MRI's {@code EC.generate}), whose field
     * elements are {@code fieldBytes} long: {d, x, y}, its private value
     * and public point. The temporary copies of d are zeroed at once.
     */
    public static BigInteger[] generate(int nid, int fieldBytes) {
        LibCrypto.requireUsable();
        byte[] values = new byte[3 * fieldBytes];
        try {
            generate(nid, values);
            return new BigInteger[] {part(values, 0, fieldBytes), part(values, 1, fieldBytes), part(values, 2, fieldBytes)};
        } finally {
            java.util.Arrays.fill(values, (byte) 0);
        }
    }

    private static BigInteger part(byte[] values, int index, int length) {
        byte[] bytes = java.util.Arrays.copyOfRange(values, index * length, (index + 1) * length);
        try {
            return new BigInteger(1, bytes);
        } finally {
            java.util.Arrays.fill(bytes, (byte) 0);
        }
    }

    /** A public key: the point (x, y), which must lie on the curve. */
    public static EcKey newPublicKey(int nid, BigInteger x, BigInteger y) {
        LibCrypto.requireUsable();
        return new EcKey(newPublic(nid, LibCrypto.magnitude(x), LibCrypto.magnitude(y)), false);
    }

    public boolean isPrivate() {
        return privateKey;
    }

    /**
     * A DER-encoded ECDSA signature of {@code data[offset, offset + length)}
     * hashed with {@code hash} in the same call, or of those bytes as given
     * when {@code prehashed} (their leftmost bits, up to the order's length,
     * as ECDSA takes them); null when the key has been closed.
     */
    public byte[] sign(LibCrypto.Hash hash, byte[] data, int offset, int length, boolean prehashed) {
        if (!privateKey) throw new LibCryptoException("not a private key");
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return sign(h, hash == null ? 0 : hash.ordinal(), data, offset, length, prehashed);
        } finally {
            handle.release();
        }
    }

    /**
     * Whether (r, s) is an ECDSA signature of the data (hashed, or as given
     * when {@code prehashed}): false for r or s out of range too; null when
     * the key has been closed.
     */
    public Boolean verify(LibCrypto.Hash hash, byte[] data, int offset, int length, boolean prehashed,
                          BigInteger r, BigInteger s) {
        if (r.signum() < 0 || s.signum() < 0) return false;
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return verify(h, hash == null ? 0 : hash.ordinal(), data, offset, length, prehashed,
                    LibCrypto.magnitude(r), LibCrypto.magnitude(s));
        } finally {
            handle.release();
        }
    }

    /**
     * The ECDH secret with the peer's point (x, y) (the x coordinate of
     * d Q, as long as a field element); throws {@link LibCryptoException}
     * when the point is not on the curve; null when the key has been closed.
     */
    public byte[] derive(BigInteger x, BigInteger y) {
        if (!privateKey) throw new LibCryptoException("not a private key");
        long h = handle.acquire();
        if (h == 0) return null;
        try {
            return derive(h, LibCrypto.magnitude(x), LibCrypto.magnitude(y));
        } finally {
            handle.release();
        }
    }

    /**
     * Verification tables (ec_key.c): a P-256 or P-521 public key that
     * keeps verifying gets a precomputed table of multiples of its point,
     * which halves a P-256 verification. How many exist now in this runtime (its own
     * copy of the library; at most 64); 0 before libcrypto was loaded.
     */
    public static int liveVerifyTables() {
        return LibCrypto.usable ? liveVerifyTables0() : 0; // none before a key was made
    }

    /**
     * How many verifications a verification table decided in this runtime,
     * since libcrypto was loaded: not those whose table path failed and
     * {@code ECDSA_do_verify} decided instead. 0 before libcrypto was loaded.
     */
    public static long tableVerifications() {
        return LibCrypto.usable ? tableVerifications0() : 0;
    }

}
