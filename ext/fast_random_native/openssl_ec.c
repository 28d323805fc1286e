/*
 * fast_random's native helper: elliptic curves (ECDSA, ECDH) for the EC
 * engine, through OpenSSL's libcrypto 3 (opened on first use, see
 * libcrypto.h), for the JVM through JNI.
 *
 * A key is one OpenSSL EC_KEY (EC_KEY_new_by_curve_name and its setters,
 * deprecated in 3.0 but exported), built once per Java key and used for
 * every call on it, so nothing is looked up or fetched per call: the named
 * curve brings OpenSSL's own implementation (for P-256 the constant-time
 * ecp_nistz256 code with its precomputed tables, in assembly). Signing is
 * ECDSA_do_sign: OpenSSL's constant-time scalar multiplication, with its
 * nonce made from the private key, the digest and fresh random bytes
 * (BN_generate_dsa_nonce), so a failing random generator still never
 * repeats a nonce for two messages. Signatures leave as DER. Verification
 * takes r and s as the Java side parsed them (so what counts as a
 * well-formed signature stays jruby-openssl's), ECDH the peer's affine
 * coordinates, which must lie on the curve (EC_POINT_set_affine_coordinates
 * refuses any other point, so no invalid-curve point reaches the private
 * key; the curves taken have cofactor 1, so a point on the curve is in the
 * group).
 *
 * Handles are pointers to struct ec_key, owned by the Java side
 * (fastrandom.jni.EcKey), which never frees one while a call on it is
 * running. An EC_KEY is safe to use from several threads at once for these
 * calls: none modifies it.
 *
 * Java side: fastrandom.jni.EcKey.
 */
#include "libcrypto.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EC_KEY_MAGIC 0x45433031u /* "EC01": a live ec_key */

/* The longest field element or order of the curves taken: P-521's 66 bytes. */
#define MAX_FIELD_BYTES 66

struct ec_key {
    uint32_t magic;
    int field_bytes; /* of a coordinate, and of an ECDH secret */
    int has_private;
    EC_KEY *key;
};

static void free_ec_key(struct ec_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    if (key->key != NULL) crypto.EC_KEY_free(key->key); /* clears the private value */
    free(key);
}

static struct ec_key *ec_key_from_handle(JNIEnv *env, jlong handle, int need_private)
{
    struct ec_key *key = (struct ec_key *) (intptr_t) handle;
    if (key == NULL || key->magic != EC_KEY_MAGIC || (need_private && !key->has_private)) {
        throw_libcrypto(env, "not a live EC key handle");
        return NULL;
    }
    return key;
}

/* The point (x, y) of key's curve, or NULL with an exception pending (not on the curve, say). */
static EC_POINT *point_from_java(JNIEnv *env, const EC_GROUP *group, jbyteArray x_bytes, jbyteArray y_bytes)
{
    BIGNUM *x = bignum_from_java(env, x_bytes), *y = bignum_from_java(env, y_bytes);
    EC_POINT *point = NULL;
    if (x == NULL || y == NULL) {
        if (!(*env)->ExceptionCheck(env)) throw_libcrypto(env, "EC point: missing coordinates");
    } else if ((point = crypto.EC_POINT_new(group)) == NULL) {
        throw_openssl(env, "EC point");
    } else if (!crypto.EC_POINT_set_affine_coordinates(group, point, x, y, NULL)
               || crypto.EC_POINT_is_at_infinity(group, point)) {
        crypto.EC_POINT_free(point);
        point = NULL;
        throw_openssl(env, "EC point: not on the curve");
    }
    crypto.BN_free(x);
    crypto.BN_free(y);
    return point;
}

/*
 * A key on the curve nid: private (d, with the public point (x, y), or d G
 * when x is null) or public ((x, y) only). 0 with an exception pending.
 */
