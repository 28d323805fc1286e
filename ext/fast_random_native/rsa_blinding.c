/*
 * RSA blinding for fast_random's own private operation (rsa_crt.c).
 *
 * A private operation y = x^d mod n never sees x: it runs on x r^e for a
 * random r, and (x r^e)^d = x^d r is multiplied by r^-1 afterwards (RFC
 * 8017, section 3.2 note; OpenSSL's BN_BLINDING does the same). Blinding,
 * unblinding and serialization are fixed-width Montgomery products and a
 * masked reduction on n's limbs (modexp_ifma.h), as OpenSSL unblinds since
 * 3.0.8 (CVE-2022-4304): nothing in them depends on a value's length.
 *
 * A pair (r^e, r^-1) serves 32 operations, as OpenSSL's does, squared after
 * each (a squared pair is a pair: (r^2)^e and r^-2). Pairs are made BATCH
 * at a time with one inversion, Montgomery's trick: invert the product of
 * the r, then peel each inverse off with two products. The inversion is
 * Fermat's, modulo p and q (rsa_crt_inverse), constant-time like the rest;
 * the inversion is checked (the product times its inverse must be 1)
 * before any pair is used. r comes from OpenSSL's private DRBG (RAND_priv_bytes),
 * as OpenSSL's own blinding draws it: a candidate not below n, or zero, is
 * drawn again (a rejected candidate is never used, so saying so is public).
 *
 * Pairs wait in a small pool per key (a mutex around a stack of pointers);
 * each operation takes one, so no two operations, in any threads, ever use
 * the same factor, and one that fails throws its pair away.
 */
#include "rsa_blinding.h"
#include "mem.h"
#include "test_hooks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PAIR_USES 32     /* operations per pair, as OpenSSL's BN_BLINDING */
#define BATCH 8          /* pairs made with one inversion */
#define POOL_CAPACITY 16 /* pairs kept per key: two threads' batches */
#define DRAWS 64         /* candidates for r before giving up (each is below n with probability over 1/2) */

struct pair {
    uint64_t a[IFMA_MAX_LIMBS];     /* r^e R mod n, almost reduced */
    uint64_t a_inv[IFMA_MAX_LIMBS]; /* r^-1 R mod n, almost reduced */
    int uses;
};

struct blinding_pool {
    const struct ifma_modulus *n;
    const unsigned char *e;
    int e_length;
    const struct rsa_crt *crt;
    pthread_mutex_t lock;
    int count;
    struct pair *pairs[POOL_CAPACITY];
};

static long long batches_made, pairs_made, operations_blinded;

static void free_pair(struct pair *p)
{
    if (p == NULL) return;
    wipe(p, sizeof *p);
    free(p);
}

struct blinding_pool *blinding_pool_new(const struct ifma_modulus *n, const unsigned char *e, int e_length,
                                        const struct rsa_crt *crt)
{
    struct blinding_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    if (pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool);
        return NULL;
    }
    pool->n = n;
    pool->e = e;
    pool->e_length = e_length;
    pool->crt = crt;
    return pool;
}

