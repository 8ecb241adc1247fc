/* The certification shared by the running-sum kernels (sliding, sliding_lanes): running sums with anchors,
 * the tier-0 value of d at one bar, and the a-priori bound that says where an approximate d's sign can
 * be trusted.  See src/variants/sliding.c for why certified signs give bit-identical PnL. */
#ifndef HS_CERTIFY_H
#define HS_CERTIFY_H

#include <float.h>
#include <math.h>

#include "tier0.h"
#include "variant.h"

/* Re-anchor every SLIDE_BLOCK bars.  The anchor costs w/SLIDE_BLOCK multiply-adds per bar; the drift it
 * bounds grows with the block length squared over w (see the bound), which at 256 is still ~1e-11 of the
 * largest price.  Measured on the default sweep (single thread, Xeon VM, other jobs running): block 64
 * with one-chain anchors 0.153 s; block 256 with four-chain anchors (slide_anchor) 0.122 s.  The anchors'
 * serial add chains had been the largest single cost. */
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

/* ---- the tier-0 value at one bar, from the building blocks in the reference order ------------------- */
static inline double wma_tier0_at(const double *x, size_t i, int64_t w) {
    const double *base = x + i - (size_t)(w - 1);
    double s = 0.0;
    for (int64_t j = 0; j < w; j++) s += base[j] * (double)(j + 1);
    return s / hs_wma_denom(w);
}

/* Four of them at once: out[q] = wma_tier0_at(x, i, w[q]) for the window of w[q] values ending at end[q]
 * (x + i), bit for bit: each sum is the same multiplies and adds in the same order, but the four serial add
 * chains run side by side, so they overlap instead of each waiting out the add latency alone (live mode's
 * exact path, src/live/live.c, where every sign of a flat series needs these).  The four sums are spelled
 * out as scalars, not a double s[4] looped over: at -O3 both compile to the same loop, but where the
 * compiler keeps s[] in memory (the RelWithDebInfo ASan build) the array form made live mode on the flat
 * series 3.6x the reference against 1.9x for this one (tests/test_worst_case, AVX2 EPYC), past the 3x
 * limit that CI asserts in that build too. */
static inline void wma_tier0_at4(const double *const end[4], const int64_t w[4], double out[4]) {
    const double *b0 = end[0] - (w[0] - 1), *b1 = end[1] - (w[1] - 1), *b2 = end[2] - (w[2] - 1),
                 *b3 = end[3] - (w[3] - 1);
    int64_t n = w[0];
    for (int q = 1; q < 4; q++) n = w[q] < n ? w[q] : n;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double k = (double)(j + 1);
        s0 += b0[j] * k;
        s1 += b1[j] * k;
        s2 += b2[j] * k;
        s3 += b3[j] * k;
    }
    for (int64_t j = n; j < w[0]; j++) s0 += b0[j] * (double)(j + 1);
    for (int64_t j = n; j < w[1]; j++) s1 += b1[j] * (double)(j + 1);
    for (int64_t j = n; j < w[2]; j++) s2 += b2[j] * (double)(j + 1);
    for (int64_t j = n; j < w[3]; j++) s3 += b3[j] * (double)(j + 1);
    out[0] = s0 / hs_wma_denom(w[0]), out[1] = s1 / hs_wma_denom(w[1]);
    out[2] = s2 / hs_wma_denom(w[2]), out[3] = s3 / hs_wma_denom(w[3]);
}

static inline double hma_tier0_at(const double *close, size_t i, const int64_t *w) {
    double s = 0.0;
    for (int64_t j = 0; j < w[2]; j++) {
        size_t k = i - (size_t)(w[2] - 1) + (size_t)j;
        s += hs_hma_raw(wma_tier0_at(close, k, w[0]), wma_tier0_at(close, k, w[1])) * (double)(j + 1);
    }
    return s / hs_wma_denom(w[2]);
}

