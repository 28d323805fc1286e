/*
 * RSA blinding for the :openssl engine's private operations (rsa_crt.c).
 *
 * A private operation y = x^d mod n never sees x: it runs on x r^e for a
 * random r, and (x r^e)^d = x^d r is multiplied by r^-1 afterwards (RFC
 * 8017, section 3.2 note; OpenSSL's BN_BLINDING does the same). The key has
 * RSA_FLAG_NO_BLINDING, so where OpenSSL's CRT does the operation (keys with
 * primes of different lengths) it does not blind a second time. The CRT and
 * its check of the result with e run on the blinded value (rsa_crt.c).
 *
 * What differs from OpenSSL is the cost of the factors. OpenSSL makes a new
 * pair (r^e, r^-1) every 32 operations, each with a constant-time modular
 * inversion (about 180 us at 2048 bits, about 7 us an operation), and
 * squares the pair between uses. Here a pair also serves 32 operations,
 * squared after each (a squared pair is a pair: (r^2)^e and r^-2), but pairs
 * are made BATCH at a time with one inversion, Montgomery's trick: invert
 * the product of the r, then peel each inverse off with two multiplications.
 * r comes from OpenSSL's private DRBG (BN_priv_rand_range), as OpenSSL's own
 * blinding draws it; every step on secret values is a Montgomery
 * multiplication or OpenSSL's constant-time inversion (BN_FLG_CONSTTIME).
 *
 * Pairs wait in a small pool per key (a mutex around a stack of pointers);
 * each operation takes one, so no two operations, in any threads, ever use
 * the same factor, and one that fails throws its pair away.
 */
#include "rsa_blinding.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_USES 32     /* operations per pair, as OpenSSL's BN_BLINDING */
#define BATCH 8          /* pairs made with one inversion */
#define POOL_CAPACITY 16 /* pairs kept per key: two threads' batches */

struct pair {
    BIGNUM *a;     /* r^e mod n, in Montgomery form */
    BIGNUM *a_inv; /* r^-1 mod n, in Montgomery form */
    int uses;
};

struct blinding_pool {
    const BIGNUM *n;
    const BIGNUM *e;
    BN_MONT_CTX *mont;
    pthread_mutex_t lock;
    int count;
    struct pair *pairs[POOL_CAPACITY];
};

static long long batches_made, pairs_made, operations_blinded;
static int injected_failures;

static void free_pair(struct pair *p)
{
    if (p == NULL) return;
    crypto.BN_clear_free(p->a);
    crypto.BN_clear_free(p->a_inv);
    free(p);
}

static struct pair *new_pair(void)
{
    struct pair *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->a = crypto.BN_new();
    p->a_inv = crypto.BN_new();
    if (p->a == NULL || p->a_inv == NULL) {
        free_pair(p);
        return NULL;
    }
    return p;
}

struct blinding_pool *blinding_pool_new(const BIGNUM *n, const BIGNUM *e, BN_MONT_CTX *mont)
{
    struct blinding_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        return NULL;
    }
    pool->n = n;
    pool->e = e;
    pool->mont = mont;
    return pool;
}

