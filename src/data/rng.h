/* hmasweep — internal: numpy's Generator normal stream (SeedSequence -> PCG64 -> ziggurat).
 *
 * Not part of the public API (include/hmasweep.h has hs_standard_normal); exposed so that tests can check
 * each stage against the numbers in docs/spec.md §1 and so that other kernels could draw more values from one
 * stream without re-seeding.
 */
#ifndef HS_RNG_H
#define HS_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The 128-bit PCG64 state and increment, as two 64-bit halves each (so the struct is the same whether
 * the build uses unsigned __int128 or the portable fallback). */
typedef struct {
    uint64_t state_hi, state_lo;
    uint64_t inc_hi, inc_lo;
} hs_pcg64;

/* numpy's SeedSequence(seed).generate_state(4, np.uint64). */
void hs_seed_sequence_words(uint64_t seed, uint64_t words[4]);
/* PCG64 seeded as numpy's PCG64(SeedSequence(seed)). */
void hs_pcg64_seed(hs_pcg64 *rng, uint64_t seed);
/* One 64-bit output (step, then XSL-RR of the new state). */
uint64_t hs_pcg64_next64(hs_pcg64 *rng);
/* (next64 >> 11) * 2^-53: a double in [0, 1). */
double hs_pcg64_next_double(hs_pcg64 *rng);
/* One standard normal by numpy's 256-level ziggurat (random_standard_normal). */
double hs_pcg64_standard_normal(hs_pcg64 *rng);

/* numpy's ziggurat tables for the double-precision standard normal (src/data/ziggurat_tables.c, generated
 * from src/data/ziggurat/ziggurat_normal_double.tsv). */
#define HS_ZIGGURAT_LEVELS 256
extern const uint64_t hs_ziggurat_ki[HS_ZIGGURAT_LEVELS];
extern const double hs_ziggurat_wi[HS_ZIGGURAT_LEVELS];
extern const double hs_ziggurat_fi[HS_ZIGGURAT_LEVELS];
extern const double hs_ziggurat_r; /* the tail's start, R = 3.6541528853610088 */

#endif
