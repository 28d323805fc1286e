/*
 * fast_random's native helper, part 2: the RSA exponentiations of the
 * :openssl engine, through OpenSSL's libcrypto 3, for the JVM through JNI.
 *
 * libcrypto is opened with dlopen on first use (never when this library is
 * loaded) and its functions found with dlsym, so neither building nor
 * loading this library needs OpenSSL's headers or libcrypto itself: only the
 * machines that use the engine need libssl3. The few types and constants we
 * use are declared below, from OpenSSL 3.0's public headers.
 *
 * A private key is one OpenSSL RSA object built once (RSA_new and the
 * RSA_set0_* setters, deprecated in 3.0 but still exported), pinned to
 * OpenSSL's own software method, and used for every call on that key, so
 * what OpenSSL computes on first use (the Montgomery contexts for n, p and
 * q, and the blinding factors) is reused. A private operation is
 * RSA_private_encrypt with RSA_NO_PADDING: blinded, constant-time CRT.
 *
 * Every private result is checked here with the public exponent before it
 * leaves C (result^e mod n must give the input back), through a Montgomery
 * context for n kept with the key. OpenSSL 3.0 makes the same check inside
 * the CRT step but, when it fails, returns a recomputed, unchecked result;
 * checking the final value ourselves covers that path and the unblinding too.
 *
 * Handles are pointers to struct rsa_key, owned by the Java side
 * (fastrandom.jni.LibCrypto.Key), which never frees one while a call on it
 * is running. An RSA object is safe to use from several threads at once:
 * OpenSSL 3.0 takes the key's lock to set up its caches and gives threads
 * other than the first their own unblinding factor.
 *
 * Java side: fastrandom.jni.LibCrypto.
 */
#include <jni.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OpenSSL's types stay opaque: we only pass pointers around. */
typedef struct bignum_st BIGNUM;
typedef struct bignum_ctx BN_CTX;
typedef struct bn_mont_ctx_st BN_MONT_CTX;
typedef struct rsa_st RSA;
typedef struct rsa_meth_st RSA_METHOD;

/* From OpenSSL 3.0's rsa.h and crypto.h. */
#define RSA_NO_PADDING 3
#define RSA_FLAG_NO_BLINDING 0x0080
#define OPENSSL_VERSION 0

/* OPENSSL_RSA_MAX_MODULUS_BITS: libcrypto refuses larger keys anyway. */
#define MAX_MODULUS_BYTES (16384 / 8)

/*
 * Every libcrypto function we call: return type, name, parameters. Expanded
 * into a table of function pointers, filled by dlsym.
 */
#define LIBCRYPTO_FUNCTIONS(X) \
    X(const char *, OpenSSL_version, (int type)) \
    X(unsigned long, ERR_peek_last_error, (void)) \
    X(void, ERR_error_string_n, (unsigned long code, char *buf, size_t len)) \
    X(void, ERR_clear_error, (void)) \
    X(BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret)) \
    X(int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen)) \
    X(int, BN_num_bits, (const BIGNUM *a)) \
    X(int, BN_is_odd, (const BIGNUM *a)) \
    X(int, BN_ucmp, (const BIGNUM *a, const BIGNUM *b)) \
    X(void, BN_free, (BIGNUM *a)) \
    X(void, BN_clear_free, (BIGNUM *a)) \
    X(void, BN_clear, (BIGNUM *a)) \
    X(BN_CTX *, BN_CTX_new, (void)) \
    X(void, BN_CTX_free, (BN_CTX *ctx)) \
    X(void, BN_CTX_start, (BN_CTX *ctx)) \
    X(void, BN_CTX_end, (BN_CTX *ctx)) \
    X(BIGNUM *, BN_CTX_get, (BN_CTX *ctx)) \
    X(BN_MONT_CTX *, BN_MONT_CTX_new, (void)) \
    X(int, BN_MONT_CTX_set, (BN_MONT_CTX *mont, const BIGNUM *mod, BN_CTX *ctx)) \
    X(void, BN_MONT_CTX_free, (BN_MONT_CTX *mont)) \
    X(int, BN_mod_exp_mont, (BIGNUM *r, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, \
                             BN_CTX *ctx, BN_MONT_CTX *m_ctx)) \
    X(int, BN_mod_exp, (BIGNUM *r, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, BN_CTX *ctx)) \
    X(RSA *, RSA_new, (void)) \
    X(void, RSA_free, (RSA *rsa)) \
    X(int, RSA_set_method, (RSA *rsa, const RSA_METHOD *meth)) \
    X(const RSA_METHOD *, RSA_PKCS1_OpenSSL, (void)) \
    X(int, RSA_set0_key, (RSA *r, BIGNUM *n, BIGNUM *e, BIGNUM *d)) \
    X(int, RSA_set0_factors, (RSA *r, BIGNUM *p, BIGNUM *q)) \
    X(int, RSA_set0_crt_params, (RSA *r, BIGNUM *dmp1, BIGNUM *dmq1, BIGNUM *iqmp)) \
    X(int, RSA_test_flags, (const RSA *r, int flags)) \
    X(int, RSA_private_encrypt, (int flen, const unsigned char *from, unsigned char *to, RSA *rsa, int padding))

