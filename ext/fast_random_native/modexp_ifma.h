/*
 * Modular exponentiation with AVX-512 IFMA (modexp_ifma.c): x^e mod n for
 * RSA's public operations (not constant-time: public exponents only), and
 * x^d mod p in constant time for the private CRT exponentiations (rsa_crt.c).
 */
#ifndef FAST_RANDOM_MODEXP_IFMA_H
#define FAST_RANDOM_MODEXP_IFMA_H

#include <stdint.h>

#include "libcrypto.h"

/* 16384-bit moduli: 316 limbs of 52 bits, rounded up to whole vectors of 8. */
#define IFMA_MAX_VECTORS 40
#define IFMA_MAX_LIMBS (8 * IFMA_MAX_VECTORS)

/* An odd modulus in 52-bit limbs, with what products modulo it need. */
struct ifma_modulus {
    int vectors;                    /* limbs / 8; R = 2^(52 * limbs) > 4n */
    int bytes;                      /* of n, as the inputs and outputs are */
    uint64_t k0;                    /* -n^-1 mod 2^52 */
    uint64_t n[IFMA_MAX_LIMBS];
    uint64_t rr[IFMA_MAX_LIMBS];    /* R^2 mod n */
};

/* Whether this CPU and OS run AVX-512 IFMA. */
int ifma_available(void);

/*
 * Sets up m for the odd modulus n (big-endian, n_bytes long, its top byte
 * not zero), given R^2 mod n (big-endian) for R = 2^(52 * ifma_limbs(m)):
 * call with rr_bytes 0 first to learn the limbs, then again with it. 1 on
 * success, 0 for a modulus it does not take.
 */
int ifma_modulus_init(struct ifma_modulus *m, const unsigned char *n, int n_bytes,
                      const unsigned char *rr, int rr_bytes);

/*
 * A new modulus for the odd m (bytes long), with the R^2 mod m it needs
 * computed by OpenSSL; NULL on failure or for a modulus it does not take.
 * m may be a secret prime (rsa_crt.c): pass it with BN_FLG_CONSTTIME.
 */
struct ifma_modulus *ifma_modulus_new(const BIGNUM *m, int bytes, BN_CTX *ctx);

/* Clears (m may hold a secret prime) and frees; NULL is fine. */
void ifma_modulus_free(struct ifma_modulus *m);

/* The number of 52-bit limbs of m (R = 2^(52 * limbs)). */
int ifma_limbs(const struct ifma_modulus *m);

/*
 * out = x^e mod n, x and out big-endian of m->bytes, e big-endian of e_bytes.
 * 1 on success; 0 when x is not below n.
 */
int ifma_mod_exp(unsigned char *out, const unsigned char *x, const unsigned char *e, int e_bytes,
                 const struct ifma_modulus *m);

/*
 * out = x^d mod m, x and out big-endian of m->bytes, d big-endian of d_bytes
 * (its length is public; pass the modulus's). Constant-time in x and in d's
 * value: every window of d takes the same five squarings and one product
 * with a table entry read by masks. 1 on success; 0 when x is not below m or
 * there is no memory for the table.
 */
int ifma_mod_exp_consttime(unsigned char *out, const unsigned char *x, const unsigned char *d, int d_bytes,
                           const struct ifma_modulus *m);

#endif
