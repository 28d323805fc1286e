/*
 * Fixed-width arithmetic modulo an odd m on AVX-512 IFMA (see
 * modexp_ifma.h): Montgomery products, the public exponentiation of RSA's
 * public operations, and the constant-time pieces of the private one.
 *
 * Numbers are little-endian limbs of 52 bits in 64-bit lanes, eight to a
 * 512-bit vector (2048-bit moduli: 40 limbs, five vectors). A product is
 * Montgomery's, word by word (one 52-bit limb of b per step): VPMADD52LUQ
 * and VPMADD52HUQ add the low and high 52 bits of eight 52x52-bit products
 * to eight 64-bit accumulators at once, and the accumulator moves down one
 * limb per step. Lanes are not normalized inside a product: each gains less
 * than 2^54 a step, so 64 bits hold the sum over up to 320 limbs. The result
 * is almost reduced (below 2m when a b < 4 m^2, as R > 4m).
 *
 * Nothing here branches on, or indexes memory by, an operand's value: loops
 * run over limb counts and exponent lengths, comparisons produce masks, a
 * table entry is read by masks over every entry. The one exception is
 * documented where it is: the public exponentiation's steps follow the
 * public exponent's bits.
 *
 * x86_64 only (aarch64 builds ifma_aarch64.c instead), two ways. The
 * shipped x86-64 library uses the intrinsics, and runs only where
 * cpu_has_ifma() says AVX512F and AVX512IFMA and the OS saves the ZMM
 * registers (elsewhere OpenSSL does RSA: see rsa_crt.c). The constant-time
 * test's build (-DFAST_RANDOM_IFMA_STANDIN) replaces each intrinsic with a
 * branch-free C function of the same result, so valgrind, which cannot run
 * AVX-512, runs the same algorithm on any x86_64 CPU.
 */
#include "modexp_ifma.h"
#include "cpu.h"
#include "libcrypto.h" /* OpenSSL, for ifma_modulus_new */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIMB_BITS 52
#define LIMB_MASK ((UINT64_C(1) << LIMB_BITS) - 1)

#ifdef FAST_RANDOM_IFMA_STANDIN
/*
 * Stand-ins (the test builds'): one struct of eight lanes, each intrinsic
 * as a loop over the lanes.
 */
typedef struct {
    uint64_t lane[8];
} vec;
#define TARGET_IFMA
#define TARGET_AVX512

static inline vec v_zero(void)
{
    vec r;
    for (int i = 0; i < 8; i++) r.lane[i] = 0;
    return r;
}

static inline vec v_load(const uint64_t *p)
{
    vec r;
    for (int i = 0; i < 8; i++) r.lane[i] = p[i];
    return r;
}

static inline void v_store(uint64_t *p, vec v)
{
    for (int i = 0; i < 8; i++) p[i] = v.lane[i];
}

static inline vec v_broadcast(uint64_t x)
{
    vec r;
    for (int i = 0; i < 8; i++) r.lane[i] = x;
    return r;
}

/* VPMADD52LUQ: acc + the low 52 bits of the 104-bit product of the low 52 bits of a and b. */
static inline vec v_madd52lo(vec acc, vec a, vec b)
{
    for (int i = 0; i < 8; i++) {
        unsigned __int128 p = (unsigned __int128) (a.lane[i] & LIMB_MASK) * (b.lane[i] & LIMB_MASK);
        acc.lane[i] += (uint64_t) p & LIMB_MASK;
    }
    return acc;
}

/* VPMADD52HUQ: acc + the high 52 bits of that product. */
static inline vec v_madd52hi(vec acc, vec a, vec b)
{
    for (int i = 0; i < 8; i++) {
        unsigned __int128 p = (unsigned __int128) (a.lane[i] & LIMB_MASK) * (b.lane[i] & LIMB_MASK);
        acc.lane[i] += (uint64_t) (p >> LIMB_BITS);
    }
    return acc;
}

static inline uint64_t v_lane0(vec v)
{
    return v.lane[0];
}