#define DECLARE_POINTER(ret, name, params) ret (*name) params;
static struct {
    LIBCRYPTO_FUNCTIONS(DECLARE_POINTER)
} crypto;
#undef DECLARE_POINTER

/* The result of the one attempt to open libcrypto, guarded by open_lock. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static int open_tried;
static char open_failure[512]; /* empty when libcrypto is usable */

#define KEY_MAGIC 0x52534131u /* "RSA1": a live rsa_key */

struct rsa_key {
    uint32_t magic;
    int bytes;          /* length of the modulus in bytes */
    RSA *rsa;           /* the private key; NULL for a public key */
    BIGNUM *n;          /* public values, for the public operation and the check */
    BIGNUM *e;
    BN_MONT_CTX *mont;  /* Montgomery context for n */
};

static void wipe(void *buffer, size_t length)
{
    volatile unsigned char *p = buffer;
    while (length--) *p++ = 0;
}

static void throw_libcrypto(JNIEnv *env, const char *message)
{
    jclass cls = (*env)->FindClass(env, "fastrandom/jni/LibCryptoException");
    if (cls != NULL) (*env)->ThrowNew(env, cls, message);
}

/* Throws with OpenSSL's most recent error on this thread, then clears its queue. */
static void throw_openssl(JNIEnv *env, const char *what)
{
    char detail[256] = "no OpenSSL error recorded";
    char message[384];
    unsigned long code = crypto.ERR_peek_last_error();
    if (code != 0) crypto.ERR_error_string_n(code, detail, sizeof detail);
    crypto.ERR_clear_error();
    snprintf(message, sizeof message, "%s: %s", what, detail);
    throw_libcrypto(env, message);
}

static const char *open_libcrypto(void)
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

/* A big-endian unsigned magnitude from Java as a new BIGNUM (NULL if it is null or on failure). */
static BIGNUM *bignum_from_java(JNIEnv *env, jbyteArray array)
{
    if (array == NULL) return NULL;
    jsize length = (*env)->GetArrayLength(env, array);
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, array, NULL);
    if (bytes == NULL) return NULL;
    BIGNUM *bn = crypto.BN_bin2bn((const unsigned char *) bytes, (int) length, NULL);
    (*env)->ReleasePrimitiveArrayCritical(env, array, bytes, JNI_ABORT);
    return bn;
}

static void free_key(struct rsa_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    if (key->rsa != NULL) crypto.RSA_free(key->rsa); /* clears the private values */
    crypto.BN_free(key->n);
    crypto.BN_free(key->e);
    if (key->mont != NULL) crypto.BN_MONT_CTX_free(key->mont);
    free(key);
}

