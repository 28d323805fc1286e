/*
 * fast_random's own RSA private operation: x^d mod n by the Chinese
 * remainder theorem (RFC 8017, section 5.1.2) on AVX-512 IFMA, for the keys
 * where it is faster than OpenSSL's: primes of one length above 1024 bits
 * (RSA-3072 and 4096; OpenSSL 3.0 has IFMA code for 1024-bit primes only),
 * where the CPU has IFMA. Every other key's private operation is OpenSSL's
 * own (libcrypto_rsa.c); see rsa_crt_takes.
 *
 * Fixed-width from the blinded input to the result: every value lives in
 * limbs of its modulus's full width (modexp_ifma.h), never trimmed to its
 * own length, and every step is a Montgomery product, an addition or a
 * masked subtraction, whose instructions and addresses do not depend on
 * the values:
 *   x R mod p     from x (twice p's width) in three products
 *                 (ifma_to_montgomery_wide), for q the same;
 *   m1, m2        x^dP mod p, x^dQ mod q (ifma_exp_consttime), out of the
 *                 Montgomery domain and reduced below p, q by a mask;
 *   h             (m1 + 2p - m2) qInv mod p: one product with qInv R,
 *                 then a masked subtraction (m2 < q < 2p: primes of one
 *                 length);
 *   y             m2 + h q, a plain product and an addition (below n).
 * The result is checked with the public exponent (y^e mod n must give x
 * back, compared in constant time); on a mismatch, a fault that could
 * reveal a prime factor (Boneh, DeMillo and Lipton), it is recomputed
 * without CRT (x^d mod n, constant-time), as OpenSSL's rsa_ossl_mod_exp
 * does. Whether the check passed is the one value made public
 * (DECLASSIFY): a fault, not a secret.
 *
 * x is blinded by the caller (rsa_blinding.c), which also inverts its
 * factors through rsa_crt_inverse.
 */
#include "rsa_crt.h"
#include "mem.h"
#include "test_hooks.h"

#include <stdlib.h>
#include <string.h>

/* OpenSSL's 1024-bit IFMA exponentiation (its x2 code) beats ours; above that, ours is OpenSSL's only IFMA. */
#define OWN_ABOVE_BITS 1024

struct rsa_crt {
    const struct ifma_modulus *n;
    const unsigned char *e;
    int e_length;
    int bytes, half_bytes;              /* of n, of p and q */
    struct ifma_modulus *p, *q;
    uint64_t qinv_r[IFMA_MAX_LIMBS];    /* qInv R mod p */
    unsigned char *dmp1, *dmq1, *d;     /* half_bytes, half_bytes, bytes */
    unsigned char *p_minus_2, *q_minus_2; /* Fermat's exponents, half_bytes each */
};

static long long operations, check_failures;

int rsa_crt_takes(int p_bits, int q_bits, int ifma)
{
    if (!ifma || p_bits != q_bits || p_bits < 64) return 0;
    if (p_bits > OWN_ABOVE_BITS) return 1;
    return p_bits == OWN_ABOVE_BITS && libcrypto_version_num() == LIBCRYPTO_BROKEN_IFMA_X2;
}

static void free_secret(unsigned char *bytes, int length)
{
    if (bytes == NULL) return;
    wipe(bytes, (size_t) length);
    free(bytes);
}

void rsa_crt_free(struct rsa_crt *crt)
{
    if (crt == NULL) return;
    ifma_modulus_free(crt->p);
    ifma_modulus_free(crt->q);
    free_secret(crt->dmp1, crt->half_bytes);
    free_secret(crt->dmq1, crt->half_bytes);
    free_secret(crt->d, crt->bytes);
    free_secret(crt->p_minus_2, crt->half_bytes);
    free_secret(crt->q_minus_2, crt->half_bytes);
    wipe(crt, sizeof *crt);
    free(crt);
}

/* A secret value as big-endian bytes of a fixed length (BN_bn2binpad: constant-time in the value). */
static unsigned char *secret_bytes(const BIGNUM *value, int length)
{
    unsigned char *bytes = malloc((size_t) length);
    if (bytes != NULL && crypto.BN_bn2binpad(value, bytes, length) != length) {
        free_secret(bytes, length);
        return NULL;
    }
    return bytes;
}

/* A copy of a secret value that OpenSSL's divisions and shifts treat in constant time. */
static BIGNUM *consttime_copy(const BIGNUM *value)
{
    BIGNUM *copy = crypto.BN_dup(value);
    if (copy != NULL) crypto.BN_set_flags(copy, BN_FLG_CONSTTIME);
    return copy;
}

