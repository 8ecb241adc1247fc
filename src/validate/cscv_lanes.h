/* CSCV's per-combo passes, vectorised across combos (cscv_lanes.c, compiled once per ISA of isa.def).
 *
 * A split needs the in-sample best and the out-of-sample rank of one value: comparisons only.  So each
 * side's metrics are first BOUNDED, not computed: for every combo an interval [lo, hi] that surely holds
 * key(metric) = metric·|metric| (a strictly increasing map, so it orders as the metric does), from the
 * side's m1 and m2 with one division and no square root; the few combos whose interval cannot decide a
 * comparison get the spec's exact metric (hs_sharpe_metric).  The decisions are therefore exactly those
 * of the exact metrics (tier 0) on every ISA, whatever the bounds' own rounding.  cscv_split.c has the
 * proof of the bounds. */
#ifndef HS_CSCV_LANES_H
#define HS_CSCV_LANES_H

#include <stddef.h>

typedef struct {
    /* d1[c] = a1[c] + b1[c] and d2[c] = a2[c] + b2[c] for c < n: one IEEE add each, so tier 0 on every ISA (the
     * walk's partial sums; d may be a).  In the library's baseline code gcc fell back to scalar adds whenever
     * d was a (its overlap check), and used two lanes otherwise: 26% of hs_cscv's time in perf. */
    void (*add)(double *d1, double *d2, const double *a1, const double *a2, const double *b1, const double *b2,
                size_t n);
    /* lo[c], hi[c] for c < n_combos from m1, m2 over n >= 2 periods.  A metric surely NaN: lo = hi = −inf;
     * one the bounds cannot place (near var = 0, over- or underflow): lo = −inf, hi = +inf.  Returns the
     * largest lo (lo is never NaN). */
    double (*bounds)(const double *m1, const double *m2, size_t n, size_t n_combos, double *lo, double *hi);
    /* the indices with hi[c] >= floor (finite floor), ascending, into out; returns how many */
    size_t (*at_least)(const double *hi, size_t n_combos, double floor, size_t *out);
    /* *below = #{hi < v_lo}, *above = #{lo > v_hi}; the other indices (undecided), ascending, into out;
     * returns how many */
    size_t (*classify)(const double *lo, const double *hi, size_t n_combos, double v_lo, double v_hi, size_t *below,
                       size_t *above, size_t *out);
    int width;
} cscv_lanes;

#define CSCV_LANES_CAT_(a, b) a##b
#define CSCV_LANES_CAT(a, b) CSCV_LANES_CAT_(a, b)
#define CSCV_LANES_NAME(isa) CSCV_LANES_CAT(hs_cscv_lanes__, isa)

#endif
