/* The line-for-line port of the study's numba kernel, written once and instantiated three ways.
 *
 * The numba kernel (and the study's Rust port of it) is: wma() allocates `np.full(n, nan)` and fills
 * i >= w-1 with a one-accumulator dot product whose weight `(j + 1)` is an int64 converted to f64 in
 * the inner loop; hma()/hma3() combine whole arrays (numba fuses `2.0*half - full` into one loop
 * writing a fresh np.empty array); the event loop walks d = hma3 - hma.  Nine n-length arrays per combo.
 *
 * An including file defines, before #include:
 *   PORT_KERNEL            the kernel name (function hs_combo_<PORT_KERNEL>__scalar); left undefined,
 *                          no combo function is emitted, only port_combo (hs_trade_log calls it)
 *   PORT_AT(slice, i)      element access: checked (naive) or plain (unchecked, prealloc)
 *   PORT_BUFFER(slot, n, scratch)  an n-double buffer: malloc per call, or slot `slot` of the scratch
 *   PORT_RELEASE(p)        what happens when a buffer goes out of scope (free, or nothing)
 * Optional, for the experiment instruments (study/gap/instruments/x_*.c); the defaults are the port itself:
 *   PORT_WEIGHT_STATE      a declaration before each inner WMA loop (default: none)
 *   PORT_WEIGHT(j)         the weight of term j (default `(double)(j + 1)`, an int64 -> f64 conversion)
 *   PORT_INNER_PRAGMA      a _Pragma before the inner WMA loop (default: none)
 *   PORT_DIVIDE(s, denom)  the WMA's final scaling (default `s / denom`)
 *   PORT_NAN_COUNT(n, w)   how many leading elements a WMA output gets NaN-filled (default n: np.full)
 *   PORT_SCRATCH_DOUBLES(n) the doubles of the driver's scratch PORT_BUFFER uses (default 0: its own buffers)
 *   PORT_CERTIFY_EPS       for an instrument whose arithmetic is not the reference's (x_recip): the
 *                          error bound eps(w) of its WMAs; the event loop then certifies every sign of d
 *                          (certify.h) and recomputes the ambiguous bars in tier-0 order, so it stays tier 0
 *   PORT_STOP(scratch, i)  non-zero ends every later loop of the combo before its row i: the trade log's
 *                          cancel (src/api/trades.c), read before each row of every pass; once it says
 *                          stop, each pass ends before reading anything the stopped one did not write.
 *                          Default 0: a sweep's combo never stops inside (the constant folds away).
 * so the three variants differ in exactly the one thing each is named for.  Buffers are released where
 * the Rust port drops them (at the end of the function that made them), which is also when numba's
 * reference counts reach zero.
 */
#if !defined(PORT_AT) || !defined(PORT_BUFFER) || !defined(PORT_RELEASE)
#error "define PORT_AT, PORT_BUFFER and PORT_RELEASE (and PORT_KERNEL for a variant) before including port.h"
#endif

#include <math.h>
#include <stdint.h>

#ifndef PORT_WEIGHT
#define PORT_WEIGHT(j) ((double)((j) + 1))
#endif
#ifndef PORT_WEIGHT_STATE
#define PORT_WEIGHT_STATE
#endif
#ifndef PORT_INNER_PRAGMA
#define PORT_INNER_PRAGMA
#endif
#ifndef PORT_DIVIDE
#define PORT_DIVIDE(s, denom) ((s) / (denom))
#endif
#ifndef PORT_NAN_COUNT
#define PORT_NAN_COUNT(n, w) (n)
#endif
#ifndef PORT_STOP
#define PORT_STOP(scratch, i) 0
#endif

#include "tier0.h"
#include "variant.h"
#ifdef PORT_CERTIFY_EPS
#include "certify.h"
#endif

typedef struct {
    double *p;
    int64_t len;
} port_slice;

enum { PORT_HALF, PORT_FULL, PORT_RAW, PORT_HMA, PORT_THIRD, PORT_HALF3, PORT_FULL3, PORT_RAW3, PORT_HMA3,
       PORT_SLOTS };

static port_slice port_empty(int slot, int64_t n, double *scratch) {
    return (port_slice){PORT_BUFFER(slot, n, scratch), n};
}

static void port_drop(port_slice s) { PORT_RELEASE(s.p); }

/* np.full(n, np.nan): the first `fill` elements (all n in the port) set to NaN */
static port_slice port_full_nan(int slot, int64_t n, int64_t fill, double *scratch) {
    port_slice s = port_empty(slot, n, scratch);
    if (!s.p) return s; /* out of memory: passed up as a NULL slice (hs_port_alloc) */
    for (int64_t i = 0; i < fill; i++) PORT_AT(s, i) = NAN;
    return s;
}

