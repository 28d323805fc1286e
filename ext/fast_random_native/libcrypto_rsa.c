/*
 * fast_random's native helper: RSA for the :openssl engine, through
 * OpenSSL's libcrypto, 3.x or 1.1.1 (opened on first use, see libcrypto.h), for the JVM
 * through JNI.
 *
 * A private key is validated here once (p q = n, every CRT value below its
 * modulus, sizes within the buffers): no Java caller can hand C a key
 * that would overrun a buffer. Its private operation then takes one of two
 * paths, chosen once per key (rsa_crt_takes):
 *  - OpenSSL's own: one RSA object built once (RSA_new and the RSA_set0_*
 *    setters, deprecated in 3.0 but still exported), pinned to OpenSSL's
 *    software method, with OpenSSL's blinding, constant-time CRT, check of
 *    the result with e and constant-time unblinding (3.0.8 and later),
 *    called through RSA_private_encrypt without padding; every key on a
 *    CPU without AVX-512 IFMA, and 1024-bit primes on one with it;
 *  - fast_random's own, on IFMA, for primes of one length above 1024 bits
 *    (rsa_blinding.c around rsa_crt.c): fixed-width from the blinded input
 *    to the serialized result, checked with e, where it beats OpenSSL's.
 * A key made with check_results also checks every final result here
 * (result^e mod n must give the input back) and returns nothing when it
 * does not: the engine asks for that when the CRT's own check did not
 * prove itself at start (fastrandom.rsa.OpenSslRsaEngine).
 *
 * PKCS#1 v1.5 signatures (RFC 8017, section 8.2) are one call each: the
 * digest (OpenSSL's one-shot SHA functions: no algorithm fetching, no
 * context), the DigestInfo, the padding and the exponentiation, on the
 * key's cached objects. Verification compares the recovered block with the
 * expected one in constant time, accepting what BouncyCastle (stock
 * jruby-openssl) accepts: the DigestInfo with its NULL parameters, or
 * without them.
 *
 * Public operations on values that are not secret (verification,
 * encryption) use AVX-512 IFMA where the CPU has it (modexp_ifma.c, about
 * twice as fast as BN_mod_exp_mont at 2048 bits); the extra check of a
 * final private result, when it runs, stays on OpenSSL's code.
 *
 * Handles are pointers to struct rsa_key, owned by the Java side
 * (fastrandom.jni.LibCrypto.Key), which never frees one while a call on it
 * is running. A key is safe to use from several threads at once: what our
 * CRT keeps is read-only after the key is made, each of its operations
 * takes its own blinding factors from the key's pool, and OpenSSL 3.0 locks
 * what its RSA object shares (its caches and blinding).
 *
 * Java side: fastrandom.jni.LibCrypto.
 */
#include "jni_helpers.h"
#include "libcrypto.h"
#include "mem.h"
#include "modexp_ifma.h"
#include "rsa_blinding.h"
#include "test_hooks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAGIC 0x52534131u /* "RSA1": a live rsa_key */

struct rsa_key {
    uint32_t magic;
    int bytes;          /* length of the modulus in bytes */
    int check_results;  /* check private results with e here too */
    RSA *rsa;           /* the private key; NULL for a public key */
    struct rsa_crt *crt; /* our CRT, or NULL: OpenSSL's private operation */
    struct blinding_pool *blinding; /* our CRT's blinding factors */

    BIGNUM *n;          /* public values, for the public operation and the check */
    BIGNUM *e;
    BN_MONT_CTX *mont;  /* Montgomery context for n */
    struct ifma_modulus *ifma; /* n for AVX-512 IFMA, or NULL */
    unsigned char e_bytes[MAX_MODULUS_BYTES];
    int e_length;
};

/*
 * Whether public operations use AVX-512 IFMA: -1 until decided. FAST_RANDOM_HIDE_IFMA=1
 * (fastrandom.Setting, read by the Java side) hides it: hideIfma0, before any key is made.
 */
static int use_ifma = -1;
static int hide_ifma;

static int ifma_in_use(void)
{
    if (use_ifma < 0) use_ifma = ifma_available() && !hide_ifma;
    return use_ifma;
}

JNIEXPORT void JNICALL Java_fastrandom_jni_LibCrypto_hideIfma0(JNIEnv *env, jclass cls)
{
    (void) env;
    (void) cls;
    hide_ifma = 1;
}

