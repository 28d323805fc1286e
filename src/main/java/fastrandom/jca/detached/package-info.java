/**
 * The part of the JVM-wide provider that the JVM keeps: the {@link
 * java.security.Provider} registered in the JVM's list and the SPI of the
 * SecureRandoms it hands out, which the JDK caches in static fields
 * (UUID.randomUUID's generator, the default of its crypto classes, JSSE's).
 * These classes are loaded by a class loader of their own, over the gem's
 * jar with the JDK's platform loader as parent, so they may use nothing but
 * JDK classes and each other; they reach the runtime that installed them
 * only through {@code AtomicReference}s that its teardown clears. What the
 * JDK keeps after that is this small loader, never a JRuby runtime.
 */
package fastrandom.jca.detached;
