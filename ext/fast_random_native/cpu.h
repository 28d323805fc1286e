/*
 * What the CPU offers fast_random, one implementation per architecture
 * (cpu_x86_64.c, cpu_aarch64.c; the Rakefile builds the one for its
 * target): its random number instructions, and on x86_64 AVX-512 IFMA.
 *
 * The two random number instructions of each architecture play the same
 * roles: CPU_RANDOM_FAST is a DRBG the CPU reseeds itself (x86's RDRAND,
 * Arm's RNDR), CPU_RANDOM_SEED a conditioned entropy source reseeded for
 * every value (RDSEED, RNDRRS).
 *
 * Used by cpu_random.c (the fills) and modexp_ifma.c (IFMA, x86_64 only).
 */
#ifndef FAST_RANDOM_CPU_H
#define FAST_RANDOM_CPU_H

#include <stdint.h>

/* Keep in sync with fastrandom.jni.CpuRandom. */
enum {
    CPU_RANDOM_FAST = 1, /* RDRAND, RNDR */
    CPU_RANDOM_SEED = 2, /* RDSEED, RNDRRS */
};

/* The random number instructions this CPU has (CPU_RANDOM_* bits), asked once and remembered. */
int cpu_random_features(void);

/*
 * One 64-bit value from the instruction of `feature` (the CPU must have
 * it), retried as the vendor advises while the CPU says none is ready: 1
 * with *out set, or 0 when it gave none.
 */
int cpu_random_next(int feature, uint64_t *out);

/* Whether this CPU and its OS run AVX-512 IFMA (x86_64 only: aarch64 builds no IFMA code, see ifma_aarch64.c). */
int cpu_has_ifma(void);

#endif