void blinding_pool_free(struct blinding_pool *pool)
{
    if (pool == NULL) return;
    for (int i = 0; i < pool->count; i++) free_pair(pool->pairs[i]);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

/*
 * BATCH new pairs into made, with one inversion; 1 on success, else 0 with
 * nothing made. In Montgomery form (x~ = x R mod n), for r_1 .. r_k:
 *   c~_1 = r~_1, c~_i = c~_(i-1) r~_i        prefix products
 *   t~ = (c_k)^-1 R                            the one inversion
 *   for i = k down to 2: (r_i^-1)~ = t~ c~_(i-1), then t~ = t~ r~_i
 *   (r_1^-1)~ = t~
 */
static int make_batch(struct blinding_pool *pool, struct pair **made, BN_CTX *ctx)
{
    BIGNUM *r[BATCH], *c[BATCH];
    int ok = 0, i;
    memset(made, 0, sizeof *made * BATCH);
    if (injected_take(&injected_failures)) return 0;

    crypto.BN_CTX_start(ctx);
    for (i = 0; i < BATCH; i++) {
        r[i] = crypto.BN_CTX_get(ctx);
        c[i] = crypto.BN_CTX_get(ctx);
    }
    BIGNUM *t = crypto.BN_CTX_get(ctx);
    BIGNUM *inverse = crypto.BN_CTX_get(ctx);
    if (inverse == NULL) goto done;
    for (i = 0; i < BATCH; i++) {
        if ((made[i] = new_pair()) == NULL) goto done;
        do {
            if (!crypto.BN_priv_rand_range(r[i], pool->n)) goto done;
        } while (crypto.BN_is_zero(r[i]));
        /* a = r^e (e is public; OpenSSL blinds with BN_mod_exp_mont too), then r~ */
        if (!crypto.BN_mod_exp_mont(made[i]->a, r[i], pool->e, pool->n, ctx, pool->mont)
            || !crypto.BN_to_montgomery(made[i]->a, made[i]->a, pool->mont, ctx)
            || !crypto.BN_to_montgomery(r[i], r[i], pool->mont, ctx)) goto done;
        if (i == 0 ? crypto.BN_copy(c[0], r[0]) == NULL
                   : !crypto.BN_mod_mul_montgomery(c[i], c[i - 1], r[i], pool->mont, ctx)) goto done;
    }
    /* t = (c_k)^-1, constant-time, then t~ */
    if (!crypto.BN_from_montgomery(t, c[BATCH - 1], pool->mont, ctx)) goto done;
    crypto.BN_set_flags(t, BN_FLG_CONSTTIME);
    if (crypto.BN_mod_inverse(inverse, t, pool->n, ctx) == NULL /* a factor of n: never in practice */
        || !crypto.BN_to_montgomery(t, inverse, pool->mont, ctx)) goto done;
    for (i = BATCH - 1; i > 0; i--) {
        if (!crypto.BN_mod_mul_montgomery(made[i]->a_inv, t, c[i - 1], pool->mont, ctx)
            || !crypto.BN_mod_mul_montgomery(t, t, r[i], pool->mont, ctx)) goto done;
    }
    if (crypto.BN_copy(made[0]->a_inv, t) == NULL) goto done;
    ok = 1;
done:
    for (i = 0; i < BATCH; i++) {
        if (r[i] != NULL) crypto.BN_clear(r[i]);
        if (c[i] != NULL) crypto.BN_clear(c[i]);
        if (!ok) {
            free_pair(made[i]);
            made[i] = NULL;
        }
    }
    if (t != NULL) crypto.BN_clear(t);
    if (inverse != NULL) crypto.BN_clear(inverse);
    crypto.BN_CTX_end(ctx);
    if (ok) {
        __atomic_add_fetch(&batches_made, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&pairs_made, BATCH, __ATOMIC_RELAXED);
    }
    return ok;
}

/* Keeps a pair for later operations, or frees it when the pool is full. */
static void put_back(struct blinding_pool *pool, struct pair *p)
{
    pthread_mutex_lock(&pool->lock);
    if (pool->count < POOL_CAPACITY) {
        pool->pairs[pool->count++] = p;
        p = NULL;
    }
    pthread_mutex_unlock(&pool->lock);
    free_pair(p);
}

/* A pair no other operation holds: from the pool, or from a new batch (the rest go to the pool). NULL on failure. */
static struct pair *take(struct blinding_pool *pool, BN_CTX *ctx)
{
    struct pair *p = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->count > 0) p = pool->pairs[--pool->count];
    pthread_mutex_unlock(&pool->lock);
    if (p != NULL) return p;

    struct pair *made[BATCH];
    if (!make_batch(pool, made, ctx)) return NULL;
    for (int i = 1; i < BATCH; i++) put_back(pool, made[i]);
    return made[0];
}

/*
 * After a use: both factors squared ((r^2)^e and r^-2: a new pair, as
 * OpenSSL's BN_BLINDING_update) and kept, until PAIR_USES; then freed.
 */
static void retire(struct blinding_pool *pool, struct pair *p, BN_CTX *ctx)
{
    if (++p->uses < PAIR_USES
        && crypto.BN_mod_mul_montgomery(p->a, p->a, p->a, pool->mont, ctx)
        && crypto.BN_mod_mul_montgomery(p->a_inv, p->a_inv, p->a_inv, pool->mont, ctx)) {
        put_back(pool, p);
    } else {
        free_pair(p);
    }
}

int blinded_private(struct blinding_pool *pool, struct rsa_crt *crt, const unsigned char *in, unsigned char *out,
                    int bytes)
{
    int ok = 0;
    if (bytes <= 0 || bytes > MAX_MODULUS_BYTES) return 0;
    BN_CTX *ctx = crypto.BN_CTX_new();
    if (ctx == NULL) return 0;
    struct pair *p = take(pool, ctx);
    if (p == NULL) {
        crypto.BN_CTX_free(ctx);
        return 0;
    }

    crypto.BN_CTX_start(ctx);
    BIGNUM *x = crypto.BN_CTX_get(ctx);
    BIGNUM *y = crypto.BN_CTX_get(ctx);
    if (y != NULL && crypto.BN_bin2bn(in, bytes, x) != NULL && crypto.BN_ucmp(x, pool->n) < 0
        && crypto.BN_mod_mul_montgomery(x, x, p->a, pool->mont, ctx)          /* x r^e */
        && rsa_crt_private(crt, y, x, ctx)                                     /* x^d r */
        && crypto.BN_mod_mul_montgomery(y, y, p->a_inv, pool->mont, ctx)      /* x^d r r^-1 */
        && crypto.BN_bn2binpad(y, out, bytes) == bytes) {
        ok = 1;
    }
    if (y != NULL) {
        crypto.BN_clear(x);
        crypto.BN_clear(y);
    }
    crypto.BN_CTX_end(ctx);
    if (ok) {
        retire(pool, p, ctx);
        __atomic_add_fetch(&operations_blinded, 1, __ATOMIC_RELAXED);
    } else {
        free_pair(p); /* never reused after a failure, whatever it used */
        wipe(out, (size_t) bytes);
    }
    crypto.BN_CTX_free(ctx);
    return ok;
}

void blinding_stats(long long counts[3])
{
    counts[0] = __atomic_load_n(&batches_made, __ATOMIC_RELAXED);
    counts[1] = __atomic_load_n(&pairs_made, __ATOMIC_RELAXED);
    counts[2] = __atomic_load_n(&operations_blinded, __ATOMIC_RELAXED);
}

void blinding_inject_failures(int count)
{
    injected_set(&injected_failures, count);
}
