/*
 * The test build's hooks (test_hooks.h): fault injection, and the JNI
 * methods of fastrandom.jni.NativeTestHooks. Compiled into the test builds
 * only (the Rakefile leaves it out of the shipped library).
 *
 * Java side: fastrandom.jni.NativeTestHooks.
 */
#ifndef FAST_RANDOM_TEST_BUILD
#error "test_hooks.c belongs to the test builds only (-DFAST_RANDOM_TEST_BUILD, see the Rakefile)"
#endif

#include "test_hooks.h"

#include <jni.h>

static int countdowns[FAULT_COUNT];

void test_fault_set(enum test_fault fault, int count)
{
    __atomic_store_n(&countdowns[fault], count < 0 ? 0 : count, __ATOMIC_SEQ_CST);
}

int test_fault_take(enum test_fault fault)
{
    int left = __atomic_load_n(&countdowns[fault], __ATOMIC_SEQ_CST);
    while (left > 0) {
        if (__atomic_compare_exchange_n(&countdowns[fault], &left, left - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            return 1;
        }
    }
    return 0;
}

/* Tests: the next count results of our CRT are corrupted in the p half, as a fault would corrupt them. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_injectCrtFaults0(JNIEnv *env, jclass cls, jint count)
{
    (void) env;
    (void) cls;
    test_fault_set(FAULT_CRT_RESULT, count);
}

/* Tests: the next count batches of blinding factors fail. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_injectBlindingFailures0(JNIEnv *env, jclass cls, jint count)
{
    (void) env;
    (void) cls;
    test_fault_set(FAULT_BLINDING_BATCH, count);
}

static int ec_wrong_answer_nid; /* atomic; the curve whose EC results are corrupted, 0 none */

int test_ec_wrong_answers(int nid)
{
    return nid != 0 && __atomic_load_n(&ec_wrong_answer_nid, __ATOMIC_SEQ_CST) == nid;
}

/* Tests: ECDH secrets and ECDSA verdicts on curve nid come out wrong (0 stops it), for the known-answer test to catch. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_ecWrongAnswers0(JNIEnv *env, jclass cls, jint nid)
{
    (void) env;
    (void) cls;
    __atomic_store_n(&ec_wrong_answer_nid, nid, __ATOMIC_SEQ_CST);
}

/* Tests: the next count verifications on an EC verification table fail midway (ECDSA_do_verify then decides). */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_injectTableVerifyFailures0(JNIEnv *env, jclass cls,
                                                                                      jint count)
{
    (void) env;
    (void) cls;
    test_fault_set(FAULT_EC_TABLE_VERIFY, count);
}

/* Tests: the next count EC key generations fail, as when OpenSSL's random generator does. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_injectGenerateFailures0(JNIEnv *env, jclass cls, jint count)
{
    (void) env;
    (void) cls;
    test_fault_set(FAULT_EC_GENERATE, count);
}

/* Tests: the next count X25519/X448 generations or agreements fail, as when OpenSSL runs out of memory. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_injectXdhFailures0(JNIEnv *env, jclass cls, jint count)
{
    (void) env;
    (void) cls;
    test_fault_set(FAULT_XDH, count);
}

static int table_after_override = -1; /* atomic; -1 the defaults, 0 never, n after n verifications */

int test_table_after(int after)
{
    int override = __atomic_load_n(&table_after_override, __ATOMIC_RELAXED);
    if (after != 0 && override >= 0) return override;
    return after;
}

/* Tests: tables after `after` verifications (-1: the defaults, 0: never); the next `faults` builds fail. */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_verifyTables0(JNIEnv *env, jclass cls, jint after,
                                                                         jint faults)
{
    (void) env;
    (void) cls;
    __atomic_store_n(&table_after_override, after, __ATOMIC_RELAXED);
    test_fault_set(FAULT_EC_TABLE, faults);
}

/* Whether this is the test build (the shipped library has no such method). */
JNIEXPORT jboolean JNICALL Java_fastrandom_jni_NativeTestHooks_present0(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return JNI_TRUE;
}