static jlong new_ec_key(JNIEnv *env, jint nid, jbyteArray d_bytes, jbyteArray x, jbyteArray y)
{
    const char *failure = libcrypto_open();
    if (failure != NULL) {
        throw_libcrypto(env, failure);
        return 0;
    }
    struct ec_key *key = calloc(1, sizeof *key);
    BIGNUM *d = NULL;
    EC_POINT *point = NULL;
    if (key == NULL || (key->key = crypto.EC_KEY_new_by_curve_name(nid)) == NULL) {
        throw_openssl(env, "EC key: unknown curve");
        goto fail;
    }
    const EC_GROUP *group = crypto.EC_KEY_get0_group(key->key);
    key->field_bytes = (crypto.EC_GROUP_get_degree(group) + 7) / 8;
    if (key->field_bytes > MAX_FIELD_BYTES) {
        throw_libcrypto(env, "EC key: curve too large");
        goto fail;
    }
    if (d_bytes != NULL) {
        d = bignum_from_java(env, d_bytes);
        if (d == NULL || !crypto.EC_KEY_set_private_key(key->key, d)) {
            if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "EC key: bad private value");
            goto fail;
        }
        key->has_private = 1;
    }
    if (x != NULL) {
        if ((point = point_from_java(env, group, x, y)) == NULL) goto fail;
    } else if (d != NULL) {
        if ((point = crypto.EC_POINT_new(group)) == NULL || !crypto.EC_POINT_mul(group, point, d, NULL, NULL, NULL)) {
            throw_openssl(env, "EC key: public point");
            goto fail;
        }
    } else {
        throw_libcrypto(env, "EC key: no values");
        goto fail;
    }
    if (!crypto.EC_KEY_set_public_key(key->key, point)) {
        throw_openssl(env, "EC key: bad public point");
        goto fail;
    }
    crypto.EC_POINT_free(point);
    crypto.BN_clear_free(d);
    key->magic = EC_KEY_MAGIC;
    return (jlong) (intptr_t) key;
fail:
    if (point != NULL) crypto.EC_POINT_free(point);
    crypto.BN_clear_free(d);
    free_ec_key(key);
    return 0;
}

/*
 * What ECDSA signs or verifies: data[offset, offset + length) hashed with
 * hash, or, when prehashed, those bytes as given (OpenSSL keeps the
 * leftmost bits of what is longer than the order, as BouncyCastle does).
 * Its length, or -1 with an exception pending.
 */
