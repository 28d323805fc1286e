package fastrandom.random;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

import fastrandom.jni.CpuRandom;
import fastrandom.jni.CpuRandomFailure;

/**
 * Seed material from the OS, mixed with 256 bits from the CPU (RDSEED, else
 * RDRAND) where the CPU has them and they passed their self-test:
 * seed = SHA-384(label || os_entropy || cpu_entropy). The CPU's bytes go
 * through the hash, never XORed raw onto the OS seed, so a CPU that lies
 * (even one that knew the OS bytes) cannot cancel them: the seed is at least
 * as unpredictable as the OS entropy alone.
 *
 * <p>Where the CPU cannot contribute (no instruction, failed self-test,
 * missing library, not x86), seeds are the OS bytes alone and one warning
 * is printed for the process.
 */
final class MixedEntropy implements EntropySource {
    static final int CPU_BYTES = 32;
    private static final byte[] LABEL = "fast_random seed v1".getBytes(StandardCharsets.US_ASCII);

    private final EntropySource os;
    private volatile boolean cpuUsable = true;

    MixedEntropy(EntropySource os) {
        this.os = os;
    }

    @Override
    public void fill(byte[] seed) {
        os.fill(seed);
        if (!cpuUsable) return;
        byte[] cpu = new byte[CPU_BYTES];
        try {
            if (CpuRandom.rdseed()) {
                CpuRandom.rdseed(cpu, 0, CPU_BYTES);
            } else if (CpuRandom.rdrand()) {
                CpuRandom.rdrand(cpu, 0, CPU_BYTES);
            } else {
                giveUp(CpuRandom.unavailableReason(false));
                return;
            }
            mix(seed, cpu);
        } catch (CpuRandomFailure e) {
            giveUp(e.getMessage());
        } finally {
            Arrays.fill(cpu, (byte) 0);
        }
    }

    @Override
    public String name() {
        if (!cpuUsable) return os.name();
        return os.name() + (CpuRandom.rdseed() ? "+RDSEED" : CpuRandom.rdrand() ? "+RDRAND" : "");
    }

    /** Whether CPU entropy is (still) mixed into seeds. */
    boolean cpuUsable() {
        return cpuUsable && (CpuRandom.rdseed() || CpuRandom.rdrand());
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

    private void giveUp(String reason) {
        cpuUsable = false;
        Diagnostics.warnOnce("seeding from the OS only, without CPU entropy: " + reason);
    }
}
