/*
 * The OpenSSL ABI: OpenSSL's libcrypto, 3.x or 1.1.1, opened with dlopen on
 * first use (never when fast_random's library is loaded) and its functions
 * found with dlsym, so neither building nor loading fast_random's library
 * needs OpenSSL's headers or libcrypto itself: only the machines that use
 * the :openssl engines need libssl3 or libssl1.1. The few types and
 * constants we use are declared here, from OpenSSL's public headers, where
 * 1.1.1 and 3.x declare them alike; every function below is in both.
 *
 * Used by everything that calls OpenSSL (libcrypto_rsa.c, ec_key.c, xdh_key.c, rsa_crt.c,
 * rsa_blinding.c, modexp_ifma.c, jni_helpers.c); libcrypto.c opens it.
 */
#ifndef FAST_RANDOM_LIBCRYPTO_H
#define FAST_RANDOM_LIBCRYPTO_H

#include <stddef.h>

/* OpenSSL's types stay opaque: we only pass pointers around. */
typedef struct bignum_st BIGNUM;           /* an arbitrary-precision integer */
typedef struct bignum_ctx BN_CTX;          /* scratch BIGNUMs for BN_ functions */
typedef struct bn_mont_ctx_st BN_MONT_CTX; /* a modulus's Montgomery constants */
typedef struct rsa_st RSA;                 /* an RSA key */
typedef struct rsa_meth_st RSA_METHOD;     /* an implementation of RSA's operations */
typedef struct ec_key_st EC_KEY;           /* an EC key on a curve */
typedef struct ec_group_st EC_GROUP;       /* a curve, with its generator */
typedef struct ec_point_st EC_POINT;       /* a point of a curve */
typedef struct ECDSA_SIG_st ECDSA_SIG;     /* an ECDSA signature (r, s) */
typedef struct evp_pkey_st EVP_PKEY;       /* a key of any type (here X25519, X448) */
typedef struct evp_pkey_ctx_st EVP_PKEY_CTX; /* an operation's context on an EVP_PKEY */
typedef struct engine_st ENGINE;           /* an OpenSSL ENGINE (never used: NULL) */

/* From OpenSSL's rsa.h and crypto.h (the same in 1.1.1 and 3.x). */
#define RSA_PKCS1_PADDING 1         /* PKCS#1 v1.5 padding (type 2 for encryption) */
#define RSA_NO_PADDING 3            /* raw RSA, no padding */
#define RSA_PKCS1_OAEP_PADDING 4    /* OAEP, SHA-1 and MGF1 with SHA-1 */
#define RSA_FLAG_NO_BLINDING 0x0080 /* RSA_set_flags: no blinding */
#define BN_FLG_CONSTTIME 0x04       /* BN_set_flags: a secret, for the constant-time paths */
#define OPENSSL_VERSION 0           /* OpenSSL_version: the version text */
#define EVP_PKEY_X25519 1034        /* NID_X25519: an X25519 key (RFC 7748) */
#define EVP_PKEY_X448 1035          /* NID_X448: an X448 key (RFC 7748) */

/* The largest RSA modulus, in bytes: OPENSSL_RSA_MAX_MODULUS_BITS (libcrypto refuses larger keys anyway). */
#define MAX_MODULUS_BYTES (16384 / 8)

/*
 * Every libcrypto function we call: return type, name, parameters. Expanded
 * into a table of function pointers (crypto.NAME), filled by dlsym. (Laid
 * out by hand: clang-format takes the parameter lists for expressions.)
 */
