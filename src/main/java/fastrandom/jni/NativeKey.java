package fastrandom.jni;

import java.util.function.LongConsumer;

/**
 * What every native key (RSA's {@link LibCrypto.Key}, {@link EcKey},
 * {@link XdhKey}) shares: its handle, counted among the
 * live keys ({@link LibCrypto#liveKeys}) from the moment the key exists
 * until its native side is freed, which {@link #close()} asks for and the
 * last call running on it does.
 */
abstract class NativeKey {
    final NativeHandle handle;

    /** Wraps {@code pointer} (0: OpenSSL made no {@code what}), which {@code free} frees. */
    NativeKey(long pointer, LongConsumer free, String what) {
        if (pointer == 0) throw new LibCryptoException("OpenSSL returned no " + what);
        this.handle = new NativeHandle(pointer, p -> {
            free.accept(p);
            LibCrypto.keyFreed();
        });
        LibCrypto.keyCreated();
    }

    /** Frees the native key now, or when the last running call ends. Idempotent. */
    public void close() {
        handle.close();
    }

    public boolean isClosed() {
        return handle.isClosed();
    }
}
