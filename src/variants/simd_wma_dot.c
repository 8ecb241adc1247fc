/* simd_wma_dot — WMA vectorised within the window, signs certified: tier 0.
 *
 * Each output is a dot product of its window with the weights 1..w, computed HS_VN lanes at a time along
 * j with an explicit FMA (a multiply and an add on ISAs without one) into one vector accumulator, then summed horizontally: the sum is reassociated
 * (lane-strided partial sums) and each product is not rounded before its add, so its d is not the
 * reference's d.  Uncertified, that was NOT safe: on real FX data (a flat start) the reference's d at the
 * first bar is +2.2e-16 and this sum's is exactly 0, one trade apart (issue 9).  The gate's quote-like
 * series (flat stretches, 1e-5 / 1e-4 ticks) reproduce it: uncertified, 18 checks failed on avx2 and 10
 * on scalar, up to 2 trades per combo.  So, as in sliding, every sign of d is certified against an
 * a-priori bound (any summation order, FMA or not: |ΔS| <= γ_w·denom·M, certify.h eps_tier0) and the
 * ambiguous bars are recomputed in tier-0 order: the PnL is the reference's, bit for bit.
 *
 * This is the "obvious" SIMD WMA a numba or Rust author might write (and what LLVM produces for a dot
 * product under fast-math); it is slower than simd_wma because every output ends in a horizontal sum.
 */
#include "pipeline.h"
#include "vec.h"

#include <math.h>

/* The multiply-add of the dot product: one FMA instruction where the ISA has it (HS_VD_FMA_FUSED: AVX2,
 * AVX-512, NEON); elsewhere (SSE2, scalar) a multiply then an add.  SSE2 has no FMA, and its vd_fma is two
 * libm fma calls through memory: the flat and ulp worst cases ran at 3.4-5.3x the reference there, past
 * test_worst_case's 3x (issue 29 item 9).  The certification's bound holds for any order, fused or not
 * (certify.h eps_tier0), so the PnL is the reference's bit for bit either way. */
#ifdef HS_VD_FMA_FUSED
#define DOT_STEP(a, b, acc) vd_fma(a, b, acc)
#define DOT_STEP1(a, b, s) fma(a, b, s)
#else
#define DOT_STEP(a, b, acc) vd_add(vd_mul(a, b), acc)
#define DOT_STEP1(a, b, s) ((a) * (b) + (s))
#endif

/* `weights` (the fifth scratch buffer; w <= n so it fits) holds 1..w as doubles for the whole pass; the
 * five after it are the certification's (HS_SCRATCH below). */
static void wma_dot_pass(const double *x, size_t n, size_t first, int64_t w, double *out, double *weights) {
    for (int64_t j = 0; j < w; j++) weights[j] = (double)(j + 1);
    double denom = hs_wma_denom(w);
    size_t vec_len = (size_t)w - (size_t)w % HS_VN;
    for (size_t i = first + (size_t)w - 1; i < n; i++) {
        const double *base = x + i - (size_t)(w - 1);
        hs_vd acc = vd_zero();
        for (size_t j = 0; j < vec_len; j += HS_VN) acc = DOT_STEP(vd_loadu(base + j), vd_loadu(weights + j), acc);
        double s = vd_hsum(acc);
        for (size_t j = vec_len; j < (size_t)w; j++) s = DOT_STEP1(base[j], weights[j], s);
        out[i] = s / denom;
    }
}

/* The pipeline's four buffers, the weights, then the certification's tail (its tau table and work). */
size_t HS_SCRATCH(simd_wma_dot)(size_t n) {
    return hs_scratch_sum(pipeline_scratch_doubles(n) + hs_scratch_stride(n), certified_tail_doubles(n, 2 * cert_chunks(n)));
}

hs_outcome HS_COMBO(simd_wma_dot)(const double *close, size_t n, const hs_windows *win, double keep, double *scratch,
                                  hs_mtm *mtm) {
    return pipeline_combo_certified(close, n, win, keep, scratch, wma_dot_pass, eps_tier0,
                                    scratch + (PIPELINE_BUFFERS + 1) * hs_scratch_stride(n), mtm);
}
