package fastrandom.support;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Per-key precomputation (an OpenSSL key object, GMP copies of the key's
 * numbers) cached against the object the key came from, compared by
 * identity (never {@code equals}), so every call with the same key reuses it.
 *
 * <p>Identities are held weakly: once one is garbage collected its value is
 * dropped (collected identities are polled from a {@link ReferenceQueue} on
 * every lookup). At most {@code capacity} values are
 * kept, the least recently used going first. A value leaving the cache
 * (evicted, collected, replaced or cleared) is handed to {@code onDrop},
 * which frees what it holds. A full cache evicts its least recently used
 * sixteenth at once.
 *
 * <p>Each entry also remembers every value of the key it was built from
 * (all but the identity itself, which must stay weakly held), and answers
 * only a lookup that presents the same values: the same instances, or
 * equal ones (compared in constant time, since some are secret). A different
 * key presented with the same identity (two keys sharing a modulus
 * instance, or a key whose values were replaced by {@code set_key}) replaces
 * the entry rather than using it. A value for which {@code usable} is false
 * (closed by another thread, say) is built again.
 *
 * <p>Thread-safe. A lookup that finds its value takes no lock (threads
 * signing with one key at once do not queue on the cache); adding,
 * evicting and dropping take one lock, never held while a value is built
 * or used. Recency is each entry's time of last use, so the least recently
 * used are found by a scan and a sort when the cache is full and a value
 * is added.
 */
public final class KeyCache<V> {
    public static final int DEFAULT_CAPACITY = 1024;
    /** A full cache evicts this fraction of its capacity at once (the least recently used). */
    private static final int EVICTED_SHARE = 16;

    private final int capacity;
    private final Consumer<? super V> onDrop;
    private final Predicate<? super V> usable;
    private final ReferenceQueue<Object> collected = new ReferenceQueue<>();
    private final Map<Object, Cached<V>> entries = new ConcurrentHashMap<>(); // written holding this
    private final LongAdder hits = new LongAdder();
    private long misses, evictions, collections; // guarded by this

