/* The spec's building blocks, written once (docs/spec.md §3–§4, tier-0 operation order).
 *
 * Every variant composes these; none re-types the HMA combination or the book-keeping.  They are
 * inline so that a variant's loop sees straight-line code.  All arithmetic here is compiled with
 * -ffp-contract=off: `2.0 * a - b` must round the product before the subtraction, as numba does.
 */
#ifndef HS_TIER0_H
#define HS_TIER0_H

#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

/* Round-trip fee of 0.09%, applied to the gross return before the conversion to percent. */
#define HS_FEE 0.0009

/* WMA denominator w(w+1)/2 — computed as the numba kernel does, `w * (w + 1) / 2` in floating point. */
static inline double hs_wma_denom(int64_t w) { return (double)(w * (w + 1)) / 2.0; }

/* HMA input series: 2·WMA(close, w0) − WMA(close, w1). */
static inline double hs_hma_raw(double half, double full) { return 2.0 * half - full; }

/* HMA3 input series: (3·WMA(close, w3) − WMA(close, w4)) − WMA(close, w5). */
static inline double hs_hma3_raw(double third, double half, double full) { return (3.0 * third - half) - full; }

/* Where each stage of one combo first has a value, for ANY six windows >= 1.  The wire and hs_sweep
 * accept windows that are not derived from L, so nothing may assume w0 <= w1 or w3 <= w4 <= w5: a raw
 * series is defined once all its WMAs are, and a smoothing WMA of it w − 1 bars after that.  Every
 * variant takes its first bars from here (issue 10, defect 1: the running-sum kernels had read
 * close[−1] and returned wrong trades for windows like (3,6,2,9,2,3)). */
typedef struct {
    size_t raw;   /* 2·WMA(w0) − WMA(w1):            max(w0, w1) − 1     */
    size_t raw3;  /* (3·WMA(w3) − WMA(w4)) − WMA(w5): max(w3, w4, w5) − 1 */
    size_t hma;   /* WMA(raw, w2):                    raw + w2 − 1        */
    size_t hma3;  /* WMA(raw3, w5):                   raw3 + w5 − 1       */
    size_t start; /* the first bar with a d:          max(hma, hma3)      */
} hs_first_bars;

static inline size_t hs_max_size(size_t a, size_t b) { return a > b ? a : b; }

static inline hs_first_bars hs_first_bars_of(const int64_t *w) {
    hs_first_bars f;
    f.raw = hs_max_size((size_t)w[0], (size_t)w[1]) - 1;
    f.raw3 = hs_max_size(hs_max_size((size_t)w[3], (size_t)w[4]), (size_t)w[5]) - 1;
    f.hma = f.raw + (size_t)w[2] - 1;
    f.hma3 = f.raw3 + (size_t)w[5] - 1;
    f.start = hs_max_size(f.hma, f.hma3);
    return f;
}

/* Where the books write their trades when a caller asks for the trade log (hs_trade_log): up to `cap`
 * into `out`, counting all of them in `n`.  The functions below take the sink as an argument, and every
 * sweep passes the constant NULL, so after inlining the logging branches are gone from the sweep's loops
 * (checked: hs_batch_sliding_x__avx2 and hs_combo_sliding__scalar compile to the same instruction count
 * as before the sink existed). */
typedef struct {
    hs_trade *out;
    size_t cap;
    size_t n;
    int64_t entry_bar; /* bar of the open position's entry */
} hs_trade_sink;

/* The stop-and-reverse books of one combo (§4). */
typedef struct {
    double prev;   /* last non-zero d seen; 0 before any */
    double entry;  /* entry price of the open position */
    double pnl;    /* summed PnL, percentage points */
    int64_t trades;
    int pos;       /* +1 long, −1 short, 0 flat */
} hs_book;

static inline hs_book hs_book_new(void) { return (hs_book){0.0, 0.0, 0.0, 0, 0}; }

/* Close the open position at `exit` (bar `bar`) and book one trade.  The trade's PnL is rounded on its
 * own before it is added, so the logged PnLs summed in order give the book's total bit for bit. */
static inline void hs_book_close_at(hs_book *b, double exit, size_t bar, hs_trade_sink *log) {
    double r = (double)b->pos * (exit / b->entry - 1.0);
    double pnl = ((1.0 + r) * (1.0 - HS_FEE) - 1.0) * 100.0;
    if (log) {
        if (log->n < log->cap) log->out[log->n] = (hs_trade){log->entry_bar, (int64_t)bar, (int8_t)b->pos, b->entry, exit, pnl};
        log->n++;
    }
    b->pnl += pnl;
    b->trades += 1;
    b->pos = 0;
}

/* Visit bar `bar` with a non-NaN d: reverse at a strict sign change of d against the last non-zero d. */
static inline void hs_book_step_at(hs_book *b, double d, double price, size_t bar, hs_trade_sink *log) {
    int cross = (b->prev > 0.0 && d < 0.0) || (b->prev < 0.0 && d > 0.0);
    if (cross) {
        if (b->pos != 0) hs_book_close_at(b, price, bar, log);
        b->pos = d > 0.0 ? 1 : -1;
        b->entry = price;
        if (log) log->entry_bar = (int64_t)bar;
    }
    if (d != 0.0) b->prev = d;
}

/* The same, for kernels that never log (the bar index is only the log's). */
static inline void hs_book_step(hs_book *b, double d, double price) { hs_book_step_at(b, d, price, 0, NULL); }

/* After the last bar (n_bars − 1): close what is open at the last price and report. */
static inline hs_result hs_book_finish_at(hs_book *b, double last_price, size_t last_bar, hs_trade_sink *log) {
    if (b->pos != 0) hs_book_close_at(b, last_price, last_bar, log);
    return (hs_result){b->pnl, b->trades};
}

static inline hs_result hs_book_finish(hs_book *b, double last_price) { return hs_book_finish_at(b, last_price, 0, NULL); }

/* The books over a whole array of d values, d[start .. n).  Where no d is exactly zero or NaN, the
 * last non-zero d before bar i is d[i−1], so a cross is exactly a sign change between neighbours and the
 * books need visiting only there: hs_book_step then performs the same operations in the same order as
 * the bar-by-bar loop, so the PnL is bit-identical.  With a zero or a NaN anywhere (a NaN only from
 * sums that overflowed on absurd prices), the bar-by-bar loop, which skips NaN bars as docs/spec.md §4 says.
 * (Measured: the bar-by-bar loop's unpredictable branches were ~15% of the sliding kernel.) */
static inline hs_result hs_books_log(const double *d, const double *close, size_t start, size_t n, hs_trade_sink *log) {
    hs_book book = hs_book_new();
    int special = 0;
    for (size_t i = start; i < n; i++) special |= !(d[i] < 0.0 || d[i] > 0.0);
    if (special) {
        for (size_t i = start; i < n; i++)
            if (d[i] == d[i]) hs_book_step_at(&book, d[i], close[i], i, log);
    } else if (start < n) {
        hs_book_step_at(&book, d[start], close[start], start, log);
        for (size_t i = start + 1; i < n; i++)
            if ((d[i] < 0.0) != (d[i - 1] < 0.0)) hs_book_step_at(&book, d[i], close[i], i, log);
    }
    return hs_book_finish_at(&book, close[n - 1], n - 1, log);
}

static inline hs_result hs_books_over(const double *d, const double *close, size_t start, size_t n) {
    return hs_books_log(d, close, start, n, NULL);
}

#endif
