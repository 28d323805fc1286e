/*
 * The helpers the JNI bindings of libcrypto share (see jni_helpers.h).
 */
#include "jni_helpers.h"

#include <stdio.h>

void throw_libcrypto(JNIEnv *env, const char *message)
{
    jclass cls = (*env)->FindClass(env, "fastrandom/jni/LibCryptoException");
    if (cls != NULL) (*env)->ThrowNew(env, cls, message);
}

int libcrypto_ready(JNIEnv *env)
{
    const char *failure = libcrypto_open();
    if (failure != NULL) throw_libcrypto(env, failure);
    return failure == NULL;
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

jlongArray counts_to_java(JNIEnv *env, const long long *counts, int length)
{
    jlong values[8];
    if (length < 0 || length > 8) return NULL;
    for (int i = 0; i < length; i++) values[i] = (jlong) counts[i];
    jlongArray result = (*env)->NewLongArray(env, length);
    if (result != NULL) (*env)->SetLongArrayRegion(env, result, 0, length, values);
    return result;
}
