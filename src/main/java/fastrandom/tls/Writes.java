package fastrandom.tls;

import java.util.concurrent.locks.ReentrantLock;

/**
 * What one connection's writes share between calls and threads:
 * <ul>
 * <li>a lock held while records are sealed into the connection's write
 * buffer or sent from it (never across a wait), so that a read on another
 * thread, which sends what a write left there first, never finds the
 * buffer half filled: it sends only when no write holds the lock
 * ({@link #tryLock}), and otherwise leaves the bytes to that write;
 * <li>the bytes a blocking write took and could not say it took, its wait
 * for the socket interrupted ({@code Timeout}, {@code Thread#raise}): they
 * are sent all the same, and the next write, the caller's retry with the
 * same data (as Ruby's buffering layer retries, and as OpenSSL's contract
 * asks), is told it took them, without taking them again.
 * </ul>
 */
public final class Writes {
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by the lock. */
    private long owed;

    public void lock() {
        lock.lock();
    }

    /** The lock, where no other thread holds it now. */
    public boolean tryLock() {
        return lock.tryLock();
    }

    public void unlock() {
        lock.unlock();
    }

    /** A write that took {@code bytes} is interrupted before it could say so. */
    public void owe(int bytes) {
        lock.lock();
        try {
            owed += bytes;
        } finally {
            lock.unlock();
        }
    }

    /** What the retry of an interrupted write of {@code length} bytes is to be told it took (0: nothing owed). */
    public int repay(int length) {
        lock.lock();
        try {
            int paid = (int) Math.min(owed, length);
            owed -= paid;
            return paid;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a write was interrupted and its retry is still to come. */
    public boolean owes() {
        lock.lock();
        try {
            return owed > 0;
        } finally {
            lock.unlock();
        }
    }
}
