package fastrandom.tls.openssl.netty;

/**
 * Loads netty-tcnative's JNI library into {@link fastrandom.tls.openssl.EngineClassLoader}
 * (the JVM binds a library to the class loader of the class that loads it,
 * and netty-tcnative's classes find their native methods there), before
 * netty's {@code OpenSsl} is first used: netty then finds the library loaded
 * "by some other means" and initializes it, without extracting its own.
 */
public final class NativeLoad {
    private NativeLoad() {}

    /** System.load of the library at {@code path}, from this class loader. */
    public static void load(String path) {
        System.load(path);
    }
}
