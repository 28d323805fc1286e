package fastrandom.support;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;


/**
 * Which engine one family of operations (RSA, EC) runs on: one of its
 * native candidates, or {@code java} (jruby-openssl's own BouncyCastle code,
 * i.e. stock), for which {@link #current()} is null. Unless one is selected,
 * the first operation picks the first candidate, in the order given, that
 * loads and passes its known-answer self-test; each is tried at most once
 * per class loader, and why one cannot run is kept for
 * {@link #unavailableReason}.
 *
 * <p>Passing over a candidate is said once: a warning when the user can do
 * something about it, a remark shown only under Ruby's {@code $VERBOSE}
 * when the only thing missing is fast_random's native library on a
 * platform the gem ships none for (what {@code FastRandom.stats} and
 * {@code engine_problem} tell anyway).
 *
 * <p>A candidate may not be ready to be self-tested yet (RSA's {@code gmp}
 * engine runs on jruby-openssl's BouncyCastle, which is not there before
 * openssl is loaded): it is then chosen, or passed by default, only once it
 * is, and until then named by what can be told without running it.
 *
 * @param <E> the engine type
 */
public final class EngineRegistry<E> {
    public static final String JAVA = "java";
    /** What runs an operation no engine does, for jruby-openssl's provider: its own code. */
    public static final String JRUBY_OPENSSL_CODE = "jruby-openssl's Java code";

    private final String family; // "RSA", in messages
    private final String javaCode; // what runs without an engine, in messages
    private final Map<String, Candidate<E>> candidates = new LinkedHashMap<>();
    private final Map<String, Tried<E>> tried = new LinkedHashMap<>(); // guarded by this

    private volatile boolean chosen;
    private final AtomicBoolean choosing = new AtomicBoolean(); // currentWithoutWaiting started the choice
    private final AtomicInteger callsBeforeChoice = new AtomicInteger(); // by currentWithoutWaiting
    private volatile E current; // null: java
    private volatile String currentName = JAVA;
    private volatile String pending; // selected before it was ready; applied when it is

    /**
     * @param family   the operations' name in messages ("RSA")
     * @param javaCode what runs them without an engine, in messages ("jruby-openssl's Java code")
     */
    public EngineRegistry(String family, String javaCode) {
        this.family = family;
        this.javaCode = javaCode;
    }

    /**
     * Adds a candidate, tried after those added before it: {@code selfTest}
     * loads and self-tests it (null when it can run, else why not),
     * {@code factory} then makes the engine.
     */
    public EngineRegistry<E> candidate(String name, Supplier<String> selfTest, Supplier<E> factory) {
        return candidate(name, selfTest, factory, () -> true, () -> null);
    }

    /**
     * A candidate that can be self-tested only once {@code ready}; before
     * that, {@code precheck} says why it cannot run (null: it may).
     */
    public EngineRegistry<E> candidate(String name, Supplier<String> selfTest, Supplier<E> factory,
                                       BooleanSupplier ready, Supplier<String> precheck) {
        candidates.put(name, new Candidate<>(selfTest, factory, ready, precheck));
        return this;
    }

    /** The engine for an operation starting now; null means jruby-openssl's own (java). */
    public E current() {
        if (!chosen) chooseDefault();
        return current;
    }

    /**
     * The engine for an operation starting now if the choice is made, else
     * null (the Java code) for this one, the choice being made meanwhile on
     * a daemon thread, started by the second such call (as
     * {@code fastrandom.random.WarmUp} is): the first call neither waits for
     * the self-tests nor shares the cores with them (on two cores that
     * doubled a first EC generation), and a process that calls once never
     * runs them. For operations whose Java code costs less on a cold JVM
     * than the candidates' self-tests.
     */
    public E currentWithoutWaiting() {
        if (chosen) return current;
        if (callsBeforeChoice.getAndIncrement() >= 1 && choosing.compareAndSet(false, true)) {
            Thread thread = new Thread(new Choose(this), "fast_random-" + family + "-engine");
            thread.setDaemon(true);
            thread.start();
        }
        return null;
    }

    /** Makes the default choice off the caller's thread. (A class, not a lambda: cheaper on a cold JVM.) */
    private static final class Choose implements Runnable {
        private final EngineRegistry<?> registry;

        Choose(EngineRegistry<?> registry) {
            this.registry = registry;
        }

        @Override
        public void run() {
            try {
                registry.chooseDefault();
            } catch (Throwable e) { // an Error the self-test let out: say so, and let a later call try again
                registry.choosing.set(false);
                Diagnostics.warnOnce("choosing the " + registry.family + " engine failed: " + e);
                if (e instanceof VirtualMachineError) throw (VirtualMachineError) e;
            }
        }
    }

    /**
     * The selected engine's name, choosing the default if nothing was chosen
     * yet. While that cannot be settled (a candidate not ready), the name is
     * the engine selected, or the default as far as it can be told.
     */
    public String selected() {
        current();
        if (chosen) return currentName;
        String choice = pending;
        if (choice != null) return choice;
        String waiting = firstNotReady();
        return waiting != null && candidates.get(waiting).precheck.get() == null ? waiting : JAVA;
    }