/* bytes of value - 2 (value an odd prime, so no borrow past its top). */
static unsigned char *minus_two(const BIGNUM *value, int length)
{
    unsigned char *bytes = secret_bytes(value, length);
    if (bytes == NULL) return NULL;
    unsigned int borrow = 2;
    for (int i = length - 1; i >= 0; i--) {
        unsigned int t = (unsigned int) bytes[i] - borrow;
        bytes[i] = (unsigned char) t;
        borrow = (t >> 8) & 1;
    }
    return bytes;
}

struct rsa_crt *rsa_crt_new(const struct ifma_modulus *n, const unsigned char *e, int e_length, const BIGNUM *d,
                            const BIGNUM *p, const BIGNUM *q, const BIGNUM *dmp1, const BIGNUM *dmq1,
                            const BIGNUM *iqmp, BN_CTX *ctx)
{
    struct rsa_crt *crt = calloc(1, sizeof *crt);
    if (crt == NULL) return NULL;
    crt->n = n;
    crt->e = e;
    crt->e_length = e_length;
    crt->bytes = n->bytes;
    crt->half_bytes = (crypto.BN_num_bits(p) + 7) / 8;
    DECLASSIFY(&crt->half_bytes, sizeof crt->half_bytes); /* the primes' length: the key's shape, public */

    BIGNUM *p_ct = consttime_copy(p), *q_ct = consttime_copy(q);
    unsigned char *iqmp_bytes = NULL;
    int ok = p_ct != NULL && q_ct != NULL
        && (crt->p = ifma_modulus_new(p_ct, crt->half_bytes, ctx)) != NULL
        && (crt->q = ifma_modulus_new(q_ct, crt->half_bytes, ctx)) != NULL
        && ifma_limbs(crt->p) == ifma_limbs(crt->q) && 2 * ifma_limbs(crt->p) <= IFMA_MAX_LIMBS
        && (crt->dmp1 = secret_bytes(dmp1, crt->half_bytes)) != NULL
        && (crt->dmq1 = secret_bytes(dmq1, crt->half_bytes)) != NULL
        && (crt->d = secret_bytes(d, crt->bytes)) != NULL
        && (crt->p_minus_2 = minus_two(p, crt->half_bytes)) != NULL
        && (crt->q_minus_2 = minus_two(q, crt->half_bytes)) != NULL
        && (iqmp_bytes = secret_bytes(iqmp, crt->half_bytes)) != NULL;
    if (ok) {
        uint64_t iqmp_limbs[IFMA_MAX_LIMBS];
        ifma_from_bytes(iqmp_limbs, ifma_limbs(crt->p), iqmp_bytes, crt->half_bytes);
        ifma_mul(crt->qinv_r, iqmp_limbs, crt->p->rr, crt->p); /* qInv R, below 2p: then below p */
        ifma_reduce(crt->qinv_r, crt->p);
        wipe(iqmp_limbs, sizeof iqmp_limbs);
    }
    free_secret(iqmp_bytes, crt->half_bytes);
    crypto.BN_clear_free(p_ct);
    crypto.BN_clear_free(q_ct);
    ifma_wipe_after(); /* the products above ran on p, q and qInv */
    if (!ok) {
        rsa_crt_free(crt);
        return NULL;
    }
    return crt;
}

/* r = x^d mod m (below m), x of up to twice m's width (x_count limbs). */
static void half_exp(uint64_t *r, const uint64_t *x, int x_count, const unsigned char *d, int d_bytes,
                     const struct ifma_modulus *m, uint64_t *table)
{
    uint64_t x_mont[IFMA_MAX_LIMBS], one[IFMA_MAX_LIMBS] = {1};
    ifma_to_montgomery_wide(x_mont, x, x_count, m);
    ifma_exp_consttime(r, x_mont, d, d_bytes, m, table);
    ifma_mul(r, r, one, m); /* out of the Montgomery domain: at most m */
    ifma_reduce(r, m);
    wipe(x_mont, sizeof x_mont);
}

/*
 * y = the number below n that is x^dp mod p and x^dq mod q (Garner's
 * recombination), x below n in n's limbs; table: scratch for p and q.
 * fault (tests) corrupts the p half's result.
 */