/*
 * The DigestInfo of each digest (jni_helpers.h's HASH_*, in that order):
 * the digest's length and the DER prefix before it (RFC 8017, section 9.2,
 * note 1): SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING of the digest length }.
 */
#define MAX_PREFIX_BYTES 19

/* clang-format off */
static const struct digest_info {
    int digest_bytes;
    int prefix_bytes;
    unsigned char prefix[MAX_PREFIX_BYTES];
} DIGEST_INFO[HASH_COUNT] = {
    {20, 15, {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14}},
    {28, 19, {0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04,
              0x05, 0x00, 0x04, 0x1c}},
    {32, 19, {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
              0x05, 0x00, 0x04, 0x20}},
    {48, 19, {0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
              0x05, 0x00, 0x04, 0x30}},
    {64, 19, {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
              0x05, 0x00, 0x04, 0x40}},
};
/* clang-format on */

/* Padding type 1 needs at least 8 bytes of 0xff, with 00 01 before and 00 after. */
#define PKCS1_OVERHEAD 11

static void free_key(struct rsa_key *key)
{
    if (key == NULL) return;
    key->magic = 0;
    blinding_pool_free(key->blinding);
    rsa_crt_free(key->crt);
    if (key->rsa != NULL) crypto.RSA_free(key->rsa); /* clears the private values */

    crypto.BN_free(key->n);
    crypto.BN_free(key->e);
    if (key->mont != NULL) crypto.BN_MONT_CTX_free(key->mont);
    ifma_modulus_free(key->ifma);
    free(key);
}

/*
 * The public half of a key from n and e (taken over, freed on failure): a
 * Montgomery context for n, and n for IFMA where public operations use it.
 * NULL with *why set on failure (*openssl: OpenSSL's error queue says more).
 */
static struct rsa_key *new_public_half(BIGNUM *n, BIGNUM *e, const char **why, int *openssl)
{
    struct rsa_key *key = calloc(1, sizeof *key);
    BN_CTX *ctx = NULL;
    if (key == NULL) {
        crypto.BN_free(n);
        crypto.BN_free(e);
        *why = "out of memory for an RSA key";
        return NULL;
    }
    key->n = n;
    key->e = e;
    if (n == NULL || e == NULL) {
        *why = "RSA key: bad public values";
        *openssl = 1;
        goto fail;
    }
    int bits = crypto.BN_num_bits(n);
    if (bits < 2 || bits > MAX_MODULUS_BYTES * 8 || !crypto.BN_is_odd(n)) {
        *why = "RSA key: the modulus must be odd and at most 16384 bits";
        goto fail;
    }
    key->bytes = (bits + 7) / 8;
    if ((ctx = crypto.BN_CTX_new()) == NULL || (key->mont = crypto.BN_MONT_CTX_new()) == NULL
        || !crypto.BN_MONT_CTX_set(key->mont, n, ctx)) {
        *why = "RSA key: Montgomery setup failed";
        *openssl = 1;
        goto fail;
    }
    if (crypto.BN_num_bits(e) <= 8 * MAX_MODULUS_BYTES) {
        key->e_length = crypto.BN_bn2bin(e, key->e_bytes);
        if (ifma_in_use()) key->ifma = ifma_modulus_new(n, key->bytes, ctx); /* else BN_mod_exp_mont */
    }
    crypto.BN_CTX_free(ctx);
    key->magic = KEY_MAGIC;
    return key;
fail:
    crypto.BN_CTX_free(ctx);
    free_key(key);
    return NULL;
}

/* The private values of a key, in RSA_set0_* order: d, p, q, dP, dQ, qInv. */
enum { VALUE_D, VALUE_P, VALUE_Q, VALUE_DMP1, VALUE_DMQ1, VALUE_IQMP, PRIVATE_VALUES };

/* 0 < a < b */
static int in_range(const BIGNUM *a, const BIGNUM *b)
{
    return !crypto.BN_is_zero(a) && crypto.BN_ucmp(a, b) < 0;
}

/*
 * Why the private values cannot belong to the key with modulus n and
 * exponent e, or NULL when they can: p and q odd and above 1 with p q = n
 * (so each is within the buffers n's length sets), 0 < d < n, 0 < dP < p,
 * 0 < dQ < q, 0 < qInv < p, and 1 < e < n. (Whether d, dP, dQ and qInv
 * fit the primes is not checked: a wrong one gives a wrong CRT result,
 * which the check with e catches and recomputes.) Runs once per key, before
 * any of its values is used; the comparisons are not constant-time, as in
 * OpenSSL's RSA_check_key.
 */