/* VALIGNQ by one: lanes 1..7 of low, then lane 0 of high. */
static inline vec v_shift_down(vec high, vec low)
{
    vec r;
    for (int i = 0; i < 7; i++) r.lane[i] = low.lane[i + 1];
    r.lane[7] = high.lane[0];
    return r;
}

static inline vec v_add_lane0(vec v, uint64_t x)
{
    v.lane[0] += x;
    return v;
}

static inline vec v_and(vec a, vec b)
{
    for (int i = 0; i < 8; i++) a.lane[i] &= b.lane[i];
    return a;
}

static inline vec v_or(vec a, vec b)
{
    for (int i = 0; i < 8; i++) a.lane[i] |= b.lane[i];
    return a;
}

int ifma_available(void)
{
    return 1;
}

static void clear_registers(void)
{
}

#else /* the intrinsics */
#include <immintrin.h>

typedef __m512i vec;
#define TARGET_IFMA __attribute__((target("avx512f,avx512ifma")))
#define TARGET_AVX512 __attribute__((target("avx512f")))
#define V_INLINE __attribute__((always_inline)) static inline

/* clang-format off */
TARGET_AVX512 V_INLINE vec v_zero(void) { return _mm512_setzero_si512(); }
TARGET_AVX512 V_INLINE vec v_load(const uint64_t *p) { return _mm512_loadu_si512((const void *) p); }
TARGET_AVX512 V_INLINE void v_store(uint64_t *p, vec v) { _mm512_storeu_si512((void *) p, v); }
TARGET_AVX512 V_INLINE vec v_broadcast(uint64_t x) { return _mm512_set1_epi64((long long) x); }
TARGET_IFMA V_INLINE vec v_madd52lo(vec acc, vec a, vec b) { return _mm512_madd52lo_epu64(acc, a, b); }
TARGET_IFMA V_INLINE vec v_madd52hi(vec acc, vec a, vec b) { return _mm512_madd52hi_epu64(acc, a, b); }
TARGET_AVX512 V_INLINE uint64_t v_lane0(vec v) { return (uint64_t) _mm_cvtsi128_si64(_mm512_castsi512_si128(v)); }
TARGET_AVX512 V_INLINE vec v_shift_down(vec high, vec low) { return _mm512_alignr_epi64(high, low, 1); }
TARGET_AVX512 V_INLINE vec v_add_lane0(vec v, uint64_t x)
{
    return _mm512_add_epi64(v, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long) x));
}
TARGET_AVX512 V_INLINE vec v_and(vec a, vec b) { return _mm512_and_si512(a, b); }
TARGET_AVX512 V_INLINE vec v_or(vec a, vec b) { return _mm512_or_si512(a, b); }
/* clang-format on */

int ifma_available(void)
{
    return cpu_has_ifma();
}

/* VZEROALL clears zmm0-15; zmm16-31 one by one. */
TARGET_AVX512 static void clear_registers(void)
{
    /* clang-format off */
    __asm__ volatile("vzeroall\n\t"
                     "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                     "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                     "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                     "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                     "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
                     "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
                     "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
                     "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31\n\t"
                     ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                         "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
                         "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
                         "xmm28", "xmm29", "xmm30", "xmm31", "memory");
    /* clang-format on */
}
#endif

/*
 * The stack below a private operation's top frame that its callees can
 * have used: the deepest chain (CRT step, exponentiation, product) takes
 * under 40 KiB. Kept well inside the 80 KiB HotSpot guarantees native code.
 */
#define STACK_BURN (48 * 1024)

__attribute__((noinline)) static void burn_stack(void)
{
    volatile unsigned char area[STACK_BURN];
    for (size_t i = 0; i < sizeof area; i++) area[i] = 0;
}

void ifma_wipe_after(void)
{
    clear_registers();
    burn_stack();
}