/* clang-format off */
#define LIBCRYPTO_FUNCTIONS(X) \
    X(const char *, OpenSSL_version, (int type)) \
    X(unsigned long, OpenSSL_version_num, (void)) \
    X(unsigned long, ERR_peek_last_error, (void)) \
    X(void, ERR_error_string_n, (unsigned long code, char *buf, size_t len)) \
    X(void, ERR_clear_error, (void)) \
    X(BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret)) \
    X(BIGNUM *, BN_dup, (const BIGNUM *a)) \
    X(BIGNUM *, BN_copy, (BIGNUM *a, const BIGNUM *b)) \
    X(int, BN_set_word, (BIGNUM *a, unsigned long w)) \
    X(int, BN_lshift, (BIGNUM *r, const BIGNUM *a, int n)) \
    X(int, BN_nnmod, (BIGNUM *r, const BIGNUM *m, const BIGNUM *d, BN_CTX *ctx)) \
    X(int, BN_bn2bin, (const BIGNUM *a, unsigned char *to)) \
    X(int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen)) \
    X(int, BN_num_bits, (const BIGNUM *a)) \
    X(int, BN_is_odd, (const BIGNUM *a)) \
    X(int, BN_ucmp, (const BIGNUM *a, const BIGNUM *b)) \
    X(int, BN_is_zero, (const BIGNUM *a)) \
    X(const BIGNUM *, BN_value_one, (void)) \
    X(int, BN_rshift, (BIGNUM *r, const BIGNUM *a, int n)) \
    X(int, BN_mod_mul, (BIGNUM *r, const BIGNUM *a, const BIGNUM *b, const BIGNUM *m, BN_CTX *ctx)) \
    X(BIGNUM *, BN_mod_inverse, (BIGNUM *r, const BIGNUM *a, const BIGNUM *n, BN_CTX *ctx)) \
    X(BIGNUM *, BN_new, (void)) \
    X(void, BN_set_flags, (BIGNUM *b, int n)) \
    X(int, RAND_priv_bytes, (unsigned char *buf, int num)) \
    X(int, BN_to_montgomery, (BIGNUM *r, const BIGNUM *a, BN_MONT_CTX *mont, BN_CTX *ctx)) \
    X(int, BN_from_montgomery, (BIGNUM *r, const BIGNUM *a, BN_MONT_CTX *mont, BN_CTX *ctx)) \
    X(int, BN_mod_mul_montgomery, (BIGNUM *r, const BIGNUM *a, const BIGNUM *b, BN_MONT_CTX *mont, BN_CTX *ctx)) \
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
    X(int, BN_mod_exp_mont_consttime, (BIGNUM *rr, const BIGNUM *a, const BIGNUM *p, const BIGNUM *m, \
                                       BN_CTX *ctx, BN_MONT_CTX *in_mont)) \
    X(int, BN_uadd, (BIGNUM *r, const BIGNUM *a, const BIGNUM *b)) \
    X(int, BN_usub, (BIGNUM *r, const BIGNUM *a, const BIGNUM *b)) \
    X(int, BN_mul, (BIGNUM *r, const BIGNUM *a, const BIGNUM *b, BN_CTX *ctx)) \
    X(RSA *, RSA_new, (void)) \
    X(void, RSA_free, (RSA *rsa)) \
    X(int, RSA_set_method, (RSA *rsa, const RSA_METHOD *meth)) \
    X(const RSA_METHOD *, RSA_PKCS1_OpenSSL, (void)) \
    X(int, RSA_set0_key, (RSA *r, BIGNUM *n, BIGNUM *e, BIGNUM *d)) \
    X(int, RSA_set0_factors, (RSA *r, BIGNUM *p, BIGNUM *q)) \
    X(int, RSA_set0_crt_params, (RSA *r, BIGNUM *dmp1, BIGNUM *dmq1, BIGNUM *iqmp)) \
    X(void, RSA_get0_key, (const RSA *r, const BIGNUM **n, const BIGNUM **e, const BIGNUM **d)) \
    X(void, RSA_get0_factors, (const RSA *r, const BIGNUM **p, const BIGNUM **q)) \
    X(void, RSA_get0_crt_params, (const RSA *r, const BIGNUM **dmp1, const BIGNUM **dmq1, const BIGNUM **iqmp)) \
    X(int, RSA_test_flags, (const RSA *r, int flags)) \
    X(void, RSA_set_flags, (RSA *r, int flags)) \
    X(int, RSA_private_encrypt, (int flen, const unsigned char *from, unsigned char *to, RSA *rsa, int padding)) \
    X(int, RSA_padding_add_PKCS1_type_2, (unsigned char *to, int tlen, const unsigned char *f, int fl)) \
    X(int, RSA_padding_check_PKCS1_type_2, (unsigned char *to, int tlen, const unsigned char *f, int fl, int rsa_len)) \
    X(int, RSA_padding_check_PKCS1_OAEP, (unsigned char *to, int tlen, const unsigned char *f, int fl, int rsa_len, \
                                          const unsigned char *p, int pl)) \
    X(int, RSA_padding_add_PKCS1_OAEP, (unsigned char *to, int tlen, const unsigned char *f, int fl, \
                                        const unsigned char *p, int pl)) \
    X(EC_KEY *, EC_KEY_new_by_curve_name, (int nid)) \
    X(EC_KEY *, EC_KEY_new, (void)) \
    X(int, EC_KEY_set_group, (EC_KEY *key, const EC_GROUP *group)) \
    X(EC_GROUP *, EC_GROUP_new_by_curve_name, (int nid)) \
    X(void, EC_KEY_free, (EC_KEY *key)) \
    X(const EC_GROUP *, EC_KEY_get0_group, (const EC_KEY *key)) \
    X(int, EC_KEY_set_private_key, (EC_KEY *key, const BIGNUM *prv)) \
    X(const BIGNUM *, EC_KEY_get0_private_key, (const EC_KEY *key)) \
    X(int, EC_KEY_set_public_key, (EC_KEY *key, const EC_POINT *pub)) \
    X(int, EC_KEY_generate_key, (EC_KEY *key)) \
    X(int, EC_GROUP_get_degree, (const EC_GROUP *group)) \
    X(const BIGNUM *, EC_GROUP_get0_order, (const EC_GROUP *group)) \
    X(EC_POINT *, EC_POINT_new, (const EC_GROUP *group)) \
    X(void, EC_POINT_free, (EC_POINT *point)) \
    X(int, EC_POINT_set_affine_coordinates, (const EC_GROUP *group, EC_POINT *p, const BIGNUM *x, \
                                             const BIGNUM *y, BN_CTX *ctx)) \
    X(int, EC_POINT_is_at_infinity, (const EC_GROUP *group, const EC_POINT *p)) \
    X(int, EC_POINT_add, (const EC_GROUP *group, EC_POINT *r, const EC_POINT *a, const EC_POINT *b, BN_CTX *ctx)) \
    X(int, EC_POINT_get_affine_coordinates, (const EC_GROUP *group, const EC_POINT *p, BIGNUM *x, BIGNUM *y, \
                                             BN_CTX *ctx)) \
    X(const EC_POINT *, EC_KEY_get0_public_key, (const EC_KEY *key)) \
    X(EC_GROUP *, EC_GROUP_dup, (const EC_GROUP *group)) \
    X(void, EC_GROUP_free, (EC_GROUP *group)) \
    X(int, EC_GROUP_set_generator, (EC_GROUP *group, const EC_POINT *generator, const BIGNUM *order, \
                                    const BIGNUM *cofactor)) \
    X(int, EC_GROUP_precompute_mult, (EC_GROUP *group, BN_CTX *ctx)) \
    X(int, EC_POINT_mul, (const EC_GROUP *group, EC_POINT *r, const BIGNUM *n, const EC_POINT *q, \
                          const BIGNUM *m, BN_CTX *ctx)) \
    X(ECDSA_SIG *, ECDSA_do_sign, (const unsigned char *dgst, int dgst_len, EC_KEY *eckey)) \
    X(int, ECDSA_do_verify, (const unsigned char *dgst, int dgst_len, const ECDSA_SIG *sig, EC_KEY *eckey)) \
    X(ECDSA_SIG *, ECDSA_SIG_new, (void)) \
    X(void, ECDSA_SIG_free, (ECDSA_SIG *sig)) \
    X(int, ECDSA_SIG_set0, (ECDSA_SIG *sig, BIGNUM *r, BIGNUM *s)) \
    X(int, i2d_ECDSA_SIG, (const ECDSA_SIG *sig, unsigned char **pp)) \
    X(int, ECDH_compute_key, (void *out, size_t outlen, const EC_POINT *pub_key, const EC_KEY *ecdh, \
                              void *(*KDF)(const void *in, size_t inlen, void *out, size_t *outlen))) \
    X(void, CRYPTO_free, (void *ptr, const char *file, int line)) \
    X(EVP_PKEY *, EVP_PKEY_new_raw_private_key, (int type, ENGINE *e, const unsigned char *priv, size_t len)) \
    X(EVP_PKEY *, EVP_PKEY_new_raw_public_key, (int type, ENGINE *e, const unsigned char *pub, size_t len)) \
    X(int, EVP_PKEY_get_raw_public_key, (const EVP_PKEY *pkey, unsigned char *pub, size_t *len)) \
    X(void, EVP_PKEY_free, (EVP_PKEY *pkey)) \
    X(EVP_PKEY_CTX *, EVP_PKEY_CTX_new, (EVP_PKEY *pkey, ENGINE *e)) \
    X(void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *ctx)) \
    X(int, EVP_PKEY_derive_init, (EVP_PKEY_CTX *ctx)) \
    X(int, EVP_PKEY_derive_set_peer, (EVP_PKEY_CTX *ctx, EVP_PKEY *peer)) \
    X(int, EVP_PKEY_derive, (EVP_PKEY_CTX *ctx, unsigned char *key, size_t *keylen)) \
    X(unsigned char *, SHA1, (const unsigned char *d, size_t n, unsigned char *md)) \
    X(unsigned char *, SHA224, (const unsigned char *d, size_t n, unsigned char *md)) \
    X(unsigned char *, SHA256, (const unsigned char *d, size_t n, unsigned char *md)) \
    X(unsigned char *, SHA384, (const unsigned char *d, size_t n, unsigned char *md)) \
    X(unsigned char *, SHA512, (const unsigned char *d, size_t n, unsigned char *md))
