package fastrandom.random;

import fastrandom.jni.CpuRandom;

/**
 * The CPU's random number instructions as a seed input: RDSEED (a
 * conditioned entropy source) and RDRAND (a DRBG the CPU reseeds itself),
 * or on aarch64 their counterparts RNDRRS and RNDR ({@link #name}).
 * Fills throw {@link fastrandom.jni.CpuRandomFailure} when the CPU gives no
 * value; {@link MixedEntropy} decides what to do then. {@link #HARDWARE} is
 * the real CPU, through the JNI library; tests pass other implementations.
 */
public interface CpuEntropy {
    /** Whether RDSEED is present and passed its start-up self-test. */
    boolean hasRdseed();

    /** Whether RDRAND is present and passed its start-up self-test. */
    boolean hasRdrand();

    /** Why neither can be used here (no instruction, self-test, library, ...), or null. */
    String unavailableReason();

    void rdseed(byte[] out);

    void rdrand(byte[] out);

    /** What this CPU calls the seed instruction (RDSEED, RNDRRS) or the other one (RDRAND, RNDR). */
    default String name(boolean seedInstruction) {
        String name = CpuRandom.name(seedInstruction);
        return name != null ? name : seedInstruction ? "RDSEED" : "RDRAND";
    }

    CpuEntropy HARDWARE = new CpuEntropy() {
        @Override
        public boolean hasRdseed() {
            return CpuRandom.rdseed();
        }

        @Override
        public boolean hasRdrand() {
            return CpuRandom.rdrand();
        }

        @Override
        public String unavailableReason() {
            return hasRdseed() || hasRdrand() ? null : CpuRandom.unavailableReason(false);
        }

        @Override
        public void rdseed(byte[] out) {
            CpuRandom.rdseed(out, 0, out.length);
        }

        @Override
        public void rdrand(byte[] out) {
            CpuRandom.rdrand(out, 0, out.length);
        }
    };
}