/* The public half of a key: n, e and a Montgomery context for n. */
static struct rsa_key *new_public_half(JNIEnv *env, jbyteArray n_bytes, jbyteArray e_bytes)
{
    struct rsa_key *key = calloc(1, sizeof *key);
    BN_CTX *ctx = NULL;
    if (key == NULL) {
        throw_libcrypto(env, "out of memory for an RSA key");
        return NULL;
    }
    key->n = bignum_from_java(env, n_bytes);
    key->e = bignum_from_java(env, e_bytes);
    if (key->n == NULL || key->e == NULL) {
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "RSA key: bad public values");
        goto fail;
    }
    int bits = crypto.BN_num_bits(key->n);
    if (bits < 2 || bits > MAX_MODULUS_BYTES * 8 || !crypto.BN_is_odd(key->n)) {
        throw_libcrypto(env, "RSA key: the modulus must be odd and at most 16384 bits");
        goto fail;
    }
    key->bytes = (bits + 7) / 8;
    if ((ctx = crypto.BN_CTX_new()) == NULL || (key->mont = crypto.BN_MONT_CTX_new()) == NULL
        || !crypto.BN_MONT_CTX_set(key->mont, key->n, ctx)) {
        throw_openssl(env, "RSA key: Montgomery setup failed");
        goto fail;
    }
    crypto.BN_CTX_free(ctx);
    key->magic = KEY_MAGIC;
    return key;
fail:
    crypto.BN_CTX_free(ctx);
    free_key(key);
    return NULL;
}

static struct rsa_key *key_from_handle(JNIEnv *env, jlong handle, int need_private)
{
    struct rsa_key *key = (struct rsa_key *) (intptr_t) handle;
    if (key == NULL || key->magic != KEY_MAGIC || (need_private && key->rsa == NULL)) {
        throw_libcrypto(env, "not a live RSA key handle");
        return NULL;
    }
    return key;
}

/* Copies a Java input of exactly key->bytes bytes into buffer; 0 (with an exception) otherwise. */
static int read_input(JNIEnv *env, struct rsa_key *key, jbyteArray input, jint modulus_bytes, unsigned char *buffer)
{
    if (input == NULL || modulus_bytes != key->bytes || (*env)->GetArrayLength(env, input) != key->bytes) {
        throw_libcrypto(env, "RSA input must be exactly as long as the modulus");
        return 0;
    }
    (*env)->GetByteArrayRegion(env, input, 0, key->bytes, (jbyte *) buffer);
    return !(*env)->ExceptionCheck(env);
}

static jbyteArray to_java(JNIEnv *env, const unsigned char *bytes, int length)
{
    jbyteArray array = (*env)->NewByteArray(env, length);
    if (array != NULL) (*env)->SetByteArrayRegion(env, array, 0, length, (const jbyte *) bytes);
    return array;
}

/*
 * out = in^e mod n with the key's Montgomery context; 1 on success. The
 * exponent is public, so BN_mod_exp_mont's ordinary (not constant-time)
 * exponentiation is right; its running time depends only on e.
 */
static int public_exp(struct rsa_key *key, const unsigned char *in, unsigned char *out, int *too_large)
{
    int ok = 0;
    BN_CTX *ctx = crypto.BN_CTX_new();
    if (ctx == NULL) return 0;
    crypto.BN_CTX_start(ctx);
    BIGNUM *base = crypto.BN_CTX_get(ctx);
    BIGNUM *result = crypto.BN_CTX_get(ctx);
    if (result != NULL && crypto.BN_bin2bn(in, key->bytes, base) != NULL) {
        if (crypto.BN_ucmp(base, key->n) >= 0) {
            *too_large = 1;
        } else {
            ok = crypto.BN_mod_exp_mont(result, base, key->e, key->n, ctx, key->mont)
                && crypto.BN_bn2binpad(result, out, key->bytes) == key->bytes;
        }
    }
    if (result != NULL) {
        crypto.BN_clear(base); /* a private result, when this is the check */
        crypto.BN_clear(result);
    }
    crypto.BN_CTX_end(ctx);
    crypto.BN_CTX_free(ctx);
    return ok;
}

