package fastrandom.jni;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * OpenSSL's libcrypto 3 (RSA exponentiation only), through fast_random's
 * JNI library, which opens {@code libcrypto.so.3} with dlopen the first time
 * it is needed ({@link #load()}), never when the gem is required.
 *
 * <p>Native keys are {@link Key} objects; their handles never leave this
 * class, and a key is freed only once no call on it is running, so no use of
 * this API (from Java or Ruby) can pass OpenSSL a stale or made-up pointer.
 *
 * <p>The environment variable {@code FAST_RANDOM_HIDE_LIBCRYPTO=1} makes
 * libcrypto look absent (to test the fallback on any machine).
 */
public final class LibCrypto {
    static final String HIDE_VARIABLE = "FAST_RANDOM_HIDE_LIBCRYPTO";

    private static Boolean loaded; // guarded by LibCrypto.class
    private static String failure;
    private static String version;
    private static volatile boolean usable;

    private static final AtomicInteger LIVE_KEYS = new AtomicInteger();

    /** dlopen and dlsym; null on success, else why libcrypto cannot be used. */
    private static native String open();
    private static native String version0();
    private static native long newPrivateKey(byte[] n, byte[] e, byte[] d, byte[] p, byte[] q,
                                             byte[] dmp1, byte[] dmq1, byte[] iqmp);
    private static native long newPublicKey(byte[] n, byte[] e);
    private static native void freeKey(long handle);
    private static native byte[] privateRaw(long handle, byte[] input, int modulusBytes);
    private static native byte[] publicRaw(long handle, byte[] input, int modulusBytes);
    private static native byte[] publicRawStateless(byte[] n, byte[] e, byte[] input, int modulusBytes);

    private LibCrypto() {}

    /** Loads the JNI library and libcrypto if that has not been tried yet; true when usable. */
    public static boolean load() {
        if (usable) return true;
        synchronized (LibCrypto.class) {
            if (loaded != null) return loaded;
            if ("1".equals(System.getenv(HIDE_VARIABLE))) {
                failure = "libcrypto hidden by " + HIDE_VARIABLE;
            } else if (!NativeLibrary.load()) {
                failure = NativeLibrary.failure();
            } else {
                try {
                    failure = open();
                    if (failure == null) version = version0();
                } catch (UnsatisfiedLinkError e) {
                    failure = "the native library has no OpenSSL support (rebuild it): " + e.getMessage();
                }
            }
            loaded = failure == null;
            usable = loaded;
            return loaded;
        }
    }

    /** Why libcrypto cannot be used, or null when it can (loads it first). */
    public static String failure() {
        if (load()) return null;
        synchronized (LibCrypto.class) {
            return failure;
        }
    }

    /** OpenSSL's version string (e.g. "OpenSSL 3.0.19 27 Jan 2026"), or null when unusable. */
    public static String version() {
        if (!load()) return null;
        synchronized (LibCrypto.class) {
            return version;
        }
    }

    /** Native keys created and not yet freed, process-wide. */
    public static int liveKeys() {
        return LIVE_KEYS.get();
    }

    /**
     * A native private key in CRT form. The values go to OpenSSL as
     * big-endian magnitudes; the temporary arrays are zeroed at once.
     */
    public static Key newPrivateKey(BigInteger n, BigInteger e, BigInteger d, BigInteger p, BigInteger q,
                                    BigInteger dP, BigInteger dQ, BigInteger qInv) {
        requireUsable();
        byte[][] values = { magnitude(n), magnitude(e), magnitude(d), magnitude(p), magnitude(q),
                            magnitude(dP), magnitude(dQ), magnitude(qInv) };
        try {
            long handle = newPrivateKey(values[0], values[1], values[2], values[3], values[4],
                                        values[5], values[6], values[7]);
            return new Key(handle, true, byteLength(n));
        } finally {
            for (byte[] value : values) Arrays.fill(value, (byte) 0);
        }
    }

    /** A native public key: n, e and OpenSSL's Montgomery context for n. */
    public static Key newPublicKey(BigInteger n, BigInteger e) {
        requireUsable();
        return new Key(newPublicKey(magnitude(n), magnitude(e)), false, byteLength(n));
    }

    /**
     * {@code input^e mod n} with nothing cached (OpenSSL sets up n's
     * Montgomery context on each call). {@code input} is big-endian,
     * exactly as long as n.
     */
    public static byte[] publicRawStateless(BigInteger n, BigInteger e, byte[] input) {
        requireUsable();
        return publicRawStateless(magnitude(n), magnitude(e), input, byteLength(n));
    }

    /** The length of a modulus in bytes, as OpenSSL counts it. */
    public static int byteLength(BigInteger modulus) {
        return (modulus.bitLength() + 7) / 8;
    }

    private static byte[] magnitude(BigInteger value) {
        if (value == null || value.signum() < 0) throw new LibCryptoException("RSA key values must be non-negative");
        return value.toByteArray(); // a leading zero sign byte, if any, is harmless to BN_bin2bn
    }

    private static void requireUsable() {
        if (!load()) throw new LibCryptoException("OpenSSL is not available: " + failure());
    }

    /**
     * One native RSA key. Thread-safe: any number of threads may run
     * operations on it at once. {@link #close()} frees it once the
     * operations running at that moment end; after that the operations
     * return null.
     */
    public static final class Key {
        private final boolean privateKey;
        private final int modulusBytes;
        private long handle; // guarded by this; 0 once freed
        private int running; // operations in native code, guarded by this
        private boolean closed;

        private Key(long handle, boolean privateKey, int modulusBytes) {
            if (handle == 0) throw new LibCryptoException("OpenSSL returned no key");
            this.handle = handle;
            this.privateKey = privateKey;
            this.modulusBytes = modulusBytes;
            LIVE_KEYS.incrementAndGet();
        }

        public boolean isPrivate() {
            return privateKey;
        }

        /** The modulus length in bytes: the length of every input and output. */
        public int modulusBytes() {
            return modulusBytes;
        }

        /**
         * {@code input^d mod n} (input big-endian, exactly {@link #modulusBytes()}
         * long), checked with the public exponent in C before it is returned;
         * null when the key has been closed.
         */
        public byte[] privateRaw(byte[] input) {
            if (!privateKey) throw new LibCryptoException("not a private key");
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.privateRaw(h, input, modulusBytes);
            } finally {
                release();
            }
        }

        /** {@code input^e mod n}; null when the key has been closed. */
        public byte[] publicRaw(byte[] input) {
            long h = acquire();
            if (h == 0) return null;
            try {
                return LibCrypto.publicRaw(h, input, modulusBytes);
            } finally {
                release();
            }
        }

        /** Frees the native key now, or when the last running operation ends. Idempotent. */
        public synchronized void close() {
            if (closed) return;
            closed = true;
            if (running == 0) free();
        }

        public synchronized boolean isClosed() {
            return closed;
        }

        private synchronized long acquire() {
            if (closed) return 0;
            running++;
            return handle;
        }

        private synchronized void release() {
            running--;
            if (closed && running == 0) free();
        }

        private void free() { // holding this
            long h = handle;
            handle = 0;
            if (h != 0) {
                freeKey(h);
                LIVE_KEYS.decrementAndGet();
            }
        }
    }
}
