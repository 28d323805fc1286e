/*
 * fast_random's native helper: EdDSA (Ed25519, Ed448; RFC 8032) for the
 * EdDSA signature service, through OpenSSL's libcrypto 3 (opened on first
 * use, see libcrypto.h), for the JVM through JNI.
 *
 * A key is one EVP_PKEY made from its raw bytes (the 32- or 57-byte
 * private seed, or the public point's encoding), built once per Java key
 * and used for every call on it. Each signature or verification is one
 * EVP_DigestSign or EVP_DigestVerify on a context of its own, as MRI's
 * PKey#sign(nil, data) does: OpenSSL's constant-time Ed25519/Ed448, with
 * the signature a function of the key and the message alone (no random
 * input, so there is no nonce to get wrong). An EVP_PKEY is safe to use from
 * several threads at once for these calls: none modifies it.
 *
 * Handles are pointers to struct eddsa_key, owned by the Java side
 * (fastrandom.jni.EdDsaKey), which never frees one while a call on it is
 * running.
 */
#include "jni_helpers.h"
#include "libcrypto.h"
#include "mem.h"
#include "test_hooks.h"

#include <stdint.h>
#include <stdlib.h>

#define EDDSA_KEY_MAGIC 0x45443031u /* "ED01": a live eddsa_key */
#define MAX_SIGNATURE_BYTES 114      /* Ed448's; Ed25519's is 64 */
#define MAX_KEY_BYTES 57             /* Ed448's; Ed25519's are 32 */

struct eddsa_key {
    uint32_t magic;
    int has_private;
    EVP_PKEY *pkey;
};

static int key_bytes(int type)
{
    return type == EVP_PKEY_ED25519 ? 32 : type == EVP_PKEY_ED448 ? 57 : -1;
}

static void free_eddsa_key(struct eddsa_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    if (key->pkey != NULL) crypto.EVP_PKEY_free(key->pkey); /* clears the private bytes */
    free(key);
}

static struct eddsa_key *eddsa_key_from_handle(JNIEnv *env, jlong handle, int need_private)
{
    struct eddsa_key *key = (struct eddsa_key *) (intptr_t) handle;
    if (key == NULL || key->magic != EDDSA_KEY_MAGIC || (need_private && !key->has_private)) {
        throw_libcrypto(env, "not a live EdDSA key handle");
        return NULL;
    }
    return key;
}

