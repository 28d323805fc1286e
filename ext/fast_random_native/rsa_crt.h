/*
 * The RSA private operation x^d mod n for the :openssl engine's keys: by the
 * Chinese remainder theorem, in constant time, checked with the public
 * exponent (see rsa_crt.c). Blinding is the caller's (rsa_blinding.c).
 *
 * Used by openssl_rsa.c; below the engines, like the rest of this library.
 */
#ifndef FAST_RANDOM_RSA_CRT_H
#define FAST_RANDOM_RSA_CRT_H

#include "libcrypto.h"
#include "modexp_ifma.h"

/* A private key's exponentiation: its CRT values, contexts and tables. */
struct rsa_crt;

/*
 * The exponentiation for rsa (two primes, RSA_FLAG_NO_BLINDING), whose public
 * values n and e (e also as e_bytes), n's Montgomery context and, when public
 * operations use IFMA, n for IFMA (else NULL) the caller keeps for as long
 * as this lives. ifma: whether this CPU runs modexp_ifma.c. NULL on failure.
 */
struct rsa_crt *rsa_crt_new(RSA *rsa, const BIGNUM *n, const BIGNUM *e, BN_MONT_CTX *mont_n,
                            const struct ifma_modulus *ifma_n, const unsigned char *e_bytes, int e_length,
                            int ifma, BN_CTX *ctx);

/* Frees it and clears every secret value of its own. */
void rsa_crt_free(struct rsa_crt *crt);

/* r = x^d mod n for x below n (a blinded value); 1 on success, 0 on failure. */
int rsa_crt_private(struct rsa_crt *crt, BIGNUM *r, const BIGNUM *x, BN_CTX *ctx);

/*
 * Counters since the library loaded: operations by our own CRT, of those the
 * ones exponentiated with IFMA, and results that failed the check with e
 * (then recomputed without CRT).
 */
void rsa_crt_stats(long long counts[3]);

/* Tests: the next `count` CRT results are corrupted mod p, as a fault would. */
void rsa_crt_inject_faults(int count);

#endif
