/* numpy's default_rng(seed).standard_normal(n), bit for bit, for any uint64 seed (docs/spec.md §1).
 *
 * Three stages, each a transcription of numpy (>= 1.17) so that the canonical close series does not
 * depend on Python:
 *   1. SeedSequence(seed) (numpy/random/bit_generator.pyx): the seed's 32-bit words are hashed into a
 *      4-word pool, which is then expanded into four 64-bit words;
 *   2. PCG64 (numpy/random/src/pcg64): a 128-bit LCG with the XSL-RR output function;
 *   3. random_standard_normal (numpy/random/src/distributions/distributions.c): the 256-level ziggurat,
 *      using the C library's log1p and exp just as numpy does.
 * All floating-point expressions keep numpy's operation order; the build's -ffp-contract=off keeps the
 * compiler from fusing them.
 */
#include "rng.h"

#include <math.h>

#include "hmasweep.h"

/* ---- 1. SeedSequence ------------------------------------------------------------------------------- */

enum { POOL_WORDS = 4, OUTPUT_WORDS32 = 8 };

#define SEEDSEQ_INIT_A UINT32_C(0x43b0d7e5)
#define SEEDSEQ_MULT_A UINT32_C(0x931e8875)
#define SEEDSEQ_INIT_B UINT32_C(0x8b51f9dd)
#define SEEDSEQ_MULT_B UINT32_C(0x58f38ded)
#define SEEDSEQ_MIX_MULT_L UINT32_C(0xca01f9dd)
#define SEEDSEQ_MIX_MULT_R UINT32_C(0x4973f715)
#define SEEDSEQ_XSHIFT 16

/* hashmix: the multiplier `*h` persists across calls (numpy passes it by pointer). */
static uint32_t seedseq_hashmix(uint32_t value, uint32_t *h) {
    value ^= *h;
    *h *= SEEDSEQ_MULT_A;
    value *= *h;
    value ^= value >> SEEDSEQ_XSHIFT;
    return value;
}

static uint32_t seedseq_mix(uint32_t x, uint32_t y) {
    uint32_t result = SEEDSEQ_MIX_MULT_L * x - SEEDSEQ_MIX_MULT_R * y;
    result ^= result >> SEEDSEQ_XSHIFT;
    return result;
}

/* numpy's _coerce_to_uint32_array for a non-negative int: 32-bit words, least significant first, with
 * no leading zero words (so 0 -> [0] and 42 -> [42], but 2**40 + 3 -> [3, 256]). */
static size_t seed_entropy_words(uint64_t seed, uint32_t entropy[2]) {
    entropy[0] = (uint32_t)seed;
    entropy[1] = (uint32_t)(seed >> 32);
    return entropy[1] != 0 ? 2 : 1;
}

static void seedseq_mix_entropy(uint32_t pool[POOL_WORDS], const uint32_t *entropy, size_t n_entropy) {
    uint32_t h = SEEDSEQ_INIT_A;
    for (size_t i = 0; i < POOL_WORDS; i++)
        pool[i] = seedseq_hashmix(i < n_entropy ? entropy[i] : 0u, &h);
    for (size_t src = 0; src < POOL_WORDS; src++)
        for (size_t dst = 0; dst < POOL_WORDS; dst++)
            if (src != dst)
                pool[dst] = seedseq_mix(pool[dst], seedseq_hashmix(pool[src], &h));
    /* A uint64 seed has at most two words, so this loop never runs; kept so the function is numpy's. */
    for (size_t src = POOL_WORDS; src < n_entropy; src++)
        for (size_t dst = 0; dst < POOL_WORDS; dst++)
            pool[dst] = seedseq_mix(pool[dst], seedseq_hashmix(entropy[src], &h));
}

void hs_seed_sequence_words(uint64_t seed, uint64_t words[4]) {
    uint32_t entropy[2], pool[POOL_WORDS], out32[OUTPUT_WORDS32];
    size_t n_entropy = seed_entropy_words(seed, entropy);
    seedseq_mix_entropy(pool, entropy, n_entropy);

    uint32_t g = SEEDSEQ_INIT_B;
    for (size_t k = 0; k < OUTPUT_WORDS32; k++) {
        uint32_t v = pool[k % POOL_WORDS];
        v ^= g;
        g *= SEEDSEQ_MULT_B;
        v *= g;
        v ^= v >> SEEDSEQ_XSHIFT;
        out32[k] = v;
    }
    /* generate_state(4, np.uint64) views the uint32 words as little-endian uint64 pairs. */
    for (size_t j = 0; j < 4; j++)
        words[j] = (uint64_t)out32[2 * j] | ((uint64_t)out32[2 * j + 1] << 32);
}

/* ---- 2. PCG64 ---------------------------------------------------------------------------------------- */

#define PCG64_MULT_HI UINT64_C(0x2360ED051FC65DA4)
#define PCG64_MULT_LO UINT64_C(0x4385DF649FCCF645)

#if defined(__SIZEOF_INT128__) && !defined(HS_RNG_PORTABLE_U128)
__extension__ typedef unsigned __int128 u128;

static u128 u128_make(uint64_t hi, uint64_t lo) { return ((u128)hi << 64) | lo; }

