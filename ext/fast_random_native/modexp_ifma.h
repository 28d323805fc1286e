/*
 * Fixed-width modular arithmetic on 52-bit limbs with AVX-512 IFMA
 * (modexp_ifma.c): the public exponentiation of RSA's public operations,
 * and the pieces of the constant-time private operation (rsa_crt.c,
 * rsa_blinding.c). Every function here runs the same instructions and
 * touches the same addresses whatever the values of its operands; only
 * sizes (limb counts, byte lengths) and public exponents choose the steps.
 *
 * A number is `count` little-endian limbs of 52 bits in 64-bit words
 * ("normalized" when every limb is below 2^52). "Almost reduced" modulo m
 * means below 2m; Montgomery's R is 2^(52 * limbs), greater than 4m.
 */
#ifndef FAST_RANDOM_MODEXP_IFMA_H
#define FAST_RANDOM_MODEXP_IFMA_H

#include <stdint.h>

#include "libcrypto.h"

/* 16384-bit moduli: 316 limbs of 52 bits, rounded up to whole vectors of 8. */
#define IFMA_MAX_VECTORS 40
#define IFMA_MAX_LIMBS (8 * IFMA_MAX_VECTORS)

/* An odd modulus in 52-bit limbs, with the constants products modulo it need. */
struct ifma_modulus {
    int vectors;                    /* limbs / 8; R = 2^(52 * limbs) > 4m */
    int bytes;                      /* of m, as the inputs and outputs are */
    uint64_t k0;                    /* -m^-1 mod 2^52 */
    uint64_t n[IFMA_MAX_LIMBS];     /* m */
    uint64_t rr[IFMA_MAX_LIMBS];    /* R^2 mod m, below m */
    uint64_t r1[IFMA_MAX_LIMBS];    /* R mod m (Montgomery's 1), below m */
    uint64_t r3[IFMA_MAX_LIMBS];    /* R^3 mod m, below m */
};

/* Whether this CPU and OS run AVX-512 IFMA (always, in the test build with stand-ins). */
int ifma_available(void);

/*
 * A new modulus for the odd m (bytes long, at most 16384 bits), with the
 * R^2 mod m it needs computed by OpenSSL; NULL on failure or for a modulus
 * it does not take. m may be a secret prime: pass it with BN_FLG_CONSTTIME.
 */
struct ifma_modulus *ifma_modulus_new(const BIGNUM *m, int bytes, BN_CTX *ctx);

/* Clears (m may hold a secret prime) and frees; NULL is fine. */
void ifma_modulus_free(struct ifma_modulus *m);

/* The number of 52-bit limbs of m (R = 2^(52 * limbs)). */
int ifma_limbs(const struct ifma_modulus *m);

/* Big-endian bytes to count limbs (the value must fit in count * 52 bits). */
void ifma_from_bytes(uint64_t *limbs, int count, const unsigned char *bytes, int length);

/* Normalized limbs to big-endian bytes (the value must fit in length bytes). */
void ifma_to_bytes(unsigned char *bytes, int length, const uint64_t *limbs);

/* r = a b / R mod m, almost reduced and normalized, for a b < 4 m^2 (as when a, b < 2m, or a < R and b < m). */
void ifma_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct ifma_modulus *m);

/* a (almost reduced) becomes a mod m, by a masked subtraction. */
void ifma_reduce(uint64_t *a, const struct ifma_modulus *m);

/*
 * r = x R mod m, almost reduced, for x of up to 2 limbs(m) limbs (x_count):
 * the Montgomery form of a number twice m's width, such as an RSA input
 * for a CRT half (three products, no division).
 */
void ifma_to_montgomery_wide(uint64_t *r, const uint64_t *x, int x_count, const struct ifma_modulus *m);

/*
 * r = x^d R mod m (almost reduced), for x R mod m almost reduced; d
 * big-endian of d_bytes (its length public, its value secret): fixed
 * 5-bit windows over d's whole length, five squarings and one product per
 * window, the entry read from a table of x^0 .. x^31 by masks over every
 * entry. table: scratch of ifma_table_limbs(m) limbs, wiped here.
 */
void ifma_exp_consttime(uint64_t *r, const uint64_t *x_mont, const unsigned char *d, int d_bytes,
                        const struct ifma_modulus *m, uint64_t *table);

/* The limbs of the scratch table ifma_exp_consttime needs for m. */
int ifma_table_limbs(const struct ifma_modulus *m);

/*
 * r = x^e mod m, below m, for x below m (normalized, not secret-shaped:
 * any value) and a public exponent e (big-endian, e_bytes): square and
 * multiply by e's bits; nothing depends on x.
 */
void ifma_exp_public(uint64_t *r, const uint64_t *x, const unsigned char *e, int e_bytes,
                     const struct ifma_modulus *m);

/* All ones when a >= b (count normalized limbs), else 0, in time independent of the values. */
uint64_t ifma_at_least(const uint64_t *a, const uint64_t *b, int count);

/* All ones when a == b (count limbs), else 0, in time independent of the values. */
uint64_t ifma_equal(const uint64_t *a, const uint64_t *b, int count);

/* r = a + b (count limbs, normalized; the sum must fit). */
void ifma_add(uint64_t *r, const uint64_t *a, const uint64_t *b, int count);

/* r = a - b (count limbs, normalized; a >= b). */
void ifma_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int count);

/* r (2 count limbs) = a b (count limbs each), the plain product, normalized. */
void ifma_mul_plain(uint64_t *r, const uint64_t *a, const uint64_t *b, int count);

/*
 * out = x^e mod n for RSA's public operations: x and out big-endian of
 * m->bytes, e public. 1 on success; 0 when x is not below n.
 */
int ifma_mod_exp(unsigned char *out, const unsigned char *x, const unsigned char *e, int e_bytes,
                 const struct ifma_modulus *m);

/*
 * Clears what products on secret operands leave behind: the vector
 * registers (a no-op where the products do not use them), and the stack
 * below the caller's frame, where spilled operands may remain. Call it
 * after such work, from the function that started it.
 */
void ifma_wipe_after(void);

#endif
