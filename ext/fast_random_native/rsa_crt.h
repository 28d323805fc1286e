/*
 * fast_random's own RSA private operation, x^d mod n by the Chinese
 * remainder theorem on AVX-512 IFMA (rsa_crt.c), fixed-width from the
 * blinded input to the result, checked with the public exponent. Taken
 * only by the keys rsa_crt_takes() accepts; every other key's private
 * operation is OpenSSL's own (libcrypto_rsa.c).
 *
 * Used by libcrypto_rsa.c and rsa_blinding.c; below the engines.
 */
#ifndef FAST_RANDOM_RSA_CRT_H
#define FAST_RANDOM_RSA_CRT_H

#include <stdint.h>

#include "libcrypto.h"
#include "modexp_ifma.h"

/* A private key's CRT values in limbs and bytes, and the moduli for p and q. */
struct rsa_crt;

/*
 * Whether our CRT takes a key whose primes have these lengths in bits, on
 * this CPU (ifma) and libcrypto: equal lengths, IFMA in use, and primes of
 * more than 1024 bits, or of 1024 bits on libcrypto 3.0.4 (whose IFMA code
 * for them is broken, CVE-2022-2274).
 */
int rsa_crt_takes(int p_bits, int q_bits, int ifma);

/*
 * The CRT for a validated key (libcrypto_rsa.c) that rsa_crt_takes: n for
 * IFMA and e (big-endian, e_length bytes) stay the caller's for as long as
 * this lives. NULL on failure.
 */
struct rsa_crt *rsa_crt_new(const struct ifma_modulus *n, const unsigned char *e, int e_length, const BIGNUM *d,
                            const BIGNUM *p, const BIGNUM *q, const BIGNUM *dmp1, const BIGNUM *dmq1,
                            const BIGNUM *iqmp, BN_CTX *ctx);

/* Frees it and clears every secret value of its own. */
void rsa_crt_free(struct rsa_crt *crt);

/*
 * y = x^d mod n, x and y normalized limbs of n (x below n, a blinded
 * value): CRT, then the check y^e = x, recomputed without CRT on a
 * mismatch. 1 on success, 0 when out of memory (y is then cleared).
 */
int rsa_crt_private(const struct rsa_crt *crt, uint64_t *y, const uint64_t *x);

/*
 * Whether the key's values fit our CRT: 2's inverse by rsa_crt_inverse
 * times 2 gives 1 only with prime p and q and the right qInv. A key that
 * does not goes to OpenSSL's private operation, which copes (a wrong qInv
 * there gives a wrong CRT result, caught by its check and recomputed).
 */
int rsa_crt_works(const struct rsa_crt *crt);

/*
 * y = x^-1 mod n for x below n, by Fermat's theorem modulo p and q, checked
 * (x y must be 1). 0 when out of memory, or when the check fails: x shares
 * a factor with n, or the key does not fit (see rsa_crt_works).
 */
int rsa_crt_inverse(const struct rsa_crt *crt, uint64_t *y, const uint64_t *x);

/*
 * Counters since the library loaded: operations by our CRT (all on IFMA),
 * and results that failed the check with e (then recomputed without CRT).
 */
void rsa_crt_stats(long long counts[2]);

#endif
