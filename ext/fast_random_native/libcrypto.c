/*
 * Opens OpenSSL's libcrypto 3 for the :openssl engines (see libcrypto.h),
 * and the helpers their JNI bindings share.
 *
 * Java side: fastrandom.jni.LibCrypto.
 */
#include "libcrypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct libcrypto crypto;

/* The result of the one attempt to open libcrypto, guarded by open_lock. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static int open_tried;
static char open_failure[512]; /* empty when libcrypto is usable */

const char *libcrypto_open(void)
{
    pthread_mutex_lock(&open_lock);
    if (!open_tried) {
        open_tried = 1;
        void *handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *why = dlerror();
            snprintf(open_failure, sizeof open_failure, "libcrypto.so.3 could not be loaded (%s)",
                     why ? why : "unknown reason");
        } else {
#define RESOLVE(ret, name, params) \
            if (open_failure[0] == 0 && (crypto.name = (ret (*) params) dlsym(handle, #name)) == NULL) \
                snprintf(open_failure, sizeof open_failure, "libcrypto.so.3 has no %s", #name);
            LIBCRYPTO_FUNCTIONS(RESOLVE)
#undef RESOLVE
            if (open_failure[0] != 0) {
                memset(&crypto, 0, sizeof crypto);
                dlclose(handle);
            }
        }
    }
    pthread_mutex_unlock(&open_lock);
    return open_failure[0] != 0 ? open_failure : NULL;
}

#ifdef FAST_RANDOM_TEST_BUILD
/* The version number libcrypto_version_num reports instead of libcrypto's (0: none), set before any key is made. */
static unsigned long pretended_version;

void test_pretend_openssl_version(unsigned long version)
{
    pretended_version = version;
}

/* FAST_RANDOM_TEST_OPENSSL_VERSION, from the Java side's settings (fastrandom.Setting). */
JNIEXPORT void JNICALL Java_fastrandom_jni_NativeTestHooks_pretendOpenSslVersion0(JNIEnv *env, jclass cls, jlong version)
{
    (void) env;
    (void) cls;
    test_pretend_openssl_version((unsigned long) version);
}
#endif

unsigned long libcrypto_version_num(void)
{
#ifdef FAST_RANDOM_TEST_BUILD
    if (pretended_version != 0) return pretended_version;
#endif
    return crypto.OpenSSL_version_num();
}

void throw_libcrypto(JNIEnv *env, const char *message)
{
    jclass cls = (*env)->FindClass(env, "fastrandom/jni/LibCryptoException");
    if (cls != NULL) (*env)->ThrowNew(env, cls, message);
}

void throw_openssl(JNIEnv *env, const char *what)
{
    char detail[256] = "no OpenSSL error recorded";
    char message[384];
    unsigned long code = crypto.ERR_peek_last_error();
    if (code != 0) crypto.ERR_error_string_n(code, detail, sizeof detail);
    crypto.ERR_clear_error();
    snprintf(message, sizeof message, "%s: %s", what, detail);
    throw_libcrypto(env, message);
}

BIGNUM *bignum_from_java(JNIEnv *env, jbyteArray array)
{
    if (array == NULL) return NULL;
    jsize length = (*env)->GetArrayLength(env, array);
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (bytes == NULL) return NULL;
    BIGNUM *bn = crypto.BN_bin2bn((const unsigned char *) bytes, (int) length, NULL);
    (*env)->ReleasePrimitiveArrayCritical(env, array, bytes, JNI_ABORT);
    return bn;
}

jbyteArray bytes_to_java(JNIEnv *env, const unsigned char *bytes, int length)
{
    jbyteArray array = (*env)->NewByteArray(env, length);
    if (array != NULL) (*env)->SetByteArrayRegion(env, array, 0, length, (const jbyte *) bytes);
    return array;
}

int hash_digest_bytes(int hash)
{
    static const int lengths[HASH_COUNT] = {20, 28, 32, 48, 64};
    return hash >= 0 && hash < HASH_COUNT ? lengths[hash] : 0;
}

int java_bounds(JNIEnv *env, jbyteArray data, jint offset, jint length)
{
    return data != NULL && offset >= 0 && length >= 0 && length <= (*env)->GetArrayLength(env, data) - offset;
}

int java_digest(JNIEnv *env, int hash, jbyteArray data, jint offset, jint length, unsigned char *out)
{
    if (hash_digest_bytes(hash) == 0 || !java_bounds(env, data, offset, length)) {
        throw_libcrypto(env, "digest: bad hash or data bounds");
        return 0;
    }
    unsigned char *bytes = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
    if (bytes == NULL) return 0;
    unsigned char *done = NULL;
    const unsigned char *message = bytes + offset;
    switch (hash) {
    case HASH_SHA1: done = crypto.SHA1(message, (size_t) length, out); break;
    case HASH_SHA224: done = crypto.SHA224(message, (size_t) length, out); break;
    case HASH_SHA256: done = crypto.SHA256(message, (size_t) length, out); break;
    case HASH_SHA384: done = crypto.SHA384(message, (size_t) length, out); break;
    case HASH_SHA512: done = crypto.SHA512(message, (size_t) length, out); break;
    }
    (*env)->ReleasePrimitiveArrayCritical(env, data, bytes, JNI_ABORT);
    if (done == NULL) {
        throw_openssl(env, "digest failed");
        return 0;
    }
    return hash_digest_bytes(hash);
}

void wipe(void *buffer, size_t length)
{
    volatile unsigned char *p = buffer;
    while (length--) *p++ = 0;
}

int same_bytes(const unsigned char *a, const unsigned char *b, size_t length)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < length; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}

jlongArray counts_to_java(JNIEnv *env, const long long *counts, int length)
{
    jlong values[8];
    if (length < 0 || length > 8) return NULL;
    for (int i = 0; i < length; i++) values[i] = (jlong) counts[i];
    jlongArray result = (*env)->NewLongArray(env, length);
    if (result != NULL) (*env)->SetLongArrayRegion(env, result, 0, length, values);
    return result;
}

JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_open(JNIEnv *env, jclass cls)
{
    (void) cls;
    const char *failure = libcrypto_open();
    return failure == NULL ? NULL : (*env)->NewStringUTF(env, failure);
}

JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_version0(JNIEnv *env, jclass cls)
{
    (void) cls;
    if (libcrypto_open() != NULL) return NULL;
    return (*env)->NewStringUTF(env, crypto.OpenSSL_version(OPENSSL_VERSION));
}