static port_slice port_wma(port_slice x, int64_t w, int slot, double *scratch) {
    int64_t n = x.len;
    if (!x.p) return x;
    port_slice out = port_full_nan(slot, n, PORT_NAN_COUNT(n, w), scratch);
    if (!out.p) return out;
    double denom = hs_wma_denom(w);
    for (int64_t i = w - 1; i < n && !PORT_STOP(scratch, i); i++) {
        double s = 0.0;
        PORT_WEIGHT_STATE;
        PORT_INNER_PRAGMA
        for (int64_t j = 0; j < w; j++) s += PORT_AT(x, i - w + 1 + j) * PORT_WEIGHT(j);
        PORT_AT(out, i) = PORT_DIVIDE(s, denom);
    }
    return out;
}

static port_slice port_hma(port_slice close, const hs_windows *win, double *scratch) {
    port_slice half = port_wma(close, win->w[0], PORT_HALF, scratch);
    port_slice full = port_wma(close, win->w[1], PORT_FULL, scratch);
    port_slice raw = port_empty(PORT_RAW, close.len, scratch), hma = {NULL, close.len};
    if (half.p && full.p && raw.p) {
        for (int64_t i = 0; i < close.len && !PORT_STOP(scratch, i); i++)
            PORT_AT(raw, i) = hs_hma_raw(PORT_AT(half, i), PORT_AT(full, i));
        hma = port_wma(raw, win->w[2], PORT_HMA, scratch);
    }
    port_drop(half);
    port_drop(full);
    port_drop(raw);
    return hma;
}

static port_slice port_hma3(port_slice close, const hs_windows *win, double *scratch) {
    port_slice third = port_wma(close, win->w[3], PORT_THIRD, scratch);
    port_slice half = port_wma(close, win->w[4], PORT_HALF3, scratch);
    port_slice full = port_wma(close, win->w[5], PORT_FULL3, scratch);
    port_slice raw = port_empty(PORT_RAW3, close.len, scratch), hma3 = {NULL, close.len};
    if (third.p && half.p && full.p && raw.p) {
        for (int64_t i = 0; i < close.len && !PORT_STOP(scratch, i); i++)
            PORT_AT(raw, i) = hs_hma3_raw(PORT_AT(third, i), PORT_AT(half, i), PORT_AT(full, i));
        hma3 = port_wma(raw, win->w[5], PORT_HMA3, scratch);
    }
    port_drop(third);
    port_drop(half);
    port_drop(full);
    port_drop(raw);
    return hma3;
}

/* The port's whole combo: the nine arrays, then the bar-by-bar event loop.  `log` is NULL in a sweep (a
 * constant after inlining); hs_trade_log passes a sink to get this same loop's trades (src/api/trades.c).
 * `mtm`: the equity tracker (equity.h), or NULL; the combo function calls this with each as a constant. */
static inline hs_outcome port_combo(const double *close_p, size_t n_bars, const hs_windows *win, double keep,
                                    double *scratch, hs_trade_sink *log, hs_mtm *mtm) {
    port_slice close = {(double *)close_p, (int64_t)n_bars};
    port_slice hma = port_hma(close, win, scratch);
    port_slice hma3 = port_hma3(close, win, scratch);
    if (!hma.p || !hma3.p) { /* an allocation failed: the driver turns this into HS_ERR_NOMEM */
        port_drop(hma);
        port_drop(hma3);
        return (hs_outcome){{NAN, HS_TRADES_NOMEM}, {0, 0.0, 0.0, 0.0, 0.0, 0}};
    }

    hs_book book = hs_book_new(keep);
#ifdef PORT_CERTIFY_EPS
    const int64_t *w = win->w;
    int64_t first = (int64_t)hs_first_bars_of(w).start; /* d is NaN before it, by construction */
    double tau = certify_threshold_eps(max_price(close_p, n_bars), w, PORT_CERTIFY_EPS);
#endif
    for (int64_t i = 0; i < close.len && !PORT_STOP(scratch, i); i++) {
        double d = PORT_AT(hma3, i) - PORT_AT(hma, i);
#ifdef PORT_CERTIFY_EPS
        if (i >= first && !certify_sure(d, tau)) d = hma3_tier0_at(close_p, (size_t)i, w) - hma_tier0_at(close_p, (size_t)i, w);
#endif
        if (isnan(d)) continue;
        hs_book_step_mtm(&book, d, PORT_AT(close, i), (size_t)i, log, NULL, mtm);
    }
    hs_outcome r = hs_book_finish_at(&book, PORT_AT(close, close.len - 1), (size_t)(close.len - 1), log);
    port_drop(hma);
    port_drop(hma3);
    return r;
}

#ifdef PORT_KERNEL
hs_outcome HS_COMBO_ISA(PORT_KERNEL, scalar)(const double *close_p, size_t n_bars, const hs_windows *win,
                                             double keep, double *scratch, hs_mtm *mtm) {
    if (mtm) return port_combo(close_p, n_bars, win, keep, scratch, NULL, mtm);
    return port_combo(close_p, n_bars, win, keep, scratch, NULL, NULL);
}
#ifndef PORT_SCRATCH_DOUBLES
#define PORT_SCRATCH_DOUBLES(n) 0
#endif
size_t HS_SCRATCH_ISA(PORT_KERNEL, scalar)(size_t n_bars) { return PORT_SCRATCH_DOUBLES(n_bars); }
#endif
