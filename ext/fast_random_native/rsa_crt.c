/*
 * The RSA private operation for the :openssl engine: x^d mod n by the
 * Chinese remainder theorem (RFC 8017, section 5.1.2), here rather than in
 * OpenSSL's rsa_ossl_mod_exp, for two reasons of speed and none of security:
 *
 *  - the check of the CRT result with the public exponent (y^e mod n must
 *    give x back; on a mismatch the result is recomputed without CRT, as
 *    OpenSSL does, so a fault in one half, which would reveal a prime factor
 *    (Boneh, DeMillo and Lipton), never leaves) runs on AVX-512 IFMA where
 *    the CPU has it (modexp_ifma.c), in half the time of BN_mod_exp_mont;
 *  - for primes above 1024 bits (RSA-3072 and 4096), the two exponentiations
 *    run on IFMA too, in constant time (ifma_mod_exp_consttime): OpenSSL 3.0
 *    has IFMA code only for 1024-bit primes, and at 1024 bits its
 *    interleaved two-prime code (BN_mod_exp_mont_consttime_x2), which we call
 *    there, is faster than ours.
 *
 * Every step on secret values takes the same time whatever they are, as in
 * OpenSSL's own ("smooth") path for primes of one length:
 *   x mod p      Montgomery reduction then multiplication by R^2
 *                (BN_from_montgomery, BN_to_montgomery: fixed loops, masked
 *                final subtraction), for q the same;
 *   m1, m2       x^dP mod p, x^dQ mod q, constant-time exponentiations;
 *   h            (m1 - m2) qInv mod p, as (m1 + 2p - m2) R^-1 (qInv R^2) in
 *                two Montgomery steps: no comparison, no conditional
 *                correction (m2 < q < 2p since p and q have one length);
 *   y            m2 + h q (below n, so never reduced).
 * x is blinded by the caller (rsa_blinding.c), as OpenSSL blinds it.
 *
 * Keys whose primes differ in length (never made by OpenSSL, ssh-keygen or
 * the JDK) take OpenSSL's own CRT instead, RSA_private_encrypt with no
 * padding, which checks its result the same way.
 */
#include "rsa_crt.h"

#include <stdlib.h>
#include <string.h>

/* Above this prime length, our IFMA exponentiation beats OpenSSL's (1024: its x2 code is faster). */
#define OWN_IFMA_ABOVE_BITS 1024

struct rsa_crt {
    RSA *rsa;                 /* owns p, q, dP, dQ, qInv and d */
    int own;                  /* 0: OpenSSL's CRT (primes of different lengths) */
    int bytes, half_bytes;    /* of n, and of p and q */

    const BIGNUM *n, *e, *d;
    BN_MONT_CTX *mont_n;
    const struct ifma_modulus *ifma_n;
    const unsigned char *e_bytes;
    int e_length;

    const BIGNUM *p, *q, *dmp1, *dmq1;
    BIGNUM *two_p;            /* 2p */
    BIGNUM *iqmp_rr;          /* qInv R^2 mod p, R of p's Montgomery context */
    BN_MONT_CTX *mont_p, *mont_q;

    struct ifma_modulus *ifma_p, *ifma_q; /* or NULL: OpenSSL's exponentiation */
    unsigned char *dmp1_bytes, *dmq1_bytes; /* half_bytes each, for IFMA */
};

static long long own_operations, ifma_operations, check_failures;
static int injected_faults;

static void free_secret_bytes(unsigned char *bytes, int length)
{
    if (bytes == NULL) return;
    wipe(bytes, (size_t) length);
    free(bytes);
}

void rsa_crt_free(struct rsa_crt *crt)
{
    if (crt == NULL) return;
    crypto.BN_clear_free(crt->two_p);
    crypto.BN_clear_free(crt->iqmp_rr);
    if (crt->mont_p != NULL) crypto.BN_MONT_CTX_free(crt->mont_p); /* clears what it holds */
    if (crt->mont_q != NULL) crypto.BN_MONT_CTX_free(crt->mont_q);
    ifma_modulus_free(crt->ifma_p);
    ifma_modulus_free(crt->ifma_q);
    free_secret_bytes(crt->dmp1_bytes, crt->half_bytes);
    free_secret_bytes(crt->dmq1_bytes, crt->half_bytes);
    free(crt);
}

static unsigned char *secret_bytes(const BIGNUM *value, int length)
{
    unsigned char *bytes = malloc((size_t) length);
    if (bytes != NULL && crypto.BN_bn2binpad(value, bytes, length) != length) {
        free_secret_bytes(bytes, length);
        return NULL;
    }
    return bytes;
}

static BN_MONT_CTX *new_mont(const BIGNUM *m, BN_CTX *ctx)
{
    BN_MONT_CTX *mont = crypto.BN_MONT_CTX_new();
    if (mont != NULL && !crypto.BN_MONT_CTX_set(mont, m, ctx)) {
        crypto.BN_MONT_CTX_free(mont);
        return NULL;
    }
    return mont;
}

