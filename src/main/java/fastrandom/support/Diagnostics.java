package fastrandom.support;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import fastrandom.jni.LibCrypto;
import fastrandom.jni.LibraryCopy;
import fastrandom.jni.NativeLibrary;

/**
 * One-time warnings. Each JRuby runtime loads these classes through a class
 * loader of its own and {@link #attach attaches} its sink, which writes to
 * its $stderr; so its warnings go there. When several runtimes share these
 * classes (fast_random's jar on a class path they share) a warning is about
 * state they share, so it goes to the process's System.err, as it does
 * outside Ruby (plain JVM use) or once the runtime is gone. Sinks are held
 * weakly and detached at teardown: nothing here keeps a runtime reachable.
 *
 * <p>Some remarks are about nothing wrong (an expected fallback): those are
 * for a runtime running with {@code $VERBOSE} (Ruby's {@code -w}) only,
 * and said nowhere else.
 */
public final class Diagnostics {
    /** Where a runtime's warnings go. */
    public interface Sink extends Consumer<String> {
        /** Whether remarks for {@code $VERBOSE} only are wanted now. */
        default boolean verbose() {
            return false;
        }
    }

    /** What going without the native code means, at the end of the one warning that says so. */
    private static final String WITHOUT_NATIVE_CODE = "RSA and EC run on the engines FastRandom::RSA.engine and "
            + "FastRandom::EC.engine name, and the generators seed from the OS alone";
    private static final String WITHOUT_LIBCRYPTO = "RSA and EC run without OpenSSL (on the engines FastRandom::RSA.engine "
            + "and FastRandom::EC.engine name; Debian's and Ubuntu's libssl3 or libssl1.1, RHEL's openssl-libs, bring it)";

    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    private static final List<WeakReference<Consumer<String>>> SINKS = new ArrayList<>(); // guarded by SINKS

    private Diagnostics() {}

    /** A runtime's sink (the runtime keeps it reachable, we only refer to it weakly). */
    public static void attach(Consumer<String> sink) {
        synchronized (SINKS) {
            SINKS.add(new WeakReference<>(sink));
        }
    }

    /** Its runtime is being torn down. */
    public static void detach(Consumer<String> sink) {
        synchronized (SINKS) {
            for (Iterator<WeakReference<Consumer<String>>> it = SINKS.iterator(); it.hasNext(); ) {
                Consumer<String> attached = it.next().get();
                if (attached == null || attached == sink) it.remove();
            }
        }
    }

    /** Prints "fast_random: message" the first time this exact message comes up in the process. */
    public static void warnOnce(String message) {
        if (WARNED.add(message)) warn(message);
    }

    /**
     * Prints "fast_random: message" the first time this exact message comes
     * up in the process, if the one runtime warnings go to runs with
     * {@code $VERBOSE}; otherwise it is not said at all.
     */
    public static void warnOnceIfVerbose(String message) {
        Consumer<String> sink = onlySink();
        if (sink instanceof Sink && ((Sink) sink).verbose() && WARNED.add(message)) sink.accept("fast_random: " + message);
    }

    /**
     * Whether {@code reason} (why something runs without native code) is
     * that the native library is not used: it did not load, or no private
     * copy of it could be loaded ({@link NativeLibrary#copyFailure}), or that
     * a copy of the bundled libgmp failed in the directory where that one did;
     * or that no libcrypto could be opened (neither OpenSSL 3's nor 1.1.1's).
     * Said here, once, for everything it costs, rather than by each thing
     * that needed it; not at all when the gem only ships no library for
     * this platform. The caller then says its own part only under $VERBOSE.
     */
    public static boolean saidOnceForNativeCode(String reason) {
        if (reason == null) return false;
        String noLibCrypto = LibCrypto.noneOpened();
        if (noLibCrypto != null && reason.contains(noLibCrypto)) {
            warnOnce(noLibCrypto + ": " + WITHOUT_LIBCRYPTO);
            return true;
        }
        String failure = NativeLibrary.failure();
        LibraryCopy.Failure copy = NativeLibrary.copyFailure();
        boolean library = failure != null && reason.contains(failure);
        // A copy of another library (the bundled libgmp) that failed in the directory this library's copy failed in.
        boolean sameDirectory = copy != null && reason.contains("could not be loaded from " + copy.directory + " (");
        if (!library && !sameDirectory) return false;
        if (NativeLibrary.absentAsExpected()) return true;
        if (copy != null) {
            warnOnce("no private copy of the native libraries could be loaded from " + copy.describe() + ": " + WITHOUT_NATIVE_CODE);
        }
        else warnOnce("the native library is not used (" + failure + "): " + WITHOUT_NATIVE_CODE);
        return true;
    }

    /** Prints "fast_random: message" (callers that decide themselves when to warn). */
    public static void warn(String message) {
        String line = "fast_random: " + message;
        Consumer<String> sink = onlySink();
        if (sink == null) {
            System.err.println(line);
        } else {
            sink.accept(line);
        }
    }

    /** The one attached runtime's sink, or null for none or several. */
    private static Consumer<String> onlySink() {
        Consumer<String> only = null;
        synchronized (SINKS) {
            for (Iterator<WeakReference<Consumer<String>>> it = SINKS.iterator(); it.hasNext(); ) {
                Consumer<String> attached = it.next().get();
                if (attached == null) {
                    it.remove();
                } else if (only != null) {
                    return null;
                } else {
                    only = attached;
                }
            }
        }
        return only;
    }
}
