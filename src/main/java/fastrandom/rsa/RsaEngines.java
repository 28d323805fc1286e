package fastrandom.rsa;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import fastrandom.jni.LibCrypto;
import fastrandom.random.Diagnostics;

/**
 * Which engine RSA runs on: {@code openssl} (libcrypto through our JNI
 * library), {@code gmp} (jnagmp) or {@code java} (jruby-openssl's own
 * BouncyCastle code, i.e. stock). Unless one is selected, the first
 * operation picks the fastest that loads and passes its known-answer
 * self-test, in that order; if neither native engine can run, RSA stays on
 * Java with one warning saying why.
 */
public final class RsaEngines {
    public static final String JAVA = "java";

    private static final Map<String, Supplier<Candidate>> CANDIDATES = new LinkedHashMap<>();

    static {
        CANDIDATES.put("openssl", () -> new Candidate(
                LibCrypto.load() ? OpenSslRsaEngine.selfTest() : LibCrypto.failure(), OpenSslRsaEngine::new));
        CANDIDATES.put("gmp", () -> {
            String reason = GmpLibrary.unavailableReason();
            return new Candidate(reason != null ? reason : GmpRsaEngine.selfTest(), GmpRsaEngine::new);
        });
    }

    private static final Map<String, Candidate> checked = new LinkedHashMap<>(); // guarded by RsaEngines.class
    private static volatile boolean chosen;
    private static volatile RsaEngine current; // null: java

    private RsaEngines() {}

    /** The engine for an operation starting now; null means BouncyCastle's own (java). */
    public static RsaEngine current() {
        if (!chosen) chooseDefault();
        return current;
    }

    /** The selected engine's name, choosing the default if nothing was chosen yet. */
    public static String selected() {
        RsaEngine engine = current();
        return engine == null ? JAVA : engine.name();
    }

    /**
     * Selects {@code name} for every operation from now on. Throws
     * {@link IllegalArgumentException} for an unknown name and
     * {@link IllegalStateException} (saying why) when it cannot run here.
     */
    public static synchronized void select(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (JAVA.equals(key)) {
            current = null;
        } else {
            Candidate candidate = check(key);
            if (candidate.reason != null) throw new IllegalStateException(key + " RSA engine unavailable: " + candidate.reason);
            current = candidate.engine();
        }
        chosen = true;
    }

    /** Null when {@code name} can run here, else why not (loads and self-tests it). */
    public static synchronized String unavailableReason(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return JAVA.equals(key) ? null : check(key).reason;
    }

    /**
     * The first candidate that loads and passes its self-test; a faster one
     * that did not is named in one warning, with why.
     */
    private static synchronized void chooseDefault() {
        if (chosen) return;
        StringBuilder reasons = new StringBuilder();
        for (String name : CANDIDATES.keySet()) {
            Candidate candidate = check(name);
            if (candidate.reason == null) {
                current = candidate.engine();
                chosen = true;
                if (reasons.length() > 0) Diagnostics.warnOnce("RSA runs on the " + name + " engine (" + reasons + ")");
                return;
            }
            reasons.append(reasons.length() == 0 ? "" : "; ").append(name).append(": ").append(candidate.reason);
        }
        current = null;
        chosen = true;
        Diagnostics.warnOnce("RSA stays on jruby-openssl's Java code (" + reasons + ")");
    }

    private static Candidate check(String name) {
        Candidate candidate = checked.get(name);
        if (candidate == null) {
            Supplier<Candidate> probe = CANDIDATES.get(name);
            if (probe == null) throw new IllegalArgumentException("unknown RSA engine " + name);
            try {
                candidate = probe.get();
            } catch (LinkageError | RuntimeException e) {
                candidate = new Candidate(e.toString(), null);
            }
            checked.put(name, candidate);
        }
        return candidate;
    }

    /** An engine that was tried: why it cannot run, or how to make it. */
    private static final class Candidate {
        final String reason;
        private final Supplier<RsaEngine> factory;
        private RsaEngine engine;

        Candidate(String reason, Supplier<RsaEngine> factory) {
            this.reason = reason;
            this.factory = factory;
        }

        synchronized RsaEngine engine() {
            if (engine == null) engine = factory.get();
            return engine;
        }
    }
}
