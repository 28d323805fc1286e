package fastrandom.jni;

import java.util.HashSet;
import java.util.Set;

import fastrandom.Setting;

/**
 * RDRAND and RDSEED, through fast_random's JNI library. {@link #rdrand()} and
 * {@link #rdseed()} answer whether each instruction is present and passed a
 * start-up self-test; {@link #unavailableReason} says why not. The library
 * is loaded on the first question.
 *
 * <p>{@code FAST_RANDOM_HIDE_CPU_RANDOM=1} ({@link Setting#HIDE_CPU_RANDOM})
 * makes both instructions look absent (to test the fallback on any machine).
 */
public final class CpuRandom {
    static final int FEATURE_RDRAND = 1;
    static final int FEATURE_RDSEED = 2;
    static final int FILL_EXHAUSTED = -1;
    static final int FILL_UNHEALTHY = -2;

    private static final String NOT_X86_64 = "not an x86-64 CPU";
    private static final int RDRAND_SELF_TEST_BYTES = 4096;
    private static final int RDSEED_SELF_TEST_BYTES = 256;

    private static native int features();
    private static native int rdrandFill(byte[] out, int offset, int length);
    private static native int rdseedFill(byte[] out, int offset, int length);

    private static final class Status {
        static final Status CURRENT = probe();

        final boolean rdrand;
        final boolean rdseed;
        final String rdrandProblem;
        final String rdseedProblem;

        Status(boolean rdrand, String rdrandProblem, boolean rdseed, String rdseedProblem) {
            this.rdrand = rdrand;
            this.rdrandProblem = rdrandProblem;
            this.rdseed = rdseed;
            this.rdseedProblem = rdseedProblem;
        }

        private static Status probe() {
            String arch = System.getProperty("os.arch", "");
            if (!arch.equals("amd64") && !arch.equals("x86_64")) {
                String why = NOT_X86_64 + " (" + arch + ")";
                return new Status(false, why, false, why);
            }
            if (Setting.HIDE_CPU_RANDOM.on()) {
                String why = "hidden by FAST_RANDOM_HIDE_CPU_RANDOM=1";
                return new Status(false, why, false, why);
            }
            if (!NativeLibrary.load()) {
                String why = NativeLibrary.failure();
                return new Status(false, why, false, why);
            }
            int features = features();
            String rdrandProblem = (features & FEATURE_RDRAND) == 0 ? "the CPU has no RDRAND"
                    : selfTest(RDRAND_SELF_TEST_BYTES, true);
            String rdseedProblem = (features & FEATURE_RDSEED) == 0 ? "the CPU has no RDSEED"
                    : selfTest(RDSEED_SELF_TEST_BYTES, false);
            return new Status(rdrandProblem == null, rdrandProblem, rdseedProblem == null, rdseedProblem);
        }
    }

    private CpuRandom() {}

    public static boolean rdrand() {
        return Status.CURRENT.rdrand;
    }

    public static boolean rdseed() {
        return Status.CURRENT.rdseed;
    }

    /**
     * Whether {@code reason} (from {@link #unavailableReason}) is only what
     * is expected on this machine, nothing to warn about: a CPU that is not
     * x86-64, or the native library absent where the gem ships none
     * ({@link NativeLibrary#onlyAbsentAsExpected}).
     */
    public static boolean absentAsExpected(String reason) {
        return reason != null && (reason.startsWith(NOT_X86_64) || NativeLibrary.onlyAbsentAsExpected(reason));
    }

    /** Why RDRAND (or RDSEED) is not used, or null when it is. */
    public static String unavailableReason(boolean seedInstruction) {
        return seedInstruction ? Status.CURRENT.rdseedProblem : Status.CURRENT.rdrandProblem;
    }

    /** Fills from RDRAND; throws {@link CpuRandomFailure} if the CPU fails. */
    public static void rdrand(byte[] out, int offset, int length) {
        if (!rdrand()) throw new CpuRandomFailure("RDRAND is not available: " + unavailableReason(false));
        check(rdrandFill(out, offset, length), "RDRAND");
    }

    /** Fills from RDSEED; throws {@link CpuRandomFailure} if the CPU fails. */
    public static void rdseed(byte[] out, int offset, int length) {
        if (!rdseed()) throw new CpuRandomFailure("RDSEED is not available: " + unavailableReason(true));
        check(rdseedFill(out, offset, length), "RDSEED");
    }

    private static void check(int result, String instruction) {
        if (result >= 0) return;
        if (result == FILL_EXHAUSTED) throw new CpuRandomFailure(instruction + " returned no value after the retries Intel recommends");
        if (result == FILL_UNHEALTHY) throw new CpuRandomFailure(instruction + " returned a stuck, all-zero or all-one value");
        throw new CpuRandomFailure(instruction + " fill failed (" + result + ")");
    }

    /** Draws a sample from the instruction and judges it. */
    private static String selfTest(int bytes, boolean rdrandInstruction) {
        String name = rdrandInstruction ? "RDRAND" : "RDSEED";
        byte[] sample = new byte[bytes];
        try {
            int result = rdrandInstruction ? rdrandFill(sample, 0, bytes) : rdseedFill(sample, 0, bytes);
            if (result == FILL_EXHAUSTED) return name + " self-test: no value after retries";
            if (result == FILL_UNHEALTHY) return name + " self-test: stuck, all-zero or all-one output (known firmware fault)";
            if (result != bytes) return name + " self-test: fill failed (" + result + ")";
            return judge(name, sample);
        } finally {
            java.util.Arrays.fill(sample, (byte) 0);
        }
    }

    /**
     * The start-up self-test's verdict on a sample (null when it passes).
     * The native fill already refuses all-ones values (AMD Zen 2 RDRAND
     * firmware), zeros (Zen 5 RDSEED) and a value equal to the previous one;
     * this checks the same on the whole sample, that no 64-bit value occurs
     * twice, and that the share of one bits is within 6.1 standard deviations
     * of one half (a working generator misses that with probability below 1e-9).
     */
    public static String judge(String name, byte[] sample) {
        Set<Long> seen = new HashSet<>();
        long ones = 0;
        for (int i = 0; i + 8 <= sample.length; i += 8) {
            long word = 0;
            for (int j = 0; j < 8; j++) word = (word << 8) | (sample[i + j] & 0xff);
            if (word == 0 || word == -1L) return name + " self-test: all-zero or all-one output (known firmware fault)";
            if (!seen.add(word)) return name + " self-test: a 64-bit value repeated";
            ones += Long.bitCount(word);
        }
        double bits = (sample.length / 8) * 64.0;
        double deviation = Math.abs(ones - bits / 2) / Math.sqrt(bits / 4);
        if (deviation > 6.1) return name + " self-test: " + ones + " one bits of " + (long) bits;
        return null;
    }
}
