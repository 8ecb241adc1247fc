/* simd_wma — WMA vectorised across output bars, tier 0.
 *
 * Each lane computes one output bar with exactly the scalar operation sequence (acc = 0; acc += x·(j+1)
 * for j ascending; acc / denom), so every ISA is bit-identical to the reference.  The vector is filled by
 * consecutive outputs, whose windows overlap: lane k of step j reads x[i+k−w+1+j], i.e. one unaligned
 * load per j.  Built once per ISA of src/simd/isa.def from this one file.
 *
 * Why WMA_BLOCK vectors at a time: every lane's sum is one serial chain of adds, so a single vector is
 * bound by the add latency; WMA_BLOCK independent vectors share each weight.  Measured on this project's
 * Xeon VM (AVX-512, default sweep, single thread): WMA_BLOCK 4/6/8/12/16 -> 0.309/0.298/0.306/0.303/
 * 0.306 s, so past 4 the loop is bound by something else (reports/simd_wma_avx512_annotate.txt; the
 * unaligned loads are the suspect: 7 of 8 split a cache line).  Pre-shifted aligned copies of the input,
 * tried to remove the splits, were 2x slower and were dropped.
 */
#include "pipeline.h"
#include "vec.h"

#ifndef WMA_BLOCK
#define WMA_BLOCK 8
#endif

/* out[i .. i + WMA_BLOCK·HS_VN). */
static inline void wma_block(const double *x, int64_t w, size_t i, double denom, double *out) {
    const double *base = x + i - (size_t)(w - 1);
    hs_vd acc[WMA_BLOCK];
    for (int b = 0; b < WMA_BLOCK; b++) acc[b] = vd_zero();
    /* The weight j+1 as a double, stepped by an exact +1.0: one add instead of an int->double convert and
     * a broadcast, both of which compete with the multiplies and adds for the FP ports. */
    hs_vd weight = vd_zero(), one = vd_set1(1.0);
    for (int64_t j = 0; j < w; j++) {
        weight = vd_add(weight, one);
        for (int b = 0; b < WMA_BLOCK; b++) acc[b] = vd_add(acc[b], vd_mul(vd_loadu(base + j + b * HS_VN), weight));
    }
    hs_vd vden = vd_set1(denom);
    for (int b = 0; b < WMA_BLOCK; b++) vd_storeu(out + i + b * HS_VN, vd_div(acc[b], vden));
}

static void wma_across_outputs(const double *x, size_t n, size_t first, int64_t w, double *out, double *extra) {
    (void)extra;
    size_t i = first + (size_t)w - 1;
    double denom = hs_wma_denom(w);
    for (; i + WMA_BLOCK * HS_VN <= n; i += WMA_BLOCK * HS_VN) wma_block(x, w, i, denom, out);
    for (; i + HS_VN <= n; i += HS_VN) {
        const double *base = x + i - (size_t)(w - 1);
        hs_vd acc = vd_zero();
        for (int64_t j = 0; j < w; j++) acc = vd_add(acc, vd_mul(vd_loadu(base + j), vd_set1((double)(j + 1))));
        vd_storeu(out + i, vd_div(acc, vd_set1(denom)));
    }
    for (; i < n; i++) {
        const double *base = x + i - (size_t)(w - 1);
        double s = 0.0;
        for (int64_t j = 0; j < w; j++) s += base[j] * (double)(j + 1);
        out[i] = s / denom;
    }
}

size_t HS_SCRATCH(simd_wma)(size_t n) { return pipeline_scratch_doubles(n); }

hs_outcome HS_COMBO(simd_wma)(const double *close, size_t n, const hs_windows *win, double keep, double *scratch,
                                hs_mtm *mtm) {
    return pipeline_combo(close, n, win, keep, scratch, wma_across_outputs, mtm);
}