/* A copy of a secret value that OpenSSL's divisions and inversions treat in constant time. */
static BIGNUM *consttime_copy(const BIGNUM *value)
{
    BIGNUM *copy = crypto.BN_dup(value);
    if (copy != NULL) crypto.BN_set_flags(copy, BN_FLG_CONSTTIME);
    return copy;
}

struct rsa_crt *rsa_crt_new(RSA *rsa, const BIGNUM *n, const BIGNUM *e, BN_MONT_CTX *mont_n,
                            const struct ifma_modulus *ifma_n, const unsigned char *e_bytes, int e_length,
                            int ifma, BN_CTX *ctx)
{
    struct rsa_crt *crt = calloc(1, sizeof *crt);
    if (crt == NULL) return NULL;
    crt->rsa = rsa;
    crt->n = n;
    crt->e = e;
    crt->mont_n = mont_n;
    crt->ifma_n = ifma_n;
    crt->e_bytes = e_bytes;
    crt->e_length = e_length;
    crt->bytes = (crypto.BN_num_bits(n) + 7) / 8;

    const BIGNUM *iqmp = NULL;
    crypto.RSA_get0_key(rsa, NULL, NULL, &crt->d);
    crypto.RSA_get0_factors(rsa, &crt->p, &crt->q);
    crypto.RSA_get0_crt_params(rsa, &crt->dmp1, &crt->dmq1, &iqmp);
    if (crt->d == NULL || crt->p == NULL || crt->q == NULL || crt->dmp1 == NULL || crt->dmq1 == NULL || iqmp == NULL) {
        rsa_crt_free(crt);
        return NULL;
    }
    int bits = crypto.BN_num_bits(crt->p);
    if (bits != crypto.BN_num_bits(crt->q) || bits < 64) return crt; /* OpenSSL's CRT */
    crt->half_bytes = (bits + 7) / 8;

    /* Set up on constant-time copies of p and q, as OpenSSL sets up its own (rsa_ossl_mod_exp). */
    BIGNUM *p = consttime_copy(crt->p), *q = consttime_copy(crt->q);
    int ok = p != NULL && q != NULL
        && (crt->two_p = crypto.BN_new()) != NULL && crypto.BN_lshift(crt->two_p, p, 1)
        && (crt->mont_p = new_mont(p, ctx)) != NULL && (crt->mont_q = new_mont(q, ctx)) != NULL
        && (crt->iqmp_rr = crypto.BN_new()) != NULL
        && crypto.BN_to_montgomery(crt->iqmp_rr, iqmp, crt->mont_p, ctx)
        && crypto.BN_to_montgomery(crt->iqmp_rr, crt->iqmp_rr, crt->mont_p, ctx);
    if (ok && ifma && bits > OWN_IFMA_ABOVE_BITS) {
        ok = (crt->ifma_p = ifma_modulus_new(p, crt->half_bytes, ctx)) != NULL
            && (crt->ifma_q = ifma_modulus_new(q, crt->half_bytes, ctx)) != NULL
            && (crt->dmp1_bytes = secret_bytes(crt->dmp1, crt->half_bytes)) != NULL
            && (crt->dmq1_bytes = secret_bytes(crt->dmq1, crt->half_bytes)) != NULL;
    }
    crypto.BN_clear_free(p);
    crypto.BN_clear_free(q);
    if (!ok) {
        rsa_crt_free(crt);
        return NULL;
    }
    crt->own = 1;
    return crt;
}

/* r = a^d mod m on IFMA, through big-endian bytes of m's length. */
static int ifma_half(BIGNUM *r, const BIGNUM *a, const unsigned char *d, const struct ifma_modulus *m, int bytes)
{
    unsigned char in[MAX_MODULUS_BYTES / 2], out[MAX_MODULUS_BYTES / 2];
    int ok = crypto.BN_bn2binpad(a, in, bytes) == bytes && ifma_mod_exp_consttime(out, in, d, bytes, m)
        && crypto.BN_bin2bn(out, bytes, r) != NULL;
    wipe(in, sizeof in);
    wipe(out, sizeof out);
    return ok;
}

/* Whether y^e mod n is x (y and x below n): the check of a CRT result. */
static int passes_check(struct rsa_crt *crt, const BIGNUM *y, const BIGNUM *x, BN_CTX *ctx)
{
    unsigned char y_bytes[MAX_MODULUS_BYTES], x_bytes[MAX_MODULUS_BYTES], back[MAX_MODULUS_BYTES];
    int ok = 0, bytes = crt->bytes;
    if (crypto.BN_bn2binpad(y, y_bytes, bytes) == bytes && crypto.BN_bn2binpad(x, x_bytes, bytes) == bytes) {
        if (crt->ifma_n != NULL) {
            ok = ifma_mod_exp(back, y_bytes, crt->e_bytes, crt->e_length, crt->ifma_n);
        } else {
            crypto.BN_CTX_start(ctx);
            BIGNUM *t = crypto.BN_CTX_get(ctx);
            ok = t != NULL && crypto.BN_mod_exp_mont(t, y, crt->e, crt->n, ctx, crt->mont_n)
                && crypto.BN_bn2binpad(t, back, bytes) == bytes;
            if (t != NULL) crypto.BN_clear(t);
            crypto.BN_CTX_end(ctx);
        }
        ok = ok && same_bytes(back, x_bytes, (size_t) bytes);
    }
    wipe(y_bytes, sizeof y_bytes);
    wipe(x_bytes, sizeof x_bytes);
    wipe(back, sizeof back);
    return ok;
}

