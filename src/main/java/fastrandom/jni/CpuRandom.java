package fastrandom.jni;

import java.util.HashSet;
import java.util.Set;

import fastrandom.Setting;

/**
 * The CPU's random number instructions, through fast_random's JNI library
 * (ext/fast_random_native/cpu.h): on x86-64 RDRAND, a DRBG the CPU reseeds
 * itself, and RDSEED, a conditioned entropy source; on aarch64 their
 * counterparts RNDR and RNDRRS (FEAT_RNG, which most Arm CPUs today lack).
 * {@link #rdrand()} and {@link #rdseed()} answer whether each of the two
 * is present and passed a start-up self-test, whatever the architecture
 * calls it ({@link #name}); {@link #unavailableReason} says why not. The
 * library is loaded on the first question.
 *
 * <p>{@code FAST_RANDOM_HIDE_CPU_RANDOM=1} ({@link Setting#HIDE_CPU_RANDOM})
 * makes both instructions look absent (to test the fallback on any machine).
 */
public final class CpuRandom {
    static final int FEATURE_RDRAND = 1; // RDRAND, RNDR
    static final int FEATURE_RDSEED = 2; // RDSEED, RNDRRS
    static final int FILL_EXHAUSTED = -1;
    static final int FILL_UNHEALTHY = -2;

    private static final String NO_INSTRUCTIONS = "a CPU without random number instructions fast_random uses";
    private static final int RDRAND_SELF_TEST_BYTES = 4096;
    private static final int RDSEED_SELF_TEST_BYTES = 256;

    private static native int features();
    private static native int fill(int feature, byte[] out, int offset, int length);

    /** The architecture, as the JNI library is built for it. */
    private enum Architecture {
        X86_64("RDRAND", "RDSEED", "Intel", false), AARCH64("RNDR", "RNDRRS", "Arm", true), OTHER(null, null, null, true);

        final String randomName;
        final String seedName;
        /** Whose guidance the retries follow. */
        final String vendor;
        /** Whether a CPU without the instructions is the common case here, nothing to warn about. */
        final boolean absenceIsCommon;

        Architecture(String randomName, String seedName, String vendor, boolean absenceIsCommon) {
            this.randomName = randomName;
            this.seedName = seedName;
            this.vendor = vendor;
            this.absenceIsCommon = absenceIsCommon;
        }

        static final Architecture CURRENT = of(System.getProperty("os.arch", ""));

        static Architecture of(String arch) {
            switch (arch) {
                case "amd64":
                case "x86_64":
                    return X86_64;
                case "aarch64":
                case "arm64":
                    return AARCH64;
                default:
                    return OTHER;
            }
        }
    }

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
            Architecture arch = Architecture.CURRENT;
            if (arch == Architecture.OTHER) {
                String why = NO_INSTRUCTIONS + " (" + System.getProperty("os.arch", "") + ")";
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
            String rdrandProblem;
            String rdseedProblem;
            try {
                int features = features();
                rdrandProblem = (features & FEATURE_RDRAND) == 0 ? noInstruction(arch.randomName)
                        : selfTest(RDRAND_SELF_TEST_BYTES, false);
                rdseedProblem = (features & FEATURE_RDSEED) == 0 ? noInstruction(arch.seedName)
                        : selfTest(RDSEED_SELF_TEST_BYTES, true);
            } catch (UnsatisfiedLinkError e) { // a library built for another version of the jar
                String why = "the native library does not match this fast_random's jar (" + e.getMessage() + ")";
                return new Status(false, why, false, why);
            }
            return new Status(rdrandProblem == null, rdrandProblem, rdseedProblem == null, rdseedProblem);
        }

