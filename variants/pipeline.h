/* The HMA/HMA3 pipeline over valid ranges, with the WMA pass plugged in.
 *
 * Same values as the port (variants/port.h), computed without the NaN bookkeeping: a WMA of a series
 * whose first valid index is `first` is valid from first + w − 1, so each pass computes only there and
 * the event loop starts where both HMA and HMA3 are valid.  Where the port's d is NaN this skips the bar,
 * exactly as the port does; elsewhere the arithmetic is the tier-0 building blocks of kernels/tier0.h.
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

/* A WMA pass in the reference's operation order: d is the reference's, the books read it directly. */
static inline hs_result pipeline_combo(const double *close, size_t n, const hs_windows *win, double *scratch,
                                       pipe_wma_fn wma) {
    size_t start = pipeline_d(close, n, win, scratch, wma);
    return hs_books_over(scratch + hs_scratch_stride(n), close, start, n);
}

/* A WMA pass in another order whose values are within eps(w)·M of the exact WMA: every sign of d is
 * certified (certify.h) and the ambiguous bars are recomputed in tier-0 order, so the PnL is still the
 * reference's, bit for bit. */
static inline hs_result pipeline_combo_certified(const double *close, size_t n, const hs_windows *win,
                                                 double *scratch, pipe_wma_fn wma, double (*eps)(int64_t)) {
    size_t start = pipeline_d(close, n, win, scratch, wma);
    if (start >= n) return hs_books_over(NULL, close, n, n);
    double tau = certify_threshold_eps(max_price(close, n), win->w, eps);
    return certified_books(scratch + hs_scratch_stride(n), close, start, n, tau, win->w);
}

#endif
