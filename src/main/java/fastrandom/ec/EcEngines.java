package fastrandom.ec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import fastrandom.support.Diagnostics;

/**
 * Which engine EC runs on: {@code openssl} (libcrypto through our JNI
 * library) or {@code java} (jruby-openssl's own BouncyCastle code, i.e.
 * stock). Unless one is selected, the first operation picks {@code openssl}
 * if it loads and passes its known-answer self-test, else stays on Java with
 * one warning saying why. The self-test runs on every curve the engine
 * serves; a curve that fails it is left out of the engine (its keys run on
 * the Java code: jruby-openssl's, or the next JCA provider for the JVM-wide
 * provider) with one warning naming it, the other curves staying on
 * openssl; only when every curve fails is the engine unavailable. Usable
 * before openssl is loaded.
 */
public final class EcEngines {
    public static final String JAVA = "java";

    private static volatile boolean chosen;
    private static volatile OpenSslEcEngine current; // null: java
    private static String opensslProblem; // guarded by EcEngines.class
    private static Set<EcCurve> passed = EnumSet.noneOf(EcCurve.class); // guarded by EcEngines.class
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
        if (problem != null) {
            Diagnostics.warnOnce("EC stays on Java code: jruby-openssl's, or the next JCA provider for the JVM-wide one (openssl: "
                    + problem + ")");
        }
    }

    private static OpenSslEcEngine engine;

    private static OpenSslEcEngine engine() { // holding EcEngines.class
        if (engine == null) engine = new OpenSslEcEngine(passed);
        return engine;
    }

    private static String check() { // holding EcEngines.class
        if (!checked) {
            try {
                opensslProblem = sortResults(OpenSslEcEngine.selfTest());
            } catch (IllegalStateException e) {
                opensslProblem = e.getMessage();
            } catch (RuntimeException | LinkageError e) {
                opensslProblem = e.toString();
            }
            checked = true;
        }
        return opensslProblem;
    }

    /**
     * Keeps the curves that passed; null when one did (with one warning
     * naming those that failed, if any), else the engine's problem.
     */
    private static String sortResults(Map<EcCurve, String> results) { // holding EcEngines.class
        List<String> failures = new ArrayList<>();
        for (Map.Entry<EcCurve, String> result : results.entrySet()) {
            if (result.getValue() == null) passed.add(result.getKey());
            else failures.add(result.getKey().opensslName() + ": " + result.getValue());
        }
        String failed = "OpenSSL EC self-test: " + String.join("; ", failures);
        if (passed.isEmpty()) return failed;
        if (!failures.isEmpty()) {
            Diagnostics.warnOnce("the openssl EC engine leaves out the curves that failed its self-test; keys on them run on "
                    + "Java code: jruby-openssl's, or the next JCA provider for the JVM-wide one (" + failed + ")");
        }
        return null;
    }
}
