/*
 * RSA blinding for fast_random's own private operation (rsa_blinding.c),
 * on the fixed-width limbs of modexp_ifma.h. Keys on OpenSSL's private
 * operation are blinded by OpenSSL (libcrypto_rsa.c).
 *
 * Used by libcrypto_rsa.c; below the engines.
 */
#ifndef FAST_RANDOM_RSA_BLINDING_H
#define FAST_RANDOM_RSA_BLINDING_H

#include "rsa_crt.h"

/* A key's blinding factors; safe to use from several threads at once. */
struct blinding_pool;

/* A pool for crt's key: n for IFMA and e (big-endian, e_length bytes), both kept by the caller. */
struct blinding_pool *blinding_pool_new(const struct ifma_modulus *n, const unsigned char *e, int e_length,
                                        const struct rsa_crt *crt);

/* Frees the pool and clears every factor in it. */
void blinding_pool_free(struct blinding_pool *pool);

/*
 * out = in^d mod n (n's bytes each; in below n, else 0), by the key's CRT on
 * in blinded with a fresh factor, unblinded and serialized in constant
 * time; 1 on success, 0 on any failure, with nothing in out.
 */
int blinded_private(struct blinding_pool *pool, const struct rsa_crt *crt, const unsigned char *in,
                    unsigned char *out);

/* Counters since the library loaded: batches made, pairs made, blinded operations. */
void blinding_stats(long long counts[3]);

#endif
