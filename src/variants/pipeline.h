/* The HMA/HMA3 pipeline over valid ranges, with the WMA pass plugged in.
 *
 * Same values as the port (src/variants/port.h), computed without the NaN bookkeeping: a WMA of a series
 * whose first valid index is `first` is valid from first + w − 1, so each pass computes only there and
 * the event loop starts where both HMA and HMA3 are valid.  Where the port's d is NaN this skips the bar,
 * exactly as the port does; elsewhere the arithmetic is the tier-0 building blocks of src/spec/tier0.h.
 * Four scratch buffers (A–D) are reused in place:
 *   HMA : A = WMA(close,w0), B = WMA(close,w1), A = 2A − B, D = WMA(A,w2)
 *   HMA3: A = WMA(close,w3), B = WMA(close,w4), C = WMA(close,w5), A = (3A − B) − C, B = WMA(A,w5)
 *   d   = B − D (in B), then the books (hs_books_over), or, for a pass not in the reference's order,
 *         the certified books (pipeline_combo_certified)
 *
 * The WMA pass fills out[first+w-1 .. n) from x[first .. n); `extra` points past the four pipeline
 * buffers, at whatever further scratch the variant asked the registry for (scratch_buffers > 4).
 */
#ifndef HS_PIPELINE_H
#define HS_PIPELINE_H

#include <stdint.h>
#include <string.h>

#include "certify.h"
#include "tier0.h"
#include "variant.h"

#define PIPELINE_BUFFERS 4

/* The pipeline as a function of a WMA pass (a static function of the including file, inlined). */
typedef void (*pipe_wma_fn)(const double *x, size_t n, size_t first, int64_t w, double *out, double *extra);

/* d = HMA3 − HMA into the second buffer (B) for bars [start, n); returns start (>= n: no valid d). */
static inline size_t pipeline_d(const double *close, size_t n, const hs_windows *win, double *scratch,
                                pipe_wma_fn wma) {
    size_t stride = hs_scratch_stride(n);
    double *A = scratch, *B = scratch + stride, *C = scratch + 2 * stride, *D = scratch + 3 * stride;
    double *E = scratch + PIPELINE_BUFFERS * stride;
    const int64_t *w = win->w;

    hs_first_bars f = hs_first_bars_of(w);

    /* HMA */
    wma(close, n, 0, w[0], A, E);
    wma(close, n, 0, w[1], B, E);
    for (size_t i = f.raw; i < n; i++) A[i] = hs_hma_raw(A[i], B[i]);
    if (f.hma < n) wma(A, n, f.raw, w[2], D, E);

    /* HMA3 */
    wma(close, n, 0, w[3], A, E);
    wma(close, n, 0, w[4], B, E);
    wma(close, n, 0, w[5], C, E);
    for (size_t i = f.raw3; i < n; i++) A[i] = hs_hma3_raw(A[i], B[i], C[i]);
    if (f.hma3 < n) wma(A, n, f.raw3, w[5], B, E);

    for (size_t i = f.start; i < n; i++) B[i] -= D[i];
    return f.start;
}

/* The scratch pipeline_d carves: its four buffers A–D. */
static inline size_t pipeline_scratch_doubles(size_t n) { return PIPELINE_BUFFERS * hs_scratch_stride(n); }

/* The scratch certified_books_bounded is given after a kernel's own buffers: one buffer holding `tables`
 * doubles of chunk tables (the tau table, its work, and whatever else the kernel keeps per chunk), then the
 * fallback's four pipeline buffers; SIZE_MAX where the tables outgrow their one buffer. */
static inline size_t certified_tail_doubles(size_t n, size_t tables) {
    size_t stride = hs_scratch_stride(n);
    return tables > stride ? SIZE_MAX : (1 + PIPELINE_BUFFERS) * stride;
}

/* A WMA pass in the reference's operation order: d is the reference's, the books read it directly. */
static inline hs_outcome pipeline_combo(const double *close, size_t n, const hs_windows *win, double keep,
                                        double *scratch, pipe_wma_fn wma, hs_mtm *mtm) {
    size_t start = pipeline_d(close, n, win, scratch, wma);
    return hs_books_over_mtm(scratch + hs_scratch_stride(n), close, start, n, keep, mtm);
}

/* ---- the bounded fallback (issue 21) ------------------------------------------------------------------
 * A bar whose sign is not certified used to be recomputed alone (hma_tier0_at): w2·(w0+w1+1) +
 * w5·(w3+w4+w5+1) multiply-adds, quadratic in the windows.  On a flat series (every d exactly 0), an
 * ulp-alternating one or a price past the certification range, that is every bar: 67 s against 0.12 s for
 * `unchecked` on 8,000 bars of (1000,2000,1000,500,1000,2000).  The pipeline in the reference's order
 * gives the same d at Σw multiply-adds per bar, so where the recomputes would cost more, it runs instead
 * over that range of bars. */

/* The WMA pass in the reference's order (wma_tier0_at), for pipeline_d. */
static inline void wma_tier0_pass(const double *x, size_t n, size_t first, int64_t w, double *out, double *extra) {
    (void)extra;
    for (size_t i = first + (size_t)w - 1; i < n; i++) out[i] = wma_tier0_at(x, i, w);
}

/* d[a..b) (a >= the first bar with a d) in the reference's order: each d depends only on the closes
 * within its lag, in a fixed order, so the pipeline over close[a − lag, b) gives the whole series' values.
 * `pipe`: 4 buffers of hs_scratch_stride(n) doubles, n >= b. */
