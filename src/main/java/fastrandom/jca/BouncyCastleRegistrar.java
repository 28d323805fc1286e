package fastrandom.jca;

import java.lang.reflect.Field;

/**
 * Keeps BouncyCastle's {@code CryptoServicesRegistrar} from pinning a torn-down
 * JRuby runtime. Its static initializer (BouncyCastle 1.83 and 1.84, the
 * versions jruby-openssl brings) stores the default DSA and DH parameters in
 * a ThreadLocal of the thread that runs it, besides its global map. That
 * thread (a Rails app's main thread, an application server's request thread)
 * then holds objects of the runtime's BouncyCastle, and so the runtime's
 * class loader and the whole runtime, for as long as it lives: with stock
 * jruby-openssl, every runtime that uses OpenSSL is leaked that way. So
 * when jruby-openssl loads after fast_random, fast_random has the class
 * initialized on a short-lived thread of its own first, and at the
 * runtime's teardown it removes the tearing-down thread's entry (for a
 * runtime whose openssl came first).
 * Both by name and reflection: BouncyCastle is jruby-openssl's, loaded by
 * the runtime's class loader; without it, or with a version that lacks
 * the field, there is nothing to do.
 */
public final class BouncyCastleRegistrar {
    private static final String REGISTRAR = "org.bouncycastle.crypto.CryptoServicesRegistrar";

    private BouncyCastleRegistrar() {}

    /**
     * Initializes the registrar on a short-lived thread and waits for it (a
     * no-op if it is initialized): called just before jruby-openssl's
     * extension loads, which would initialize it on the calling thread.
     */
    public static void initializeOnOwnThread(ClassLoader loader) {
        Thread thread = new Thread(new Initialize(loader), "fast_random-bouncycastle-init");
        thread.setDaemon(true);
        thread.start();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Removes the calling thread's registrar entry, if the registrar has one for it. */
    public static void forgetCallingThread(ClassLoader loader) {
        try {
            Field field = Class.forName(REGISTRAR, true, loader).getDeclaredField("threadProperties");
            field.setAccessible(true);
            Object local = field.get(null);
            if (local instanceof ThreadLocal) ((ThreadLocal<?>) local).remove();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // no BouncyCastle, or one without the field: nothing to remove
        }
    }

    /** The short-lived thread's work. */
    private static final class Initialize implements Runnable {
        private final ClassLoader loader;

        Initialize(ClassLoader loader) {
            this.loader = loader;
        }

        @Override
        public void run() {
            try {
                Class.forName(REGISTRAR, true, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                // no BouncyCastle here: nothing to do
            }
        }
    }
}
