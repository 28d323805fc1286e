package fastrandom.random;

import fastrandom.jni.CpuRandom;

/**
 * The {@code :rdrand} backend: bytes straight from the CPU's RDRAND, one JNI
 * call per buffer refill (4 KiB to 64 KiB), never one per value.
 */
final class RdrandSource implements BlockSource {
    private long bytes;

    @Override
    public int maxRequest() {
        return 64 * 1024;
    }

    @Override
    public int minBuffer() {
        return 4096;
    }

    @Override
    public void fill(byte[] out, int offset, int length) {
        CpuRandom.rdrand(out, offset, length);
        bytes += length;
    }

    @Override
    public void reseed() {
        // RDRAND reseeds itself in hardware; nothing is kept here.
    }

    @Override
    public long seeds() {
        return 0;
    }

    @Override
    public long bytesSinceSeed() {
        return bytes;
    }

    @Override
    public long stateFingerprint() {
        return 0;
    }

    @Override
    public void wipe() {
        bytes = 0;
    }
}
