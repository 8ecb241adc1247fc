/* CSCV's per-split work (§9.5), shared by the walk (cscv.c) and the splits' evaluation (cscv_split.c). */
#ifndef HS_CSCV_H
#define HS_CSCV_H

#include <stddef.h>
#include <stdint.h>

#include "cscv_lanes.h"

/* One side of a split: its groups (a bit each, S <= 20) over the group sums s1_g, s2_g ([groups][n_combos])
 * and n = Σ n_g. */
typedef struct {
    const double *s1, *s2; /* group g's row at g·stride */
    size_t n_combos, stride, groups;
    uint32_t mask;
    size_t n;
} cscv_side;

/* Combo c's m1 = Σ s1_g and m2 = Σ s2_g over the side's groups, ascending, from 0.0: the walk's sums, bit for
 * bit (§9.5's order). */
static inline void cscv_side_sums(const cscv_side *s, size_t c, double *m1, double *m2) {
    double a = 0.0, b = 0.0;
    for (size_t g = 0; g < s->groups; g++)
        if (s->mask >> g & 1u) {
            a += s->s1[g * s->stride + c];
            b += s->s2[g * s->stride + c];
        }
    *m1 = a;
    *m2 = b;
}

/* Working room: CSCV_SCRATCH_DOUBLES x N doubles and N indices, allocated once per hs_cscv.  buf holds the two
 * sides' bounds (cscv_lanes.h) when hs_cscv_pair is called: lo and hi of side a at buf and buf + stride, of
 * side b at buf + 2·stride and buf + 3·stride (stride: N rounded up to 8 doubles, so every array starts on a
 * 64-byte line). */
#define CSCV_SCRATCH_DOUBLES 4
typedef struct {
    double *buf;
    size_t stride;
    double top_a, top_b; /* the largest lo of each side (−inf when none), with the bounds */
    size_t *cand;
    const cscv_lanes *lanes; /* the passes across combos of the ISA hs_isa_default picks */
} cscv_scratch;

/* Where the splits' outcomes go (any output pointer may be NULL but is_m and oos_m), and the counts. */
typedef struct {
    double *lambdas, *is_m, *oos_m;
    size_t *chosen;
    size_t kept, overfit, oos_loss;
} cscv_tally;

/* The two splits of one walked J, from the bounds in scratch->buf: number `first` (in-sample a, out-of-sample
 * b) and number `second` (in-sample b, out-of-sample a). */
void hs_cscv_pair(const cscv_side *a, const cscv_side *b, size_t first, size_t second, cscv_scratch *scratch,
                  cscv_tally *tally);

#endif
