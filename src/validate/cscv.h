/* CSCV's per-split work (§9.5), shared by the walk (cscv.c) and the splits' evaluation (cscv_split.c). */
#ifndef HS_CSCV_H
#define HS_CSCV_H

#include <stddef.h>

#include "cscv_lanes.h"

/* One side of a split: every combo's m1 = Σ s1_g and m2 = Σ s2_g over its groups, and n = Σ n_g. */
typedef struct {
    const double *m1, *m2;
    size_t n;
} cscv_side;

/* Working room: CSCV_SCRATCH_DOUBLES x N doubles and N indices, allocated once per hs_cscv. */
#define CSCV_SCRATCH_DOUBLES 4
typedef struct {
    double *buf;
    size_t *cand;
    const cscv_lanes *lanes; /* the passes across combos of the ISA hs_isa_default picks */
} cscv_scratch;

/* Where the splits' outcomes go (any output pointer may be NULL but is_m and oos_m), and the counts. */
typedef struct {
    double *lambdas, *is_m, *oos_m;
    size_t *chosen;
    size_t kept, overfit, oos_loss;
} cscv_tally;

/* The two splits of one walked J: number `first` (in-sample a, out-of-sample b) and number `second` (in-sample
 * b, out-of-sample a). */
void hs_cscv_pair(const cscv_side *a, const cscv_side *b, size_t n_combos, size_t first, size_t second,
                  cscv_scratch *scratch, cscv_tally *tally);

#endif