static void crt_exp(const struct rsa_crt *crt, uint64_t *y, const uint64_t *x, const unsigned char *dp,
                    const unsigned char *dq, int fault, uint64_t *table)
{
    int half = ifma_limbs(crt->p), count = ifma_limbs(crt->n);
    int wide = 2 * half < count ? 2 * half : count; /* x < n fits in twice p's limbs */
    uint64_t m1[IFMA_MAX_LIMBS], m2[IFMA_MAX_LIMBS], t[IFMA_MAX_LIMBS], two_p[IFMA_MAX_LIMBS];
    uint64_t product[2 * IFMA_MAX_LIMBS] = {0};

    half_exp(m1, x, wide, dp, crt->half_bytes, crt->p, table);
    half_exp(m2, x, wide, dq, crt->half_bytes, crt->q, table);
    m1[0] ^= (uint64_t) (fault != 0); /* tests: a fault in the p half */

    /* h = (m1 + 2p - m2) qInv mod p: m2 < q < 2p, so no borrow and no comparison */
    ifma_add(two_p, crt->p->n, crt->p->n, half);
    ifma_add(t, m1, two_p, half);
    ifma_sub(t, t, m2, half);
    ifma_mul(t, t, crt->qinv_r, crt->p); /* t qInv R / R, below 2p: t < 3p < R */
    ifma_reduce(t, crt->p);
    /* y = m2 + h q, below n */
    ifma_mul_plain(product, t, crt->q->n, half);
    memset(m2 + half, 0, (size_t) (IFMA_MAX_LIMBS - half) * sizeof *m2);
    ifma_add(product, product, m2, 2 * half);
    memset(y, 0, (size_t) count * sizeof *y);
    memcpy(y, product, (size_t) wide * sizeof *y);

    wipe(m1, sizeof m1);
    wipe(m2, sizeof m2);
    wipe(t, sizeof t);
    wipe(product, sizeof product);
}

/* The scratch table for the larger of n's and p's exponentiations. */
static uint64_t *new_table(const struct rsa_crt *crt)
{
    return malloc((size_t) ifma_table_limbs(crt->n) * sizeof(uint64_t));
}

int rsa_crt_private(const struct rsa_crt *crt, uint64_t *y, const uint64_t *x)
{
    int count = ifma_limbs(crt->n);
    uint64_t *table = new_table(crt);
    if (table == NULL) {
        memset(y, 0, (size_t) count * sizeof *y);
        return 0;
    }
    uint64_t back[IFMA_MAX_LIMBS];
    crt_exp(crt, y, x, crt->dmp1, crt->dmq1, TEST_FAULT(FAULT_CRT_RESULT), table);

    ifma_exp_public(back, y, crt->e, crt->e_length, crt->n);
    uint64_t passed = ifma_equal(back, x, count);
    DECLASSIFY(&passed, sizeof passed); /* a fault or not: public */
    if (!passed) {
        /* A fault (or a key whose CRT values do not match d): x^d mod n without CRT, as OpenSSL does. */
        uint64_t one[IFMA_MAX_LIMBS] = {1};
        __atomic_add_fetch(&check_failures, 1, __ATOMIC_RELAXED);
        ifma_mul(back, x, crt->n->rr, crt->n);
        ifma_exp_consttime(y, back, crt->d, crt->bytes, crt->n, table);
        ifma_mul(y, y, one, crt->n);
        ifma_reduce(y, crt->n);
    }
    __atomic_add_fetch(&operations, 1, __ATOMIC_RELAXED);
    wipe(back, sizeof back);
    free(table); /* wiped by ifma_exp_consttime */
    return 1;
}

int rsa_crt_works(const struct rsa_crt *crt)
{
    uint64_t two[IFMA_MAX_LIMBS] = {2}, inverse[IFMA_MAX_LIMBS];
    int ok = rsa_crt_inverse(crt, inverse, two);
    wipe(inverse, sizeof inverse);
    ifma_wipe_after();
    return ok;
}

int rsa_crt_inverse(const struct rsa_crt *crt, uint64_t *y, const uint64_t *x)
{
    const struct ifma_modulus *n = crt->n;
    uint64_t *table = new_table(crt);
    if (table == NULL) return 0;
    crt_exp(crt, y, x, crt->p_minus_2, crt->q_minus_2, 0, table);
    free(table); /* wiped by ifma_exp_consttime */

    /* checked: x y must be 1 */
    uint64_t product[IFMA_MAX_LIMBS], one[IFMA_MAX_LIMBS] = {1};
    ifma_mul(product, x, n->rr, n); /* x R */
    ifma_mul(product, product, y, n);
    ifma_reduce(product, n);
    uint64_t inverted = ifma_equal(product, one, ifma_limbs(n));
    DECLASSIFY(&inverted, sizeof inverted); /* false only for x sharing a factor with n, or a key that does not fit */
    wipe(product, sizeof product);
    return inverted != 0;
}

void rsa_crt_stats(long long counts[2])
{
    counts[0] = __atomic_load_n(&operations, __ATOMIC_RELAXED);
    counts[1] = __atomic_load_n(&check_failures, __ATOMIC_RELAXED);
}
