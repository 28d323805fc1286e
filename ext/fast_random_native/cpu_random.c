/*
 * fast_random's native helper: the CPU's random number instructions for
 * the JVM, through JNI (RDRAND and RDSEED on x86-64, RNDR and RNDRRS on
 * aarch64: cpu.h).
 *
 * Bulk fills only (one JNI call per buffer refill, never one per value).
 * Every 64-bit value also passes a continuous health check: a value equal
 * to the previous one, all zeros or all ones (the signatures of the AMD
 * RDRAND/RDSEED firmware bugs) fails the fill.
 *
 * Java side: fastrandom.jni.CpuRandom.
 */
#include <jni.h>
#include <stdint.h>
#include <string.h>

#include "cpu.h"
#include "mem.h"

/* Keep in sync with fastrandom.jni.CpuRandom. */
enum {
    FILL_EXHAUSTED = -1, /* the CPU kept reporting "no value ready" */
    FILL_UNHEALTHY = -2, /* a stuck, all-zeros or all-ones value */
    FILL_BAD_ARGS = -3,
};

#define CHUNK_BYTES 4096

/*
 * Fills out[offset, offset + length) from the instruction of feature, 4 KiB
 * at a time: the byte count, or FILL_EXHAUSTED where the CPU has no such
 * instruction or it gave no value.
 */
static jint fill(JNIEnv *env, jbyteArray out, jint offset, jint length, int feature)
{
    if (out == NULL || offset < 0 || length < 0 || (*env)->GetArrayLength(env, out) - offset < length)
        return FILL_BAD_ARGS;
    if (!(cpu_random_features() & feature)) return FILL_EXHAUSTED;

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
            if (!cpu_random_next(feature, &value)) {
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
    wipe(chunk, sizeof chunk);
    wipe(&previous, sizeof previous);
    return status ? status : done;
}

JNIEXPORT jint JNICALL Java_fastrandom_jni_CpuRandom_features(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return cpu_random_features();
}

JNIEXPORT jint JNICALL Java_fastrandom_jni_CpuRandom_fill(JNIEnv *env, jclass cls, jint feature, jbyteArray out,
                                                          jint offset, jint length)
{
    (void) cls;
    if (feature != CPU_RANDOM_FAST && feature != CPU_RANDOM_SEED) return FILL_BAD_ARGS;
    return fill(env, out, offset, length, feature);
}
