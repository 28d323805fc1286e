package fastrandom.jca;

import java.lang.reflect.Method;
import java.security.PrivateKey;
import java.security.PublicKey;

/**
 * The JCA keys behind jruby-openssl's {@code OpenSSL::PKey} objects, from
 * its public Java API ({@code org.jruby.ext.openssl.PKey#getPrivateKey()} and
 * {@code #getPublicKey()}), reached by reflection like {@link ProviderHook}, so
 * fast_random needs jruby-openssl neither to compile nor to load.
 */
public final class PKeyAccess {
    private static final ClassValue<Method[]> ACCESSORS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            try {
                return new Method[] {type.getMethod("getPrivateKey"), type.getMethod("getPublicKey")};
            } catch (NoSuchMethodException e) {
                return new Method[0];
            }
        }
    };

    private PKeyAccess() {}

    /** Whether objects of {@code type} have the two accessors (jruby-openssl's {@code PKey} subclasses do). */
    public static boolean supports(Class<?> type) {
        return ACCESSORS.get(type).length == 2;
    }

    /** The object's private key, or null (no private key, or not a jruby-openssl key). */
    public static PrivateKey privateKey(Object pkey) {
        Object key = call(pkey, 0);
        return key instanceof PrivateKey ? (PrivateKey) key : null;
    }

    /** The object's public key, or null. */
    public static PublicKey publicKey(Object pkey) {
        Object key = call(pkey, 1);
        return key instanceof PublicKey ? (PublicKey) key : null;
    }

    private static Object call(Object pkey, int which) {
        Method[] accessors = ACCESSORS.get(pkey.getClass());
        if (accessors.length == 0) return null;
        try {
            return accessors[which].invoke(pkey);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