static const char *invalid_private_values(const BIGNUM *n, const BIGNUM *e, BIGNUM *const *v, BN_CTX *ctx)
{
    for (int i = 0; i < PRIVATE_VALUES; i++) {
        if (v[i] == NULL) return "RSA key: a private value is missing";
    }
    if (!crypto.BN_is_odd(v[VALUE_P]) || !crypto.BN_is_odd(v[VALUE_Q]) || crypto.BN_num_bits(v[VALUE_P]) < 2
        || crypto.BN_num_bits(v[VALUE_Q]) < 2) {
        return "RSA key: p and q must be odd primes";
    }
    int consistent = 0;
    crypto.BN_CTX_start(ctx);
    BIGNUM *product = crypto.BN_CTX_get(ctx);
    if (product != NULL && crypto.BN_mul(product, v[VALUE_P], v[VALUE_Q], ctx)) {
        consistent = crypto.BN_ucmp(product, n) == 0;
        crypto.BN_clear(product);
    }
    crypto.BN_CTX_end(ctx);
    if (!consistent) return "RSA key: p * q is not the modulus";
    if (!in_range(v[VALUE_D], n)) return "RSA key: d must be between 0 and the modulus";
    if (!in_range(v[VALUE_DMP1], v[VALUE_P]) || !in_range(v[VALUE_DMQ1], v[VALUE_Q])
        || !in_range(v[VALUE_IQMP], v[VALUE_P])) {
        return "RSA key: dP, dQ and qInv must be below p, q and p";
    }
    if (crypto.BN_num_bits(e) < 2 || !in_range(e, n)) return "RSA key: e must be between 1 and the modulus";
    return NULL;
}

/*
 * A private key from n, e and the private values (all taken over, freed on
 * failure), validated (invalid_private_values), on our CRT or OpenSSL's.
 * NULL with *why set on failure (*openssl: OpenSSL's error queue says more).
 */
