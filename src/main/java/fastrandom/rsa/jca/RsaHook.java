package fastrandom.rsa.jca;

import java.lang.reflect.Method;
import java.security.Provider;

/**
 * Puts fast_random's RSA into jruby-openssl, and takes it out again: jruby-
 * openssl gets every Signature and Cipher from the one provider its
 * {@code SecurityHelper} holds, so swapping that provider for a
 * {@link FastRsaProvider} around it is the whole hook (no jruby-openssl code
 * is copied or patched). Called once openssl is loaded, never before: the
 * classes involved come with it.
 */
public final class RsaHook {
    private static final String SECURITY_HELPER = "org.jruby.ext.openssl.SecurityHelper";

    /** Whether the hook is in (read by the PSS methods, which cannot be taken out once prepended). */
    private static volatile boolean active;

    private RsaHook() {}

    /**
     * Routes jruby-openssl's RSA through fast_random's engines (whichever
     * {@code fastrandom.rsa.RsaEngines} has selected at each operation).
     * Does nothing when already installed.
     */
    public static synchronized void install(ClassLoader loader) {
        Provider current = securityProvider(loader);
        if (!(current instanceof FastRsaProvider)) {
            if (current == null) throw new IllegalStateException("jruby-openssl has no security provider to wrap");
            setSecurityProvider(loader, new FastRsaProvider(current));
        }
        active = true;
    }

    /** Gives jruby-openssl back its own BouncyCastle provider. */
    public static synchronized void uninstall(ClassLoader loader) {
        active = false;
        Provider current = securityProvider(loader);
        if (current instanceof FastRsaProvider) setSecurityProvider(loader, ((FastRsaProvider) current).bouncyCastle());
    }

    /** Whether jruby-openssl's RSA goes through fast_random now (installed and not uninstalled). */
    public static boolean isActive() {
        return active;
    }

    public static boolean installed(ClassLoader loader) {
        return securityProvider(loader) instanceof FastRsaProvider;
    }

    private static Provider securityProvider(ClassLoader loader) {
        return (Provider) call(loader, "getSecurityProvider", new Class<?>[0]);
    }

    private static void setSecurityProvider(ClassLoader loader, Provider provider) {
        call(loader, "setSecurityProvider", new Class<?>[] {Provider.class}, provider);
    }

    // SecurityHelper lives in jruby-openssl's jar, loaded with openssl; we
    // reach it by reflection so fast_random neither needs it to compile nor
    // loads it.
    private static Object call(ClassLoader loader, String name, Class<?>[] types, Object... args) {
        try {
            Method method = Class.forName(SECURITY_HELPER, true, loader).getMethod(name, types);
            return method.invoke(null, args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jruby-openssl's " + SECURITY_HELPER + "." + name + " is not usable: " + e, e);
        }
    }
}
