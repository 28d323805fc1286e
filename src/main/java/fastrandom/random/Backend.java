package fastrandom.random;

/** What fills the per-thread buffers. */
public enum Backend {
    /** Per-thread AES-256 CTR_DRBG, seeded from the OS (mixed with RDSEED/RDRAND, or RNDRRS/RNDR, where healthy). */
    DRBG,
    /** The CPU's RDRAND instruction (x86-64 only), in bulk through JNI. */
    RDRAND
}
