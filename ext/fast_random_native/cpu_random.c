/*
 * fast_random's native helper: RDRAND and RDSEED for the JVM, through JNI.
 *
 * Bulk fills only (one JNI call per buffer refill, never one per value).
 * Follows Intel's DRNG guidance: up to 10 retries for RDRAND, a bounded
 * retry with pauses for RDSEED. Every 64-bit value also passes a continuous
 * health check: a value equal to the previous one, all zeros or all ones
 * (the signatures of the AMD RDRAND/RDSEED firmware bugs) fails the fill.
 *
 * Java side: fastrandom.jni.CpuRandom.
 */
#include <jni.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_X86 1
#else
#define HAVE_X86 0
#endif

/* Keep in sync with fastrandom.jni.CpuRandom. */
enum {
    FEATURE_RDRAND = 1,
    FEATURE_RDSEED = 2,
    FILL_EXHAUSTED = -1, /* the CPU kept reporting "no value ready" */
    FILL_UNHEALTHY = -2, /* a stuck, all-zeros or all-ones value */
    FILL_BAD_ARGS = -3,
};

#define RDRAND_RETRIES 10
#define RDSEED_RETRIES 1000
#define CHUNK_BYTES 4096

#if HAVE_X86

__attribute__((target("rdrnd")))
static int rdrand64(uint64_t *out)
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

__attribute__((target("rdseed")))
static int rdseed64(uint64_t *out)
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

static jint detect_features(void)
{
    unsigned int eax, ebx, ecx, edx;
    jint features = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return 0;
    unsigned int max_leaf = eax;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 30))) features |= FEATURE_RDRAND;
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (ebx & (1u << 18)) features |= FEATURE_RDSEED;
    }
    return features;
}

/* CPUID once: it traps to the hypervisor in a VM, so it stays off the fill path. */
static jint cpu_features(void)
{
    static volatile jint cached = -1;
    if (cached < 0) cached = detect_features();
    return cached;
}

/* Fills out[offset, offset + length) from one instruction, 4 KiB at a time. */
static jint fill(JNIEnv *env, jbyteArray out, jint offset, jint length, int (*next)(uint64_t *))
{
    if (out == NULL || offset < 0 || length < 0 || (*env)->GetArrayLength(env, out) - offset < length)
        return FILL_BAD_ARGS;

    uint64_t chunk[CHUNK_BYTES / 8];
    uint64_t previous = 0;
    int have_previous = 0;
    jint done = 0;
    jint status = 0;

    while (done < length) {
        jint n = length - done < CHUNK_BYTES ? length - done : CHUNK_BYTES;
        int words = (n + 7) / 8;
        for (int i = 0; i < words; i++) {
            uint64_t value;
            if (!next(&value)) {
                status = FILL_EXHAUSTED;
                goto out;
            }
            if (value == 0 || value == UINT64_MAX || (have_previous && value == previous)) {
                status = FILL_UNHEALTHY;
                goto out;
            }
            previous = value;
            have_previous = 1;
            chunk[i] = value;
        }
        (*env)->SetByteArrayRegion(env, out, offset + done, n, (const jbyte *) chunk);
        done += n;
    }
out:
    memset(chunk, 0, sizeof chunk);
    previous = 0;
    return status ? status : done;
}

#endif /* HAVE_X86 */

JNIEXPORT jint JNICALL Java_fastrandom_jni_CpuRandom_features(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
#if HAVE_X86
    return cpu_features();
#else
    return 0;
#endif
}

/*
 * Fills out[offset, offset + length) from RDRAND or RDSEED (feature): what
 * fill returns, or FILL_EXHAUSTED where the CPU has no such instruction.
 */
static jint fill_from(JNIEnv *env, jbyteArray out, jint offset, jint length, jint feature)
{
#if HAVE_X86
    if (!(cpu_features() & feature)) return FILL_EXHAUSTED;
    return fill(env, out, offset, length, feature == FEATURE_RDRAND ? rdrand64 : rdseed64);
#else
    (void) env;
    (void) out;
    (void) offset;
    (void) length;
    (void) feature;
    return FILL_EXHAUSTED;
#endif
}

JNIEXPORT jint JNICALL Java_fastrandom_jni_CpuRandom_rdrandFill(JNIEnv *env, jclass cls, jbyteArray out, jint offset,
                                                                jint length)
{
    (void) cls;
    return fill_from(env, out, offset, length, FEATURE_RDRAND);
}

JNIEXPORT jint JNICALL Java_fastrandom_jni_CpuRandom_rdseedFill(JNIEnv *env, jclass cls, jbyteArray out, jint offset,
                                                                jint length)
{
    (void) cls;
    return fill_from(env, out, offset, length, FEATURE_RDSEED);
}
