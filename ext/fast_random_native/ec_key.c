/*
 * fast_random's native helper: elliptic curves (ECDSA, ECDH) for the EC
 * engine, through OpenSSL's libcrypto, 3.x or 1.1.1 (opened on first use, see
 * libcrypto.h), for the JVM through JNI.
 *
 * A key is one OpenSSL EC_KEY (EC_KEY_new and its setters, deprecated in
 * 3.0 but exported), built once per Java key and used for every call on
 * it, so nothing is looked up or fetched per call. Its curve is a copy of
 * one EC_GROUP per curve, made once by name (EC_GROUP_new_by_curve_name
 * costs 5-7 us, more than a P-256 key generation; a copy 0.5 us, sharing
 * the precomputed tables): the named curve brings OpenSSL's own implementation (for P-256 the constant-time
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
 * A public key that keeps verifying earns a verification table (see
 * "Verification tables" below).
 *
 * Handles are pointers to struct ec_key, owned by the Java side
 * (fastrandom.jni.EcKey), which never frees one while a call on it is
 * running. An EC_KEY is safe to use from several threads at once for these
 * calls: none modifies it.
 *
 * Java side: fastrandom.jni.EcKey.
 */
#include "jni_helpers.h"
#include "libcrypto.h"
#include "mem.h"
#include "test_hooks.h"

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
    int nid;
    EC_KEY *key;
    unsigned long verifications; /* atomic: counted until the table is claimed (again from 0 after a refusal) */
    int table_claimed;           /* atomic: 1 while one thread builds the table, and for good once built or failed */
    EC_GROUP *table;             /* atomic: the verification table once built, else NULL */
};

static void free_verify_table(EC_GROUP *table);

/* The curves made so far, by NID: the first EC_GROUP made for each, kept for the library's life. */
#define CACHED_CURVES 8
static struct {
    int nid;         /* atomic: 0 for a free slot */
    EC_GROUP *group; /* atomic: set once the slot is claimed and the group made */
} curves[CACHED_CURVES];

/* The curve nid, made once and then shared (never modified), or NULL when there is no slot left for it. */
static const EC_GROUP *curve_group(int nid)
{
    for (int i = 0; i < CACHED_CURVES; i++) {
        int slot_nid = __atomic_load_n(&curves[i].nid, __ATOMIC_ACQUIRE);
        if (slot_nid == 0) {
            EC_GROUP *made = crypto.EC_GROUP_new_by_curve_name(nid);
            if (made == NULL) return NULL; /* not a curve OpenSSL knows */
            if (__atomic_compare_exchange_n(&curves[i].nid, &slot_nid, nid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&curves[i].group, made, __ATOMIC_RELEASE);
                return made;
            }
            crypto.EC_GROUP_free(made); /* another thread claimed the slot first: slot_nid is its curve */
        }
        if (slot_nid == nid) {
            EC_GROUP *group;
            while ((group = __atomic_load_n(&curves[i].group, __ATOMIC_ACQUIRE)) == NULL) {
                /* the thread that claimed the slot is storing its group, made before the claim */
            }
            return group;
        }
    }
    return NULL;
}

/* A new EC_KEY on the curve nid, or NULL. */
static EC_KEY *new_key_on_curve(int nid)
{
    const EC_GROUP *group = curve_group(nid);
    if (group == NULL) return crypto.EC_KEY_new_by_curve_name(nid); /* unknown, or no slot left */
    EC_KEY *key = crypto.EC_KEY_new();
    if (key != NULL && !crypto.EC_KEY_set_group(key, group)) { /* a copy, sharing its precomputation */
        crypto.EC_KEY_free(key);
        key = NULL;
    }
    return key;
}