void ifma_from_bytes(uint64_t *limbs, int count, const unsigned char *bytes, int length)
{
    memset(limbs, 0, (size_t) count * sizeof *limbs);
    for (int i = 0; i < length; i++) {
        int bit = 8 * i; /* of the byte counted from the least significant end */
        int limb = bit / LIMB_BITS, shift = bit % LIMB_BITS;
        if (limb >= count) break; /* past the capacity: by contract, zero bytes */
        uint64_t byte = bytes[length - 1 - i];
        limbs[limb] |= (byte << shift) & LIMB_MASK;
        if (shift > LIMB_BITS - 8 && limb + 1 < count) limbs[limb + 1] |= byte >> (LIMB_BITS - shift);
    }
}

void ifma_to_bytes(unsigned char *bytes, int length, const uint64_t *limbs)
{
    for (int i = 0; i < length; i++) {
        int bit = 8 * i;
        int limb = bit / LIMB_BITS, shift = bit % LIMB_BITS;
        uint64_t value = limbs[limb] >> shift;
        if (shift > LIMB_BITS - 8) value |= limbs[limb + 1] << (LIMB_BITS - shift);
        bytes[length - 1 - i] = (unsigned char) value;
    }
}

/* Carries every limb's excess into the next; the value is unchanged. */
static void normalize(uint64_t *limbs, int count)
{
    uint64_t carry = 0;
    for (int i = 0; i < count; i++) {
        uint64_t t = limbs[i] + carry;
        limbs[i] = t & LIMB_MASK;
        carry = t >> LIMB_BITS;
    }
}

uint64_t ifma_at_least(const uint64_t *a, const uint64_t *b, int count)
{
    uint64_t borrow = 0;
    for (int i = 0; i < count; i++) borrow = (a[i] - b[i] - borrow) >> 63;
    return borrow - 1; /* no borrow: all ones */
}

uint64_t ifma_equal(const uint64_t *a, const uint64_t *b, int count)
{
    uint64_t diff = 0;
    for (int i = 0; i < count; i++) diff |= a[i] ^ b[i];
    return ((diff | (0 - diff)) >> 63) - 1; /* diff == 0: all ones */
}

void ifma_add(uint64_t *r, const uint64_t *a, const uint64_t *b, int count)
{
    uint64_t carry = 0;
    for (int i = 0; i < count; i++) {
        uint64_t t = a[i] + b[i] + carry;
        r[i] = t & LIMB_MASK;
        carry = t >> LIMB_BITS;
    }
}

void ifma_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, int count)
{
    uint64_t borrow = 0;
    for (int i = 0; i < count; i++) {
        uint64_t t = a[i] - b[i] - borrow;
        borrow = t >> 63;
        r[i] = t & LIMB_MASK;
    }
}

void ifma_mul_plain(uint64_t *r, const uint64_t *a, const uint64_t *b, int count)
{
    unsigned __int128 column = 0; /* < 2^128: at most 320 products of 104 bits, plus the carry */
    for (int k = 0; k < 2 * count; k++) {
        int low = k < count ? 0 : k - count + 1, high = k < count ? k : count - 1;
        for (int i = low; i <= high; i++) column += (unsigned __int128) a[i] * b[k - i];
        r[k] = (uint64_t) column & LIMB_MASK;
        column >>= LIMB_BITS;
    }
}

void ifma_reduce(uint64_t *a, const struct ifma_modulus *m)
{
    int count = ifma_limbs(m);
    uint64_t difference[IFMA_MAX_LIMBS];
    uint64_t borrow = 0;
    for (int i = 0; i < count; i++) {
        uint64_t t = a[i] - m->n[i] - borrow;
        borrow = t >> 63;
        difference[i] = t & LIMB_MASK;
    }
    uint64_t keep_difference = borrow - 1; /* all ones when a >= m */
    for (int i = 0; i < count; i++) a[i] = (difference[i] & keep_difference) | (a[i] & ~keep_difference);
    wipe(difference, sizeof difference);
}

/*
 * result = a * b / R mod m, almost reduced, not yet normalized; a and b
 * normalized. result may be a or b. Inlined for each vector count the
 * callers use, so the accumulators stay in registers.
 */
