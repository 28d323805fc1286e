package fastrandom.rsa;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import fastrandom.jni.LibCrypto;
import fastrandom.support.Diagnostics;

/**
 * Which engine RSA runs on: {@code openssl} (libcrypto through our JNI
 * library), {@code gmp} (jnagmp) or {@code java} (jruby-openssl's own
 * BouncyCastle code, i.e. stock). Unless one is selected, the first
 * operation picks the fastest that loads and passes its known-answer
 * self-test, in that order; if neither native engine can run, RSA stays on
 * Java with one warning saying why.
 *
 * <p>This class may be used before openssl is loaded ({@code FastRandom::RSA}
 * works then too), when jruby-openssl's BouncyCastle, on which the
 * {@code gmp} engine runs, is not there yet. Nothing that needs it is touched
 * then (a class that failed to link once never links again): a {@code gmp}
 * chosen then is remembered and self-tested when an operation first needs
 * an engine, which can only happen once openssl is loaded.
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
    private static volatile String pending; // chosen before BouncyCastle was there; applied when it is

    private RsaEngines() {}

    /** The engine for an operation starting now; null means BouncyCastle's own (java). */
    public static RsaEngine current() {
        if (!chosen) chooseDefault();
        return current;
    }

    /**
     * The selected engine's name, choosing the default if nothing was chosen
     * yet. Before openssl is loaded, a choice that cannot be settled yet is
     * named as it stands: the engine chosen, or the default as far as it can
     * be told (gmp when its library loads, whose self-test is still to come).
     */
    public static String selected() {
        RsaEngine engine = current();
        if (chosen) return engine == null ? JAVA : engine.name();
        String choice = pending;
        if (choice != null) return choice;
        return GmpLibrary.unavailableReason() == null ? GmpRsaEngine.NAME : JAVA;
    }

    /**
     * Selects {@code name} for every operation from now on. Throws
     * {@link IllegalArgumentException} for an unknown name and
     * {@link IllegalStateException} (saying why) when it cannot run here.
     */
    public static synchronized void select(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (!CANDIDATES.containsKey(key) && !JAVA.equals(key)) throw new IllegalArgumentException("unknown RSA engine " + name);
        pending = null;
        if (JAVA.equals(key)) {
            current = null;
        } else if (GmpRsaEngine.NAME.equals(key) && !bouncyCastleLoaded()) {
            String reason = GmpLibrary.unavailableReason();
            if (reason != null) throw new IllegalStateException(key + " RSA engine unavailable: " + reason);
            pending = key;
            chosen = false;
            return;
        } else {
            Candidate candidate = check(key);
            if (candidate.reason != null) throw new IllegalStateException(key + " RSA engine unavailable: " + candidate.reason);
            current = candidate.engine();
        }
        chosen = true;
    }

    /**
     * Null when {@code name} can run here, else why not (loads and
     * self-tests it; before openssl is loaded, gmp's self-test is still to come).
     */
    public static synchronized String unavailableReason(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (JAVA.equals(key)) return null;
        if (GmpRsaEngine.NAME.equals(key) && !bouncyCastleLoaded()) return GmpLibrary.unavailableReason();
        return check(key).reason;
    }

    /**
     * The first candidate that loads and passes its self-test; a faster one
     * that did not is named in one warning, with why.
     */
    private static synchronized void chooseDefault() {
        if (chosen) return;
        if (pending != null) {
            if (!bouncyCastleLoaded()) return;
            Candidate candidate = check(pending);
            if (candidate.reason == null) {
                current = candidate.engine();
                chosen = true;
                pending = null;
                return;
            }
            Diagnostics.warnOnce("the " + pending + " RSA engine chosen before openssl was loaded cannot run ("
                    + candidate.reason + "); RSA uses the default engine");
            pending = null;
        }
        StringBuilder reasons = new StringBuilder();
        for (String name : CANDIDATES.keySet()) {
            if (GmpRsaEngine.NAME.equals(name) && !bouncyCastleLoaded()) return; // settled once openssl is loaded
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

    /** Whether jruby-openssl's BouncyCastle is on our class loader yet (openssl is loaded). */
    static boolean bouncyCastleLoaded() {
        try {
            Class.forName("org.bouncycastle.crypto.params.RSAKeyParameters", false, RsaEngines.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
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
