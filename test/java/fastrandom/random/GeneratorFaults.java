package fastrandom.random;

import java.util.function.UnaryOperator;

import fastrandom.TestFaultInjector;

/**
 * Tests: stand-ins for what {@link ThreadGenerators} makes the process's
 * generators of, to fail or pause their fills and seeds, or to bring their
 * reseed limits near, through the test build's {@link TestFaultInjector}
 * (test/java, {@code rake test_builds}): the shipped jar has no way to set
 * them. Each setter takes null for the generators' own. And, to check what
 * a generator will make, a copy of its DRBG, which the shipped jar does not
 * hand out either.
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

    /** A copy of {@code generator}'s DRBG as it is now (null for RDRAND): it makes the generator's next refill. */
    public static CtrDrbg copyOfDrbg(BufferedRandom generator) {
        return generator.copyOfDrbg();
    }

    /** Generators made from now on, and the primary's age limit, follow {@code policy}. */
    public static void setReseedPolicy(ReseedPolicy policy) {
        TestFaultInjector.setStandIn("random:policy", ReseedPolicy.class, policy == null ? null : limits -> policy);
    }
}