TARGET_IFMA __attribute__((always_inline))
static inline void product_of(int vectors, uint64_t *result, const uint64_t *a, const uint64_t *b,
                              const struct ifma_modulus *m)
{
    vec acc[IFMA_MAX_VECTORS], av[IFMA_MAX_VECTORS], nv[IFMA_MAX_VECTORS];
    const vec zero = v_zero();
    _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) {
        acc[v] = zero;
        av[v] = v_load(a + 8 * v);
        nv[v] = v_load(m->n + 8 * v);
    }
    for (int i = 0; i < 8 * vectors; i++) {
        vec bi = v_broadcast(b[i]);
        _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) acc[v] = v_madd52lo(acc[v], av[v], bi);
        vec y = v_broadcast((v_lane0(acc[0]) * m->k0) & LIMB_MASK);
        _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) acc[v] = v_madd52lo(acc[v], nv[v], y);
        /* The lowest limb is now 0 mod 2^52: carry its excess up, move down one limb. */
        uint64_t carry = v_lane0(acc[0]) >> LIMB_BITS;
        _Pragma("GCC unroll 40") for (int v = 0; v < vectors - 1; v++) acc[v] = v_shift_down(acc[v + 1], acc[v]);
        acc[vectors - 1] = v_shift_down(zero, acc[vectors - 1]);
        acc[0] = v_add_lane0(acc[0], carry);
        /* The high halves belong one limb up: after the move, at the same index. */
        _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) acc[v] = v_madd52hi(acc[v], av[v], bi);
        _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) acc[v] = v_madd52hi(acc[v], nv[v], y);
    }
    _Pragma("GCC unroll 40") for (int v = 0; v < vectors; v++) v_store(result + 8 * v, acc[v]);
}

#define PRODUCT_FOR(V) \
    TARGET_IFMA static void product_##V(uint64_t *result, const uint64_t *a, const uint64_t *b, \
                                        const struct ifma_modulus *m) \
    { \
        product_of(V, result, a, b, m); \
    }
PRODUCT_FOR(3)  /* 1024-bit primes (RSA-2048's CRT halves) */
PRODUCT_FOR(4)  /* 1536-bit primes (RSA-3072) */
PRODUCT_FOR(5)  /* 2048-bit moduli and primes (RSA-4096) */
PRODUCT_FOR(8)  /* 3072-bit moduli */
PRODUCT_FOR(10) /* 4096-bit moduli */

TARGET_IFMA static void product_any(uint64_t *result, const uint64_t *a, const uint64_t *b,
                                    const struct ifma_modulus *m)
{
    product_of(m->vectors, result, a, b, m);
}

void ifma_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const struct ifma_modulus *m)
{
    switch (m->vectors) { /* a public size, never a value */
    case 3: product_3(r, a, b, m); break;
    case 4: product_4(r, a, b, m); break;
    case 5: product_5(r, a, b, m); break;
    case 8: product_8(r, a, b, m); break;
    case 10: product_10(r, a, b, m); break;
    default: product_any(r, a, b, m); break;
    }
    normalize(r, ifma_limbs(m));
}

/* The limbs and vectors for an n_bytes modulus: R = 2^(52 * limbs) > 4m. 0 when too large. */
static int vectors_for(int n_bytes)
{
    int limbs_needed = (8 * n_bytes + LIMB_BITS - 1) / LIMB_BITS;
    int vectors = (limbs_needed + 7) / 8;
    if (8 * n_bytes + 2 > LIMB_BITS * 8 * vectors) vectors++;
    return n_bytes < 1 || vectors > IFMA_MAX_VECTORS ? 0 : vectors;
}