    public KeyCache(int capacity, Consumer<? super V> onDrop, Predicate<? super V> usable) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1");
        this.capacity = capacity;
        this.onDrop = onDrop;
        this.usable = usable;
    }

    /**
     * The value cached for {@code identity} and these key {@code values}, or
     * one made by {@code create} (outside the lock) and cached. If two threads
     * create it at once, one copy is kept and the other dropped.
     */
    public V get(Object identity, BigInteger[] values, Supplier<? extends V> create) {
        V cached = peek(identity, values);
        if (cached != null) {
            hits.increment();
            return cached;
        }
        Probe probe = new Probe(identity);
        synchronized (this) {
            misses++;
        }
        V fresh = create.get();
        V replaced = null;
        synchronized (this) {
            expunge();
            Cached<V> entry = entries.get(probe);
            if (entry != null && entry.matches(values) && usable.test(entry.value)) {
                replaced = fresh; // another thread cached one first
                fresh = entry.value;
                entry.touch();
            } else {
                if (entry != null) {
                    entries.remove(probe);
                    replaced = entry.value;
                }
                entries.put(new IdentityRef(identity, collected), new Cached<>(fresh, values.clone()));
                if (entries.size() > capacity) evictLeastRecentlyUsed();
            }
        }
        if (replaced != null) onDrop.accept(replaced);
        return fresh;
    }

    /**
     * The value cached for {@code identity} and these key {@code values}, or
     * null; never builds one. Takes no lock (unless an identity was collected).
     */
    public V peek(Object identity, BigInteger[] values) {
        Reference<?> collectedRef = collected.poll();
        if (collectedRef != null) expungeNow(collectedRef);
        Cached<V> entry = entries.get(new Probe(identity));
        if (entry == null || !entry.matches(values) || !usable.test(entry.value)) return null;
        entry.touch();
        return entry.value;
    }

    /**
     * Removes and returns the value cached for {@code identity} and these
     * key {@code values} (the caller then owns it: {@code onDrop} is not
     * called for it), or null.
     */
    public V take(Object identity, BigInteger[] values) {
        synchronized (this) {
            expunge();
            Probe probe = new Probe(identity);
            Cached<V> entry = entries.get(probe);
            if (entry == null || !entry.matches(values) || !usable.test(entry.value)) return null;
            entries.remove(probe);
            hits.increment();
            return entry.value;
        }
    }

    /** Values cached now (after dropping those whose identity was collected). */
    public synchronized int size() {
        expunge();
        return entries.size();
    }

    public int capacity() {
        return capacity;
    }

    /** Lookups served from the cache, values built, evicted as least recently used, dropped after GC. */
    public synchronized long[] stats() {
        return new long[] { hits.sum(), misses, evictions, collections };
    }

    /** Drops every cached value. */
    public void clear() {
        List<V> dropped = new ArrayList<>();
        synchronized (this) {
            for (Cached<V> entry : entries.values()) dropped.add(entry.value);
            entries.clear();
            while (collected.poll() != null) {
                // their entries are gone with the rest
            }
        }
        for (V value : dropped) onDrop.accept(value);
    }

    /** Drops the values whose identity was garbage collected. Holding this. */
    private void expunge() {
        Reference<?> ref;
        while ((ref = collected.poll()) != null) dropCollected(ref);
    }

    /** {@link #expunge()} for a lookup that polled one collected identity already. */
    private synchronized void expungeNow(Reference<?> polled) {
        dropCollected(polled);
        expunge();
    }

    private void dropCollected(Reference<?> ref) { // holding this
        Cached<V> entry = entries.remove(ref);
        if (entry != null) {
            onDrop.accept(entry.value);
            collections++;
        }
    }

    /**
     * Evicts the least recently used sixteenth of the entries (at least
     * one): one scan and one sort of their times of last use for that many
     * insertions, so a cache that stays full (a fresh key per call, as
     * generated keys are) costs little per insertion. Holding this.
     */
    private void evictLeastRecentlyUsed() { // holding this
        int count = Math.max(1, capacity / EVICTED_SHARE);
        long[] times = new long[entries.size()];
        int n = 0;
        for (Cached<V> entry : entries.values()) {
            if (n == times.length) break;
            times[n++] = entry.lastUsed;
        }
        if (n == 0) return;
        Arrays.sort(times, 0, n);
        long newestEvicted = times[Math.min(count, n) - 1];
        Iterator<Map.Entry<Object, Cached<V>>> all = entries.entrySet().iterator();
        while (all.hasNext() && count > 0) {
            Cached<V> entry = all.next().getValue();
            if (entry.lastUsed > newestEvicted) continue; // used since the scan, or newer
            all.remove();
            count--;
            onDrop.accept(entry.value);
            evictions++;
        }
    }

    private static final class Cached<V> {
        final V value;
        final BigInteger[] values;
        volatile long lastUsed = System.nanoTime();

        Cached(V value, BigInteger[] values) {
            this.value = value;
            this.values = values;
        }

        void touch() {
            lastUsed = System.nanoTime();
        }

        boolean matches(BigInteger[] presented) {
            if (presented.length != values.length) return false;
            boolean same = true;
            for (int i = 0; i < values.length; i++) {
                if (values[i] != presented[i]) same &= equalInConstantTime(values[i], presented[i]);
            }
            return same;
        }
    }

    private static boolean equalInConstantTime(BigInteger a, BigInteger b) {
        if (a == null || b == null) return a == b;
        byte[] x = a.toByteArray();
        byte[] y = b.toByteArray();
        try {
            return MessageDigest.isEqual(x, y);
        } finally {
            java.util.Arrays.fill(x, (byte) 0);
            java.util.Arrays.fill(y, (byte) 0);
        }
    }

    /**
     * The map's key: a weak reference that is equal to another reference or
     * a {@link Probe} holding the same object. Once cleared it is equal only
     * to itself, so {@link #expunge()} can still remove it.
     */
    private static final class IdentityRef extends WeakReference<Object> {
        private final int hash;

        IdentityRef(Object referent, ReferenceQueue<Object> queue) {
            super(referent, queue);
            this.hash = System.identityHashCode(referent);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (other == this) return true;
            Object referent = get();
            if (referent == null) return false;
            if (other instanceof Probe) return ((Probe) other).referent == referent;
            return other instanceof IdentityRef && ((IdentityRef) other).get() == referent;
        }
    }

    /** A lookup key: holds the identity strongly, only for the lookup. */
    private static final class Probe {
        final Object referent;

        Probe(Object referent) {
            this.referent = referent;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(referent);
        }

        @Override
        public boolean equals(Object other) {
            if (other == this) return true;
            return other instanceof IdentityRef && ((IdentityRef) other).get() == referent;
        }
    }
}
