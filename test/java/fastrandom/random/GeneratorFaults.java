package fastrandom.random;

import java.util.function.UnaryOperator;

import fastrandom.TestFaultInjector;

/**
 * Tests: stand-ins for what {@link ThreadGenerators} makes the process's
 * generators of, to fail or pause their fills and seeds, or to bring their
 * reseed limits near, through the test build's {@link TestFaultInjector}
 * (test/java, {@code rake test_builds}): the shipped jar has no way to set
 * them. Each setter takes null for the generators' own.
 */
public final class GeneratorFaults {
    private GeneratorFaults() {}

    /** Each thread's own generator made from now on fills from what {@code decorator} makes of its block source. */
    public static void setSourceDecorator(UnaryOperator<BlockSource> decorator) {
        TestFaultInjector.setStandIn("random:source", BlockSource.class, decorator);
    }

    /** Every generator takes each seed from now on from what {@code wrapper} makes of the primary DRBG. */
    public static void setSeedSource(UnaryOperator<EntropySource> wrapper) {
        TestFaultInjector.setStandIn("random:seeds", EntropySource.class, wrapper);
    }

    /** The primary takes each seed from now on from {@code source}, not the OS. */
    public static void setEntropySource(EntropySource source) {
        TestFaultInjector.setStandIn("random:entropy", EntropySource.class, source == null ? null : os -> source);
    }

    /** Generators made from now on, and the primary's age limit, follow {@code policy}. */
    public static void setReseedPolicy(ReseedPolicy policy) {
        TestFaultInjector.setStandIn("random:policy", ReseedPolicy.class, policy == null ? null : limits -> policy);
    }
}