    /**
     * Selects {@code name} for every operation from now on. Throws
     * {@link IllegalArgumentException} for an unknown name and
     * {@link IllegalStateException} (saying why) when it cannot run here.
     */
    public synchronized void select(String name) {
        String key = known(name);
        pending = null;
        if (JAVA.equals(key)) {
            use(JAVA, null);
            return;
        }
        Candidate<E> candidate = candidates.get(key);
        if (!candidate.ready.getAsBoolean()) {
            String reason = candidate.precheck.get();
            if (reason != null) throw unavailable(key, reason);
            pending = key;
            chosen = false;
            return;
        }
        Tried<E> result = tryCandidate(key);
        if (result.reason != null) throw unavailable(key, result.reason);
        use(key, result.engine());
    }

    /**
     * Null when {@code name} can run here, else why not (loads and
     * self-tests it; for a candidate not ready yet, what can be told before).
     */
    public synchronized String unavailableReason(String name) {
        String key = known(name);
        if (JAVA.equals(key)) return null;
        Candidate<E> candidate = candidates.get(key);
        return candidate.ready.getAsBoolean() ? tryCandidate(key).reason : candidate.precheck.get();
    }

    /**
     * The {@code engine} failed in an operation ({@code e}), which
     * {@code instead} did: one warning per wording.
     */
    public void warnFailure(String engine, Exception e, String instead) {
        Diagnostics.warnOnce("the " + engine + " " + family + " engine failed (" + e.getMessage() + "); such operations run on "
                + instead);
    }

    private synchronized void chooseDefault() {
        if (chosen) return;
        if (pending != null) {
            if (!candidates.get(pending).ready.getAsBoolean()) return;
            Tried<E> result = tryCandidate(pending);
            if (result.reason == null) {
                use(pending, result.engine());
                pending = null;
                return;
            }
            Diagnostics.warnOnce("the " + pending + " " + family + " engine chosen before openssl was loaded cannot run ("
                    + result.reason + "); " + family + " uses the default engine");
            pending = null;
        }
        StringBuilder reasons = new StringBuilder();
        boolean actionable = false;
        for (Map.Entry<String, Candidate<E>> entry : candidates.entrySet()) {
            String name = entry.getKey();
            if (!entry.getValue().ready.getAsBoolean()) return; // settled once it is
            Tried<E> result = tryCandidate(name);
            if (result.reason == null) {
                use(name, result.engine());
                if (reasons.length() > 0) say(actionable, family + " runs on the " + name + " engine (" + reasons + ")");
                return;
            }
            reasons.append(reasons.length() == 0 ? "" : "; ").append(name).append(": ").append(result.reason);
            actionable |= !Diagnostics.saidOnceForNativeCode(result.reason);
        }
        use(JAVA, null);
        say(actionable, family + " stays on " + javaCode + " (" + reasons + ")");
    }

    private static void say(boolean actionable, String message) {
        if (actionable) Diagnostics.warnOnce(message);
        else Diagnostics.warnOnceIfVerbose(message);
    }

    private void use(String name, E engine) { // holding this
        current = engine;
        currentName = name;
        chosen = true;
    }

    private String firstNotReady() {
        for (Map.Entry<String, Candidate<E>> entry : candidates.entrySet()) {
            if (!entry.getValue().ready.getAsBoolean()) return entry.getKey();
        }
        return null;
    }

    private String known(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (!JAVA.equals(key) && !candidates.containsKey(key)) {
            throw new IllegalArgumentException("unknown " + family + " engine " + name);
        }
        return key;
    }

    private IllegalStateException unavailable(String key, String reason) {
        return new IllegalStateException(key + " " + family + " engine unavailable: " + reason);
    }

    private Tried<E> tryCandidate(String name) { // holding this
        Tried<E> result = tried.get(name);
        if (result == null) {
            Candidate<E> candidate = candidates.get(name);
            String reason;
            try {
                reason = candidate.selfTest.get();
            } catch (LinkageError | RuntimeException e) {
                reason = e.toString();
            }
            result = new Tried<>(reason, candidate.factory);
            tried.put(name, result);
        }
        return result;
    }

    private static final class Candidate<E> {
        final Supplier<String> selfTest;
        final Supplier<E> factory;
        final BooleanSupplier ready;
        final Supplier<String> precheck;

        Candidate(Supplier<String> selfTest, Supplier<E> factory, BooleanSupplier ready, Supplier<String> precheck) {
            this.selfTest = selfTest;
            this.factory = factory;
            this.ready = ready;
            this.precheck = precheck;
        }
    }

    /** A candidate that was tried: why it cannot run, or the engine, made once. */
    private static final class Tried<E> {
        final String reason;
        private final Supplier<E> factory;
        private E engine;

        Tried(String reason, Supplier<E> factory) {
            this.reason = reason;
            this.factory = factory;
        }

        synchronized E engine() {
            if (engine == null) engine = factory.get();
            return engine;
        }
    }
}
