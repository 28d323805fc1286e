package fastrandom.random;

/** Where a generator's seed material comes from. Implementations are thread-safe. */
public interface EntropySource {
    /** Fills {@code seed} with full-entropy bytes, never blocking for long. */
    void fill(byte[] seed);

    /** A short name for diagnostics, e.g. "NativePRNGNonBlocking". */
    String name();
}
