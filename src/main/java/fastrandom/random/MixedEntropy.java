package fastrandom.random;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import fastrandom.jni.CpuRandom;
import fastrandom.jni.CpuRandomFailure;
import fastrandom.support.Diagnostics;

/**
 * Seed material from the OS, mixed with 256 bits from the CPU (RDSEED, else
 * RDRAND; RNDRRS, else RNDR on aarch64) where the CPU has them and they
 * passed their self-test:
 * seed = SHA-384(label || os_entropy || cpu_entropy). The CPU's bytes go
 * through the hash, never XORed raw onto the OS seed, so a CPU that lies
 * (even one that knew the OS bytes) cannot cancel them: the seed is at least
 * as unpredictable as the OS entropy alone.
 *
 * <p>Where the CPU cannot contribute at all (no instruction, failed
 * self-test, missing library), seeds are the OS bytes alone and one
 * warning is printed for the process; where that is the common case (an
 * aarch64 CPU without FEAT_RNG, another architecture), only under -W2. When an instruction that works gives
 * no value for a while (RDSEED runs dry under load; Intel documents it), the
 * seed takes RDRAND's bytes instead, or the OS bytes alone if RDRAND fails
 * too, and that instruction is tried again after a back-off (1 s, doubling
 * up to 10 minutes, reset by a success), with one warning (the process has
 * one instance).
 */
public final class MixedEntropy implements EntropySource {
    static final int CPU_BYTES = 32;
    static final long FIRST_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(10);
    private static final byte[] LABEL = "fast_random seed v1".getBytes(StandardCharsets.US_ASCII);

    private final EntropySource os;
    private final CpuEntropy cpu;
    private final LongSupplier clock;
    private final Retry rdseedRetry = new Retry();
    private final Retry rdrandRetry = new Retry();
    private final AtomicBoolean warnedOfFailure = new AtomicBoolean();

    MixedEntropy(EntropySource os) {
        this(os, CpuEntropy.HARDWARE, System::nanoTime);
    }

    /** {@code clock}: nanoseconds, as {@link System#nanoTime()} (tests pass their own). */
    public MixedEntropy(EntropySource os, CpuEntropy cpu, LongSupplier clock) {
        this.os = os;
        this.cpu = cpu;
        this.clock = clock;
    }

    @Override
    public void fill(byte[] seed) {
        os.fill(seed);
        String absent = cpu.unavailableReason();
        if (absent != null) {
            String message = "seeding from the OS only, without CPU entropy: " + absent;
            if (CpuRandom.absentAsExpected(absent) || Diagnostics.saidOnceForNativeCode(absent)) Diagnostics.warnOnceIfVerbose(message);
            else Diagnostics.warnOnce(message);
            return;
        }
        byte[] bytes = new byte[CPU_BYTES];
        try {
            long now = clock.getAsLong();
            if (take(bytes, true, now) || take(bytes, false, now)) mix(seed, bytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    @Override
    public String name() {
        if (cpu.unavailableReason() != null) return os.name();
        return os.name() + "+" + cpu.name(cpu.hasRdseed());
    }

    /** Fills {@code out} from RDSEED (or RDRAND) if it exists and is not backing off; false if it could not. */
    private boolean take(byte[] out, boolean rdseed, long now) {
        if (!(rdseed ? cpu.hasRdseed() : cpu.hasRdrand())) return false;
        Retry retry = rdseed ? rdseedRetry : rdrandRetry;
        if (!retry.due(now)) return false;
        try {
            if (rdseed) cpu.rdseed(out);
            else cpu.rdrand(out);
            retry.succeeded();
            return true;
        } catch (CpuRandomFailure e) {
            retry.failed(now);
            if (warnedOfFailure.compareAndSet(false, true)) {
                Diagnostics.warn("CPU entropy failed for a seed (" + e.getMessage()
                        + "); such seeds use " + cpu.name(false) + " or the OS alone, and the instruction is tried again later");
            }
            return false;
        }
    }

    private static void mix(byte[] seed, byte[] cpu) {
        MessageDigest sha384;
        try {
            sha384 = MessageDigest.getInstance("SHA-384");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-384", e);
        }
        sha384.update(LABEL);
        sha384.update(seed);
        sha384.update(cpu);
        byte[] digest = sha384.digest();
        System.arraycopy(digest, 0, seed, 0, seed.length);
        Arrays.fill(digest, (byte) 0);
    }

    /** When an instruction that failed may be tried again. Thread-safe. */
    private static final class Retry {
        private long notBefore;
        private long backoff; // 0 while it works

        synchronized boolean due(long now) {
            return backoff == 0 || now - notBefore >= 0;
        }

        synchronized void failed(long now) {
            backoff = backoff == 0 ? FIRST_BACKOFF_NANOS : Math.min(backoff * 2, MAX_BACKOFF_NANOS);
            notBefore = now + backoff;
        }

        synchronized void succeeded() {
            backoff = 0;
        }
    }
}
