package fastrandom.rsa;

import fastrandom.jni.LibCrypto;
import fastrandom.support.EngineRegistry;

/**
 * Which engine RSA runs on: {@code openssl} (libcrypto through our JNI
 * library), {@code gmp} (jnagmp) or {@code java} (jruby-openssl's own
 * BouncyCastle code, i.e. stock). Unless one is selected, the first
 * operation picks the fastest that loads and passes its known-answer
 * self-test, in that order ({@link EngineRegistry}).
 *
 * <p>This class may be used before openssl is loaded ({@code FastRandom::RSA}
 * works then too), when jruby-openssl's BouncyCastle, on which the
 * {@code gmp} engine runs, is not there yet. Nothing that needs it is touched
 * then (a class that failed to link once never links again): a {@code gmp}
 * chosen then is remembered and self-tested when an operation first needs
 * an engine, which can only happen once openssl is loaded.
 */
public final class RsaEngines {
    public static final String JAVA = EngineRegistry.JAVA;

    /**
     * Selection by name, the default choice, and why an engine cannot run
     * ({@code FastRandom::RSA.engine=}, ...). Lambdas, not method
     * references: a method reference links its class at once, and
     * GmpRsaEngine's needs jnagmp and BouncyCastle, which may not be there.
     */
    public static final EngineRegistry<RsaEngine> ENGINES = new EngineRegistry<RsaEngine>("RSA", EngineRegistry.JRUBY_OPENSSL_CODE)
            .candidate(OpenSslRsaEngine.NAME, () -> LibCrypto.load() ? OpenSslRsaEngine.selfTest() : LibCrypto.failure(),
                       () -> new OpenSslRsaEngine())
            .candidate(GmpRsaEngine.NAME, () -> gmpSelfTest(), () -> new GmpRsaEngine(),
                       () -> bouncyCastleLoaded(), () -> GmpLibrary.unavailableReason());

    private RsaEngines() {}

    /** The engine for an operation starting now; null means BouncyCastle's own (java). */
    public static RsaEngine current() {
        return ENGINES.current();
    }

    private static String gmpSelfTest() {
        String reason = GmpLibrary.unavailableReason();
        return reason != null ? reason : GmpRsaEngine.selfTest();
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
}
