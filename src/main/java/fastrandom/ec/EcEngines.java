package fastrandom.ec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import fastrandom.jni.XdhKey;
import fastrandom.support.Diagnostics;
import fastrandom.support.EngineRegistry;

/**
 * Which engine EC runs on: {@code openssl} (libcrypto through our JNI
 * library) or {@code java} (jruby-openssl's own BouncyCastle code, i.e.
 * stock), chosen as {@link EngineRegistry} says. The self-test runs on every
 * curve the engine serves; a curve that fails it is left out of the engine
 * (its keys run on the Java code: jruby-openssl's, or the next JCA provider
 * for the JVM-wide provider) with one warning naming it, the other curves
 * staying on openssl; only when every curve fails is the engine
 * unavailable. Usable before openssl is loaded.
 */
public final class EcEngines {
    public static final String JAVA = EngineRegistry.JAVA;

    private static final String JAVA_CODE = "Java code: jruby-openssl's, or the next JCA provider for the JVM-wide one";
    private static final Set<EcCurve> PASSED = EnumSet.noneOf(EcCurve.class); // written once, by the self-test
    private static final Set<XdhKey.Type> XDH_PASSED = EnumSet.noneOf(XdhKey.Type.class); // X25519, X448 passed: the same

    /** Selection by name, the default choice, and why an engine cannot run ({@code FastRandom::EC.engine=}, ...). */
    public static final EngineRegistry<OpenSslEcEngine> ENGINES = new EngineRegistry<OpenSslEcEngine>("EC", JAVA_CODE)
            .candidate(OpenSslEcEngine.NAME, EcEngines::selfTest, () -> new OpenSslEcEngine(PASSED, XDH_PASSED));

    private EcEngines() {}

    /** The engine for an operation starting now; null means jruby-openssl's own (java). */
    public static OpenSslEcEngine current() {
        return ENGINES.current();
    }

    /**
     * The engine for an operation whose Java code is cheaper cold than the
     * self-test (key generation), or null for the Java code while the
     * choice is made on a daemon thread: see {@link EngineRegistry#currentWithoutWaiting()}.
     */
    public static OpenSslEcEngine currentWithoutWaiting() {
        return ENGINES.currentWithoutWaiting();
    }

    /** Runs once, by the registry: null when a curve passed, else the engine's problem. */
    private static String selfTest() {
        try {
            return sortResults(OpenSslEcEngine.selfTest());
        } catch (IllegalStateException e) {
            return e.getMessage(); // the library or libcrypto is not there
        }
    }

    /**
     * Keeps the curves that passed; null when one did (with one warning
     * naming those that failed, if any), else the engine's problem.
     */
    private static String sortResults(Map<EcCurve, String> results) {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<EcCurve, String> result : results.entrySet()) {
            if (result.getValue() == null) PASSED.add(result.getKey());
            else failures.add(result.getKey().opensslName() + ": " + result.getValue());
        }
        String failed = "OpenSSL EC self-test: " + String.join("; ", failures);
        if (PASSED.isEmpty()) return failed;
        List<String> otherFailures = new ArrayList<>();
        for (XdhKey.Type type : XdhKey.Type.values()) {
            String why = EcKnownAnswerTest.xdh(type);
            if (why == null) XDH_PASSED.add(type);
            else otherFailures.add(type + ": " + why);
        }
        if (!otherFailures.isEmpty()) {
            Diagnostics.warnOnce("the openssl EC engine leaves out the XDH curves that failed its self-test; their keys run on "
                    + JAVA_CODE + " (OpenSSL self-test: " + String.join("; ", otherFailures) + ")");
        }
        if (!failures.isEmpty()) {
            Diagnostics.warnOnce("the openssl EC engine leaves out the curves that failed its self-test; keys on them run on "
                    + JAVA_CODE + " (" + failed + ")");
        }
        return null;
    }
}
