/* simd_wma_dot — WMA vectorised within the window, tier 1.  hs:multi-isa
 *
 * Each output is a dot product of its window with the weights 1..w, computed HS_VN lanes at a time along
 * j with an explicit FMA into one vector accumulator, then summed horizontally: the sum is reassociated
 * (lane-strided partial sums) and each product is not rounded before its add, so results are not
 * bit-identical to the reference.  They pass the gate: trades equal and, on the default sweep, max
 * |ΔPnL| = 0 (the PnL depends only on the bars where d changes sign and the prices there, so a
 * reassociated d that keeps every sign gives the same trades at the same prices; gate_variant prints the
 * measured max |ΔPnL| for every data set it runs).
 *
 * This is the "obvious" SIMD WMA a numba or Rust author might write (and what LLVM produces for a dot
 * product under fast-math); it is slower than simd_wma because every output ends in a horizontal sum.
 */
#include "pipeline.h"
#include "vec.h"

#include <math.h>

/* `weights` (the fifth scratch buffer; w <= n so it fits) holds 1..w as doubles for the whole pass. */
static void wma_dot_pass(const double *x, size_t n, size_t first, int64_t w, double *out, double *weights) {
    for (int64_t j = 0; j < w; j++) weights[j] = (double)(j + 1);
    double denom = hs_wma_denom(w);
    size_t vec_len = (size_t)w - (size_t)w % HS_VN;
    for (size_t i = first + (size_t)w - 1; i < n; i++) {
        const double *base = x + i - (size_t)(w - 1);
        hs_vd acc = vd_zero();
        for (size_t j = 0; j < vec_len; j += HS_VN) acc = vd_fma(vd_loadu(base + j), vd_loadu(weights + j), acc);
        double s = vd_hsum(acc);
        for (size_t j = vec_len; j < (size_t)w; j++) s = fma(base[j], weights[j], s);
        out[i] = s / denom;
    }
}

hs_result HS_COMBO(simd_wma_dot)(const double *close, size_t n, const hs_windows *win, double *scratch) {
    return pipeline_combo(close, n, win, scratch, wma_dot_pass);
}