struct ifma_modulus *ifma_modulus_new(const BIGNUM *m, int bytes, BN_CTX *ctx)
{
    unsigned char m_bytes[MAX_MODULUS_BYTES], rr_bytes[MAX_MODULUS_BYTES];
    int vectors = vectors_for(bytes);
    if (vectors == 0 || bytes > MAX_MODULUS_BYTES || crypto.BN_num_bits(m) > 8 * bytes || !crypto.BN_is_odd(m)) {
        return NULL;
    }
    struct ifma_modulus *result = calloc(1, sizeof *result);
    int ok = 0;
    crypto.BN_CTX_start(ctx);
    BIGNUM *rr = crypto.BN_CTX_get(ctx);
    if (result != NULL && rr != NULL && crypto.BN_bn2binpad(m, m_bytes, bytes) == bytes) {
        result->vectors = vectors;
        result->bytes = bytes;
        int count = ifma_limbs(result);
        ifma_from_bytes(result->n, count, m_bytes, bytes);
        /* k0 = -m^-1 mod 2^52, by Newton's iteration (each step doubles the correct low bits). */
        uint64_t n0 = result->n[0], inverse = n0; /* correct to 3 bits: n0 * n0 = 1 mod 8 */
        for (int i = 0; i < 5; i++) inverse *= 2 - n0 * inverse;
        result->k0 = (0 - inverse) & LIMB_MASK;
        if (crypto.BN_set_word(rr, 1) && crypto.BN_lshift(rr, rr, 2 * LIMB_BITS * count)
            && crypto.BN_nnmod(rr, rr, m, ctx) && crypto.BN_bn2binpad(rr, rr_bytes, bytes) == bytes) {
            uint64_t one[IFMA_MAX_LIMBS] = {1};
            ifma_from_bytes(result->rr, count, rr_bytes, bytes);
            ifma_mul(result->r1, result->rr, one, result); /* R^2 / R */
            ifma_reduce(result->r1, result);
            ifma_mul(result->r3, result->rr, result->rr, result); /* R^4 / R */
            ifma_reduce(result->r3, result);
            ok = 1;
        }
    }
    if (rr != NULL) crypto.BN_clear(rr);
    crypto.BN_CTX_end(ctx);
    wipe(m_bytes, sizeof m_bytes);
    wipe(rr_bytes, sizeof rr_bytes);
    if (!ok) {
        ifma_modulus_free(result);
        return NULL;
    }
    return result;
}

void ifma_modulus_free(struct ifma_modulus *m)
{
    if (m == NULL) return;
    wipe(m, sizeof *m);
    free(m);
}

int ifma_limbs(const struct ifma_modulus *m)
{
    return 8 * m->vectors;
}

void ifma_to_montgomery_wide(uint64_t *r, const uint64_t *x, int x_count, const struct ifma_modulus *m)
{
    /* x = high R + low with low, high < R: x R = high R^2 + low R = (high R^3) / R + (low R^2) / R */
    int count = ifma_limbs(m);
    uint64_t high[IFMA_MAX_LIMBS] = {0}, sum[IFMA_MAX_LIMBS];
    memcpy(high, x + count, (size_t) (x_count - count) * sizeof *x);
    ifma_mul(sum, high, m->r3, m);  /* below 2m: high < R, r3 < m */
    ifma_mul(high, x, m->rr, m);    /* below 2m: low < R, rr < m */
    ifma_add(sum, sum, high, count); /* below 4m < R */
    ifma_mul(r, sum, m->r1, m);     /* x R mod m, below 2m */
    wipe(high, sizeof high);
    wipe(sum, sizeof sum);
}

/* 2^WINDOW_BITS table entries: x^0 .. x^31, for the private exponentiation. */
#define WINDOW_BITS 5
#define TABLE_SIZE (1 << WINDOW_BITS)

int ifma_table_limbs(const struct ifma_modulus *m)
{
    return TABLE_SIZE * ifma_limbs(m);
}

/*
 * out = the table's entry `index` (count limbs each), reading every entry
 * whole and keeping one by a mask, so the memory touched and the time taken
 * do not depend on index (a window of a private exponent).
 */
TARGET_AVX512 static void select_entry(uint64_t *out, const uint64_t *table, int count, uint64_t index)
{
    for (int v = 0; v < count / 8; v++) {
        vec picked = v_zero();
        for (uint64_t j = 0; j < TABLE_SIZE; j++) {
            /* all ones when j == index, else zero, without comparing in a branch */
            uint64_t differs = j ^ index;
            vec mask = v_broadcast(((differs | (0 - differs)) >> 63) - 1);
            picked = v_or(picked, v_and(v_load(table + j * (uint64_t) count + 8 * v), mask));
        }
        v_store(out + 8 * v, picked);
    }
}

