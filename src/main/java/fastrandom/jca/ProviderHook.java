package fastrandom.jca;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.Provider;

/**
 * Puts fast_random's engines into jruby-openssl: jruby-openssl gets every
 * Signature, Cipher and KeyAgreement from the one provider its
 * {@code SecurityHelper} holds, so swapping that provider for a
 * {@link JRubyOpenSslProvider} around it is the whole hook (no jruby-openssl code is
 * copied or patched). Each capability (RSA, EC, AES) is switched on and off on
 * its own, on that provider: while one is off, it hands out BouncyCastle's
 * own services for it, exactly as stock. So the switches belong to the
 * jruby-openssl whose {@code SecurityHelper} holds the provider (each
 * runtime's own, where each loads jruby-openssl), not to fast_random's
 * classes, which runtimes may share. Called once openssl is loaded, never
 * before: the classes involved come with it.
 */
public final class ProviderHook {
    private static final String SECURITY_HELPER = "org.jruby.ext.openssl.SecurityHelper";

    /** What the provider can take over. */
    public enum Capability { RSA, EC, AES }

    private ProviderHook() {}

    /**
     * Routes jruby-openssl's operations of this capability through
     * fast_random's engines (whichever is selected at each operation),
     * putting the provider in first if it is not there yet. Returns that
     * provider.
     */
    public static synchronized JRubyOpenSslProvider install(ClassLoader loader, Capability capability) {
        Provider current = securityProvider(loader);
        JRubyOpenSslProvider ours;
        if (current instanceof JRubyOpenSslProvider) {
            ours = (JRubyOpenSslProvider) current;
        } else {
            if (current == null) throw new IllegalStateException("jruby-openssl has no security provider to wrap");
            ours = new JRubyOpenSslProvider(current);
            setSecurityProvider(loader, ours);
        }
        ours.activate(capability, true);
        return ours;
    }

    /**
     * Gives this capability back to jruby-openssl's BouncyCastle: off on
     * {@code ours}, the provider {@link #install} returned (whether or not
     * jruby-openssl still holds it); once no capability is left on it and
     * jruby-openssl holds it, jruby-openssl gets its own provider back.
     */
    public static synchronized void uninstall(ClassLoader loader, JRubyOpenSslProvider ours, Capability capability) {
        ours.activate(capability, false);
        if (!ours.anyActive() && securityProvider(loader) == ours) setSecurityProvider(loader, ours.bouncyCastle());
    }

    /** Whether jruby-openssl holds our provider with the capability on. */
    public static boolean installed(ClassLoader loader, Capability capability) {
        Provider current = securityProvider(loader);
        return current instanceof JRubyOpenSslProvider && ((JRubyOpenSslProvider) current).isActive(capability);
    }

    /**
     * The BouncyCastle provider jruby-openssl uses when fast_random is not in
     * the way: the one its {@code SecurityHelper} holds, or the one the
     * provider fast_random put there wraps.
     */
    public static Provider bouncyCastle(ClassLoader loader) {
        Provider current = securityProvider(loader);
        return current instanceof JRubyOpenSslProvider ? ((JRubyOpenSslProvider) current).bouncyCastle() : current;
    }

    /**
     * Null when jruby-openssl's {@code SecurityHelper} has what this hook
     * uses (a static getter and setter of its provider, and a provider to
     * wrap); else what it lacks, said as a thing it has no.
     */
    public static String missing(ClassLoader loader) {
        try {
            Class<?> helper = Class.forName(SECURITY_HELPER, true, loader);
            Method get = helper.getMethod("getSecurityProvider");
            Method set = helper.getMethod("setSecurityProvider", Provider.class);
            if (!Modifier.isStatic(get.getModifiers()) || !Modifier.isStatic(set.getModifiers())
                    || !Provider.class.isAssignableFrom(get.getReturnType())) {
                return SECURITY_HELPER + "'s static getSecurityProvider and setSecurityProvider(Provider)";
            }
            return get.invoke(null) == null ? "provider in " + SECURITY_HELPER : null;
        } catch (ReflectiveOperationException | LinkageError e) {
            return SECURITY_HELPER + ".getSecurityProvider and setSecurityProvider(Provider)";
        }
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
