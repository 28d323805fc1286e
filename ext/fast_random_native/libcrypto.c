/*
 * Opens OpenSSL's libcrypto for the :openssl engines (see libcrypto.h):
 * libcrypto.so.3 (OpenSSL 3.x), else libcrypto.so.1.1 (OpenSSL 1.1.1, as
 * on RHEL 8, Ubuntu 20.04, Debian 11 and Amazon Linux 2's openssl11).
 *
 * Java side: fastrandom.jni.LibCrypto (open, version0, soname0; its RSA
 * methods are in libcrypto_rsa.c).
 */
#include "libcrypto.h"
#include "dl.h"

#include <jni.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct libcrypto crypto;

/* The libcrypto sonames tried, in order: OpenSSL 3.x, then 1.1.1. */
static const char *const SONAMES[] = { "libcrypto.so.3", "libcrypto.so.1.1" };

/* The result of the one attempt to open libcrypto, guarded by open_lock. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static int open_tried;
static const char *opened_soname; /* the SONAMES entry in use, NULL when none is */
static char open_failure[768];    /* empty when libcrypto is usable */

/*
 * Fills the table from soname's functions; NULL on success (the handle is
 * kept), else why not, in why (the table is then cleared).
 */
static const char *open_soname(const char *soname, char *why, size_t why_size)
{
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *error = dlerror();
        snprintf(why, why_size, "%s could not be loaded (%s)", soname, error ? error : "unknown reason");
        return why;
    }
    why[0] = 0;
    /* libcrypto.so.1.1 is also OpenSSL 1.1.0's soname, which lacks functions we need: said as such, first. */
    unsigned long (*version_num)(void) = (unsigned long (*)(void)) dlsym(handle, "OpenSSL_version_num");
    const char *(*version)(int) = (const char *(*)(int)) dlsym(handle, "OpenSSL_version");
    if (version_num != NULL && version != NULL && version_num() < LIBCRYPTO_OLDEST) {
        snprintf(why, why_size, "%s is %s; the :openssl engines need OpenSSL 1.1.1 or later", soname,
                 version(OPENSSL_VERSION));
    }
#define RESOLVE(ret, name, params) \
    if (why[0] == 0 && (crypto.name = (ret (*) params) dlsym(handle, #name)) == NULL) \
        snprintf(why, why_size, "%s has no %s", soname, #name);
    LIBCRYPTO_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (why[0] == 0) return NULL;
    memset(&crypto, 0, sizeof crypto);
    dlclose(handle);
    return why;
}

const char *libcrypto_open(void)
{
    pthread_mutex_lock(&open_lock);
    if (!open_tried) {
        open_tried = 1;
        /* Each soname's failure, after the other's: "no usable libcrypto: A; B". */
        size_t used = (size_t) snprintf(open_failure, sizeof open_failure, "no usable libcrypto");
        for (size_t i = 0; i < sizeof SONAMES / sizeof SONAMES[0] && opened_soname == NULL; i++) {
            char why[sizeof open_failure / 2];
            if (open_soname(SONAMES[i], why, sizeof why) == NULL) {
                opened_soname = SONAMES[i];
            } else if (used < sizeof open_failure) {
                used += (size_t) snprintf(open_failure + used, sizeof open_failure - used, "%s%s", i == 0 ? ": " : "; ", why);
            }
        }
        if (opened_soname != NULL) open_failure[0] = 0;
    }
    pthread_mutex_unlock(&open_lock);
    return open_failure[0] != 0 ? open_failure : NULL;
}

const char *libcrypto_soname(void)
{
    return libcrypto_open() == NULL ? opened_soname : NULL;
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

JNIEXPORT jlong JNICALL Java_fastrandom_jni_LibCrypto_versionNumber0(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return libcrypto_open() == NULL ? (jlong) libcrypto_version_num() : 0;
}

JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_soname0(JNIEnv *env, jclass cls)
{
    (void) cls;
    const char *soname = libcrypto_soname();
    return soname == NULL ? NULL : (*env)->NewStringUTF(env, soname);
}
