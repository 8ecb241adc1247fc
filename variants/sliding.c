/* sliding — O(1)-per-bar WMA by running sums, with every sign the event loop sees certified against the
 * tier-0 value.  Bit-identical per-combo PnL to the reference (gated as tier 0); the arithmetic that
 * produces d is NOT the reference's, only the decisions are.
 *
 * Why this is enough for bit-identical PnL: the books (kernels/tier0.h) read d only through its sign
 * (d > 0, d < 0, d == 0) and the bars where it is NaN.  The trades, their prices and the order in which
 * their PnL is summed follow from those signs alone.  So if every bar's sign equals the sign of the
 * tier-0 d, the PnL is the reference's to the last bit.
 *
 * How: each WMA is a window sum S1 = Σ x and a weighted sum S2 = Σ (j+1)·x, slid one bar at a time
 * (S2 += w·x_new − S1; S1 += x_new − x_old) and re-anchored by a direct sum every SLIDE_BLOCK bars.  An
 * a-priori error bound (slide_error_bound, derivation below) gives |d_approx − d_tier0| <= E for the
 * whole combo; wherever |d_approx| <= TAU = 4·E, or d_approx is not finite, the tier-0 d of that bar is
 * recomputed from the building blocks in the reference order (hma_tier0_at), so its sign is exact.
 * Bars needing that are rare: E is ~1e-12 of the largest price, d is rarely that close to zero.
 *
 * Cost: ~7 running sums x ~4 flops per bar instead of Σw ≈ 3L multiply-adds (L = 200: ~25x fewer).
 */
#include <math.h>

#include "tier0.h"
#include "variant.h"

/* Re-anchor every SLIDE_BLOCK bars.  The anchor costs w/SLIDE_BLOCK multiply-adds per bar; the drift it
 * bounds grows with the block length squared over w (see the bound), which at 256 is still ~1e-11 of the
 * largest price.  Measured (default sweep, single thread, Xeon VM): 64 -> 0.153 s, 256 -> see
 * reports/variants.md; the anchors' serial add chains were the largest single cost at 64. */
#ifndef SLIDE_BLOCK
#define SLIDE_BLOCK 256
#endif

typedef struct {
    double s1, s2;
} slide_sums;

/* Direct sums of the window ending at i.  The order of these sums is free (the bound below holds for any
 * order), so four partial sums each break the serial add chain. */
static inline slide_sums slide_anchor(const double *x, size_t i, int64_t w) {
    const double *base = x + i - (size_t)(w - 1);
    double a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 4 <= w; j += 4)
        for (int k = 0; k < 4; k++) {
            a[k] += base[j + k];
            b[k] += base[j + k] * (double)(j + k + 1);
        }
    for (; j < w; j++) {
        a[0] += base[j];
        b[0] += base[j] * (double)(j + 1);
    }
    return (slide_sums){(a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3])};
}

/* Slide the window from ending at i−1 to ending at i.  The two adds into the state are the only loop-
 * carried dependencies (one add each), so independent stages overlap. */
