/*
 * Opens OpenSSL's libcrypto 3 for the :openssl engines (see libcrypto.h).
 *
 * Java side: fastrandom.jni.LibCrypto (open, version0; its RSA methods are
 * in libcrypto_rsa.c).
 */
#include "libcrypto.h"

#include <dlfcn.h>
#include <jni.h>
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
