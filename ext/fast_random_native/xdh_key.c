/*
 * fast_random's native helper: X25519 and X448 (RFC 7748) key agreement
 * for the JVM-wide provider's XDH services, through OpenSSL's libcrypto
 * (opened on first use, see libcrypto.h), for the JVM through JNI.
 *
 * A key is one private EVP_PKEY made from its raw scalar (drawn by the
 * Java side from the random source its caller gives, as the JDK's XDH
 * generator draws), whose public u-coordinate OpenSSL computes at once,
 * kept for the agreement the key is made for. An agreement makes the peer's
 * EVP_PKEY from its raw u-coordinate and derives with EVP_PKEY_derive,
 * which refuses a result of all zeros (a peer of small order), as the JDK
 * does. OpenSSL's X25519 and X448 are constant-time.
 *
 * Handles are pointers to struct xdh_key, owned by the Java side
 * (fastrandom.jni.XdhKey), which never frees one while a call on it is
 * running.
 */
#include "jni_helpers.h"
#include "libcrypto.h"
#include "mem.h"
#include "test_hooks.h"

#include <stdint.h>
#include <stdlib.h>

#define XDH_KEY_MAGIC 0x58443031u /* "XD01": a live xdh_key */
#define MAX_XDH_BYTES 56          /* X448's; X25519's are 32 */

struct xdh_key {
    uint32_t magic;
    int type;
    EVP_PKEY *pkey;
};

static int xdh_bytes(int type)
{
    return type == EVP_PKEY_X25519 ? 32 : type == EVP_PKEY_X448 ? 56 : -1;
}

static void free_xdh_key(struct xdh_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    if (key->pkey != NULL) crypto.EVP_PKEY_free(key->pkey); /* clears the private bytes */
    free(key);
}

static struct xdh_key *xdh_key_from_handle(JNIEnv *env, jlong handle)
{
    struct xdh_key *key = (struct xdh_key *) (intptr_t) handle;
    if (key == NULL || key->magic != XDH_KEY_MAGIC) {
        throw_libcrypto(env, "not a live XDH key handle");
        return NULL;
    }
    return key;
}

/* A private key of type from its raw scalar; its public u-coordinate goes to public_out. 0 with an exception pending. */
JNIEXPORT jlong JNICALL Java_fastrandom_jni_XdhKey_newPrivate(JNIEnv *env, jclass cls, jint type, jbyteArray raw,
                                                              jbyteArray public_out)
{
    (void) cls;
    if (!libcrypto_ready(env)) return 0;
    int length = xdh_bytes(type);
    if (length < 0 || raw == NULL || public_out == NULL || (*env)->GetArrayLength(env, public_out) != length
        || (*env)->GetArrayLength(env, raw) != length) {
        throw_libcrypto(env, "XDH key: unknown type or wrong length");
        return 0;
    }
    unsigned char secret[MAX_XDH_BYTES], point[MAX_XDH_BYTES];
    size_t point_length = sizeof point;
    (*env)->GetByteArrayRegion(env, raw, 0, length, (jbyte *) secret);
    int ok = !(*env)->ExceptionCheck(env);
    struct xdh_key *key = ok && !TEST_FAULT(FAULT_XDH) ? calloc(1, sizeof *key) : NULL;
    if (key != NULL) {
        key->type = type;
        key->pkey = crypto.EVP_PKEY_new_raw_private_key(type, NULL, secret, (size_t) length);
    }
    wipe(secret, sizeof secret);
    if (key == NULL || key->pkey == NULL || !crypto.EVP_PKEY_get_raw_public_key(key->pkey, point, &point_length)
        || point_length != (size_t) length) {
        free_xdh_key(key);
        if (!(*env)->ExceptionCheck(env)) throw_openssl(env, "XDH failed");
        return 0;
    }
    (*env)->SetByteArrayRegion(env, public_out, 0, length, (const jbyte *) point);
    key->magic = XDH_KEY_MAGIC;
    return (jlong) (intptr_t) key;
}

JNIEXPORT void JNICALL Java_fastrandom_jni_XdhKey_free(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    if (handle == 0) return;
    struct xdh_key *key = xdh_key_from_handle(env, handle);
    if (key != NULL) free_xdh_key(key);
}

/*
 * The shared secret with the peer's public u-coordinate (as long as a
 * key). Null with a LibCryptoException when OpenSSL refuses it (a result
 * of all zeros: a peer of small order) or fails.
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_XdhKey_derive(JNIEnv *env, jclass cls, jlong handle, jbyteArray peer)
{
    (void) cls;
    struct xdh_key *key = xdh_key_from_handle(env, handle);
    if (key == NULL) return NULL;
    int length = xdh_bytes(key->type);
    if (peer == NULL || (*env)->GetArrayLength(env, peer) != length) {
        throw_libcrypto(env, "XDH: the peer's key has the wrong length");
        return NULL;
    }
    unsigned char point[MAX_XDH_BYTES], secret[MAX_XDH_BYTES];
    size_t secret_length = sizeof secret;
    (*env)->GetByteArrayRegion(env, peer, 0, length, (jbyte *) point);
    EVP_PKEY *peer_key = crypto.EVP_PKEY_new_raw_public_key(key->type, NULL, point, (size_t) length);
    EVP_PKEY_CTX *ctx = peer_key != NULL ? crypto.EVP_PKEY_CTX_new(key->pkey, NULL) : NULL;
    int ok = ctx != NULL && !TEST_FAULT(FAULT_XDH) && crypto.EVP_PKEY_derive_init(ctx) == 1
        && crypto.EVP_PKEY_derive_set_peer(ctx, peer_key) == 1 && crypto.EVP_PKEY_derive(ctx, secret, &secret_length) == 1
        && secret_length == (size_t) length;
    if (ctx != NULL) crypto.EVP_PKEY_CTX_free(ctx);
    if (peer_key != NULL) crypto.EVP_PKEY_free(peer_key);
    jbyteArray result = NULL;
    if (ok) {
        result = bytes_to_java(env, secret, length);
    } else if (!(*env)->ExceptionCheck(env)) {
        throw_openssl(env, "XDH agreement refused or failed");
    }
    wipe(secret, sizeof secret);
    return result;
}
