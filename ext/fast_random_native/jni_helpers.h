/*
 * What the JNI bindings of libcrypto (libcrypto_rsa.c, ec_key.c) share:
 * throwing fastrandom.jni.LibCryptoException, moving values between Java
 * arrays and C or OpenSSL, and one-shot digests of Java byte ranges.
 */
#ifndef FAST_RANDOM_JNI_HELPERS_H
#define FAST_RANDOM_JNI_HELPERS_H

#include <jni.h>

#include "libcrypto.h"

/* Throws fastrandom.jni.LibCryptoException with this message. */
void throw_libcrypto(JNIEnv *env, const char *message);

/* Opens libcrypto (libcrypto_open): 1 when usable, else 0 with a LibCryptoException saying why. */
int libcrypto_ready(JNIEnv *env);

/* Throws with OpenSSL's most recent error on this thread, then clears its queue. */
void throw_openssl(JNIEnv *env, const char *what);

/* A big-endian unsigned magnitude from Java as a new BIGNUM (NULL if it is null or on failure). */
BIGNUM *bignum_from_java(JNIEnv *env, jbyteArray array);

/* A new Java byte[] holding these bytes (NULL with an exception pending on failure). */
jbyteArray bytes_to_java(JNIEnv *env, const unsigned char *bytes, int length);

/* counts[0 .. length) (at most 8) as a new Java long[] (NULL with an exception pending on failure). */
jlongArray counts_to_java(JNIEnv *env, const long long *counts, int length);

/* Whether [offset, offset + length) lies within the Java array (not null). */
int java_bounds(JNIEnv *env, jbyteArray data, jint offset, jint length);

/*
 * The digests of the one-call signatures (fastrandom.jni.LibCrypto.Hash, in
 * its order), with OpenSSL's one-shot functions: no algorithm fetching, no
 * context.
 */
enum { HASH_SHA1, HASH_SHA224, HASH_SHA256, HASH_SHA384, HASH_SHA512, HASH_COUNT };

/* The longest digest of those: SHA-512's, in bytes. */
#define MAX_DIGEST_BYTES 64

/* The length of hash's digests, or 0 for no such hash. */
int hash_digest_bytes(int hash);

/*
 * The digest of data[offset, offset + length) (a Java byte[]) with hash,
 * into out (MAX_DIGEST_BYTES); its length, or 0 with an exception pending
 * (bad bounds or hash, or OpenSSL failed).
 */
int java_digest(JNIEnv *env, int hash, jbyteArray data, jint offset, jint length, unsigned char *out);

#endif