/* A key of type from its raw bytes (private seed or public encoding); 0 with an exception pending. */
static jlong new_eddsa_key(JNIEnv *env, jint type, jbyteArray raw, int private_key)
{
    if (!libcrypto_ready(env)) return 0;
    int length = key_bytes(type);
    if (length < 0 || raw == NULL || (*env)->GetArrayLength(env, raw) != length) {
        throw_libcrypto(env, "EdDSA key: unknown type or wrong length");
        return 0;
    }
    unsigned char bytes[MAX_KEY_BYTES];
    (*env)->GetByteArrayRegion(env, raw, 0, length, (jbyte *) bytes);
    struct eddsa_key *key = calloc(1, sizeof *key);
    if (key != NULL) {
        key->has_private = private_key;
        key->pkey = private_key ? crypto.EVP_PKEY_new_raw_private_key(type, NULL, bytes, (size_t) length)
                                : crypto.EVP_PKEY_new_raw_public_key(type, NULL, bytes, (size_t) length);
    }
    wipe(bytes, sizeof bytes);
    if (key == NULL || key->pkey == NULL) {
        free_eddsa_key(key);
        throw_openssl(env, "EdDSA key");
        return 0;
    }
    key->magic = EDDSA_KEY_MAGIC;
    return (jlong) (intptr_t) key;
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_EdDsaKey_newPrivate(JNIEnv *env, jclass cls, jint type, jbyteArray seed)
{
    (void) cls;
    return new_eddsa_key(env, type, seed, 1);
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_EdDsaKey_newPublic(JNIEnv *env, jclass cls, jint type, jbyteArray point)
{
    (void) cls;
    return new_eddsa_key(env, type, point, 0);
}

JNIEXPORT void JNICALL Java_fastrandom_jni_EdDsaKey_free(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    if (handle == 0) return;
    struct eddsa_key *key = eddsa_key_from_handle(env, handle, 0);
    if (key != NULL) free_eddsa_key(key);
}

/* The key's public point, encoded (RFC 8032), as the private key's own derivation gives it. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_EdDsaKey_publicBytes(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    struct eddsa_key *key = eddsa_key_from_handle(env, handle, 0);
    if (key == NULL) return NULL;
    unsigned char point[MAX_KEY_BYTES];
    size_t length = sizeof point;
    if (!crypto.EVP_PKEY_get_raw_public_key(key->pkey, point, &length)) {
        throw_openssl(env, "EdDSA public key");
        return NULL;
    }
    return bytes_to_java(env, point, (int) length);
}

/* The signature of data[offset, offset + length). */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_EdDsaKey_sign(JNIEnv *env, jclass cls, jlong handle, jbyteArray data,
                                                               jint offset, jint length)
{
    (void) cls;
    struct eddsa_key *key = eddsa_key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;
    if (!java_bounds(env, data, offset, length)) {
        throw_libcrypto(env, "EdDSA: bad data bounds");
        return NULL;
    }
    unsigned char signature[MAX_SIGNATURE_BYTES];
    size_t signature_length = sizeof signature;
    EVP_MD_CTX *ctx = crypto.EVP_MD_CTX_new();
    int ok = ctx != NULL && !TEST_FAULT(FAULT_EDDSA) && crypto.EVP_DigestSignInit(ctx, NULL, NULL, NULL, key->pkey);
    if (ok) {
        jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
        ok = bytes != NULL
            && crypto.EVP_DigestSign(ctx, signature, &signature_length, (const unsigned char *) bytes + offset,
                                     (size_t) length);
        if (bytes != NULL) (*env)->ReleasePrimitiveArrayCritical(env, data, bytes, JNI_ABORT);
    }
    if (ctx != NULL) crypto.EVP_MD_CTX_free(ctx);
    if (!ok) {
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "EdDSA failed");
        return NULL;
    }
    return bytes_to_java(env, signature, (int) signature_length);
}

/* Whether signature[sig_offset, + sig_length) is the key's signature of data[offset, offset + length). */
JNIEXPORT jboolean JNICALL Java_fastrandom_jni_EdDsaKey_verify(JNIEnv *env, jclass cls, jlong handle, jbyteArray data,
                                                               jint offset, jint length, jbyteArray signature,
                                                               jint sig_offset, jint sig_length)
{
    (void) cls;
    struct eddsa_key *key = eddsa_key_from_handle(env, handle, 0);
    if (key == NULL) return JNI_FALSE;
    if (!java_bounds(env, data, offset, length) || !java_bounds(env, signature, sig_offset, sig_length)) {
        throw_libcrypto(env, "EdDSA: bad bounds");
        return JNI_FALSE;
    }
    if (sig_length > MAX_SIGNATURE_BYTES) return JNI_FALSE; /* no EdDSA signature is that long */
    unsigned char sig[MAX_SIGNATURE_BYTES];
    (*env)->GetByteArrayRegion(env, signature, sig_offset, sig_length, (jbyte *) sig);
    EVP_MD_CTX *ctx = crypto.EVP_MD_CTX_new();
    int verdict = -1; /* -1: failed, not decided */
    if (ctx != NULL && !TEST_FAULT(FAULT_EDDSA) && crypto.EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key->pkey)) {
        jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
        if (bytes != NULL) {
            int result = crypto.EVP_DigestVerify(ctx, sig, (size_t) sig_length, (const unsigned char *) bytes + offset,
                                                 (size_t) length);
            (*env)->ReleasePrimitiveArrayCritical(env, data, bytes, JNI_ABORT);
            verdict = result == 1 ? 1 : result == 0 ? 0 : -1;
        }
    }
    if (ctx != NULL) crypto.EVP_MD_CTX_free(ctx);
    if (verdict < 0) { /* OpenSSL's EdDSA says 0 for any signature it refuses, malformed ones too: this is a failure */
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "EdDSA failed");
        return JNI_FALSE;
    }
    crypto.ERR_clear_error();
    return verdict ? JNI_TRUE : JNI_FALSE;
}