        private static String noInstruction(String name) {
            return "the CPU has no " + name;
        }
    }

    private CpuRandom() {}

    /** Whether RDRAND (RNDR on aarch64) is present and passed its self-test. */
    public static boolean rdrand() {
        return Status.CURRENT.rdrand;
    }

    /** Whether RDSEED (RNDRRS on aarch64) is present and passed its self-test. */
    public static boolean rdseed() {
        return Status.CURRENT.rdseed;
    }

    /**
     * This CPU's name for the seed instruction ({@code seedInstruction}:
     * RDSEED, RNDRRS) or the other one (RDRAND, RNDR); null on other
     * architectures.
     */
    public static String name(boolean seedInstruction) {
        Architecture arch = Architecture.CURRENT;
        return seedInstruction ? arch.seedName : arch.randomName;
    }

    /**
     * Whether the :rdrand backend can run: RDRAND itself, on x86-64 only.
     * On aarch64, RNDR only helps seed the generators, so that
     * {@code FastRandom.backend} names what serves the calls.
     */
    public static boolean rdrandBackend() {
        return Architecture.CURRENT == Architecture.X86_64 && rdrand();
    }

    /** Why the :rdrand backend cannot run here, or null. */
    public static String rdrandBackendProblem() {
        Architecture arch = Architecture.CURRENT;
        if (arch == Architecture.X86_64) return unavailableReason(false);
        return "RDRAND is an x86-64 instruction and this CPU is " + System.getProperty("os.arch", "")
                + (arch == Architecture.AARCH64 ? " (where RNDR, if present, only helps seed the generators)" : "");
    }

    /**
     * Whether {@code reason} (from {@link #unavailableReason}) is only what
     * is expected on this machine, nothing to warn about: a CPU without the
     * instructions where that is common (aarch64, where few CPUs have
     * FEAT_RNG, and other architectures), or the native library absent
     * where the gem ships none ({@link NativeLibrary#onlyAbsentAsExpected}).
     */
    public static boolean absentAsExpected(String reason) {
        if (reason == null) return false;
        if (NativeLibrary.onlyAbsentAsExpected(reason)) return true;
        if (reason.startsWith(NO_INSTRUCTIONS)) return true;
        Architecture arch = Architecture.CURRENT;
        return arch.absenceIsCommon && (reason.equals(Status.noInstruction(arch.randomName))
                || reason.equals(Status.noInstruction(arch.seedName)));
    }

    /** Why RDRAND (or RDSEED), or its aarch64 counterpart, is not used, or null when it is. */
    public static String unavailableReason(boolean seedInstruction) {
        return seedInstruction ? Status.CURRENT.rdseedProblem : Status.CURRENT.rdrandProblem;
    }

    /** Fills from RDRAND (RNDR); throws {@link CpuRandomFailure} if the CPU fails. */
    public static void rdrand(byte[] out, int offset, int length) {
        fill(false, out, offset, length);
    }

    /** Fills from RDSEED (RNDRRS); throws {@link CpuRandomFailure} if the CPU fails. */
    public static void rdseed(byte[] out, int offset, int length) {
        fill(true, out, offset, length);
    }

    private static void fill(boolean seedInstruction, byte[] out, int offset, int length) {
        String name = name(seedInstruction);
        if (!(seedInstruction ? rdseed() : rdrand())) {
            throw new CpuRandomFailure((name == null ? "no random number instruction" : name) + " is not available: "
                    + unavailableReason(seedInstruction));
        }
        check(fill(seedInstruction ? FEATURE_RDSEED : FEATURE_RDRAND, out, offset, length), name);
    }

    private static void check(int result, String instruction) {
        if (result >= 0) return;
        if (result == FILL_EXHAUSTED) {
            throw new CpuRandomFailure(instruction + " returned no value after the retries " + Architecture.CURRENT.vendor + " recommends");
        }
        if (result == FILL_UNHEALTHY) throw new CpuRandomFailure(instruction + " returned a stuck, all-zero or all-one value");
        throw new CpuRandomFailure(instruction + " fill failed (" + result + ")");
    }

    /** Draws a sample from the instruction and judges it. */
    private static String selfTest(int bytes, boolean seedInstruction) {
        String name = name(seedInstruction);
        byte[] sample = new byte[bytes];
        try {
            int result = fill(seedInstruction ? FEATURE_RDSEED : FEATURE_RDRAND, sample, 0, bytes);
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
