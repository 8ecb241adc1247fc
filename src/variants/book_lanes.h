/* The books' totals in vector lanes: one combo per lane, one trade per lane per call, written against the
 * vector vocabulary (vec.h, for the ISA of the including translation unit).
 *
 * The books of several combos are independent, so their totals (the PnL sum and §8's statistics) can be
 * updated HS_VN combos at a time from PnLs deferred in booking order (tier0.h hs_pnl_column).  Each lane
 * performs exactly hs_book_close_at's updates on its own combo's PnLs, in the same order and with the same
 * roundings (add, multiply, compare-select; nothing fused or reassociated), so every total is bit-identical
 * to the book's one-trade-at-a-time form:
 *   - p > 0 ? p : 0 is vd_max(p, 0) and p < 0 ? p : 0 is vd_min(p, 0): p is never NaN (positive finite
 *     prices, keep in (0, 1]) and never −0.0 ((x − 1)·100 with x = 1 gives +0.0);
 *   - the running high and the drawdown are C's a > b ? a : b as a compare and a select, which keeps b
 *     when a is NaN on every ISA (the PnL total is NaN after an infinite gain and an infinite loss; NEON's
 *     vmaxq would return the NaN, x86's maxpd would not);
 *   - the win count is kept as a double (exact below 2^53 trades).
 * A trade PnL of +0.0 changes no total (the sums are never −0.0, a +0.0 gain moves no high), so columns of
 * unequal length are padded with +0.0 and booked row by row.
 * Checked lane by lane against the scalar book, on random and extreme PnLs, by tests/test_stats.c, and
 * end to end by every variant × ISA gate (the numba peer's six statistics, bit for bit).
 */
#ifndef HS_BOOK_LANES_H
#define HS_BOOK_LANES_H

#include "tier0.h"
#include "vec.h"

typedef struct {
    hs_vd pnl, peak, wins, gross_profit, gross_loss, sum_sq, max_drawdown;
} hs_book_lanes;

static inline hs_book_lanes hs_book_lanes_new(void) {
    hs_vd z = vd_zero();
    return (hs_book_lanes){z, z, z, z, z, z, z};
}

/* C's a > b ? a : b, lane-wise, including a NaN a (b is kept). */
static inline hs_vd hs_vd_above(hs_vd a, hs_vd b) { return vd_blend(vd_cmpgt_mask(a, b), b, a); }

/* Book one trade's PnL p per lane (hs_book_close_at's pnl += p, then hs_stats_book). */
static inline void hs_book_lanes_book(hs_book_lanes *a, hs_vd p) {
    a->pnl = vd_add(a->pnl, p);
    hs_vd zero = vd_zero();
    a->wins = vd_add(a->wins, vd_blend(vd_cmpgt_mask(p, zero), zero, vd_set1(1.0)));
    a->gross_profit = vd_add(a->gross_profit, vd_max(p, zero));
    a->gross_loss = vd_add(a->gross_loss, vd_min(p, zero));
    a->sum_sq = vd_add(a->sum_sq, vd_mul(p, p));
    a->peak = hs_vd_above(a->pnl, a->peak);
    a->max_drawdown = hs_vd_above(vd_sub(a->peak, a->pnl), a->max_drawdown);
}

/* Lane `lane`'s totals as a book's outcome: `trades`, and bars_held from the first entry and the last
 * close (a stop-and-reverse book's holding time telescopes, tier0.h hs_stats_book). */
static inline hs_outcome hs_book_lanes_outcome(const hs_book_lanes *a, int lane, int64_t trades, int64_t first_bar,
                                               int64_t last_bar) {
    double v[6][HS_VN]; /* the six totals read below (peak is not an outcome) */
    vd_storeu(v[0], a->pnl);
    vd_storeu(v[1], a->wins);
    vd_storeu(v[2], a->gross_profit);
    vd_storeu(v[3], a->gross_loss);
    vd_storeu(v[4], a->sum_sq);
    vd_storeu(v[5], a->max_drawdown);
    hs_outcome o = hs_outcome_empty();
    o.r.pnl = v[0][lane];
    o.r.trades = trades;
    o.s.wins = (int64_t)v[1][lane];
    o.s.gross_profit = v[2][lane];
    o.s.gross_loss = v[3][lane];
    o.s.sum_sq = v[4][lane];
    o.s.max_drawdown = v[5][lane];
    o.s.bars_held = trades ? last_bar - first_bar : 0;
    return o;
}

#endif