/* clang-format on */

/* The table of libcrypto's functions: one pointer per LIBCRYPTO_FUNCTIONS entry, named as the function. */
#define DECLARE_POINTER(ret, name, params) ret(*name) params;
struct libcrypto {
    LIBCRYPTO_FUNCTIONS(DECLARE_POINTER)
};
#undef DECLARE_POINTER

/* The functions, once libcrypto_open() has returned NULL. */
extern struct libcrypto crypto;

/*
 * Opens libcrypto on the first call (libcrypto.so.3, else libcrypto.so.1.1);
 * NULL when usable, else why not, naming each soname tried. Thread-safe.
 */
const char *libcrypto_open(void);

/* The soname opened ("libcrypto.so.3" or "libcrypto.so.1.1"), NULL when none is usable. */
const char *libcrypto_soname(void);

/*
 * OpenSSL_version_num() of the libcrypto opened (0xMNN00PP0L: 3.0.4 is
 * 0x30000040); in the test build, test_pretend_openssl_version (set from
 * FAST_RANDOM_TEST_OPENSSL_VERSION at the require) pretends another, to test
 * what a known-bad version changes.
 */
unsigned long libcrypto_version_num(void);

/* OpenSSL 1.1.1: the oldest libcrypto the engines use (RAND_priv_bytes, raw X25519 keys; 1.1.0 shares its soname). */
#define LIBCRYPTO_OLDEST 0x10101000UL
/* OpenSSL 3.0.0: the first 3.x release (below it, a 1.1.1 release). */
#define LIBCRYPTO_3 0x30000000UL
/* OpenSSL 3.0.4: its AVX-512 IFMA exponentiation for 1024-bit primes gives wrong results (CVE-2022-2274). */
#define LIBCRYPTO_BROKEN_IFMA_X2 0x30000040UL
/* OpenSSL 3.0.8 and 1.1.1t: the first releases of each line whose RSA unblinding is constant-time (CVE-2022-4304). */
#define LIBCRYPTO_CONSTTIME_UNBLINDING 0x30000080UL
#define LIBCRYPTO_1_1_CONSTTIME_UNBLINDING 0x1010114fUL

#endif
