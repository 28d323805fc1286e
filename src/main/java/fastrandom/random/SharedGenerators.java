package fastrandom.random;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The generators that threads and fibers share until they prove busy (see
 * {@link ThreadGenerators#forCall()}): a few per core and backend, created on
 * first use and seeded from the {@link PrimaryDrbg} like any other. Each is
 * used under its own lock ({@link BufferedRandom} in shared mode), so a fiber
 * that asks once costs a lock and a buffered read, not a generator of its
 * own. A thread always lands on the same one (chosen by its id), so two
 * threads contend only when they hash alike.
 */
final class SharedGenerators {
    private final int mask;
    private final int shift;
    private final AtomicReferenceArray<BufferedRandom>[] slots;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic arrays
    SharedGenerators(int processors) {
        int size = Integer.highestOneBit(Math.max(4, Math.min(64, 2 * processors)) * 2 - 1);
        this.mask = size - 1;
        this.shift = 64 - Integer.numberOfTrailingZeros(size);
        this.slots = new AtomicReferenceArray[Backend.values().length];
        for (int i = 0; i < slots.length; i++) slots[i] = new AtomicReferenceArray<>(size);
    }

    /** The shared generator for the calling thread and {@code backend}. */
    BufferedRandom forCurrentThread(Backend backend) {
        AtomicReferenceArray<BufferedRandom> pool = slots[backend.ordinal()];
        int slot = (int) ((ThreadGenerators.threadId(Thread.currentThread()) * 0x9E3779B97F4A7C15L) >>> shift) & mask;
        BufferedRandom shared = pool.get(slot);
        if (shared != null) return shared;
        BufferedRandom created = ThreadGenerators.create(backend, true);
        if (pool.compareAndSet(slot, null, created)) return created;
        created.wipe(); // another thread's came first
        return pool.get(slot);
    }

    /** How many generators there are per backend (tests). */
    int size() {
        return mask + 1;
    }
}
