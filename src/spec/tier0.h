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
#include "equity.h" /* hs_trade_pnl, and the equity tracker the books feed */

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
 * (checked: hs_batch_sliding_lanes__avx2 and hs_combo_sliding__scalar compile to the same instruction count
 * as before the sink existed). */
typedef struct {
    hs_trade *out;
    size_t cap;
    size_t n;
    int64_t entry_bar; /* bar of the open position's entry */
} hs_trade_sink;

/* One combo's whole outcome: its result (§4) and its statistics (§8).  The kernels return it; the
 * drivers split it into the caller's out[] and stats[]. */
typedef struct {
    hs_result r;
    hs_stats s;
} hs_outcome;

/* The stop-and-reverse books of one combo (§4), with the statistics of §8 kept as trades are booked. */
typedef struct {
    double prev;       /* last non-zero d seen; 0 before any */
    double entry;      /* entry price of the open position */
    double pnl;        /* summed PnL, percentage points */
    int64_t trades;
    int pos;           /* +1 long, −1 short, 0 flat */
    double keep;       /* 1 − fee (§8), computed once per sweep */
    int64_t first_bar; /* entry bar of the first trade (bars_held) */
    double peak;       /* running high of pnl, from 0.0 (max_drawdown) */
    hs_stats stats;
} hs_book;

/* keep = 1 − fee, in double, once (§8).  hs_keep(HS_DEFAULT_FEE) is the v1 constant 1 − 0.0009 bit for
 * bit (the compiler folded it in double too), so the default fee gives the v1 PnL. */
static inline double hs_keep(double fee) { return 1.0 - fee; }

static inline hs_book hs_book_new(double keep) {
    return (hs_book){0.0, 0.0, 0.0, 0, 0, keep, 0, 0.0, {0, 0.0, 0.0, 0.0, 0.0, 0}};
}

/* §8's six statistics after booking p (pnl_after = the book's pnl with p added), for a trade closed at bar
 * `bar` of a book whose first trade entered at `first_bar`.  Selects, not branches: whether a trade wins is
 * a coin toss the predictor cannot learn, and adding +0.0 to a sum that is never −0.0 (it starts at +0.0
 * and only gets values of one strict sign) leaves its bits as they are, so each line is exactly §8's
 * conditional update (written so, GCC 12 keeps them branch-free; `wins += gain != 0.0` became a branch, +17%).
 * bars_held: a stop-and-reverse book
 * opens every trade but the first at the bar where the previous one closed, so Σ(exit − entry) telescopes
 * to this exit − the first entry, exactly (integers); one subtraction per trade instead of three
 * operations (reports/stats.md). */
static inline void hs_stats_book(hs_stats *s, double *peak, double pnl_after, double p, size_t bar, int64_t first_bar) {
    s->wins += p > 0.0;
    s->gross_profit += p > 0.0 ? p : 0.0;
    s->gross_loss += p < 0.0 ? p : 0.0;
    s->sum_sq += p * p;
    *peak = pnl_after > *peak ? pnl_after : *peak;
    double fall = *peak - pnl_after;
    s->max_drawdown = fall > s->max_drawdown ? fall : s->max_drawdown;
    s->bars_held = (int64_t)bar - first_bar;
}

/* Close the open position at `exit` (bar `bar`): the trade's PnL, counted and logged, the position flat.
 * The PnL is rounded on its own before anything adds it, so the logged PnLs summed in order give the
 * book's total bit for bit. */
static inline double hs_book_take(hs_book *b, double exit, size_t bar, hs_trade_sink *log) {
    double p = hs_trade_pnl((double)b->pos, b->entry, exit, b->keep);
    if (log) {
        if (log->n < log->cap) log->out[log->n] = (hs_trade){log->entry_bar, (int64_t)bar, (int8_t)b->pos, b->entry, exit, p};
        log->n++;
    }
    b->trades += 1;
    b->pos = 0;
    return p;
}

/* Close the open position at `exit` (bar `bar`) and book one trade: its PnL into the total and §8's
 * statistics. */
static inline double hs_book_close_at(hs_book *b, double exit, size_t bar, hs_trade_sink *log) {
    double p = hs_book_take(b, exit, bar, log);
    b->pnl += p;
    hs_stats_book(&b->stats, &b->peak, b->pnl, p, bar, b->first_bar);
    return p;
}

/* Booking deferred: the trades' PnLs, in booking order, into one column of a table whose rows are booked
 * later, a row of several combos' columns at a time, by the lane form of the same updates (book_lanes.h:
 * the statistics' selects and sums cost ~17 instructions per trade done one trade at a time, ~3 done
 * HS_VN at a time; reports/stats.md).  The book keeps counting trades and its positions; its pnl, peak
 * and stats stay untouched.  `last_bar` is the last close's bar (bars_held telescopes to it). */
typedef struct {
    double *p;       /* the column's next free cell */
    size_t stride;   /* doubles between a column's cells */
    size_t n;        /* PnLs written since the table was last booked */
    int64_t last_bar;
} hs_pnl_column;

/* Close with the booking now (col NULL: every caller but a deferring one passes the constant, so the
 * test folds away) or deferred into `col`; returns the trade's p either way. */
static inline double hs_book_close_to(hs_book *b, double exit, size_t bar, hs_trade_sink *log, hs_pnl_column *col) {
    if (col) {
        double p = hs_book_take(b, exit, bar, log);
        col->p[col->n * col->stride] = p;
        col->n++;
        col->last_bar = (int64_t)bar;
        return p;
    }
    return hs_book_close_at(b, exit, bar, log);
}