static struct rsa_key *new_private_key(BIGNUM *n, BIGNUM *e, BIGNUM **v, int check_results, const char **why,
                                       int *openssl)
{
    RSA *rsa = NULL;
    BIGNUM *rsa_n = NULL, *rsa_e = NULL;
    BN_CTX *ctx = crypto.BN_CTX_new();
    struct rsa_key *key = NULL;
    if (ctx == NULL) {
        *why = "out of memory for an RSA key";
        crypto.BN_free(n);
        crypto.BN_free(e);
        goto fail;
    }
    if ((key = new_public_half(n, e, why, openssl)) == NULL) goto fail;
    key->check_results = check_results ? 1 : 0;
    if ((*why = invalid_private_values(key->n, key->e, v, ctx)) != NULL) goto fail;

    /*
     * Pin OpenSSL's own implementation (rsa_ossl.c), whatever default ENGINE
     * a configuration file names: the code whose constant time, blinding,
     * result check and locking we rely on for keys our CRT does not take.
     * RSA_set0_* take ownership of what they are given, so until then we
     * free it.
     */
    *openssl = 1;
    if ((rsa_n = crypto.BN_dup(key->n)) == NULL || (rsa_e = crypto.BN_dup(key->e)) == NULL
        || (rsa = crypto.RSA_new()) == NULL || !crypto.RSA_set_method(rsa, crypto.RSA_PKCS1_OpenSSL())) {
        *why = "RSA key: RSA_new failed";
        goto fail;
    }
    if (!crypto.RSA_set0_key(rsa, rsa_n, rsa_e, v[VALUE_D])) {
        *why = "RSA key: RSA_set0_key failed";
        goto fail;
    }
    rsa_n = rsa_e = v[VALUE_D] = NULL;
    if (!crypto.RSA_set0_factors(rsa, v[VALUE_P], v[VALUE_Q])) {
        *why = "RSA key: RSA_set0_factors failed";
        goto fail;
    }
    v[VALUE_P] = v[VALUE_Q] = NULL;
    if (!crypto.RSA_set0_crt_params(rsa, v[VALUE_DMP1], v[VALUE_DMQ1], v[VALUE_IQMP])) {
        *why = "RSA key: RSA_set0_crt_params failed";
        goto fail;
    }
    v[VALUE_DMP1] = v[VALUE_DMQ1] = v[VALUE_IQMP] = NULL;

    const BIGNUM *d, *p, *q, *dmp1, *dmq1, *iqmp;
    crypto.RSA_get0_key(rsa, NULL, NULL, &d);
    crypto.RSA_get0_factors(rsa, &p, &q);
    crypto.RSA_get0_crt_params(rsa, &dmp1, &dmq1, &iqmp);
    if (key->ifma != NULL && rsa_crt_takes(crypto.BN_num_bits(p), crypto.BN_num_bits(q), 1)) {
        if ((key->crt = rsa_crt_new(key->ifma, key->e_bytes, key->e_length, d, p, q, dmp1, dmq1, iqmp, ctx)) == NULL
            || (key->blinding = blinding_pool_new(key->ifma, key->e_bytes, key->e_length, key->crt)) == NULL) {
            *why = "RSA key: CRT setup failed";
            goto fail;
        }
        if (!rsa_crt_works(key->crt)) { /* a wrong qInv, say: OpenSSL's private operation copes with it */
            blinding_pool_free(key->blinding);
            rsa_crt_free(key->crt);
            key->blinding = NULL;
            key->crt = NULL;
        }
    }
    key->rsa = rsa;
    crypto.BN_CTX_free(ctx);
    return key;

fail:
    if (rsa != NULL) crypto.RSA_free(rsa);
    crypto.BN_free(rsa_n);
    crypto.BN_free(rsa_e);
    for (int i = 0; i < PRIVATE_VALUES; i++) crypto.BN_clear_free(v[i]);
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
static int read_input(JNIEnv *env, struct rsa_key *key, jbyteArray input, unsigned char *buffer)
{
    if (input == NULL || (*env)->GetArrayLength(env, input) != key->bytes) {
        throw_libcrypto(env, "RSA input must be exactly as long as the modulus");
        return 0;
    }
    (*env)->GetByteArrayRegion(env, input, 0, key->bytes, (jbyte *) buffer);
    return !(*env)->ExceptionCheck(env);
}

/* The live key behind handle, with input read into buffer (read_input); NULL with an exception otherwise. */
static struct rsa_key *key_with_input(JNIEnv *env, jlong handle, int need_private, jbyteArray input,
                                      unsigned char *buffer)
{
    struct rsa_key *key = key_from_handle(env, handle, need_private);
    return key != NULL && read_input(env, key, input, buffer) ? key : NULL;
}

/*
 * out = in^e mod n; 1 on success. The exponent is public, so an ordinary
 * (not constant-time) exponentiation is right: AVX-512 IFMA's when the key
 * has it and in is not a private result being checked, else
 * BN_mod_exp_mont's with the key's Montgomery context (also for checking a
 * private result, which must not leave C if it is wrong).
 */
static int public_exp(struct rsa_key *key, const unsigned char *in, unsigned char *out, int *too_large,
                      int private_result)
{
    int ok = 0;
    if (key->ifma != NULL && !private_result) {
        if (ifma_mod_exp(out, in, key->e_bytes, key->e_length, key->ifma)) return 1;
        *too_large = 1; /* the one way it fails: in is not below n */
        return 0;
    }
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

/*
 * out = in^d mod n (key->bytes each) by the key's private operation: our
 * blinded CRT (rsa_blinding.c, rsa_crt.c), or OpenSSL's own (blinded,
 * checked, unblinded in constant time). 1 on success.
 */
static int key_private(struct rsa_key *key, const unsigned char *in, unsigned char *out)
{
    if (key->crt != NULL) return blinded_private(key->blinding, key->crt, in, out);
    return crypto.RSA_private_encrypt(key->bytes, in, out, key->rsa, RSA_NO_PADDING) == key->bytes;
}

/*
 * out = in^d mod n (key->bytes each, key_private); with key->check_results, checked here too. 1 on
 * success, else 0 with an exception pending and nothing written to out that
 * could be used.
 */
static int private_op(JNIEnv *env, struct rsa_key *key, const unsigned char *in, unsigned char *out)
{
    unsigned char check[MAX_MODULUS_BYTES];
    int too_large = 0, ok = 0;
    if (!key_private(key, in, out)) {
        throw_openssl(env, "RSA private operation failed");
    } else if (!key->check_results) {
        ok = 1;
    } else if (!public_exp(key, out, check, &too_large, 1) || too_large) {
        throw_openssl(env, "RSA private operation: the public-exponent check could not run");
    } else if (!same_bytes(check, in, key->bytes)) {
        throw_libcrypto(env,
                        "RSA private operation: the result failed the public-exponent check (computation fault); "
                        "nothing was returned");
    } else {
        ok = 1;
    }
    if (!ok) wipe(out, key->bytes);
    wipe(check, sizeof check);
    return ok;
}

/*
 * The message's digest, into digest (DIGEST_INFO[hash].digest_bytes long):
 * computed here from data[offset, offset + length), or, when prehashed,
 * data[offset, offset + length) is the digest. 0 with an exception pending
 * on bad arguments.
 */
static int message_digest(JNIEnv *env, jint hash, jbyteArray data, jint offset, jint length, jboolean prehashed,
                          unsigned char *digest)
{
    if (!prehashed) return java_digest(env, hash, data, offset, length, digest) != 0;
    if (hash_digest_bytes(hash) == 0 || !java_bounds(env, data, offset, length) || length != hash_digest_bytes(hash)) {
        throw_libcrypto(env, "PKCS#1 signature: bad digest");
        return 0;
    }
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte *) digest);
    return !(*env)->ExceptionCheck(env);
}

