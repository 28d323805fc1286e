package servletdeploy;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the harness and the deployed application note class loaders, by
 * weak reference only: the harness its web-app class loaders, the
 * application (through JRuby's Java integration; this class is on the
 * container's class path, a parent of every web-app class loader) the class
 * loader of fast_random's classes in each of its runtimes.
 */
public final class Probe {
    static final class Entry {
        final String kind;
        final int deploy;
        final String description;
        final WeakReference<Object> reference;

        Entry(String kind, int deploy, Object loader) {
            this.kind = kind;
            this.deploy = deploy;
            this.description = describe(loader);
            this.reference = new WeakReference<>(loader);
        }
    }

    private static final List<Entry> ENTRIES = new ArrayList<>();

    private Probe() {}

    static void webappLoader(int deploy, ClassLoader loader) {
        register("webapp", deploy, loader);
    }

    /** Notes a class loader (once; later calls for the same one do nothing). */
    public static synchronized void register(String kind, int deploy, Object loader) {
        if (loader == null) return;
        for (Entry entry : ENTRIES) if (entry.reference.get() == loader) return;
        ENTRIES.add(new Entry(kind, deploy, loader));
    }

    static synchronized List<Entry> entries() {
        return new ArrayList<>(ENTRIES);
    }

    /** A loader's class and identity, e.g. "org.jruby.util.OneShotClassLoader@1b2c3d4e". */
    public static String describe(Object loader) {
        if (loader == null) return "null (bootstrap)";
        return loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
    }
}