/* OpenSSL's CRT (it checks its result too), through bytes. */
static int openssl_private(struct rsa_crt *crt, BIGNUM *r, const BIGNUM *x)
{
    unsigned char in[MAX_MODULUS_BYTES], out[MAX_MODULUS_BYTES];
    int bytes = crt->bytes;
    int ok = crypto.BN_bn2binpad(x, in, bytes) == bytes
        && crypto.RSA_private_encrypt(bytes, in, out, crt->rsa, RSA_NO_PADDING) == bytes
        && crypto.BN_bin2bn(out, bytes, r) != NULL;
    wipe(in, sizeof in);
    wipe(out, sizeof out);
    return ok;
}

int rsa_crt_private(struct rsa_crt *crt, BIGNUM *r, const BIGNUM *x, BN_CTX *ctx)
{
    if (!crt->own) return openssl_private(crt, r, x);
    int ok = 0;
    crypto.BN_CTX_start(ctx);
    BIGNUM *cp = crypto.BN_CTX_get(ctx), *cq = crypto.BN_CTX_get(ctx);
    BIGNUM *m1 = crypto.BN_CTX_get(ctx), *m2 = crypto.BN_CTX_get(ctx), *h = crypto.BN_CTX_get(ctx);
    if (h == NULL) goto done;

    /* x mod p = (x R^-1 mod p) R: x < n < p R, as x R^-1 needs */
    if (!crypto.BN_from_montgomery(cp, x, crt->mont_p, ctx) || !crypto.BN_to_montgomery(cp, cp, crt->mont_p, ctx)
        || !crypto.BN_from_montgomery(cq, x, crt->mont_q, ctx) || !crypto.BN_to_montgomery(cq, cq, crt->mont_q, ctx)) {
        goto done;
    }
    if (crt->ifma_p != NULL) {
        if (!ifma_half(m1, cp, crt->dmp1_bytes, crt->ifma_p, crt->half_bytes)
            || !ifma_half(m2, cq, crt->dmq1_bytes, crt->ifma_q, crt->half_bytes)) goto done;
    } else if (!crypto.BN_mod_exp_mont_consttime_x2(m1, cp, crt->dmp1, crt->p, crt->mont_p,
                                                     m2, cq, crt->dmq1, crt->q, crt->mont_q, ctx)) {
        goto done;
    }
    if (injected_take(&injected_faults) && !crypto.BN_uadd(m1, m1, crypto.BN_value_one())) goto done;

    /* h = (m1 + 2p - m2) R^-1 (qInv R^2) R^-1 = (m1 - m2) qInv mod p; then y = m2 + h q */
    if (!crypto.BN_uadd(h, m1, crt->two_p) || !crypto.BN_usub(h, h, m2)
        || !crypto.BN_from_montgomery(h, h, crt->mont_p, ctx)
        || !crypto.BN_mod_mul_montgomery(h, h, crt->iqmp_rr, crt->mont_p, ctx)
        || !crypto.BN_mul(r, h, crt->q, ctx) || !crypto.BN_uadd(r, r, m2)) {
        goto done;
    }
    if (passes_check(crt, r, x, ctx)) {
        ok = 1;
    } else {
        /* A fault (or a key whose CRT values do not match d): recompute without CRT, as OpenSSL does. */
        __atomic_add_fetch(&check_failures, 1, __ATOMIC_RELAXED);
        ok = crypto.BN_mod_exp_mont_consttime(r, x, crt->d, crt->n, ctx, crt->mont_n);
    }
done:
    if (h != NULL) {
        crypto.BN_clear(cp);
        crypto.BN_clear(cq);
        crypto.BN_clear(m1);
        crypto.BN_clear(m2);
        crypto.BN_clear(h);
    }
    crypto.BN_CTX_end(ctx);
    if (ok) {
        __atomic_add_fetch(&own_operations, 1, __ATOMIC_RELAXED);
        if (crt->ifma_p != NULL) __atomic_add_fetch(&ifma_operations, 1, __ATOMIC_RELAXED);
    } else {
        crypto.BN_clear(r);
    }
    return ok;
}

void rsa_crt_stats(long long counts[3])
{
    counts[0] = __atomic_load_n(&own_operations, __ATOMIC_RELAXED);
    counts[1] = __atomic_load_n(&ifma_operations, __ATOMIC_RELAXED);
    counts[2] = __atomic_load_n(&check_failures, __ATOMIC_RELAXED);
}

void rsa_crt_inject_faults(int count)
{
    injected_set(&injected_faults, count);
}