/*
 * The encoded message of RFC 8017's EMSA-PKCS1-v1_5 into em (k bytes):
 * 00 01 ff..ff 00 DigestInfo. Without with_null, the DigestInfo leaves out
 * the NULL parameters (the form BouncyCastle also accepts). 0 when k is too
 * short for it.
 */
static int encode_pkcs1(int hash, const unsigned char *digest, int with_null, unsigned char *em, int k)
{
    const struct digest_info *info = &DIGEST_INFO[hash];
    unsigned char prefix[MAX_PREFIX_BYTES];
    int prefix_bytes = info->prefix_bytes;
    memcpy(prefix, info->prefix, (size_t) prefix_bytes);
    if (!with_null) {
        /* Drop the 05 00 before the OCTET STRING header; both SEQUENCEs get 2 bytes shorter. */
        prefix[1] -= 2;
        prefix[3] -= 2;
        memmove(prefix + prefix_bytes - 4, prefix + prefix_bytes - 2, 2);
        prefix_bytes -= 2;
    }
    int t_bytes = prefix_bytes + info->digest_bytes;
    if (k < t_bytes + PKCS1_OVERHEAD) return 0;
    em[0] = 0x00;
    em[1] = 0x01;
    memset(em + 2, 0xff, (size_t) (k - t_bytes - 3));
    em[k - t_bytes - 1] = 0x00;
    memcpy(em + k - t_bytes, prefix, (size_t) prefix_bytes);
    memcpy(em + k - info->digest_bytes, digest, (size_t) info->digest_bytes);
    return 1;
}

/* Whether libcrypto's RSA unblinding is constant-time (CVE-2022-4304: fixed in 3.0.8 and 1.1.1t). */
static int constant_time_unblinding(unsigned long version)
{
    if (version >= LIBCRYPTO_3) return version >= LIBCRYPTO_CONSTTIME_UNBLINDING;
    return version >= LIBCRYPTO_1_1_CONSTTIME_UNBLINDING;
}

/*
 * A warning for the engine to give once, or NULL: what a known-bad
 * libcrypto changes. 3.0.4 is not used for 1024-bit primes on IFMA (its
 * IFMA code for them is broken): our CRT takes those keys
 * (rsa_crt_takes). Before 3.0.8 and 1.1.1t, OpenSSL's unblinding is not
 * constant-time, and keys on its private operation have that timing leak.
 */
JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_privatePathNotice0(JNIEnv *env, jclass cls)
{
    (void) cls;
    char notice[256];
    unsigned long version = libcrypto_version_num();
    if (version == LIBCRYPTO_BROKEN_IFMA_X2 && ifma_in_use()) {
        snprintf(notice, sizeof notice, "libcrypto 3.0.4's AVX-512 IFMA exponentiation is broken (CVE-2022-2274): "
                 "RSA keys with 1024-bit primes run on fast_random's own CRT instead; upgrade libcrypto");
    } else if (!constant_time_unblinding(version)) {
        snprintf(notice, sizeof notice, "libcrypto %lx predates OpenSSL 3.0.8's and 1.1.1t's constant-time RSA "
                 "unblinding (CVE-2022-4304): RSA private operations on it have a timing side channel; upgrade "
                 "libcrypto", version);
    } else {
        return NULL;
    }
    return (*env)->NewStringUTF(env, notice);
}