static inline void slide_step(slide_sums *s, double w, double x_new, double x_old) {
    s->s2 += w * x_new - s->s1;
    s->s1 += x_new - x_old;
}

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
static void slide_hma_raw(const double *x, size_t n, int64_t w0, int64_t w1, double *raw) {
    size_t first = (size_t)(w0 > w1 ? w0 : w1) - 1;
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

static void slide_hma3_raw(const double *x, size_t n, int64_t w3, int64_t w4, int64_t w5, double *raw) {
    size_t first = (size_t)w5 - 1; /* w5 >= w4 >= w3 (SPEC §2) */
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

/* ---- the tier-0 value at one bar, from the building blocks in the reference order ------------------- */
static double wma_tier0_at(const double *x, size_t i, int64_t w) {
    const double *base = x + i - (size_t)(w - 1);
    double s = 0.0;
    for (int64_t j = 0; j < w; j++) s += base[j] * (double)(j + 1);
    return s / hs_wma_denom(w);
}

static double hma_tier0_at(const double *close, size_t i, const int64_t *w) {
    double s = 0.0;
    for (int64_t j = 0; j < w[2]; j++) {
        size_t k = i - (size_t)(w[2] - 1) + (size_t)j;
        s += hs_hma_raw(wma_tier0_at(close, k, w[0]), wma_tier0_at(close, k, w[1])) * (double)(j + 1);
    }
    return s / hs_wma_denom(w[2]);
}

static double hma3_tier0_at(const double *close, size_t i, const int64_t *w) {
    double s = 0.0;
    for (int64_t j = 0; j < w[5]; j++) {
        size_t k = i - (size_t)(w[5] - 1) + (size_t)j;
        s += hs_hma3_raw(wma_tier0_at(close, k, w[3]), wma_tier0_at(close, k, w[4]), wma_tier0_at(close, k, w[5])) *
             (double)(j + 1);
    }
    return s / hs_wma_denom(w[5]);
}

/* ---- the error bound ------------------------------------------------------------------------------------
 * u = 2^-53; every input |x| <= M; denom = w(w+1)/2; γ_w = w·u/(1 − w·u).  Standard first-order bounds:
 *  - direct sum of w products with positive weights (anchor, and the tier-0 value itself):
 *      |ΔS2| <= γ_w·denom·M, |ΔS1| <= γ_w·w·M
 *  - one slide step adds to S1 at most 2u(w+1)M, and to S2 at most 3u(denom + w)M plus S1's error;
 *    after k <= K steps (K = SLIDE_BLOCK):  |ΔS2| <= γ_w·denom·M + 3Ku(denom + w)M + Kγ_w·wM + K²u(w+1)M
 *  - scaling by the rounded reciprocal adds 2u·M.
 *  Relative to M, a sliding WMA is off by at most
 *      ε(w) = γ_w(1 + 2K/(w+1)) + 3Ku(1 + 2/(w+1)) + 2K²u/w + 2u,
 *  and a tier-0 WMA by at most ε0(w) = γ_w + u.  Through the pipeline (a WMA of perturbed inputs is off
 *  by at most the largest input error plus its own):
 *      HMA : 2ε(w0)M + ε(w1)M + 3uM (the subtraction; |raw| <= 3M) + ε(w2)·3M
 *      HMA3: 3ε(w3)M + ε(w4)M + ε(w5)M + 12uM (three roundings; |raw3| <= 5M) + ε(w5)·5M
 *  and the same with ε0 for the tier-0 d.  E = both HMA bounds + both HMA3 bounds (approximate and tier
 *  0) + 8uM for d's own subtraction.  TAU = 4E leaves room for the second-order terms dropped above. */
static double gamma_w(double w) { return w * 0x1p-53 / (1.0 - w * 0x1p-53); }

static double eps_slide(int64_t w) {
    double u = 0x1p-53, K = SLIDE_BLOCK, wd = (double)w;
    return gamma_w(wd) * (1.0 + 2.0 * K / (wd + 1.0)) + 3.0 * K * u * (1.0 + 2.0 / (wd + 1.0)) + 2.0 * K * K * u / wd +
           2.0 * u;
}

static double eps_tier0(int64_t w) { return gamma_w((double)w) + 0x1p-53; }

static double pipeline_bound(const int64_t *w, double (*eps)(int64_t)) {
    double u = 0x1p-53;
    double hma = 2.0 * eps(w[0]) + eps(w[1]) + 3.0 * u + 3.0 * eps(w[2]);
    double hma3 = 3.0 * eps(w[3]) + eps(w[4]) + eps(w[5]) + 12.0 * u + 5.0 * eps(w[5]);
    return hma + hma3;
}

/* Four running maxima: one serial max chain over 150,000 bars cost ~15% of the kernel (measured). */
static double max_price(const double *close, size_t n) {
    double m[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) m[k] = close[i + k] > m[k] ? close[i + k] : m[k];
    for (; i < n; i++) m[0] = close[i] > m[0] ? close[i] : m[0];
    double a = m[0] > m[1] ? m[0] : m[1], b = m[2] > m[3] ? m[2] : m[3];
    return a > b ? a : b;
}

static double certify_threshold(const double *close, size_t n, const int64_t *w) {
    double m = max_price(close, n);
    double e = (pipeline_bound(w, eps_slide) + pipeline_bound(w, eps_tier0) + 8.0 * 0x1p-53) * m;
    return 4.0 * e;
}

/* scratch: raw, raw3 and d (registry line: 4 buffers, one spare). */
hs_result hs_combo_sliding__scalar(const double *close, size_t n, const hs_windows *win, double *scratch) {
    const int64_t *w = win->w;
    size_t stride = hs_scratch_stride(n);
    double *raw = scratch, *raw3 = scratch + stride, *d = scratch + 2 * stride;

    size_t raw_first = (size_t)w[1] - 1, raw3_first = (size_t)w[5] - 1;
    size_t hma_first = raw_first + (size_t)w[2] - 1, hma3_first = raw3_first + (size_t)w[5] - 1;
    size_t start = hma_first > hma3_first ? hma_first : hma3_first;
    if (start >= n) return hs_books_over(NULL, close, n, n);
    slide_hma_raw(close, n, w[0], w[1], raw);
    slide_hma3_raw(close, n, w[3], w[4], w[5], raw3);
    slide_d(raw, raw3, n, start, w[2], w[5], d);

    /* Certify: a branch-free scan (vectorised by the compiler) finds whether any bar is ambiguous; only
     * then the scalar loop recomputes those bars in tier-0 order. */
    double tau = certify_threshold(close, n, w);
    int ambiguous = 0;
    for (size_t i = start; i < n; i++) ambiguous |= !(fabs(d[i]) > tau);
    if (ambiguous)
        for (size_t i = start; i < n; i++)
            if (!(fabs(d[i]) > tau)) d[i] = hma3_tier0_at(close, i, w) - hma_tier0_at(close, i, w);
    return hs_books_over(d, close, start, n);
}
