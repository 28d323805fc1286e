/*
 * RSA blinding for the :openssl engine's private keys, done here instead of
 * by OpenSSL (see rsa_blinding.c for the scheme and why).
 *
 * Used by openssl_rsa.c; below the engines, like the rest of this library.
 */
#ifndef FAST_RANDOM_RSA_BLINDING_H
#define FAST_RANDOM_RSA_BLINDING_H

#include "libcrypto.h"
#include "rsa_crt.h"

/* A key's blinding factors; safe to use from several threads at once. */
struct blinding_pool;

/* A pool for the modulus n with public exponent e (both kept by the caller, as is mont, n's Montgomery context). */
struct blinding_pool *blinding_pool_new(const BIGNUM *n, const BIGNUM *e, BN_MONT_CTX *mont);

/* Frees the pool and clears every factor in it. */
void blinding_pool_free(struct blinding_pool *pool);

/*
 * out = in^d mod n (bytes each, in below n) by crt (rsa_crt.c) on in blinded
 * with a fresh factor; 1 on success, 0 on any failure, with nothing in out.
 */
int blinded_private(struct blinding_pool *pool, struct rsa_crt *crt, const unsigned char *in, unsigned char *out,
                    int bytes);

/* Counters since the library loaded: batches made, pairs made, blinded operations. */
void blinding_stats(long long counts[3]);

/* Tests: the next `count` batches fail as if OpenSSL had (0 to stop). */
void blinding_inject_failures(int count);

#endif