/* "ifma" when public operations use AVX-512 IFMA, else "openssl". */
JNIEXPORT jstring JNICALL Java_fastrandom_jni_LibCrypto_publicExponentiation0(JNIEnv *env, jclass cls)
{
    (void) cls;
    return (*env)->NewStringUTF(env, ifma_in_use() ? "ifma" : "openssl");
}

/* Throws why, with OpenSSL's error when it has one. */
static void throw_why(JNIEnv *env, const char *why, int openssl)
{
    if ((*env)->ExceptionCheck(env)) return; /* bignum_from_java ran out of memory */
    if (openssl) throw_openssl(env, why);
    else throw_libcrypto(env, why);
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_LibCrypto_newPublicKey(JNIEnv *env, jclass cls, jbyteArray n, jbyteArray e)
{
    (void) cls;
    const char *why = NULL;
    int openssl = 0;
    if (!libcrypto_ready(env)) return 0;
    struct rsa_key *key = new_public_half(bignum_from_java(env, n), bignum_from_java(env, e), &why, &openssl);
    if (key == NULL) throw_why(env, why, openssl);
    return (jlong) (intptr_t) key;
}

JNIEXPORT jlong JNICALL Java_fastrandom_jni_LibCrypto_newPrivateKey(JNIEnv *env, jclass cls,
    jbyteArray n, jbyteArray e, jbyteArray d, jbyteArray p, jbyteArray q,
    jbyteArray dmp1, jbyteArray dmq1, jbyteArray iqmp, jboolean check_results)
{
    (void) cls;
    const char *why = NULL;
    int openssl = 0;
    if (!libcrypto_ready(env)) return 0;
    BIGNUM *values[PRIVATE_VALUES] = {
        bignum_from_java(env, d), bignum_from_java(env, p), bignum_from_java(env, q),
        bignum_from_java(env, dmp1), bignum_from_java(env, dmq1), bignum_from_java(env, iqmp),
    };
    struct rsa_key *key = new_private_key(bignum_from_java(env, n), bignum_from_java(env, e), values,
                                          check_results, &why, &openssl);
    if (key == NULL) throw_why(env, why, openssl);
    return (jlong) (intptr_t) key;
}

JNIEXPORT void JNICALL Java_fastrandom_jni_LibCrypto_freeKey(JNIEnv *env, jclass cls, jlong handle)
{
    (void) cls;
    if (handle == 0) return;
    struct rsa_key *key = key_from_handle(env, handle, 0);
    if (key != NULL) free_key(key);
}

/* input^d mod n (see private_op). */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_privateRaw(JNIEnv *env, jclass cls, jlong handle,
                                                                      jbyteArray input)
{
    (void) cls;
    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    jbyteArray result = NULL;
    struct rsa_key *key = key_with_input(env, handle, 1, input, in);
    if (key != NULL && private_op(env, key, in, out)) result = bytes_to_java(env, out, key->bytes);
    wipe(out, sizeof out);
    wipe(in, sizeof in);
    return result;
}

/* input^e mod n with the key's cached Montgomery context. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_publicRaw(JNIEnv *env, jclass cls, jlong handle,
                                                                     jbyteArray input)
{
    (void) cls;
    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    int too_large = 0;
    struct rsa_key *key = key_with_input(env, handle, 0, input, in);
    if (key == NULL) return NULL;
    if (!public_exp(key, in, out, &too_large, 0)) {
        if (too_large) throw_libcrypto(env, "RSA public operation: the input is not less than the modulus");
        else throw_openssl(env, "RSA public operation failed");
        return NULL;
    }
    return bytes_to_java(env, out, key->bytes);
}

/*
 * A PKCS#1 v1.5 signature (RSASSA-PKCS1-v1_5) of data[offset, offset +
 * length), or of that digest when prehashed: k bytes.
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_signPkcs1(JNIEnv *env, jclass cls, jlong handle,
    jint hash, jbyteArray data, jint offset, jint length, jboolean prehashed)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;

    unsigned char digest[MAX_DIGEST_BYTES], em[MAX_MODULUS_BYTES], signature[MAX_MODULUS_BYTES];
    jbyteArray result = NULL;
    if (!message_digest(env, hash, data, offset, length, prehashed, digest)) return NULL;
    if (!encode_pkcs1(hash, digest, 1, em, key->bytes)) {
        throw_libcrypto(env, "PKCS#1 signature: the key is too short for this digest");
    } else if (private_op(env, key, em, signature)) {
        result = bytes_to_java(env, signature, key->bytes);
    }
    wipe(signature, sizeof signature);
    return result;
}

/*
 * Whether signature (exactly k bytes) is a PKCS#1 v1.5 signature of
 * data[offset, offset + length), or of that digest when prehashed: true when
 * signature^e mod n is the encoded message, with or without the NULL in
 * its DigestInfo; false for a signature not below n.
 */
JNIEXPORT jboolean JNICALL Java_fastrandom_jni_LibCrypto_verifyPkcs1(JNIEnv *env, jclass cls, jlong handle,
    jint hash, jbyteArray data, jint offset, jint length, jboolean prehashed, jbyteArray signature)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 0);
    if (key == NULL) return JNI_FALSE;

    unsigned char digest[MAX_DIGEST_BYTES], sig[MAX_MODULUS_BYTES], recovered[MAX_MODULUS_BYTES];
    unsigned char expected[MAX_MODULUS_BYTES];
    int too_large = 0;
    if (!message_digest(env, hash, data, offset, length, prehashed, digest)) return JNI_FALSE;
    if (!read_input(env, key, signature, sig)) return JNI_FALSE;
    if (!encode_pkcs1(hash, digest, 1, expected, key->bytes)) {
        throw_libcrypto(env, "PKCS#1 signature: the key is too short for this digest");
        return JNI_FALSE;
    }
    if (!public_exp(key, sig, recovered, &too_large, 0)) {
        if (too_large) return JNI_FALSE;
        throw_openssl(env, "RSA public operation failed");
        return JNI_FALSE;
    }
    int valid = same_bytes(recovered, expected, (size_t) key->bytes);
    encode_pkcs1(hash, digest, 0, expected, key->bytes); /* shorter than the form above, so it fits */
    valid |= same_bytes(recovered, expected, (size_t) key->bytes);
    return valid ? JNI_TRUE : JNI_FALSE;
}

