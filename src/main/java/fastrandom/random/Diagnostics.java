package fastrandom.random;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One-time warnings. The Ruby layer routes them to Ruby's $stderr; without
 * it (plain JVM use) they go to System.err.
 */
public final class Diagnostics {
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    private static volatile Consumer<String> sink = new StandardError();

    private Diagnostics() {}

    public static void setSink(Consumer<String> newSink) {
        sink = newSink;
    }

    /** Prints "fast_random: message" the first time this exact message comes up in the process. */
    public static void warnOnce(String message) {
        if (WARNED.add(message)) warn(message);
    }

    /** Prints "fast_random: message" (callers that decide themselves when to warn). */
    public static void warn(String message) {
        sink.accept("fast_random: " + message);
    }

    /** The sink outside Ruby. (A class, not a lambda: a lambda costs start-up time on a cold JVM.) */
    private static final class StandardError implements Consumer<String> {
        @Override
        public void accept(String message) {
            System.err.println(message);
        }
    }
}
