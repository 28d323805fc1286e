package fastrandom.random;

import java.util.concurrent.TimeUnit;

/**
 * When a per-thread generator goes back to the OS for a fresh seed. Checked
 * at every buffer refill (so at most one refill's worth of output, 64 KiB,
 * comes after a limit is reached).
 */
public final class ReseedPolicy {
    /** Reseed after this much output from one generator. */
    public static final long DEFAULT_MAX_BYTES = 64L << 20;
    /** Reseed when the seed is this old (wall time, measured with nanoTime). */
    public static final long DEFAULT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(60);

    public static final ReseedPolicy DEFAULT = new ReseedPolicy(DEFAULT_MAX_BYTES, DEFAULT_MAX_AGE_NANOS);

    final long maxBytes;
    final long maxAgeNanos;

    public ReseedPolicy(long maxBytes, long maxAgeNanos) {
        if (maxBytes <= 0 || maxAgeNanos <= 0) throw new IllegalArgumentException("reseed limits must be positive");
        this.maxBytes = maxBytes;
        this.maxAgeNanos = maxAgeNanos;
    }

    boolean due(long bytesSinceSeed, long seededAtNanos, long nowNanos) {
        return bytesSinceSeed >= maxBytes || nowNanos - seededAtNanos >= maxAgeNanos;
    }
}