static int ecdsa_input(JNIEnv *env, jint hash, jbyteArray data, jint offset, jint length, jboolean prehashed,
                       unsigned char *out, int capacity)
{
    if (!prehashed) return java_digest(env, hash, data, offset, length, out) ? hash_digest_bytes(hash) : -1;
    if (!java_bounds(env, data, offset, length)) {
        throw_libcrypto(env, "ECDSA: bad data bounds");
        return -1;
    }
    if (length > capacity) length = capacity; /* only the leftmost bits count anyway */
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte *) out);
    return (*env)->ExceptionCheck(env) ? -1 : length;
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_EcKey_newPrivate(JNIEnv *env, jclass cls, jint nid, jbyteArray d,
                                                              jbyteArray x, jbyteArray y)
{
    (void) cls;
    if (d == NULL) {
        throw_libcrypto(env, "EC key: no private value");
        return 0;
    }
    return new_ec_key(env, nid, d, x, y);
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_EcKey_newPublic(JNIEnv *env, jclass cls, jint nid, jbyteArray x, jbyteArray y)
{
    (void) cls;
    if (x == NULL || y == NULL) {
        throw_libcrypto(env, "EC key: no public point");
        return 0;
    }
    return new_ec_key(env, nid, NULL, x, y);
}

JNIEXPORT void JNICALL Java_fastrandom_jni_EcKey_free(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    if (handle == 0) return;
    struct ec_key *key = ec_key_from_handle(env, handle, 0);
    if (key != NULL) free_ec_key(key);
}

/* An ECDSA signature, DER-encoded, of the data hashed with hash (or of the data itself when prehashed). */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_EcKey_sign(JNIEnv *env, jclass cls, jlong handle, jint hash,
                                                             jbyteArray data, jint offset, jint length, jboolean prehashed)
{
    (void) cls;
    struct ec_key *key = ec_key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;
    unsigned char input[MAX_DIGEST_BYTES + MAX_FIELD_BYTES];
    int input_length = ecdsa_input(env, hash, data, offset, length, prehashed, input, (int) sizeof input);
    if (input_length < 0) return NULL;

    ECDSA_SIG *sig = crypto.ECDSA_do_sign(input, input_length, key->key);
    if (sig == NULL) {
        throw_openssl(env, "ECDSA signing failed");
        return NULL;
    }
    unsigned char *der = NULL;
    int der_length = crypto.i2d_ECDSA_SIG(sig, &der);
    jbyteArray result = NULL;
    if (der_length <= 0) throw_openssl(env, "ECDSA signature encoding failed");
    else result = bytes_to_java(env, der, der_length);
    crypto.CRYPTO_free(der, __FILE__, __LINE__);
    crypto.ECDSA_SIG_free(sig);
    return result;
}

/*
 * Whether (r, s) (big-endian magnitudes) is an ECDSA signature of the data
 * hashed with hash (or of the data itself when prehashed): 1 valid, 0 not
 * (r or s out of range included).
 */
JNIEXPORT jboolean JNICALL Java_fastrandom_jni_EcKey_verify(JNIEnv *env, jclass cls, jlong handle, jint hash,
    jbyteArray data, jint offset, jint length, jboolean prehashed, jbyteArray r_bytes, jbyteArray s_bytes)
{
    (void) cls;
    struct ec_key *key = ec_key_from_handle(env, handle, 0);
    if (key == NULL) return JNI_FALSE;
    unsigned char input[MAX_DIGEST_BYTES + MAX_FIELD_BYTES];
    int input_length = ecdsa_input(env, hash, data, offset, length, prehashed, input, (int) sizeof input);
    if (input_length < 0) return JNI_FALSE;

    ECDSA_SIG *sig = crypto.ECDSA_SIG_new();
    BIGNUM *r = bignum_from_java(env, r_bytes), *s = bignum_from_java(env, s_bytes);
    if (sig == NULL || r == NULL || s == NULL || !crypto.ECDSA_SIG_set0(sig, r, s)) {
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "ECDSA signature");
        crypto.BN_free(r);
        crypto.BN_free(s);
        if (sig != NULL) crypto.ECDSA_SIG_free(sig);
        return JNI_FALSE;
    }
    int verdict = crypto.ECDSA_do_verify(input, input_length, sig, key->key);
    crypto.ECDSA_SIG_free(sig); /* frees r and s */
    crypto.ERR_clear_error(); /* a rejected signature may leave one */
    return verdict == 1 ? JNI_TRUE : JNI_FALSE;
}

/* The ECDH secret with the peer's point (x, y): the x coordinate of d Q, field_bytes long. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_EcKey_derive(JNIEnv *env, jclass cls, jlong handle,
                                                               jbyteArray x, jbyteArray y)
{
    (void) cls;
    struct ec_key *key = ec_key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;
    EC_POINT *peer = point_from_java(env, crypto.EC_KEY_get0_group(key->key), x, y);
    if (peer == NULL) return NULL;
    unsigned char secret[MAX_FIELD_BYTES];
    jbyteArray result = NULL;
    if (crypto.ECDH_compute_key(secret, (size_t) key->field_bytes, peer, key->key, NULL) != key->field_bytes) {
        throw_openssl(env, "ECDH failed");
    } else {
        result = bytes_to_java(env, secret, key->field_bytes);
    }
    wipe(secret, sizeof secret);
    crypto.EC_POINT_free(peer);
    return result;
}
