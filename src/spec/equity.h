/* Mark-to-market equity at period ends and its drawdown (docs/spec.md §9.1-§9.3), written once.
 *
 * e[i] and mtm_max_drawdown depend only on the trade sequence (the bar of each cross, the new side, its
 * entry price, the PnL p booked there) and the close.  So one tracker, hs_mtm, follows a combo's crosses
 * as every book path meets them (tier0.h hs_book_step_mtm: the reference, the ports, the pipelines,
 * sliding_lanes' lanes, segments' deferred books, live mode), and the driver finishes it after the
 * kernel.  It keeps its OWN running pnl: the same p values summed in the same order from +0.0, so it is
 * bit-identical to the book's pnl even where the book defers its booking (segments).
 *
 * At a cross at bar i the tracker first accounts bars [from, i) with the state they were held in (the
 * period ends among them: E = pnl + u, u = hs_trade_pnl(pos, entry, close[b], keep), or pnl when flat;
 * and §9.2's drawdown), then books p, takes the new side and entry, and from = i.  The driver's finish
 * accounts the bars up to the last: e[bars − 1] = pnl + the final close's p, which is the book's pnl bit
 * for bit (§9.1).  Every book path passes the constant NULL when no periods are asked for, so, inlined,
 * the tracker is gone from those loops (as the trade sink is).
 *
 * The drawdown of a held stretch is exact without evaluating e at every bar (hs_mtm_held, equity.c).
 */
#ifndef HS_EQUITY_H
#define HS_EQUITY_H

#include <stddef.h>
#include <stdint.h>

/* One trade's booked PnL: r = pos·(exit/entry − 1), p = ((1 + r)·keep − 1)·100 (§4, §8).  Live mode's
 * results close open positions with this same function, and §9.1's u_i is this at close[i]. */
static inline double hs_trade_pnl(double pos, double entry, double exit, double keep) {
    double r = pos * (exit / entry - 1.0);
    return ((1.0 + r) * keep - 1.0) * 100.0;
}

/* What a sweep asks for beyond the results: the period ends (checked, strictly increasing, the last the
 * last bar), where E goes (E[k] of combo c at equity[k·stride + c]; NULL = not wanted) and where each
 * combo's mtm_max_drawdown goes (mtm[c]; NULL = not wanted).  NULL terms: no periods. */
typedef struct {
    const int64_t *ends;
    size_t n_ends;
    double *equity;
    size_t stride;
    double *mtm;
} hs_equity_terms;

/* One combo's tracker. */
typedef struct {
    const double *close;
    const int64_t *ends;
    size_t n_ends, k; /* the next period end to sample */
    double *e;        /* E column: e[k·stride] (NULL: not stored) */
    size_t stride;
    double keep;
    double pnl;   /* own running pnl, from +0.0 */
    double entry; /* the open position's entry price */
    double peak;  /* running high of e, from 0.0 (§9.2) */
    double mdd;   /* mtm_max_drawdown so far */
    int pos;      /* +1, −1, 0 flat */
    size_t from;  /* the first bar not yet accounted */
} hs_mtm;

/* Combo c's tracker for a sweep's terms. */
static inline hs_mtm hs_mtm_new(const hs_equity_terms *t, size_t c, const double *close, double keep) {
    return (hs_mtm){close, t->ends, t->n_ends, 0, t->equity ? t->equity + c : NULL, t->stride, keep,
                    0.0, 0.0, 0.0, 0.0, 0, 0};
}

/* The drawdown of bars [a, b) held long or short at a constant pnl (equity.c): §9.2's per-bar loop, exact. */
void hs_mtm_held(hs_mtm *m, size_t a, size_t b);

/* §9.2's update on a flat stretch: e = pnl on every bar, and the update is idempotent on equal values. */
static inline void hs_mtm_flat(hs_mtm *m) {
    if (m->pnl > m->peak) m->peak = m->pnl;
    double t = m->peak - m->pnl;
    if (t > m->mdd) m->mdd = t;
}

/* Account bars [from, to) in the current state: the period ends among them, and the drawdown. */
static inline void hs_mtm_advance(hs_mtm *m, size_t to) {
    size_t a = m->from;
    if (a >= to) return;
    m->from = to;
    while (m->k < m->n_ends && (size_t)m->ends[m->k] < to) {
        double e = m->pnl;
        if (m->pos) e = m->pnl + hs_trade_pnl((double)m->pos, m->entry, m->close[m->ends[m->k]], m->keep);
        if (m->e) m->e[m->k * m->stride] = e;
        m->k++;
    }
    if (m->pos == 0) hs_mtm_flat(m);
    else hs_mtm_held(m, a, to);
}

/* A cross at bar `bar`: the bars before it in the old state, then p booked (when a position was closed),
 * the new side `pos` entered at `price` (= close[bar]). */
static inline void hs_mtm_cross(hs_mtm *m, size_t bar, int booked, double p, int pos, double price) {
    hs_mtm_advance(m, bar);
    if (booked) m->pnl += p;
    m->pos = pos;
    m->entry = price;
}

/* After the kernel: every bar up to the last accounted; the drawdown to mtm[c] where wanted. */
static inline void hs_mtm_finish(hs_mtm *m, size_t n_bars, const hs_equity_terms *t, size_t c) {
    hs_mtm_advance(m, n_bars);
    if (t->mtm) t->mtm[c] = m->mdd;
}

#endif
