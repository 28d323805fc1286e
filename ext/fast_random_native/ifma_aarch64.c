/*
 * aarch64's side of modexp_ifma.h, rsa_crt.h and rsa_blinding.h, which on
 * x86_64 are modexp_ifma.c, rsa_crt.c and rsa_blinding.c: there is no
 * AVX-512 IFMA here, so none of fast_random's own RSA arithmetic is built.
 * libcrypto_rsa.c asks ifma_available() once, gets 0, and makes no IFMA
 * modulus; with none, it never makes our CRT or its blinding either, and
 * every private and public operation is OpenSSL's own. The rest answer
 * what libcrypto_rsa.c's free and stats paths ask: nothing to free, and no
 * operations counted.
 */
#include "modexp_ifma.h"
#include "rsa_blinding.h"
#include "rsa_crt.h"

#include <string.h>

int ifma_available(void)
{
    return 0;
}

struct ifma_modulus *ifma_modulus_new(const BIGNUM *m, int bytes, BN_CTX *ctx)
{
    (void) m, (void) bytes, (void) ctx;
    return NULL;
}

void ifma_modulus_free(struct ifma_modulus *m)
{
    (void) m; /* always NULL: ifma_modulus_new made none */
}

int ifma_mod_exp(unsigned char *out, const unsigned char *x, const unsigned char *e, int e_bytes,
                 const struct ifma_modulus *m)
{
    (void) out, (void) x, (void) e, (void) e_bytes, (void) m;
    return 0;
}

int rsa_crt_takes(int p_bits, int q_bits, int ifma)
{
    (void) p_bits, (void) q_bits, (void) ifma;
    return 0;
}

struct rsa_crt *rsa_crt_new(const struct ifma_modulus *n, const unsigned char *e, int e_length, const BIGNUM *d,
                            const BIGNUM *p, const BIGNUM *q, const BIGNUM *dmp1, const BIGNUM *dmq1,
                            const BIGNUM *iqmp, BN_CTX *ctx)
{
    (void) n, (void) e, (void) e_length, (void) d, (void) p, (void) q, (void) dmp1, (void) dmq1, (void) iqmp,
        (void) ctx;
    return NULL;
}

void rsa_crt_free(struct rsa_crt *crt)
{
    (void) crt; /* always NULL */
}

int rsa_crt_works(const struct rsa_crt *crt)
{
    (void) crt;
    return 0;
}

void rsa_crt_stats(long long counts[2])
{
    memset(counts, 0, 2 * sizeof counts[0]);
}

struct blinding_pool *blinding_pool_new(const struct ifma_modulus *n, const unsigned char *e, int e_length,
                                        const struct rsa_crt *crt)
{
    (void) n, (void) e, (void) e_length, (void) crt;
    return NULL;
}

void blinding_pool_free(struct blinding_pool *pool)
{
    (void) pool; /* always NULL */
}

int blinded_private(struct blinding_pool *pool, const struct rsa_crt *crt, const unsigned char *in,
                    unsigned char *out)
{
    (void) pool, (void) crt, (void) in, (void) out;
    return 0;
}

void blinding_stats(long long counts[3])
{
    memset(counts, 0, 3 * sizeof counts[0]);
}
