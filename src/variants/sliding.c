/* sliding — O(1)-per-bar WMA by running sums, with every sign the event loop sees certified against the
 * tier-0 value.  Bit-identical per-combo PnL to the reference (gated as tier 0); the arithmetic that
 * produces d is NOT the reference's, only the decisions are.
 *
 * Why this is enough for bit-identical PnL: the books (src/spec/tier0.h) read d only through its sign
 * (d > 0, d < 0, d == 0) and the bars where it is NaN.  The trades, their prices and the order in which
 * their PnL is summed follow from those signs alone.  So if every bar's sign equals the sign of the
 * tier-0 d, the PnL is the reference's to the last bit.
 *
 * How: each WMA is a window sum S1 = Σ x and a weighted sum S2 = Σ (j+1)·x, slid one bar at a time
 * (S2 += w·x_new − S1; S1 += x_new − x_old) and re-anchored by a direct sum every SLIDE_BLOCK bars.  An
 * a-priori error bound (certify.h) gives |d_approx − d_tier0| <= E, in the largest close each chunk of
 * bars can have touched; wherever |d_approx| <= TAU = 4·E, or d_approx is not finite, the tier-0 d of that
 * bar is recomputed in the reference order, so its sign is exact.  Bars needing that are rare (E is ~1e-12
 * of the local maximum, d is rarely that close to zero); where they are not (flat or ulp-alternating
 * prices, a price past the certification range), the tier-0 pipeline computes that stretch at O(Σw) per
 * bar (pipeline.h: certified_books_bounded), so no input costs more than ~one reference run on top.
 *
 * Cost: ~7 running sums x ~4 flops per bar instead of Σw ≈ 3L multiply-adds (L = 200: ~25x fewer).
 */
#include "pipeline.h"

/* The two smoothing WMAs (HMA over raw with w2, HMA3 over raw3 with w5) in one loop, writing
 * d = HMA3 − HMA for bars [start, n). */
static void slide_d(const double *raw, const double *raw3, size_t n, size_t start, int64_t w2, int64_t w5, double *d) {
    double d2 = (double)w2, d5 = (double)w5, i2 = 1.0 / hs_wma_denom(w2), i5 = 1.0 / hs_wma_denom(w5);
    for (size_t blk = start; blk < n; blk += SLIDE_BLOCK) {
        size_t end = blk + SLIDE_BLOCK < n ? blk + SLIDE_BLOCK : n;
        slide_sums h = slide_anchor(raw, blk, w2), h3 = slide_anchor(raw3, blk, w5);
        d[blk] = h3.s2 * i5 - h.s2 * i2;
        for (size_t i = blk + 1; i < end; i++) {
            slide_step(&h, d2, raw[i], raw[i - (size_t)w2]);
            slide_step(&h3, d5, raw3[i], raw3[i - (size_t)w5]);
            d[i] = h3.s2 * i5 - h.s2 * i2;
        }
    }
}

/* Two windows over the same input in one loop (the HMA pair and the HMA3 triple share their input), so
 * their dependency chains overlap; combine() is the spec's raw series. */
static void slide_hma_raw(const double *x, size_t n, size_t first, int64_t w0, int64_t w1, double *raw) {
    double d0 = (double)w0, d1 = (double)w1, i0 = 1.0 / hs_wma_denom(w0), i1 = 1.0 / hs_wma_denom(w1);
    for (size_t blk = first; blk < n; blk += SLIDE_BLOCK) {
        size_t end = blk + SLIDE_BLOCK < n ? blk + SLIDE_BLOCK : n;
        slide_sums a = slide_anchor(x, blk, w0), b = slide_anchor(x, blk, w1);
        raw[blk] = hs_hma_raw(a.s2 * i0, b.s2 * i1);
        for (size_t i = blk + 1; i < end; i++) {
            slide_step(&a, d0, x[i], x[i - (size_t)w0]);
            slide_step(&b, d1, x[i], x[i - (size_t)w1]);
            raw[i] = hs_hma_raw(a.s2 * i0, b.s2 * i1);
        }
    }
}

static void slide_hma3_raw(const double *x, size_t n, size_t first, int64_t w3, int64_t w4, int64_t w5,
                           double *raw) {
    double d3 = (double)w3, d4 = (double)w4, d5 = (double)w5;
    double i3 = 1.0 / hs_wma_denom(w3), i4 = 1.0 / hs_wma_denom(w4), i5 = 1.0 / hs_wma_denom(w5);
    for (size_t blk = first; blk < n; blk += SLIDE_BLOCK) {
        size_t end = blk + SLIDE_BLOCK < n ? blk + SLIDE_BLOCK : n;
        slide_sums t = slide_anchor(x, blk, w3), h = slide_anchor(x, blk, w4), f = slide_anchor(x, blk, w5);
        raw[blk] = hs_hma3_raw(t.s2 * i3, h.s2 * i4, f.s2 * i5);
        for (size_t i = blk + 1; i < end; i++) {
            slide_step(&t, d3, x[i], x[i - (size_t)w3]);
            slide_step(&h, d4, x[i], x[i - (size_t)w4]);
            slide_step(&f, d5, x[i], x[i - (size_t)w5]);
            raw[i] = hs_hma3_raw(t.s2 * i3, h.s2 * i4, f.s2 * i5);
        }
    }
}

/* The d the last hs_combo_sliding__scalar call left in its scratch: bars [start, n) certified (each sign
 * the tier-0 d's; src/api/signals.c reads it through the books for hmasweep.signals). */
const double *hs_sliding_certified_d(const double *scratch, size_t n) { return scratch + 2 * hs_scratch_stride(n); }

/* scratch: raw, raw3, d, the certification's tau table and work, and the four buffers of the bounded
 * fallback's tier-0 pipeline (pipeline.h: certified_books_bounded). */
size_t hs_scratch_sliding__scalar(size_t n) {
    return hs_scratch_sum(3 * hs_scratch_stride(n), certified_tail_doubles(n, 2 * cert_chunks(n)));
}

hs_outcome hs_combo_sliding__scalar(const double *close, size_t n, const hs_windows *win, double keep, double *scratch,
                                     hs_mtm *mtm) {
    const int64_t *w = win->w;
    size_t stride = hs_scratch_stride(n);
    double *raw = scratch, *raw3 = scratch + stride, *d = scratch + 2 * stride, *tau = scratch + 3 * stride;

    hs_first_bars f = hs_first_bars_of(w);
    if (f.start >= n) return hs_outcome_empty();
    slide_hma_raw(close, n, f.raw, w[0], w[1], raw);
    slide_hma3_raw(close, n, f.raw3, w[3], w[4], w[5], raw3);
    slide_d(raw, raw3, n, f.start, w[2], w[5], d);

    certify_tau_table(close, n, w, eps_slide, certify_lookback(w, SLIDE_BLOCK), tau);
    return certified_books_bounded(d, close, f.start, n, keep, win, tau, tau + cert_chunks(n), scratch + 4 * stride,
                                   mtm);
}