/* Constant-time equality of two byte strings of the same length. */
static int same_bytes(const unsigned char *a, const unsigned char *b, int length)
{
    unsigned char diff = 0;
    for (int i = 0; i < length; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}

JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_open(JNIEnv *env, jclass cls)
{
    (void) cls;
    const char *failure = open_libcrypto();
    return failure == NULL ? NULL : (*env)->NewStringUTF(env, failure);
}

JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_version0(JNIEnv *env, jclass cls)
{
    (void) cls;
    if (open_libcrypto() != NULL) return NULL;
    return (*env)->NewStringUTF(env, crypto.OpenSSL_version(OPENSSL_VERSION));
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_LibCrypto_newPublicKey(JNIEnv *env, jclass cls, jbyteArray n, jbyteArray e)
{
    (void) cls;
    const char *failure = open_libcrypto();
    if (failure != NULL) {
        throw_libcrypto(env, failure);
        return 0;
    }
    return (jlong) (intptr_t) new_public_half(env, n, e);
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_LibCrypto_newPrivateKey(JNIEnv *env, jclass cls,
    jbyteArray n, jbyteArray e, jbyteArray d, jbyteArray p, jbyteArray q,
    jbyteArray dmp1, jbyteArray dmq1, jbyteArray iqmp)
{
    (void) cls;
    const char *failure = open_libcrypto();
    if (failure != NULL) {
        throw_libcrypto(env, failure);
        return 0;
    }
    struct rsa_key *key = new_public_half(env, n, e);
    if (key == NULL) return 0;

    /* RSA_set0_* take ownership of what they are given, so until then we free it. */
    BIGNUM *rsa_n = bignum_from_java(env, n), *rsa_e = bignum_from_java(env, e);
    BIGNUM *rsa_d = bignum_from_java(env, d), *rsa_p = bignum_from_java(env, p), *rsa_q = bignum_from_java(env, q);
    BIGNUM *rsa_dmp1 = bignum_from_java(env, dmp1), *rsa_dmq1 = bignum_from_java(env, dmq1);
    BIGNUM *rsa_iqmp = bignum_from_java(env, iqmp);
    RSA *rsa = NULL;
    if (rsa_n == NULL || rsa_e == NULL || rsa_d == NULL || rsa_p == NULL || rsa_q == NULL
        || rsa_dmp1 == NULL || rsa_dmq1 == NULL || rsa_iqmp == NULL) {
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "RSA key: a private value is missing");
        goto fail;
    }
    /*
     * Pin OpenSSL's own implementation (rsa_ossl.c), whatever default ENGINE
     * a configuration file names: that is the code whose blinding, constant
     * time and locking we rely on.
     */
    if ((rsa = crypto.RSA_new()) == NULL || !crypto.RSA_set_method(rsa, crypto.RSA_PKCS1_OpenSSL())) {
        throw_openssl(env, "RSA key: RSA_new failed");
        goto fail;
    }
    if (!crypto.RSA_set0_key(rsa, rsa_n, rsa_e, rsa_d)) {
        throw_openssl(env, "RSA key: RSA_set0_key failed");
        goto fail;
    }
    rsa_n = rsa_e = rsa_d = NULL;
    if (!crypto.RSA_set0_factors(rsa, rsa_p, rsa_q)) {
        throw_openssl(env, "RSA key: RSA_set0_factors failed");
        goto fail;
    }
    rsa_p = rsa_q = NULL;
    if (!crypto.RSA_set0_crt_params(rsa, rsa_dmp1, rsa_dmq1, rsa_iqmp)) {
        throw_openssl(env, "RSA key: RSA_set0_crt_params failed");
        goto fail;
    }
    rsa_dmp1 = rsa_dmq1 = rsa_iqmp = NULL;
    if (crypto.RSA_test_flags(rsa, RSA_FLAG_NO_BLINDING)) {
        throw_libcrypto(env, "RSA key: OpenSSL turned blinding off");
        goto fail;
    }
    key->rsa = rsa;
    return (jlong) (intptr_t) key;

fail:
    if (rsa != NULL) crypto.RSA_free(rsa);
    crypto.BN_free(rsa_n);
    crypto.BN_free(rsa_e);
    crypto.BN_clear_free(rsa_d);
    crypto.BN_clear_free(rsa_p);
    crypto.BN_clear_free(rsa_q);
    crypto.BN_clear_free(rsa_dmp1);
    crypto.BN_clear_free(rsa_dmq1);
    crypto.BN_clear_free(rsa_iqmp);
    free_key(key);
    return 0;
}

JNIEXPORT void JNICALL Java_fastrandom_jni_LibCrypto_freeKey(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    if (handle == 0) return;
    struct rsa_key *key = key_from_handle(env, handle, 0);
    if (key != NULL) free_key(key);
}

/*
 * input^d mod n, blinded CRT in OpenSSL, then checked: result^e mod n must
 * equal the input, or nothing is returned.
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_privateRaw(JNIEnv *env, jclass cls, jlong handle,
                                                                     jbyteArray input, jint modulus_bytes)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;

    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES], check[MAX_MODULUS_BYTES];
    jbyteArray result = NULL;
    int too_large = 0;
    if (!read_input(env, key, input, modulus_bytes, in)) return NULL;

    if (crypto.RSA_private_encrypt(key->bytes, in, out, key->rsa, RSA_NO_PADDING) != key->bytes) {
        throw_openssl(env, "RSA private operation failed");
    } else if (!public_exp(key, out, check, &too_large) || too_large) {
        throw_openssl(env, "RSA private operation: the public-exponent check could not run");
    } else if (!same_bytes(check, in, key->bytes)) {
        throw_libcrypto(env, "RSA private operation: the result failed the public-exponent check (computation fault); nothing was returned");
    } else {
        result = to_java(env, out, key->bytes);
    }
    wipe(out, sizeof out);
    wipe(check, sizeof check);
    wipe(in, sizeof in);
    return result;
}

/* input^e mod n with the key's cached Montgomery context. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_publicRaw(JNIEnv *env, jclass cls, jlong handle,
                                                                    jbyteArray input, jint modulus_bytes)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 0);
    if (key == NULL) return NULL;

    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    int too_large = 0;
    if (!read_input(env, key, input, modulus_bytes, in)) return NULL;
    if (!public_exp(key, in, out, &too_large)) {
        if (too_large) throw_libcrypto(env, "RSA public operation: the input is not less than the modulus");
        else throw_openssl(env, "RSA public operation failed");
        return NULL;
    }
    return to_java(env, out, key->bytes);
}

/*
 * input^e mod n with nothing cached: BN_mod_exp sets up a Montgomery context
 * for n on every call. (Kept to compare with publicRaw.)
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_publicRawStateless(JNIEnv *env, jclass cls,
    jbyteArray n_bytes, jbyteArray e_bytes, jbyteArray input, jint modulus_bytes)
{
    (void) cls;
    const char *failure = open_libcrypto();
    if (failure != NULL) {
        throw_libcrypto(env, failure);
        return NULL;
    }
    if (modulus_bytes < 1 || modulus_bytes > MAX_MODULUS_BYTES) {
        throw_libcrypto(env, "RSA public operation: bad modulus length");
        return NULL;
    }
    unsigned char out[MAX_MODULUS_BYTES];
    jbyteArray result = NULL;
    BN_CTX *ctx = crypto.BN_CTX_new();
    BIGNUM *n = bignum_from_java(env, n_bytes), *e = bignum_from_java(env, e_bytes);
    BIGNUM *base = bignum_from_java(env, input);
    BIGNUM *r = NULL;
    if (ctx != NULL) {
        crypto.BN_CTX_start(ctx);
        r = crypto.BN_CTX_get(ctx);
    }
    if ((*env)->ExceptionCheck(env)) goto done;
    if (r == NULL || n == NULL || e == NULL || base == NULL) {
        throw_openssl(env, "RSA public operation failed");
    } else if (crypto.BN_num_bits(n) > modulus_bytes * 8 || crypto.BN_ucmp(base, n) >= 0 || !crypto.BN_is_odd(n)) {
        throw_libcrypto(env, "RSA public operation: bad modulus or input");
    } else if (!crypto.BN_mod_exp(r, base, e, n, ctx) || crypto.BN_bn2binpad(r, out, modulus_bytes) != modulus_bytes) {
        throw_openssl(env, "RSA public operation failed");
    } else {
        result = to_java(env, out, modulus_bytes);
    }
done:
    crypto.BN_free(n);
    crypto.BN_free(e);
    crypto.BN_free(base);
    if (ctx != NULL) {
        crypto.BN_CTX_end(ctx);
        crypto.BN_CTX_free(ctx);
    }
    return result;
}