static inline double hma3_tier0_at(const double *close, size_t i, const int64_t *w) {
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
static inline double gamma_w(double w) { return w * 0x1p-53 / (1.0 - w * 0x1p-53); }

/* A sliding WMA re-anchored every `block` steps (sliding, sliding_lanes: SLIDE_BLOCK; segments: its own). */
static inline double eps_slide_block(int64_t w, double block) {
    double u = 0x1p-53, K = block, wd = (double)w;
    return gamma_w(wd) * (1.0 + 2.0 * K / (wd + 1.0)) + 3.0 * K * u * (1.0 + 2.0 / (wd + 1.0)) + 2.0 * K * K * u / wd +
           2.0 * u;
}

static inline double eps_slide(int64_t w) { return eps_slide_block(w, SLIDE_BLOCK); }

static inline double eps_tier0(int64_t w) { return gamma_w((double)w) + 0x1p-53; }

static inline double pipeline_bound(const int64_t *w, double (*eps)(int64_t)) {
    double u = 0x1p-53;
    double hma = 2.0 * eps(w[0]) + eps(w[1]) + 3.0 * u + 3.0 * eps(w[2]);
    double hma3 = 3.0 * eps(w[3]) + eps(w[4]) + eps(w[5]) + 12.0 * u + 5.0 * eps(w[5]);
    return hma + hma3;
}

/* Four running maxima: one serial max chain over 150,000 bars cost ~15% of the kernel (measured). */
static inline double max_price(const double *close, size_t n) {
    double m[4] = {0, 0, 0, 0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) m[k] = close[i + k] > m[k] ? close[i + k] : m[k];
    for (; i < n; i++) m[0] = close[i] > m[0] ? close[i] : m[0];
    double a = m[0] > m[1] ? m[0] : m[1], b = m[2] > m[3] ? m[2] : m[3];
    return a > b ? a : b;
}

/* The bound holds only where nothing overflows and every rounding error is relative to M: the largest
 * value either pipeline forms is a smoothing sum, |Σ raw3·(j+1)| <= 5M·denom(w5) (M·denom for the sums
 * over close), kept 3x below DBL_MAX; and M >= 2^-900 keeps u·M far above the subnormal spacing.
 * Outside that range no sign is certified (tau = inf) and every bar is recomputed in tier-0 order.
 * Found by a random search (live mode, tests/test_live.c): prices near DBL_MAX/k with windows up to 12
 * made the reference's sums overflow where the running sums did not, and the trades differed. */
/* The smallest largest-price M for which the bound holds (see above); live mode's per-combo and per-lane
 * thresholds test it too. */
#define CERTIFY_M_MIN 0x1p-900

static inline int certify_in_range(double m, const int64_t *w) {
    int64_t wmax = 1;
    for (int k = 0; k < 6; k++) wmax = w[k] > wmax ? w[k] : wmax;
    return m >= CERTIFY_M_MIN && m <= DBL_MAX / (16.0 * hs_wma_denom(wmax));
}

/* TAU for a kernel whose WMAs are off by at most eps(w)·M (relative to the largest price m); +inf (no
 * sign certified) outside certify_in_range. */
static inline double certify_threshold_eps(double m, const int64_t *w, double (*eps)(int64_t)) {
    if (!certify_in_range(m, w)) return INFINITY;
    double e = (pipeline_bound(w, eps) + pipeline_bound(w, eps_tier0) + 8.0 * 0x1p-53) * m;
    return 4.0 * e;
}

static inline double certify_threshold_m(double m, const int64_t *w) { return certify_threshold_eps(m, w, eps_slide); }

/* Direct-sum WMAs in another order: the same w products summed in any order, with or without fused
 * multiply-adds (a fused product only drops a rounding), obey |ΔS2| <= γ_w·denom·M; the division adds u
 * (eps_tier0), a multiply by the rounded reciprocal 2u (eps_recip). */
static inline double eps_recip(int64_t w) { return gamma_w((double)w) + 2.0 * 0x1p-53; }

static inline double certify_threshold(const double *close, size_t n, const int64_t *w) {
    return certify_threshold_m(max_price(close, n), w);
}

/* The sign of an approximate d is certain only where |d| > tau AND d is finite: the bound says nothing
 * about a d whose sums overflowed to ±inf (the tier-0 d of that bar may be finite with the other sign,
 * or NaN, which the books skip).  NaN fails both tests. */
static inline int certify_sure(double d, double tau) { return fabs(d) > tau && fabs(d) <= DBL_MAX; }

/* ---- the local bound (issue 21) ---------------------------------------------------------------------
 * The bound above holds with M = the largest value the computation of ONE bar's d touched, not the
 * series' maximum: every rounding in it is relative to a value that entered a sum since that sum's last
 * anchor.  d at bar i reads the closes from i − lag (lag = hs_first_bars.start, the reference's own
 * chain of windows) and, for running sums re-anchored every `block` bars, up to block − 1 slides more at
 * each of its two levels.  So the threshold is taken per chunk of CERT_CHUNK bars from the largest close
 * within that lookback: a spike, or one price past the certification range, poisons only the chunks up
 * to one lookback after it (it had made 99.5% of a 1e12-spiked walk ambiguous, issue 21). */
#define CERT_CHUNK 256

static inline size_t cert_chunks(size_t n) { return (n + CERT_CHUNK - 1) / CERT_CHUNK; }

static inline size_t certify_lookback(const int64_t *w, size_t block) { return hs_first_bars_of(w).start + 2 * block; }

/* cm[c] = the largest close of chunk c. */
static inline void certify_chunk_max(const double *close, size_t n, double *cm) {
    for (size_t c = 0, nc = cert_chunks(n); c < nc; c++) {
        size_t lo = c * CERT_CHUNK, len = n - lo < CERT_CHUNK ? n - lo : CERT_CHUNK;
        cm[c] = max_price(close + lo, len);
    }
}

/* tau[c]: certify_threshold_eps at the largest close within `lookback` bars before chunk c's first bar
 * and up to its last.  tau may be cm itself (filled from the last chunk down). */
static inline void certify_tau_from_max(const double *cm, size_t nc, const int64_t *w, double (*eps)(int64_t),
                                        size_t lookback, double *tau) {
    size_t k = (lookback + CERT_CHUNK - 1) / CERT_CHUNK;
    for (size_t c = nc; c-- > 0;) {
        double m = cm[c];
        for (size_t j = c > k ? c - k : 0; j < c; j++) m = cm[j] > m ? cm[j] : m;
        tau[c] = certify_threshold_eps(m, w, eps);
    }
}

static inline void certify_tau_table(const double *close, size_t n, const int64_t *w, double (*eps)(int64_t),
                                     size_t lookback, double *tau) {
    certify_chunk_max(close, n, tau);
    certify_tau_from_max(tau, cert_chunks(n), w, eps, lookback, tau);
}

#ifdef HS_ISA_NAME
#include "vec.h"
/* certify_sure across the lanes of a vector (multi-ISA kernels): bit l set where lane l is certain. */
static inline unsigned vd_certain_bits(hs_vd d, hs_vd tau) {
    return vd_absgt_bits(d, tau) & ~vd_absgt_bits(d, vd_set1(DBL_MAX));
}
#endif

/* Certify d[start..n) against tau, recomputing the ambiguous bars in tier-0 order, then run the books.
 * A branch-free scan (vectorised by the compiler) finds whether any bar is ambiguous; only then the
 * scalar loop recomputes those bars. */
static inline hs_outcome certified_books(double *d, const double *close, size_t start, size_t n, double keep,
                                         double tau, const int64_t *w) {
    int ambiguous = 0;
    for (size_t i = start; i < n; i++) ambiguous |= !certify_sure(d[i], tau);
    if (ambiguous)
        for (size_t i = start; i < n; i++)
            if (!certify_sure(d[i], tau)) d[i] = hma3_tier0_at(close, i, w) - hma_tier0_at(close, i, w);
    return hs_books_over(d, close, start, n, keep);
}

#endif