/* state = state * M + inc (mod 2^128). */
static void pcg64_step(hs_pcg64 *rng) {
    u128 state = u128_make(rng->state_hi, rng->state_lo);
    state = state * u128_make(PCG64_MULT_HI, PCG64_MULT_LO) + u128_make(rng->inc_hi, rng->inc_lo);
    rng->state_hi = (uint64_t)(state >> 64);
    rng->state_lo = (uint64_t)state;
}

static void pcg64_add_to_state(hs_pcg64 *rng, uint64_t hi, uint64_t lo) {
    u128 state = u128_make(rng->state_hi, rng->state_lo) + u128_make(hi, lo);
    rng->state_hi = (uint64_t)(state >> 64);
    rng->state_lo = (uint64_t)state;
}
#else
/* Portable fallback: 128-bit arithmetic on (hi, lo) pairs of uint64. */
static void mul_64x64_128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32, b_lo = b & 0xffffffffu, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    uint64_t middle = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu); /* < 3 * 2^32: no overflow */
    *lo = (middle << 32) | (ll & 0xffffffffu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (middle >> 32);
}

static void add_128(uint64_t *hi, uint64_t *lo, uint64_t add_hi, uint64_t add_lo) {
    uint64_t sum_lo = *lo + add_lo;
    *hi += add_hi + (sum_lo < add_lo);
    *lo = sum_lo;
}

static void pcg64_step(hs_pcg64 *rng) {
    uint64_t hi, lo;
    mul_64x64_128(rng->state_lo, PCG64_MULT_LO, &hi, &lo);
    /* The cross terms only reach the high word (mod 2^128). */
    hi += rng->state_hi * PCG64_MULT_LO + rng->state_lo * PCG64_MULT_HI;
    add_128(&hi, &lo, rng->inc_hi, rng->inc_lo);
    rng->state_hi = hi;
    rng->state_lo = lo;
}

static void pcg64_add_to_state(hs_pcg64 *rng, uint64_t hi, uint64_t lo) {
    add_128(&rng->state_hi, &rng->state_lo, hi, lo);
}
#endif

/* pcg_setseq_128_srandom_r: initstate = w0:w1, initseq = w2:w3. */
void hs_pcg64_seed(hs_pcg64 *rng, uint64_t seed) {
    uint64_t w[4];
    hs_seed_sequence_words(seed, w);
    rng->state_hi = 0;
    rng->state_lo = 0;
    rng->inc_hi = (w[2] << 1) | (w[3] >> 63); /* inc = (initseq << 1) | 1 */
    rng->inc_lo = (w[3] << 1) | 1u;
    pcg64_step(rng);
    pcg64_add_to_state(rng, w[0], w[1]);
    pcg64_step(rng);
}

static uint64_t rotr64(uint64_t value, unsigned rot) {
    return (value >> rot) | (value << ((64u - rot) & 63u));
}

uint64_t hs_pcg64_next64(hs_pcg64 *rng) {
    pcg64_step(rng);
    return rotr64(rng->state_hi ^ rng->state_lo, (unsigned)(rng->state_hi >> 58));
}

double hs_pcg64_next_double(hs_pcg64 *rng) {
    return (double)(hs_pcg64_next64(rng) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- 3. ziggurat ------------------------------------------------------------------------------------- */

/* numpy's literal ziggurat_nor_inv_r; it equals 1.0 / hs_ziggurat_r in double precision. */
static const double ZIGGURAT_INV_R = 0.27366123732975828;

/* The tail beyond R (idx 0): Marsaglia's exponential method.  1 - U rather than U keeps log1p away
 * from log(0) (numpy gh-13361). */
static double ziggurat_tail(hs_pcg64 *rng, uint64_t rabs) {
    for (;;) {
        double xx = -ZIGGURAT_INV_R * log1p(-hs_pcg64_next_double(rng));
        double yy = -log1p(-hs_pcg64_next_double(rng));
        if (yy + yy > xx * xx)
            return ((rabs >> 8) & 0x1) ? -(hs_ziggurat_r + xx) : hs_ziggurat_r + xx;
    }
}

double hs_pcg64_standard_normal(hs_pcg64 *rng) {
    for (;;) {
        uint64_t r = hs_pcg64_next64(rng);
        int idx = (int)(r & 0xff);
        r >>= 8;
        int sign = (int)(r & 0x1);
        uint64_t rabs = (r >> 1) & UINT64_C(0x000fffffffffffff);
        double x = (double)rabs * hs_ziggurat_wi[idx];
        if (sign)
            x = -x;
        if (rabs < hs_ziggurat_ki[idx])
            return x; /* inside the rectangle: ~99.3% of draws */
        if (idx == 0)
            return ziggurat_tail(rng, rabs);
        /* In the wedge: accept under the density, else draw again. */
        double u = hs_pcg64_next_double(rng);
        if ((hs_ziggurat_fi[idx - 1] - hs_ziggurat_fi[idx]) * u + hs_ziggurat_fi[idx] < exp(-0.5 * x * x))
            return x;
    }
}

void hs_standard_normal(uint64_t seed, size_t n, double *out) {
    hs_pcg64 rng;
    hs_pcg64_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        out[i] = hs_pcg64_standard_normal(&rng);
}