/* The DER DigestInfo of a digest made with hash (what PKCS#1 v1.5 signs); for fallbacks in Java. */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_digestInfo0(JNIEnv *env, jclass cls, jint hash,
                                                                       jbyteArray digest)
{
    (void) cls;
    if (hash < 0 || hash >= HASH_COUNT || digest == NULL
        || (*env)->GetArrayLength(env, digest) != DIGEST_INFO[hash].digest_bytes) {
        throw_libcrypto(env, "DigestInfo: bad digest");
        return NULL;
    }
    const struct digest_info *info = &DIGEST_INFO[hash];
    unsigned char out[MAX_PREFIX_BYTES + MAX_DIGEST_BYTES];
    memcpy(out, info->prefix, (size_t) info->prefix_bytes);
    (*env)->GetByteArrayRegion(env, digest, 0, info->digest_bytes, (jbyte *) (out + info->prefix_bytes));
    if ((*env)->ExceptionCheck(env)) return NULL;
    return bytes_to_java(env, out, info->prefix_bytes + info->digest_bytes);
}

/*
 * RSAES-PKCS1-v1_5 or RSAES-OAEP (SHA-1, MGF1 with SHA-1, no label)
 * encryption of data[offset, offset + length) with the public key: OpenSSL
 * pads (its random bytes from OpenSSL's own DRBG, as MRI's), then the public
 * exponentiation: k bytes. The caller keeps the message within the
 * padding's limit.
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_publicEncrypt(JNIEnv *env, jclass cls, jlong handle,
    jint padding, jbyteArray data, jint offset, jint length)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 0);
    if (key == NULL) return NULL;
    if ((padding != RSA_PKCS1_PADDING && padding != RSA_PKCS1_OAEP_PADDING) || !java_bounds(env, data, offset, length)
        || length > key->bytes) {
        throw_libcrypto(env, "RSA encryption: bad padding or data bounds");
        return NULL;
    }
    unsigned char message[MAX_MODULUS_BYTES], padded[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte *) message);
    if ((*env)->ExceptionCheck(env)) return NULL;
    jbyteArray result = NULL;
    int too_large = 0;
    int ok = padding == RSA_PKCS1_PADDING
        ? crypto.RSA_padding_add_PKCS1_type_2(padded, key->bytes, message, length)
        : crypto.RSA_padding_add_PKCS1_OAEP(padded, key->bytes, message, length, NULL, 0);
    if (ok <= 0) {
        throw_openssl(env, "RSA encryption: padding failed");
    } else if (!public_exp(key, padded, out, &too_large, 0)) {
        throw_openssl(env, "RSA encryption failed");
    } else {
        result = bytes_to_java(env, out, key->bytes);
    }
    wipe(message, sizeof message);
    wipe(padded, sizeof padded);
    return result;
}

/*
 * RSAES-PKCS1-v1_5 or RSAES-OAEP (SHA-1, MGF1 with SHA-1, no label)
 * decryption of a ciphertext exactly k bytes long: the blinded private
 * operation (private_op), then OpenSSL's constant-time unpadding, which
 * reports a bad padding as an error (OpenSSL 3.2's RSA_private_decrypt would
 * answer it with a made-up message, its implicit rejection, unless told not
 * to; JCA callers expect the error). A ciphertext that does not decrypt to a
 * well-padded message throws BadCiphertextException, saying nothing more.
 */