static void free_ec_key(struct ec_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    if (key->key != NULL) crypto.EC_KEY_free(key->key); /* clears the private value */
    if (key->table != NULL) free_verify_table(key->table);
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
 * d G for the key's private value d, or NULL: from the key's own copy of d,
 * which EC_KEY_set_private_key flags BN_FLG_CONSTTIME, so OpenSSL's scalar
 * multiplication takes its constant-time path (a copy without the flag
 * would not).
 */
static EC_POINT *public_point(const EC_KEY *key)
{
    const EC_GROUP *group = crypto.EC_KEY_get0_group(key);
    const BIGNUM *secret = crypto.EC_KEY_get0_private_key(key);
    EC_POINT *point = crypto.EC_POINT_new(group);
    if (point != NULL && (secret == NULL || !crypto.EC_POINT_mul(group, point, secret, NULL, NULL, NULL))) {
        crypto.EC_POINT_free(point);
        point = NULL;
    }
    return point;
}

#ifdef FAST_RANDOM_TEST_BUILD
int test_ec_public_point(int nid, const unsigned char *d, int d_length, int unflagged, unsigned char *out,
                         int out_length)
{
    EC_KEY *key = crypto.EC_KEY_new_by_curve_name(nid);
    const EC_GROUP *group = key != NULL ? crypto.EC_KEY_get0_group(key) : NULL;
    BIGNUM *value = crypto.BN_bin2bn(d, d_length, NULL), *x = crypto.BN_new();
    EC_POINT *point = NULL;
    int ok = group != NULL && value != NULL && x != NULL && crypto.EC_KEY_set_private_key(key, value);
    if (ok && unflagged) { /* what the engine did before: from a copy of d without BN_FLG_CONSTTIME */
        ok = (point = crypto.EC_POINT_new(group)) != NULL && crypto.EC_POINT_mul(group, point, value, NULL, NULL, NULL);
    } else if (ok) {
        ok = (point = public_point(key)) != NULL;
    }
    ok = ok && crypto.EC_POINT_get_affine_coordinates(group, point, x, NULL, NULL)
        && crypto.BN_bn2binpad(x, out, out_length) == out_length;
    crypto.BN_clear_free(value);
    crypto.BN_free(x);
    if (point != NULL) crypto.EC_POINT_free(point);
    if (key != NULL) crypto.EC_KEY_free(key);
    return ok;
}
#endif

/*
 * A key on the curve nid: private (d, with the public point (x, y), or d G
 * when x is null) or public ((x, y) only). 0 with an exception pending.
 */
static jlong new_ec_key(JNIEnv *env, jint nid, jbyteArray d_bytes, jbyteArray x, jbyteArray y)
{
    if (!libcrypto_ready(env)) return 0;
    struct ec_key *key = calloc(1, sizeof *key);
    BIGNUM *d = NULL;
    EC_POINT *point = NULL;
    if (key == NULL || (key->key = new_key_on_curve(nid)) == NULL) {
        throw_openssl(env, "EC key: unknown curve");
        goto fail;
    }
    key->nid = nid;
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
        if ((point = public_point(key->key)) == NULL) {
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

JNIEXPORT jlong JNICALL Java_fastrandom_jni_EcKey_newPublic(JNIEnv *env, jclass cls, jint nid, jbyteArray x,
                                                            jbyteArray y)
{
    (void) cls;
    if (x == NULL || y == NULL) {
        throw_libcrypto(env, "EC key: no public point");
        return 0;
    }
    return new_ec_key(env, nid, NULL, x, y);
}

/*
 * A new private key on the curve nid from OpenSSL's own generator
 * (EC_KEY_generate_key: d uniform in [1, order) from RAND_priv_bytes, d G
 * by the curve's constant-time multiplication), as MRI's EC.generate makes
 * one. Its values go to out, each as long as a field element, big-endian:
 * d, then the public point's x and y; the native key is freed (a key's
 * first signature or ECDH builds its own, as for any key). An exception
 * pending on failure.
 */
JNIEXPORT void JNICALL Java_fastrandom_jni_EcKey_generate(JNIEnv *env, jclass cls, jint nid, jbyteArray out)
{
    (void) cls;
    if (!libcrypto_ready(env)) return;
    EC_KEY *key = new_key_on_curve(nid);
    BIGNUM *x = crypto.BN_new(), *y = crypto.BN_new();
    unsigned char values[3 * MAX_FIELD_BYTES];
    const EC_GROUP *group = key != NULL ? crypto.EC_KEY_get0_group(key) : NULL;
    int n = group != NULL ? (crypto.EC_GROUP_get_degree(group) + 7) / 8 : 0;
    if (group == NULL || x == NULL || y == NULL) {
        throw_openssl(env, "EC key generation: unknown curve");
    } else if (n > MAX_FIELD_BYTES || out == NULL || (*env)->GetArrayLength(env, out) != 3 * n) {
        throw_libcrypto(env, "EC key generation: bad output array");
    } else if (TEST_FAULT(FAULT_EC_GENERATE) || !crypto.EC_KEY_generate_key(key)) {
        throw_openssl(env, "EC key generation failed");
    } else {
        const BIGNUM *d = crypto.EC_KEY_get0_private_key(key);
        const EC_POINT *point = crypto.EC_KEY_get0_public_key(key);
        if (d == NULL || point == NULL || !crypto.EC_POINT_get_affine_coordinates(group, point, x, y, NULL)
            || crypto.BN_bn2binpad(d, values, n) != n || crypto.BN_bn2binpad(x, values + n, n) != n
            || crypto.BN_bn2binpad(y, values + 2 * n, n) != n) {
            throw_openssl(env, "EC key generation: reading the key");
        } else {
            (*env)->SetByteArrayRegion(env, out, 0, 3 * n, (const jbyte *) values);
        }
    }
    wipe(values, sizeof values);
    crypto.BN_free(x);
    crypto.BN_free(y);
    if (key != NULL) crypto.EC_KEY_free(key); /* clears the private value */
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
                                                            jbyteArray data, jint offset, jint length,
                                                            jboolean prehashed)
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
 * Verification tables. ECDSA verification computes u1 G + u2 Q, G the
 * curve's generator and Q the public key. OpenSSL keeps precomputed
 * multiples of G only (for P-256, ecp_nistz256's table of 37 x 64 affine
 * points), so u1 G is cheap while u2 Q is a full windowed multiplication,
 * about two thirds of a verification. A key that keeps verifying (a token
 * issuer's key, a peer's certificate) earns a table of its own: a copy of
 * the curve whose generator is Q, precomputed by OpenSSL
 * (EC_GROUP_precompute_mult). Then u2 Q is as cheap as u1 G, and a P-256
 * verification takes half the time (29 us against 58 us on the machine the
 * README's numbers come from).
 *
 * A table costs time once (P-256: about 21 ms, what some 700 verifications
 * save) and memory (P-256: 37 x 64 x 64 bytes, about 150 KB), so a key gets
 * one only after TABLE_AFTER_* verifications, and at most MAX_TABLES exist
 * at once. A key refused because MAX_TABLES tables exist verifies as before
 * and counts again from 0: after another TABLE_AFTER_* verifications it
 * asks again, and gets a table if one was freed meanwhile (a key's table is
 * freed with its key), so a key that keeps verifying gets one once a slot
 * is free, at the cost of one refused claim (two atomic operations) per
 * TABLE_AFTER_* verifications while none is. The claim is one
 * compare-and-swap on the key's table_claimed, so one thread at a time
 * asks; a refusal releases it, a built table or a failed build (no memory:
 * the key verifies without a table for good) keeps it. Only the curves where
 * OpenSSL's multiplication with such a table is faster take one: P-256 and
 * P-521 (P-384 and secp256k1 run on generic code, where it is slower).
 *
 * The verification then is OpenSSL's own (ossl_ecdsa_simple_verify_sig in
 * crypto/ec/ecdsa_ossl.c), step by step: r and s in [1, n), w = s^-1,
 * the digest's leftmost bits of n's length as m, u1 = m w, u2 = r w,
 * X = u1 G + u2 Q (EC_POINT_add doubles when the two are equal), invalid if
 * X is the point at infinity, valid when X's x coordinate is r mod n. It
 * reads public values only, so its variable-time steps leak nothing. When
 * an OpenSSL call in it fails (no memory), ECDSA_do_verify decides instead;
 * table_verifications counts only the verifications a table decided
 * (FastRandom::EC.stats[:table_verifications]).
 * Test hooks (test build only, test_hooks.c): fastrandom.jni.NativeTestHooks.verifyTables.
 */
#define MAX_TABLES 64
#define TABLE_AFTER_P256 1024
#define TABLE_AFTER_P521 16
#define NID_P256 415
#define NID_P521 716

static int live_tables; /* atomic: tables that exist, in this copy of the library */
/* atomic: verifications decided on a table, by this copy of the library (one per JRuby runtime) */
static unsigned long table_verifications;

static int table_after(int nid)
{
    int after = nid == NID_P256 ? TABLE_AFTER_P256 : nid == NID_P521 ? TABLE_AFTER_P521 : 0;
    return TEST_TABLE_AFTER(after);
}

static void free_verify_table(EC_GROUP *table)
{
    crypto.EC_GROUP_free(table);
    __atomic_sub_fetch(&live_tables, 1, __ATOMIC_RELAXED);
}

/*
 * A new table for key (the curve with Q as its generator, precomputed), or
 * NULL: *refused set when MAX_TABLES exist (worth asking again later), clear
 * when the build failed.
 */
static EC_GROUP *build_verify_table(const struct ec_key *key, int *refused)
{
    *refused = __atomic_load_n(&live_tables, __ATOMIC_RELAXED) >= MAX_TABLES;
    if (*refused) return NULL;
    if (__atomic_add_fetch(&live_tables, 1, __ATOMIC_RELAXED) > MAX_TABLES) {
        __atomic_sub_fetch(&live_tables, 1, __ATOMIC_RELAXED);
        *refused = 1;
        return NULL;
    }
    int fault = TEST_FAULT(FAULT_EC_TABLE);
    const EC_GROUP *group = crypto.EC_KEY_get0_group(key->key);
    EC_GROUP *table = fault ? NULL : crypto.EC_GROUP_dup(group);
    if (table == NULL
        || !crypto.EC_GROUP_set_generator(table, crypto.EC_KEY_get0_public_key(key->key),
                                          crypto.EC_GROUP_get0_order(group), crypto.BN_value_one())
        || !crypto.EC_GROUP_precompute_mult(table, NULL)) {
        if (table != NULL) crypto.EC_GROUP_free(table);
        __atomic_sub_fetch(&live_tables, 1, __ATOMIC_RELAXED);
        crypto.ERR_clear_error();
        return NULL;
    }
    return table;
}

/* key's table: the one built, or one built now when this call is the one that earns it; else NULL. */
static const EC_GROUP *verify_table(struct ec_key *key)
{
    const EC_GROUP *table = __atomic_load_n(&key->table, __ATOMIC_ACQUIRE);
    if (table != NULL || __atomic_load_n(&key->table_claimed, __ATOMIC_RELAXED)) return table;
    int after = table_after(key->nid);
    if (after == 0 || __atomic_add_fetch(&key->verifications, 1, __ATOMIC_RELAXED) < (unsigned long) after) return NULL;
    int unclaimed = 0;
    if (!__atomic_compare_exchange_n(&key->table_claimed, &unclaimed, 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        return NULL; /* another thread builds it */
    }
    int refused;
    EC_GROUP *built = build_verify_table(key, &refused);
    if (built != NULL) {
        __atomic_store_n(&key->table, built, __ATOMIC_RELEASE);
    } else if (refused) { /* no slot now: count again, and ask again after another `after` verifications */
        __atomic_store_n(&key->verifications, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&key->table_claimed, 0, __ATOMIC_RELEASE);
    }
    return built;
}

/*
 * 1 when (r, s) is a signature of the digest input with key (whose table is
 * given), 0 when not, -1 when OpenSSL failed (out of memory, say): the
 * caller then asks ECDSA_do_verify.
 */
static int verify_with_table(const struct ec_key *key, const EC_GROUP *table, const unsigned char *input,
                             int input_length, const BIGNUM *r, const BIGNUM *s)
{
    const EC_GROUP *group = crypto.EC_KEY_get0_group(key->key);
    const BIGNUM *order = crypto.EC_GROUP_get0_order(group);
    if (crypto.BN_is_zero(r) || crypto.BN_ucmp(r, order) >= 0 || crypto.BN_is_zero(s)
        || crypto.BN_ucmp(s, order) >= 0) {
        return 0;
    }
    int order_bits = crypto.BN_num_bits(order), verdict = -1;
    if (8 * input_length > order_bits) input_length = (order_bits + 7) / 8;
    BN_CTX *ctx = crypto.BN_CTX_new();
    EC_POINT *sum = crypto.EC_POINT_new(group), *u2q = crypto.EC_POINT_new(table);
    if (ctx != NULL && sum != NULL && u2q != NULL) {
        crypto.BN_CTX_start(ctx);
        BIGNUM *w = crypto.BN_CTX_get(ctx), *m = crypto.BN_CTX_get(ctx), *u1 = crypto.BN_CTX_get(ctx);
        BIGNUM *u2 = crypto.BN_CTX_get(ctx), *x = crypto.BN_CTX_get(ctx);
        int computed = x != NULL
                       && !TEST_FAULT(FAULT_EC_TABLE_VERIFY) /* tests: an OpenSSL call failing midway */
                       && crypto.BN_mod_inverse(w, s, order, ctx)
                       && crypto.BN_bin2bn(input, input_length, m)
                       && (8 * input_length <= order_bits || crypto.BN_rshift(m, m, 8 - (order_bits & 7)))
                       && crypto.BN_mod_mul(u1, m, w, order, ctx)
                       && crypto.BN_mod_mul(u2, r, w, order, ctx)
                       && crypto.EC_POINT_mul(group, sum, u1, NULL, NULL, ctx) /* with G's table */
                       && crypto.EC_POINT_mul(table, u2q, u2, NULL, NULL, ctx) /* with Q's */
                       && crypto.EC_POINT_add(group, sum, sum, u2q, ctx);
        if (computed && crypto.EC_POINT_is_at_infinity(group, sum)) {
            verdict = 0;
        } else if (computed && crypto.EC_POINT_get_affine_coordinates(group, sum, x, NULL, ctx)
                   && crypto.BN_nnmod(x, x, order, ctx)) {
            verdict = crypto.BN_ucmp(x, r) == 0;
        }
        crypto.BN_CTX_end(ctx);
    }
    crypto.EC_POINT_free(sum);
    crypto.EC_POINT_free(u2q);
    crypto.BN_CTX_free(ctx);
    return verdict;
}

JNIEXPORT jint JNICALL Java_fastrandom_jni_EcKey_liveVerifyTables0(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return __atomic_load_n(&live_tables, __ATOMIC_RELAXED);
}

/* How many verifications a table decided since the library was loaded (not those ECDSA_do_verify took over). */
JNIEXPORT jlong JNICALL Java_fastrandom_jni_EcKey_tableVerifications0(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    return (jlong) __atomic_load_n(&table_verifications, __ATOMIC_RELAXED);
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
    const EC_GROUP *table = verify_table(key);
    int verdict = table != NULL ? verify_with_table(key, table, input, input_length, r, s) : -1;
    if (verdict >= 0) __atomic_add_fetch(&table_verifications, 1, __ATOMIC_RELAXED);
    else verdict = crypto.ECDSA_do_verify(input, input_length, sig, key->key);
    if (TEST_EC_WRONG_ANSWERS(key->nid)) verdict = verdict != 1; /* tests: a wrong verdict for the self-test to catch */
    crypto.ECDSA_SIG_free(sig); /* frees r and s */
    crypto.ERR_clear_error(); /* a rejected signature may leave one */
    return verdict == 1 ? JNI_TRUE : JNI_FALSE;
}

/* The ECDH secret with the peer's point (x, y): the x coordinate of d Q, field_bytes long. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_EcKey_derive(JNIEnv *env, jclass cls, jlong handle, jbyteArray x,
                                                              jbyteArray y)
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
        if (TEST_EC_WRONG_ANSWERS(key->nid)) secret[key->field_bytes - 1] ^= 1; /* tests: a wrong secret */
        result = bytes_to_java(env, secret, key->field_bytes);
    }
    wipe(secret, sizeof secret);
    crypto.EC_POINT_free(peer);
    return result;
}