static inline void pipeline_d_range(const double *close, size_t a, size_t b, const hs_windows *win, double *pipe,
                                    double *d) {
    size_t off = a - hs_first_bars_of(win->w).start, m = b - off;
    size_t first = pipeline_d(close + off, m, win, pipe, wma_tier0_pass);
    memcpy(d + a, pipe + hs_scratch_stride(m) + first, (b - a) * sizeof *d);
}

/* Certify d[start..n) chunk by chunk against tau[c] (certify_tau_table), with bounded work, then run the
 * books.  Per chunk: where its ambiguous bars would cost more to recompute one by one than the tier-0
 * pipeline over the chunk, the pipeline computes the chunk; such chunks closer than one lag join one
 * range (a range pays the lag's warm-up once); and when the plan costs more than the pipeline over the
 * whole series, the whole series is one range.  So the work beyond the certified pass is at most one
 * tier-0 pipeline, the reference's own O(n·Σw).  `work`: cert_chunks(n) doubles; `pipe` as above. */
static inline hs_outcome certified_books_bounded(double *d, const double *close, size_t start, size_t n, double keep,
                                                 const hs_windows *win, const double *tau, double *work, double *pipe,
                                                 hs_mtm *mtm) {
    if (start >= n) return hs_outcome_empty();
    const int64_t *w = win->w;
    size_t lag = hs_first_bars_of(w).start, nc = cert_chunks(n), c0 = start / CERT_CHUNK;
    double sumw = (double)(w[0] + w[1] + w[2] + w[3] + w[4] + 2 * w[5]);
    double per_bar = (double)w[2] * (double)(w[0] + w[1] + 1) + (double)w[5] * (double)(w[3] + w[4] + w[5] + 1);
#define CHUNK_LO(c) ((c) * CERT_CHUNK > start ? (c) * CERT_CHUNK : start)
#define CHUNK_HI(c) ((c) * CERT_CHUNK + CERT_CHUNK < n ? (c) * CERT_CHUNK + CERT_CHUNK : n)
    /* 1. The ambiguous bars of each chunk (a branch-free count the compiler vectorises). */
    size_t ambiguous = 0;
    for (size_t c = c0; c < nc; c++) {
        size_t count = 0;
        for (size_t i = CHUNK_LO(c); i < CHUNK_HI(c); i++) count += !certify_sure(d[i], tau[c]);
        work[c] = (double)count;
        ambiguous += count;
    }
    if (!ambiguous) return hs_books_over_mtm(d, close, start, n, keep, mtm);
    /* 2. The plan: work[c] < 0 marks a chunk the pipeline computes. */
    double cost = 0.0;
    size_t last = SIZE_MAX; /* the last chunk marked */
    for (size_t c = c0; c < nc; c++) {
        double len = (double)(CHUNK_HI(c) - CHUNK_LO(c));
        if (work[c] * per_bar <= len * sumw) {
            cost += work[c] * per_bar;
            continue;
        }
        if (last != SIZE_MAX && CHUNK_LO(c) - CHUNK_HI(last) <= lag) { /* join the range before */
            for (size_t j = last + 1; j < c; j++) {
                cost += (double)(CHUNK_HI(j) - CHUNK_LO(j)) * sumw - work[j] * per_bar;
                work[j] = -1.0;
            }
            cost += len * sumw;
        } else {
            cost += (len + (double)lag) * sumw;
        }
        work[c] = -1.0;
        last = c;
    }
    if (cost > (double)n * sumw)
        for (size_t c = c0; c < nc; c++) work[c] = -1.0;
    /* 3. Ranges through the pipeline, the other ambiguous bars one by one. */
    long long tier0_bars = 0;
    for (size_t c = c0; c < nc;) {
        if (work[c] < 0.0) {
            size_t e = c;
            while (e < nc && work[e] < 0.0) e++;
            pipeline_d_range(close, CHUNK_LO(c), CHUNK_HI(e - 1), win, pipe, d);
            tier0_bars += (long long)(CHUNK_HI(e - 1) - CHUNK_LO(c));
            c = e;
            continue;
        }
        if (work[c] > 0.0)
            for (size_t i = CHUNK_LO(c); i < CHUNK_HI(c); i++)
                if (!certify_sure(d[i], tau[c])) {
                    d[i] = hma3_tier0_at(close, i, w) - hma_tier0_at(close, i, w);
                    tier0_bars++;
                }
        c++;
    }
#undef CHUNK_LO
#undef CHUNK_HI
    hs_kernel_count_recomputed(tier0_bars);
    return hs_books_over_mtm(d, close, start, n, keep, mtm);
}

/* A WMA pass in another order whose values are within eps(w)·M of the exact WMA: every sign of d is
 * certified (certify.h) and the ambiguous bars are recomputed in tier-0 order, so the PnL is still the
 * reference's, bit for bit.  `cert`: 5 buffers (the tau table and its work, then the fallback's four). */
static inline hs_outcome pipeline_combo_certified(const double *close, size_t n, const hs_windows *win, double keep,
                                                  double *scratch, pipe_wma_fn wma, double (*eps)(int64_t),
                                                  double *cert, hs_mtm *mtm) {
    size_t start = pipeline_d(close, n, win, scratch, wma);
    if (start >= n) return hs_outcome_empty();
    size_t stride = hs_scratch_stride(n);
    certify_tau_table(close, n, win->w, eps, certify_lookback(win->w, 0), cert);
    return certified_books_bounded(scratch + stride, close, start, n, keep, win, cert, cert + cert_chunks(n),
                                   cert + stride, mtm);
}

#endif
