/*
 * x86-64's part of cpu.h: RDRAND and RDSEED, following Intel's DRNG
 * guidance (up to 10 tries for RDRAND, a bounded retry with pauses for
 * RDSEED), and the AVX-512 IFMA check.
 */
#include "cpu.h"

#include <cpuid.h>
#include <immintrin.h>

#define RDRAND_RETRIES 10
#define RDSEED_RETRIES 1000

/* XCR0 bits: SSE, AVX and the three AVX-512 state components. */
#define XCR0_AVX512_STATE 0xe6

__attribute__((target("rdrnd"))) static int rdrand64(uint64_t *out)
{
    unsigned long long value;
    for (int i = 0; i < RDRAND_RETRIES; i++) {
        if (_rdrand64_step(&value)) {
            *out = value;
            return 1;
        }
    }
    return 0;
}

__attribute__((target("rdseed"))) static int rdseed64(uint64_t *out)
{
    unsigned long long value;
    for (int i = 0; i < RDSEED_RETRIES; i++) {
        if (_rdseed64_step(&value)) {
            *out = value;
            return 1;
        }
        _mm_pause();
    }
    return 0;
}

static int detect_random_features(void)
{
    unsigned int eax, ebx, ecx, edx;
    int features = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return 0;
    unsigned int max_leaf = eax;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_RDRND)) features |= CPU_RANDOM_FAST;
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (ebx & bit_RDSEED) features |= CPU_RANDOM_SEED;
    }
    return features;
}

/* CPUID once: it traps to the hypervisor in a VM, so it stays off the fill path. */
int cpu_random_features(void)
{
    static volatile int cached = -1;
    if (cached < 0) cached = detect_random_features();
    return cached;
}

int cpu_random_next(int feature, uint64_t *out)
{
    return feature == CPU_RANDOM_SEED ? rdseed64(out) : rdrand64(out);
}

static int os_saves_zmm(void)
{
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (eax & XCR0_AVX512_STATE) == XCR0_AVX512_STATE;
}

int cpu_has_ifma(void)
{
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ebx & bit_AVX512F) || !(ebx & bit_AVX512IFMA)) return 0;
    return os_saves_zmm();
}