void blinding_pool_free(struct blinding_pool *pool)
{
    if (pool == NULL) return;
    for (int i = 0; i < pool->count; i++) free_pair(pool->pairs[i]);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

/* r: a random number in [1, n), in n's limbs; 0 when OpenSSL's DRBG fails. */
static int draw(const struct ifma_modulus *n, uint64_t *r)
{
    unsigned char bytes[MAX_MODULUS_BYTES];
    int count = ifma_limbs(n), ok = 0;
    uint64_t zero[IFMA_MAX_LIMBS] = {0};
    /* the top byte masked to n's top byte's bits: below 2n, so below n with probability over 1/2 */
    ifma_to_bytes(bytes, n->bytes, n->n);
    unsigned char mask = bytes[0];
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    for (int attempt = 0; attempt < DRAWS && !ok; attempt++) {
        if (crypto.RAND_priv_bytes(bytes, n->bytes) != 1) break;
        bytes[0] &= mask;
        ifma_from_bytes(r, count, bytes, n->bytes);
        SECRET(r, (size_t) count * sizeof *r);
        uint64_t usable = ~ifma_at_least(r, n->n, count) & ~ifma_equal(r, zero, count);
        DECLASSIFY(&usable, sizeof usable); /* a rejected candidate is thrown away */
        ok = usable != 0;
    }
    wipe(bytes, sizeof bytes);
    return ok;
}

/*
 * BATCH new pairs into made, with one inversion; 1 on success, else 0 with
 * nothing made. In Montgomery form (x~ = x R mod n), for r_1 .. r_k:
 *   c~_1 = r~_1, c~_i = c~_(i-1) r~_i        prefix products
 *   t~ = (c_k)^-1 R                            the one inversion
 *   for i = k down to 2: (r_i^-1)~ = t~ c~_(i-1), then t~ = t~ r~_i
 *   (r_1^-1)~ = t~
 */
static int make_batch(struct blinding_pool *pool, struct pair **made)
{
    const struct ifma_modulus *n = pool->n;
    int ok = 0, i;
    uint64_t (*r)[IFMA_MAX_LIMBS] = calloc(BATCH, sizeof *r);
    uint64_t (*c)[IFMA_MAX_LIMBS] = calloc(BATCH, sizeof *c);
    uint64_t t[IFMA_MAX_LIMBS], inverse[IFMA_MAX_LIMBS], one[IFMA_MAX_LIMBS] = {1};
    memset(made, 0, sizeof *made * BATCH);
    if (r == NULL || c == NULL || TEST_FAULT(FAULT_BLINDING_BATCH)) goto done;

    for (i = 0; i < BATCH; i++) {
        if ((made[i] = calloc(1, sizeof *made[i])) == NULL || !draw(n, r[i])) goto done;
        ifma_exp_public(t, r[i], pool->e, pool->e_length, n); /* r^e: e public, r's value unseen */
        ifma_mul(made[i]->a, t, n->rr, n);                      /* r^e R */
        ifma_mul(r[i], r[i], n->rr, n);                         /* r~ */
        if (i == 0) memcpy(c[0], r[0], sizeof c[0]);
        else ifma_mul(c[i], c[i - 1], r[i], n);
    }
    /* t = c_k, below n, and its inverse (checked by rsa_crt_inverse) */
    ifma_mul(t, c[BATCH - 1], one, n);
    ifma_reduce(t, n);
    if (!rsa_crt_inverse(pool->crt, inverse, t)) goto done;
    ifma_mul(t, inverse, n->rr, n); /* t~ */
    for (i = BATCH - 1; i > 0; i--) {
        ifma_mul(made[i]->a_inv, t, c[i - 1], n);
        ifma_mul(t, t, r[i], n);
    }
    memcpy(made[0]->a_inv, t, sizeof t);
    ok = 1;
done:
    for (i = 0; i < BATCH && !ok; i++) {
        free_pair(made[i]);
        made[i] = NULL;
    }
    if (r != NULL) wipe(r, BATCH * sizeof *r);
    if (c != NULL) wipe(c, BATCH * sizeof *c);
    free(r);
    free(c);
    wipe(t, sizeof t);
    wipe(inverse, sizeof inverse);
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
static struct pair *take(struct blinding_pool *pool)
{
    struct pair *p = NULL;
    pthread_mutex_lock(&pool->lock);
    if (pool->count > 0) p = pool->pairs[--pool->count];
    pthread_mutex_unlock(&pool->lock);
    if (p != NULL) return p;

    struct pair *made[BATCH];
    if (!make_batch(pool, made)) return NULL;
    for (int i = 1; i < BATCH; i++) put_back(pool, made[i]);
    return made[0];
}

/* After a use: both factors squared (a new pair, as OpenSSL's BN_BLINDING_update) and kept, until PAIR_USES. */
static void retire(struct blinding_pool *pool, struct pair *p)
{
    if (++p->uses < PAIR_USES) {
        ifma_mul(p->a, p->a, p->a, pool->n);
        ifma_mul(p->a_inv, p->a_inv, p->a_inv, pool->n);
        put_back(pool, p);
    } else {
        free_pair(p);
    }
}

int blinded_private(struct blinding_pool *pool, const struct rsa_crt *crt, const unsigned char *in,
                    unsigned char *out)
{
    const struct ifma_modulus *n = pool->n;
    int count = ifma_limbs(n), ok = 0;
    uint64_t x[IFMA_MAX_LIMBS], y[IFMA_MAX_LIMBS];
    ifma_from_bytes(x, count, in, n->bytes);
    if (ifma_at_least(x, n->n, count)) return 0; /* the input is public: it must be below n */
    struct pair *p = take(pool);
    if (p != NULL) {
        ifma_mul(x, x, p->a, n); /* x r^e */
        ifma_reduce(x, n);
        if (rsa_crt_private(crt, y, x)) { /* x^d r */
            ifma_mul(y, y, p->a_inv, n); /* x^d r r^-1 */
            ifma_reduce(y, n);
            ifma_to_bytes(out, n->bytes, y);
            ok = 1;
        }
    }
    wipe(x, sizeof x);
    wipe(y, sizeof y);
    if (ok) {
        retire(pool, p); /* its squarings are secret work too: before the wipe below */
        __atomic_add_fetch(&operations_blinded, 1, __ATOMIC_RELAXED);
    } else {
        free_pair(p); /* never reused after a failure, whatever it used */
        wipe(out, (size_t) n->bytes);
    }
    ifma_wipe_after();
    return ok;
}

void blinding_stats(long long counts[3])
{
    counts[0] = __atomic_load_n(&batches_made, __ATOMIC_RELAXED);
    counts[1] = __atomic_load_n(&pairs_made, __ATOMIC_RELAXED);
    counts[2] = __atomic_load_n(&operations_blinded, __ATOMIC_RELAXED);
}