JNIEXPORT jbyteArray JNICALL Java_fastrandom_jni_LibCrypto_privateDecrypt(JNIEnv *env, jclass cls, jlong handle,
    jint padding, jbyteArray ciphertext)
{
    (void) cls;
    struct rsa_key *key = key_from_handle(env, handle, 1);
    if (key == NULL) return NULL;
    if (padding != RSA_PKCS1_PADDING && padding != RSA_PKCS1_OAEP_PADDING) {
        throw_libcrypto(env, "RSA decryption: bad padding");
        return NULL;
    }
    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    if (!read_input(env, key, ciphertext, in)) return NULL;
    jbyteArray result = NULL;
    unsigned char block[MAX_MODULUS_BYTES];
    if (!private_op(env, key, in, block)) {
        wipe(in, sizeof in);
        return NULL;
    }
    int length = padding == RSA_PKCS1_PADDING
        ? crypto.RSA_padding_check_PKCS1_type_2(out, key->bytes, block, key->bytes, key->bytes)
        : crypto.RSA_padding_check_PKCS1_OAEP(out, key->bytes, block, key->bytes, key->bytes, NULL, 0);
    wipe(block, sizeof block);
    crypto.ERR_clear_error();
    wipe(in, sizeof in);
    if (length < 0) {
        jclass bad = (*env)->FindClass(env, "fastrandom/jni/BadCiphertextException");
        if (bad != NULL) (*env)->ThrowNew(env, bad, "decryption error");
    } else {
        result = bytes_to_java(env, out, length);
    }
    wipe(out, sizeof out);
    return result;
}

/* Blinding counters since the library loaded: batches, pairs, blinded operations (tests, stats). */
JNIEXPORT jlongArray JNICALL Java_fastrandom_jni_LibCrypto_blindingStats0(JNIEnv *env, jclass cls)
{
    (void) cls;
    long long counts[3];
    blinding_stats(counts);
    return counts_to_java(env, counts, 3);
}

/* Our CRT's counters since the library loaded: operations (all on IFMA), check failures (tests, stats). */
JNIEXPORT jlongArray JNICALL Java_fastrandom_jni_LibCrypto_crtStats0(JNIEnv *env, jclass cls)
{
    (void) cls;
    long long counts[2];
    rsa_crt_stats(counts);
    return counts_to_java(env, counts, 2);
}

#ifdef FAST_RANDOM_TEST_BUILD
/* The constant-time test's way in (test_hooks.h): the same key and operation as the JNI methods. */
struct rsa_key *test_rsa_key_new(const unsigned char *const values[8], const int lengths[8], const char **why)
{
    BIGNUM *v[8];
    int openssl = 0;
    for (int i = 0; i < 8; i++) v[i] = crypto.BN_bin2bn(values[i], lengths[i], NULL);
    return new_private_key(v[0], v[1], v + 2, 0, why, &openssl);
}

int test_rsa_private(struct rsa_key *key, const unsigned char *in, unsigned char *out)
{
    return key_private(key, in, out);
}

int test_rsa_own_crt(const struct rsa_key *key)
{
    return key->crt != NULL;
}

void test_rsa_key_free(struct rsa_key *key)
{
    free_key(key);
}
#endif
