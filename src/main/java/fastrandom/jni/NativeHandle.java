package fastrandom.jni;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

/**
 * A pointer to a native object that any number of threads may use at once
 * and that is freed exactly once, never while a call on it is running:
 * {@link #close()} frees it at once when nothing runs on it, else when the
 * last running call {@link #release() releases} it. After close,
 * {@link #acquire()} answers 0, so no caller can pass a freed pointer on.
 *
 * <p>Lock-free: one atomic word counts the running calls, its sign bit says
 * closed, so threads sharing a key never queue on a lock.
 */
final class NativeHandle {
    private static final int CLOSED = Integer.MIN_VALUE;
    private static final AtomicInteger INJECTED_FAULTS = new AtomicInteger();

    private final long pointer;
    private final LongConsumer free;
    private final AtomicInteger state = new AtomicInteger(); // running calls, | CLOSED once closed

    NativeHandle(long pointer, LongConsumer free) {
        this.pointer = pointer;
        this.free = free;
    }

    /** Tests: the next {@code calls} acquisitions (any handle) throw, as a failing libcrypto call would. */
    static void injectFaults(int calls) {
        INJECTED_FAULTS.set(calls);
    }

    /** The pointer, counted as in use until {@link #release()}; 0 once closed (then do not release). */
    long acquire() {
        if (INJECTED_FAULTS.get() > 0 && INJECTED_FAULTS.getAndDecrement() > 0) {
            throw new LibCryptoException("injected fault (LibCrypto.injectFaults)");
        }
        for (;;) {
            int s = state.get();
            if (s < 0) return 0;
            if (state.compareAndSet(s, s + 1)) return pointer;
        }
    }

    /** Ends a call that {@link #acquire()} started; frees the object if it was the last after close. */
    void release() {
        if (state.decrementAndGet() == CLOSED) free.accept(pointer);
    }

    /** Frees the object now, or when the last running call ends. Idempotent. */
    void close() {
        for (;;) {
            int s = state.get();
            if (s < 0) return;
            if (state.compareAndSet(s, s | CLOSED)) {
                if (s == 0) free.accept(pointer);
                return;
            }
        }
    }

    boolean isClosed() {
        return state.get() < 0;
    }
}