/* Bits [low, low + WINDOW_BITS) of the big-endian exponent d (bits past its top read as 0). */
static uint64_t window_at(const unsigned char *d, int d_bytes, int low)
{
    uint64_t window = 0;
    for (int k = WINDOW_BITS - 1; k >= 0; k--) {
        int bit = low + k;
        /* the byte read depends on the bit's position only; its value is masked in */
        uint64_t in_range = (uint64_t) 0 - (uint64_t) (bit < 8 * d_bytes);
        int index = bit < 8 * d_bytes ? d_bytes - 1 - bit / 8 : 0;
        uint64_t value = ((uint64_t) (d[index] >> (bit % 8)) & 1) & in_range;
        window = (window << 1) | value;
    }
    return window;
}

void ifma_exp_consttime(uint64_t *r, const uint64_t *x_mont, const unsigned char *d, int d_bytes,
                        const struct ifma_modulus *m, uint64_t *table)
{
    int count = ifma_limbs(m);
    uint64_t entry[IFMA_MAX_LIMBS];
    /* table[j] = x^j R mod m (almost reduced): table[0] = R, table[1] = x R */
    memcpy(table, m->r1, (size_t) count * sizeof *table);
    memcpy(table + count, x_mont, (size_t) count * sizeof *table);
    for (int j = 2; j < TABLE_SIZE; j++) {
        ifma_mul(table + (size_t) j * count, table + (size_t) (j - 1) * count, table + count, m);
    }
    /* Every window of d's full length, top first, leading zeros included: the same steps for every d. */
    int windows = (8 * d_bytes + WINDOW_BITS - 1) / WINDOW_BITS;
    select_entry(r, table, count, window_at(d, d_bytes, (windows - 1) * WINDOW_BITS));
    for (int w = windows - 2; w >= 0; w--) {
        for (int k = 0; k < WINDOW_BITS; k++) ifma_mul(r, r, r, m);
        select_entry(entry, table, count, window_at(d, d_bytes, w * WINDOW_BITS));
        ifma_mul(r, r, entry, m);
    }
    wipe(table, (size_t) ifma_table_limbs(m) * sizeof *table);
    wipe(entry, sizeof entry);
}

void ifma_exp_public(uint64_t *r, const uint64_t *x, const unsigned char *e, int e_bytes,
                     const struct ifma_modulus *m)
{
    int count = ifma_limbs(m);
    uint64_t base[IFMA_MAX_LIMBS], one[IFMA_MAX_LIMBS] = {1};
    ifma_mul(base, x, m->rr, m); /* x R mod m */
    /* Square and multiply by e's bits, top first: e is public, so its bits may choose the steps. */
    int top = 0;
    while (top < 8 * e_bytes && !((e[top / 8] >> (7 - top % 8)) & 1)) top++;
    memcpy(r, top < 8 * e_bytes ? base : m->r1, (size_t) count * sizeof *r); /* x R, or R (1) when e = 0 */
    for (int i = top + 1; i < 8 * e_bytes; i++) {
        ifma_mul(r, r, r, m);
        if ((e[i / 8] >> (7 - i % 8)) & 1) ifma_mul(r, r, base, m);
    }
    ifma_mul(r, r, one, m); /* out of the Montgomery domain: at most m */
    ifma_reduce(r, m);
    wipe(base, sizeof base);
}

int ifma_mod_exp(unsigned char *out, const unsigned char *x, const unsigned char *e, int e_bytes,
                 const struct ifma_modulus *m)
{
    int count = ifma_limbs(m);
    uint64_t value[IFMA_MAX_LIMBS], result[IFMA_MAX_LIMBS];
    ifma_from_bytes(value, count, x, m->bytes);
    if (ifma_at_least(value, m->n, count)) return 0; /* a public input: x must be below n */
    ifma_exp_public(result, value, e, e_bytes, m);
    ifma_to_bytes(out, m->bytes, result);
    return 1;
}