/* Reverse (or, on the first cross, open) to a position of sign `pos` at `price`. */
static inline void hs_book_open(hs_book *b, int pos, double price) {
    b->pos = pos;
    b->entry = price;
}

/* Visit bar `bar` with a non-NaN d: reverse at a strict sign change of d against the last non-zero d.
 * Every path passes the true bar index: the statistics need it (bars_held).  `mtm` (equity.h) follows the
 * crosses when periods are asked for; every other caller passes the constant NULL. */
static inline void hs_book_step_mtm(hs_book *b, double d, double price, size_t bar, hs_trade_sink *log,
                                    hs_pnl_column *col, hs_mtm *mtm) {
    int cross = (b->prev > 0.0 && d < 0.0) || (b->prev < 0.0 && d > 0.0);
    if (cross) {
        double p = 0.0; /* the first cross books nothing: +0.0 to the tracker */
        if (b->pos != 0) p = hs_book_close_to(b, price, bar, log, col);
        else b->first_bar = (int64_t)bar; /* the first trade (every later one enters where one closed) */
        hs_book_open(b, d > 0.0 ? 1 : -1, price);
        if (log) log->entry_bar = (int64_t)bar;
        if (mtm) hs_mtm_cross(mtm, bar, p, b->pos);
    }
    if (d != 0.0) b->prev = d;
}

static inline void hs_book_step_to(hs_book *b, double d, double price, size_t bar, hs_trade_sink *log,
                                   hs_pnl_column *col) {
    hs_book_step_mtm(b, d, price, bar, log, col, NULL);
}

static inline void hs_book_step_at(hs_book *b, double d, double price, size_t bar, hs_trade_sink *log) {
    hs_book_step_to(b, d, price, bar, log, NULL);
}

static inline void hs_book_step(hs_book *b, double d, double price, size_t bar) { hs_book_step_at(b, d, price, bar, NULL); }

static inline hs_outcome hs_book_outcome(const hs_book *b) { return (hs_outcome){{b->pnl, b->trades}, b->stats}; }

/* After the last bar (n_bars − 1): close what is open at the last price and report. */
static inline hs_outcome hs_book_finish_at(hs_book *b, double last_price, size_t last_bar, hs_trade_sink *log) {
    if (b->pos != 0) hs_book_close_at(b, last_price, last_bar, log);
    return hs_book_outcome(b);
}

static inline hs_outcome hs_book_finish(hs_book *b, double last_price, size_t last_bar) {
    return hs_book_finish_at(b, last_price, last_bar, NULL);
}

/* A combo with no d at all (every window longer than the series): no trade, every statistic 0. */
static inline hs_outcome hs_outcome_empty(void) { return (hs_outcome){{0.0, 0}, {0, 0.0, 0.0, 0.0, 0.0, 0}}; }

/* The books over a whole array of d values, d[start .. n).  Where no d is exactly zero or NaN, the
 * last non-zero d before bar i is d[i−1], so a cross is exactly a sign change between neighbours and the
 * books need visiting only there: hs_book_step then performs the same operations in the same order as
 * the bar-by-bar loop, so the PnL and the statistics are bit-identical (the bar index travels with the
 * visit).  With a zero or a NaN anywhere (a NaN only from sums that overflowed on absurd prices), the
 * bar-by-bar loop, which skips NaN bars as docs/spec.md §4 says.
 * (Measured: the bar-by-bar loop's unpredictable branches were ~15% of the sliding kernel.) */
static inline hs_outcome hs_books_run(const double *d, const double *close, size_t start, size_t n, double keep,
                                      hs_trade_sink *log, hs_mtm *mtm) {
    hs_book book = hs_book_new(keep);
    int special = 0;
    for (size_t i = start; i < n; i++) special |= !(d[i] < 0.0 || d[i] > 0.0);
    if (special) {
        for (size_t i = start; i < n; i++)
            if (d[i] == d[i]) hs_book_step_mtm(&book, d[i], close[i], i, log, NULL, mtm);
    } else if (start < n) {
        hs_book_step_mtm(&book, d[start], close[start], start, log, NULL, mtm);
        for (size_t i = start + 1; i < n; i++)
            if ((d[i] < 0.0) != (d[i - 1] < 0.0)) hs_book_step_mtm(&book, d[i], close[i], i, log, NULL, mtm);
    }
    return hs_book_finish_at(&book, close[n - 1], n - 1, log);
}

static inline hs_outcome hs_books_log(const double *d, const double *close, size_t start, size_t n, double keep,
                                      hs_trade_sink *log) {
    return hs_books_run(d, close, start, n, keep, log, NULL);
}

static inline hs_outcome hs_books_over(const double *d, const double *close, size_t start, size_t n, double keep) {
    return hs_books_log(d, close, start, n, keep, NULL);
}

/* The books with the equity tracker `mtm` when it is non-NULL: two copies of the loop, so the one without
 * (a sweep with no periods) is the code hs_books_over always was.  The driver finishes the tracker. */
static inline hs_outcome hs_books_over_mtm(const double *d, const double *close, size_t start, size_t n, double keep,
                                           hs_mtm *mtm) {
    if (mtm) return hs_books_run(d, close, start, n, keep, NULL, mtm);
    return hs_books_run(d, close, start, n, keep, NULL, NULL);
}

#endif
