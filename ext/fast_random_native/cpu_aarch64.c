/*
 * aarch64's part of cpu.h: RNDR and RNDRRS (FEAT_RNG, Armv8.5), which the
 * kernel reports in AT_HWCAP2; most Arm CPUs today have neither. No IFMA
 * (ifma_aarch64.c): every RSA operation is OpenSSL's.
 *
 * Both instructions are system register reads that set the flags to
 * 0b0100 (Z) when no value is ready; Arm's guidance is to try again.
 * RNDRRS reseeds for every value, so it runs dry sooner, as RDSEED does.
 */
#include "cpu.h"

#include <sys/auxv.h>

#ifndef HWCAP2_RNG
#define HWCAP2_RNG (1UL << 16) /* asm/hwcap.h, Linux 5.6 */
#endif

#define RNDR_RETRIES 10
#define RNDRRS_RETRIES 1000

/* RNDR and RNDRRS by their encodings, which assemblers without FEAT_RNG take too. */
static int rndr64(uint64_t *out)
{
    uint64_t value, ok;
    __asm__ volatile("mrs %0, s3_3_c2_c4_0\n\tcset %1, ne" : "=r"(value), "=r"(ok) : : "cc");
    *out = value;
    return (int) ok;
}

static int rndrrs64(uint64_t *out)
{
    uint64_t value, ok;
    __asm__ volatile("mrs %0, s3_3_c2_c4_1\n\tcset %1, ne" : "=r"(value), "=r"(ok) : : "cc");
    *out = value;
    return (int) ok;
}

int cpu_random_features(void)
{
    return (getauxval(AT_HWCAP2) & HWCAP2_RNG) ? CPU_RANDOM_FAST | CPU_RANDOM_SEED : 0;
}

int cpu_random_next(int feature, uint64_t *out)
{
    int seed = feature == CPU_RANDOM_SEED;
    int tries = seed ? RNDRRS_RETRIES : RNDR_RETRIES;
    for (int i = 0; i < tries; i++) {
        if (seed ? rndrrs64(out) : rndr64(out)) return 1;
        __asm__ volatile("yield");
    }
    *out = 0;
    return 0;
}
