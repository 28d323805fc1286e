package fastrandom.ec;

import java.util.Locale;

import fastrandom.random.Diagnostics;

/**
 * Which engine EC runs on: {@code openssl} (libcrypto through our JNI
 * library) or {@code java} (jruby-openssl's own BouncyCastle code, i.e.
 * stock). Unless one is selected, the first operation picks {@code openssl}
 * if it loads and passes its known-answer self-test, else stays on Java with
 * one warning saying why. Usable before openssl is loaded.
 */
public final class EcEngines {
    public static final String JAVA = "java";

    private static volatile boolean chosen;
    private static volatile OpenSslEcEngine current; // null: java
    private static String opensslProblem; // guarded by EcEngines.class
    private static boolean checked; // guarded by EcEngines.class

    private EcEngines() {}

    /** The engine for an operation starting now; null means jruby-openssl's own (java). */
    public static OpenSslEcEngine current() {
        if (!chosen) chooseDefault();
        return current;
    }

    /** The selected engine's name ("openssl" or "java"), choosing the default if nothing was chosen yet. */
    public static String selected() {
        return current() == null ? JAVA : OpenSslEcEngine.NAME;
    }

    /**
     * Selects {@code name} for every operation from now on. Throws
     * IllegalArgumentException for an unknown name and IllegalStateException
     * (saying why) when it cannot run here.
     */
    public static synchronized void select(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (JAVA.equals(key)) {
            current = null;
        } else if (OpenSslEcEngine.NAME.equals(key)) {
            String problem = check();
            if (problem != null) throw new IllegalStateException(key + " EC engine unavailable: " + problem);
            current = engine();
        } else {
            throw new IllegalArgumentException("unknown EC engine " + name);
        }
        chosen = true;
    }

    /** Null when {@code name} can run here, else why not (loads and self-tests it). */
    public static synchronized String unavailableReason(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        if (JAVA.equals(key)) return null;
        if (!OpenSslEcEngine.NAME.equals(key)) throw new IllegalArgumentException("unknown EC engine " + name);
        return check();
    }

    private static synchronized void chooseDefault() {
        if (chosen) return;
        String problem = check();
        current = problem == null ? engine() : null;
        chosen = true;
        if (problem != null) Diagnostics.warnOnce("EC stays on jruby-openssl's Java code (openssl: " + problem + ")");
    }

    private static OpenSslEcEngine engine;

    private static OpenSslEcEngine engine() { // holding EcEngines.class
        if (engine == null) engine = new OpenSslEcEngine();
        return engine;
    }

    private static String check() { // holding EcEngines.class
        if (!checked) {
            try {
                opensslProblem = OpenSslEcEngine.selfTest();
            } catch (RuntimeException | LinkageError e) {
                opensslProblem = e.toString();
            }
            checked = true;
        }
        return opensslProblem;
    }
}
