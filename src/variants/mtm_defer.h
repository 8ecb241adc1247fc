/* The mark-to-market drawdown and E of segments' books, deferred (docs/spec.md §9.1-§9.3): exact, with exact
 * work only where a stretch can matter.  Written against the vector vocabulary (vec.h, the including unit's
 * ISA); segments takes it at AVX2 and AVX-512 (seg_equity_defer), every ISA runs it in
 * test_book_lanes_<isa> (tests/mtm_defer_check.c).
 *
 * Why: the exact trackers evaluate every held stretch: a range query on a table of the close's windows and
 * two divisions per trade.  In vector lanes that cost 1.30x (AVX-512) and 1.32x (AVX2) the sweep without
 * periods at P = 16, where issue 27 allows 1.10x (reports/equity.md).  Most stretches cannot change the
 * result:
 *   - within an epoch (a run of bars with the same peak) §9.2's drawdown is fl(peak − the lowest e), since
 *     fl(peak − x) is monotone in x.  An epoch can be cut anywhere: the larger of fl(p − m1) and fl(p − m2)
 *     is fl(p − min(m1, m2));
 *   - e at a cross is known exactly without a close's range: the new position opens at close[b], so
 *     u = fl(fl(keep − 1)·100) there (c/entry = 1), e = fl(pnl after the close + that);
 *   - so a stretch whose lower bound on e is not below the lowest e known in its epoch cannot hold the
 *     epoch's minimum, and a stretch whose upper bound is not above the peak sets no new peak.
 * The books (segments.c) write beside each deferred PnL a cell (HS_DEFER_FIELDS words): the stretch's
 * bounds on the close, the highest and lowest close of the 64-bar chunks of its lane that it touches (a
 * min and a max per chunk walked, no gather), and its exit price signed by the new side; and per chunk
 * they walk, the rows before it and its bars with a row (a row's bar is found from those, and its side
 * from the row before's exit sign: every row reverses).  Per table (a span of bars of one lane of the series, one close
 * per combo and row), after the rows are booked (book_lanes.h), lane by lane:
 *   - bounds on e over the stretch, without a division: u(c) = A + s·c with s = ±100·keep/entry (one
 *     approximate reciprocal per stretch) and A = −100 (long) or 100·(2·keep − 1) (short), the extremes at
 *     the chunk bounds, widened by a margin that covers every rounding of the exact expression (below);
 *   - pass A, HS_VN rows at a time: a stretch whose upper bound exceeds the peak (or the close after the
 *     last bar) is a barrier: the epoch's candidates are settled, the epoch is closed into the drawdown,
 *     and the stretch is scanned bar by bar from its records (equity.c hs_mtm_scan, the exact per-bar
 *     rule); otherwise its lower bound is kept, and the lowest known e follows the crosses;
 *   - pass B: the rows whose lower bound is below the epoch's lowest known e are listed; those still below
 *     it at the next table's end become candidates, kept per lane (their pnl and bars) until the epoch
 *     ends, when most are below no more and are dropped unevaluated; the others are evaluated exactly
 *     (their stretch's worst close and hs_trade_pnl), the lowest bound first.  Counted on the default
 *     sweep (AVX-512, P = 16, tables of 4,096 bars): 473,381 stretches, 2,456 candidates kept, 366
 *     evaluated, 684 barriers;
 *   - E at the span's period ends: the row whose stretch holds the end (its chunk's row count plus its
 *     chunk's rows at bars up to the end), the stretch's start and side, the pnl before that row, plus u
 *     there.
 * Every value that reaches E or the drawdown is computed with the spec's own operations; the bounds only
 * decide which exact work is skipped.
 *
 * The margin.  The exact e at close c is fl(pnl + fl(u(c))), u evaluated as ((1 + pos·(c/entry − 1))·keep −
 * 1)·100: its roundings are within 100·(q + 2)·2^-50 (q = c/entry) and (|pnl| + |u|)·2^-52 of the real
 * value.  The bound's A + s·c differs from u by s's relative error (the reciprocal's HS_VD_RECIP_ERR, the
 * exit price's rounding to float 2^-24, the product's 2^-53) and the adds' (|pnl| + 200 + |s·c|)·2^-52.
 * With keep >= 2^-20, |s·c| = 100·keep·q >= 100·q·2^-20, so ρ·|s·c| + (|pnl| + 200)·2^-44 with
 * ρ = 4·HS_VD_RECIP_ERR + 2^-21 covers all of them with room.  The relative part is in the bounds on the
 * close themselves: each is widened by ρ (hs_defer_bound_hi/lo), so s·hi and s·lo, computed with an s off
 * by a quarter of ρ and rounded, still lie outside s·c for every c of the stretch, whatever s's sign.  The
 * additive part, (the table's largest |pnl| + 200)·2^-44, is added to the bounds' shift once per table
 * (hs_defer_book).  The fast path is taken only for prices in
 * [2^-100, 2^100] (the exit price and the bounds as floats, the reciprocal's range) and keep >= 2^-20;
 * other sweeps take the exact trackers (segments.c seg_equity_defer, fill_chunks).  With both parts of the
 * margin cut to 0, tests/mtm_defer_check.c's near ties (a stretch's lowest e 1e-6 pp below the epoch's
 * lowest known e) fail at AVX-512 (105 checks), AVX2 (6) and scalar (5); the random cases alone never
 * reached one.
 */
#ifndef HS_MTM_DEFER_H
#define HS_MTM_DEFER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "book_lanes.h"
#include "equity.h"
#include "vec.h"

/* Bars per chunk of the books' bounds: the books already walk each lane in 64-bar chunks (one word of
 * sign bits).  study/equity/deferred_bounds.py: with 64-bar chunks, and each table's candidates evaluated
 * at its end, 5.14% of the default sweep's stretches would take exact work (2.81% with each stretch's own
 * extremes); kept to the epoch's end, 0.08% do (366 of 473,381, counted). */
#define HS_DEFER_CHUNK 64

/* The bounds' relative margin ρ (above). */
#define HS_DEFER_RHO (4.0 * HS_VD_RECIP_ERR + 0x1p-21)

/* The highest (lowest) close of a chunk or stretch as the books' bound on it: widened by ρ, rounded up
 * (down) to float. */
static inline float hs_defer_bound_hi(double h) {
    double w = h * (1.0 + HS_DEFER_RHO);
    float f = (float)w;
    return (double)f < w ? nextafterf(f, INFINITY) : f;
}
static inline float hs_defer_bound_lo(double m) {
    double w = m * (1.0 - HS_DEFER_RHO);
    float f = (float)w;
    return (double)f > w ? nextafterf(f, 0.0f) : f;
}

/* The sweep's constants. */
typedef struct {
    const double *close;
    size_t n_bars;
    double keep;
    double at_open;          /* fl(fl(keep − 1)·100): u on the bar a position opens */
    double s_long, s_short;  /* ±100·keep: s = this / entry */
    double a_long, a_short;  /* A: −100, 100·(2·keep − 1) */
    const hs_equity_terms *eq;
} hs_defer_ctx;

static inline void hs_defer_ctx_init(hs_defer_ctx *x, const double *close, size_t n_bars, double keep,
                                     const hs_equity_terms *eq) {
    x->close = close, x->n_bars = n_bars, x->keep = keep, x->eq = eq;
    x->at_open = (keep - 1.0) * 100.0;
    x->s_long = 100.0 * keep, x->s_short = -100.0 * keep;
    x->a_long = -100.0, x->a_short = 100.0 * (2.0 * keep - 1.0);
}

/* A stretch that may hold its epoch's lowest e, kept until the epoch's end (or until the list is full):
 * by then the epoch's lowest known e is usually below its bound, and it is dropped unevaluated. */
typedef struct {
    double lb, pnl;
    int64_t from, b; /* bars [from, b) */
    double pos;
} hs_defer_cand;
#define HS_DEFER_CANDS 32

/* HS_VN combos' state between tables. */
typedef struct {
    /* the stretch held at the table's first row (pos 0.0: not started) */
    double pos0[HS_VN];
    int64_t from0[HS_VN];
    double peak[HS_VN], mdd[HS_VN], low[HS_VN]; /* low: the epoch's lowest e known exactly (+inf: none) */
    size_t combo[HS_VN];
    size_t rows[HS_VN], part[HS_VN]; /* the lane's rows in this table; the first not yet resolved (barriers) */
    int64_t last_bar[HS_VN];          /* the bar of the lane's last row in this table (with rows) */
    size_t pend[HS_VN]; /* pass B's list of the table before (its hits), waiting for this table's low */
    int n_cand[HS_VN];
    hs_defer_cand cand[HS_VN][HS_DEFER_CANDS];
} hs_defer_lanes;

static inline void hs_defer_lanes_new(hs_defer_lanes *s, size_t first_combo) {
    for (int l = 0; l < HS_VN; l++) {
        s->pos0[l] = 0.0;
        s->peak[l] = s->mdd[l] = 0.0;
        s->low[l] = INFINITY;
        s->from0[l] = 0;
        s->combo[l] = first_combo + (size_t)l;
        s->n_cand[l] = 0;
        s->pend[l] = 0;
    }
}


/* What the books write beside a trade's deferred PnL, as 32-bit floats: the chunk bounds on its stretch's
 * closes (hs_defer_bound_hi/lo) and its exit price signed by the new side (hs_defer_signed_exit: the next
 * stretch's slope reads it, s_long / that, and its side).  Lane by lane: a lane's field is a run of rows
 * (HS_DEFER_STRIDE words apart from the next field's), so pass A loads HS_VN rows of one lane with one
 * widening load, and the books' stores of a lane run along lines.  Each field has HS_DEFER_LEAD words
 * before row 0 and after the table's last row: the exit field's row −1 holds the stretch held into the
 * table (its entry signed by its side, which row 0's slope reads), and a vector of rows may run past a
 * lane's last row (masked).  A row's bar is not a field: the rare readers find it in the chunks' row
 * counts and bits (hs_defer_row_bars); written per trade, it cost the sweep 0.01-0.02 (AMD EPYC family 25
 * model 17, reports/equity.md).  (Row by row, a field's words for all the lanes in turn, pass A ran over
 * every lane's rows up to the vector's longest lane: 61% of its lane-rows were a lane's, at AVX-512 on the
 * default sweep; see reports/equity.md for what lane by lane gained.) */
enum { HS_DEFER_HI, HS_DEFER_LO, HS_DEFER_EXIT, HS_DEFER_FIELDS };
#define HS_DEFER_LEAD 8
#define HS_DEFER_STRIDE(rows) ((size_t)(rows) + 2 * HS_DEFER_LEAD)
_Static_assert(HS_VN <= HS_DEFER_LEAD, "a vector of rows past a lane's last one stays in its field");

/* The exit field: the price as a float, negated when the new side is short. */
static inline float hs_defer_signed_exit(double price, int to_long) { return to_long ? (float)price : -(float)price; }

/* Row `row` of a lane's cells (`cells`: its field 0, row 0; fields `stride` words apart): the stretch's chunk
 * bounds, the close at its exit `price`, the new side long when `to_long` is 1, else 0. */
static inline void hs_defer_put_cell(uint32_t *cells, size_t stride, size_t row, float hi, float lo, double price,
                                     unsigned to_long) {
    float *f = (float *)(void *)cells;
    f[HS_DEFER_HI * stride + row] = hi, f[HS_DEFER_LO * stride + row] = lo;
    f[HS_DEFER_EXIT * stride + row] = hs_defer_signed_exit(price, (int)to_long);
}

/* The period ends in a table's span of bars, for E at those ends, and per column and 64-bar chunk of the
 * span the bar the stretch held at the chunk's start began at (the last row's bar before the chunk, in any
 * table; below the lane's first bar when it has none). */
typedef struct {
    size_t k0, n;             /* ends k0 .. k0 + n − 1 (of eq->ends) */
    const uint32_t *from_at;  /* column c's chunk k at [c·chunks + k] (the table's chunks) */
} hs_defer_span;

/* A table's planes for a vector of lanes.  The book table row by row (the booking runs across lanes, each
 * lane's rows in order), the rest lane by lane.  Where a lane's rows lie in the table's span of bars: per
 * 64-bar chunk, the rows before it (rows_at) and the chunk's bars with a row (trades_at, bar span_bar +
 * 64·chunk + b at bit b), as the books walk them (a chunk before a lane's first walked one: 0 and 0).  The
 * row whose stretch holds bar e is then the count of rows at bars <= e, without a search (the books store
 * two words per chunk they walk, where noting each period end as they met it cost them a branch per chunk
 * and a call per end: see hs_defer_put_ends), and row q's bar follows from the chunks' counts
 * (hs_defer_row_bars). */
typedef struct {
    uint32_t *cells; /* lane l, field f, row q at [(l·HS_DEFER_FIELDS + f)·stride + q] (floats) */
    const double *p; /* the PnLs, row q of lane l at [q·cols + l] */
    double *lb;      /* pass A: each row's lower bound on e, lane l's row q at [l·stride + q] */
    double *pnl_at;  /* hs_defer_book: the pnl before each row, lane l's row q at [l·stride + q] (rows + 1 of
                      * them, the rest of their vector of rows after) */
    uint32_t *hits;  /* pass B's lists: lane l's vectors of rows with a row below its low at [l·stride] */
    size_t cols, stride;
    const uint32_t *rows_at;   /* lane l's chunk k at [l·chunks + k], chunks [0, n_chunks) */
    const uint64_t *trades_at; /* likewise */
    size_t chunks, n_chunks;
    int64_t span_bar;          /* the span's first bar */
    int64_t *from_in;          /* per lane: the bar the stretch held into the table began at */
} hs_defer_table;

static inline uint32_t *hs_defer_field(const hs_defer_table *t, int l, int f) {
    return t->cells + ((size_t)l * HS_DEFER_FIELDS + (size_t)f) * t->stride;
}
/* The exit field of lane l, row q (row −1: the stretch held into the table). */
static inline float hs_defer_exit(const hs_defer_table *t, ptrdiff_t q, int l) {
    return ((const float *)(const void *)hs_defer_field(t, l, HS_DEFER_EXIT))[q];
}

/* The bars of the stretch row q of lane l closes (q a row of the span's chunks): *from, the row before's
 * (row −1: from_in), and *b, row q's.  Row q lies in the last chunk with at most q rows before it (found
 * by counting those chunks, a loop the compiler vectorizes, where a binary search made five dependent
 * loads), at its (q − that)-th bar with a row; the row before is the bar with a row before that one, in
 * the chunk or in the last chunk before it with a row.  For the rare readers: a barrier's and a
 * candidate's stretch. */
static inline void hs_defer_row_bars(const hs_defer_table *t, int l, size_t q, int64_t *from, int64_t *b) {
    const uint32_t *ra = t->rows_at + (size_t)l * t->chunks;
    const uint64_t *ta = t->trades_at + (size_t)l * t->chunks;
    size_t k = 0; /* (ra[0] = 0 <= q: k is a count of the chunks, less one) */
    for (size_t c = 1; c < t->n_chunks; c++) k += ra[c] <= q;
    uint64_t w = ta[k];
    size_t skip = q - ra[k];
    for (size_t i = 1; i < skip; i++) w &= w - 1; /* the row before, in the chunk, at its lowest bit */
    if (skip) {
        *from = t->span_bar + (int64_t)(64 * k) + __builtin_ctzll(w);
        w &= w - 1;
    } else if (q) {
        size_t j = k;
        while (!ta[--j]) {} /* (ra[k] = q > 0: a chunk before k has a row) */
        *from = t->span_bar + (int64_t)(64 * j) + 63 - __builtin_clzll(ta[j]);
    } else {
        *from = t->from_in[l];
    }
    *b = t->span_bar + (int64_t)(64 * k) + __builtin_ctzll(w);
}

/* Lane l's first stretch: opened at first_bar, to side pos (+1, −1); its exit field's row −1 and from_in in
 * table t. */
static inline void hs_defer_lanes_start(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *t, int l,
                                        int64_t first_bar, int pos) {
    double entry = x->close[first_bar];
    s->pos0[l] = pos > 0 ? 1.0 : -1.0;
    s->from0[l] = first_bar;
    ((float *)(void *)hs_defer_field(t, l, HS_DEFER_EXIT))[-1] = hs_defer_signed_exit(entry, pos > 0);
    t->from_in[l] = first_bar;
}

/* The highest and lowest close of [a, b), b > a, in one pass, HS_VN closes a compare (segments' chunk
 * table: scalar, its loop was 1% of the sweep; and a candidate's worst close).  Min and max are exact, in
 * any order: the prices are finite and positive. */
static inline void hs_defer_extremes(const double *c, int64_t a, int64_t b, double *hi, double *lo) {
    double h = c[a], m = c[a];
    int64_t j = a + 1;
    if (b - j >= HS_VN) {
        hs_vd vh = vd_loadu(c + j), vm = vh, t = vd_loadu(c + b - HS_VN); /* the tail, overlapping */
        for (j += HS_VN; j + HS_VN <= b; j += HS_VN) {
            hs_vd v = vd_loadu(c + j);
            vh = vd_max(vh, v), vm = vd_min(vm, v);
        }
        double wh[HS_VN], wm[HS_VN];
        vd_storeu(wh, vd_max(vh, t)), vd_storeu(wm, vd_min(vm, t));
        for (int l = 0; l < HS_VN; l++) h = wh[l] > h ? wh[l] : h, m = wm[l] < m ? wm[l] : m;
    } else {
        for (; j < b; j++) h = c[j] > h ? c[j] : h, m = c[j] < m ? c[j] : m;
    }
    *hi = h, *lo = m;
}

/* The stretch row q of lane l closes: held from bar *from to bar *b (hs_defer_row_bars; the close after the
 * last bar, `fin`: row 0 of the last table, at bar n) at side *pos (the row before's exit sign; row −1: the
 * stretch held into the table), entered at *entry. */
static inline void hs_defer_row_stretch(const hs_defer_ctx *x, const hs_defer_table *t, int l, size_t q, int fin,
                                        int64_t *from, int64_t *b, double *pos, double *entry) {
    if (fin) *from = t->from_in[l], *b = (int64_t)x->n_bars;
    else hs_defer_row_bars(t, l, q, from, b);
    *pos = hs_defer_exit(t, (ptrdiff_t)q - 1, l) > 0.0f ? 1.0 : -1.0, *entry = x->close[*from];
}

/* A candidate's lowest e, exactly: the pnl it was held at plus u at its worst close (§9.1's operations;
 * e is monotone in the close). */
static inline double hs_defer_cand_low(const hs_defer_ctx *x, const hs_defer_cand *c) {
    double hi, lo;
    hs_defer_extremes(x->close, c->from, c->b, &hi, &lo);
    return c->pnl + hs_trade_pnl(c->pos, x->close[c->from], c->pos > 0.0 ? lo : hi, x->keep);
}

/* Lane l's candidates settled against its lowest known e, the lowest bound first (its exact e most often
 * rules out the rest); low returned exact for the epoch so far, the list empty. */
static double hs_defer_settle(const hs_defer_ctx *x, hs_defer_lanes *s, int l, double low) {
    hs_defer_cand *c = s->cand[l];
    for (int n = s->n_cand[l]; n > 0;) {
        int best = 0;
        for (int i = 1; i < n; i++) best = c[i].lb < c[best].lb ? i : best;
        if (!(c[best].lb < low)) break;
        double e = hs_defer_cand_low(x, &c[best]);
        low = e < low ? e : low;
        c[best] = c[--n];
    }
    s->n_cand[l] = 0;
    return low;
}

/* Row q of the table into lane l's candidates (its stretch's bound is below the lowest known e `low`);
 * a full list is first cut to the rows still below, then settled.  Returns low. */
static double hs_defer_keep(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *t, int l, size_t q,
                            double low) {
    if (s->n_cand[l] == HS_DEFER_CANDS) {
        int n = 0;
        for (int i = 0; i < HS_DEFER_CANDS; i++)
            if (s->cand[l][i].lb < low) s->cand[l][n++] = s->cand[l][i];
        s->n_cand[l] = n;
        if (n == HS_DEFER_CANDS) low = hs_defer_settle(x, s, l, low);
    }
    hs_defer_cand *c = &s->cand[l][s->n_cand[l]++];
    double entry;
    hs_defer_row_stretch(x, t, l, q, 0, &c->from, &c->b, &c->pos, &entry);
    c->lb = t->lb[(size_t)l * t->stride + q];
    c->pnl = t->pnl_at[(size_t)l * t->stride + q];
    return low;
}

/* Lane l's pass B list of the table before (`prev`, vectors of rows: row·256 + its lanes below), kept
 * against the epoch's lowest known e now, `low` (hs_defer_keep may lower it, so each is checked again).
 * Returns low. */
static double hs_defer_pending(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *prev, int l,
                               double low) {
    const uint32_t *hit = prev->hits + (size_t)l * prev->stride;
    const double *lb = prev->lb + (size_t)l * prev->stride;
    for (size_t i = 0; i < s->pend[l]; i++) { /* a vector of rows at a time: one branch, not one a row */
        size_t r = hit[i] >> 8;
        unsigned below = hit[i] & 255 & vm_bits(vd_cmpgt_mask(vd_set1(low), vd_loadu(lb + r)));
        for (; below; below &= below - 1) {
            size_t q = r + (size_t)__builtin_ctz(below);
            if (lb[q] < low) low = hs_defer_keep(x, s, prev, l, q, low); /* (keep may lower it) */
        }
    }
    s->pend[l] = 0;
    return low;
}

/* A barrier at row r of lane l (rare): the epoch's lowest known e completed with the crosses of the rows
 * since the last barrier (`low` covers those before), its rows since then (and those pass B left waiting in
 * the table before, `prev`) resolved against it, the epoch
 * closed into the drawdown, then the stretch scanned bar by bar (the exact rule, which may set new peaks),
 * and a new epoch: its low the cross after row r, none after the close after the last bar (`fin`).
 * Returns the peak. */
static __attribute__((noinline)) double hs_defer_barrier(const hs_defer_ctx *x, hs_defer_lanes *s,
                                                         const hs_defer_table *t, const hs_defer_table *prev, int l,
                                                         size_t r, double peak, int fin) {
    const double *pnl = t->pnl_at + (size_t)l * t->stride, *lb = t->lb + (size_t)l * t->stride;
    double m = s->low[l];
    for (size_t q = s->part[l]; q < r; q++) {
        double cross = pnl[q + 1] + x->at_open;
        m = cross < m ? cross : m;
    }
    m = hs_defer_pending(x, s, prev, l, m); /* the epoch's rows of the table before, first */
    for (size_t q = s->part[l]; q < r; q++)
        if (lb[q] < m) m = hs_defer_keep(x, s, t, l, q, m);
    m = hs_defer_settle(x, s, l, m);
    double fall = peak - m; /* −inf when the epoch knows no e yet */
    int64_t from, b;
    double pos, entry;
    hs_defer_row_stretch(x, t, l, r, fin, &from, &b, &pos, &entry);
    hs_mtm w; /* the fields the scan reads */
    w.close = x->close, w.keep = x->keep, w.pnl = pnl[r], w.entry = entry, w.pos = pos > 0.0 ? 1 : -1;
    w.peak = peak, w.mdd = fall > s->mdd[l] ? fall : s->mdd[l];
    hs_mtm_scan(&w, (size_t)from, (size_t)b);
    s->mdd[l] = w.mdd;
    s->low[l] = fin ? INFINITY : pnl[r + 1] + x->at_open;
    s->part[l] = r + 1;
    return w.peak;
}

/* E at the span's ends for the vector of lanes of table t, its lanes [0, lanes) columns col0 .. col0 +
 * lanes − 1 of the span's from_at and combos s->combo[0] onward, after the table's passes (pnl_at).  Per end
 * and lane: +0.0 before the lane's first position; else the row q whose stretch holds the end (the rows at
 * bars <= e: a position opened at e is held at e), the bar its stretch began at (the last of those rows',
 * or the chunk's from_at, or the table's from_in), its side (the side held into the table, flipped by each
 * row: every row reverses), the pnl before row q, and u there with hs_trade_pnl's operations lane-wise
 * (each rounded alone: the same bits).  The rows and bars are counted a batch of ends at a time, then each
 * end's lanes gathered as vectors.  (Noted by the books as they met each end, a branch per chunk and a call
 * per end: 0.03 of the sweep at P = 1000.  Found here lane by lane, the sweep at P = 1000 cost 0.03-0.04
 * more than with no E at all, as much as the noting; gathered, see reports/equity.md.  AMD EPYC family 25
 * model 17, AVX2 and AVX-512.) */
static inline void hs_defer_put_ends(const hs_defer_ctx *x, const hs_defer_lanes *s, const hs_defer_table *t,
                                     const hs_defer_span *sp, size_t col0, int lanes) {
    enum { BATCH = 16 };
    const hs_equity_terms *eq = x->eq;
    const hs_vd one = vd_set1(1.0), keep = vd_set1(x->keep), hundred = vd_set1(100.0), zero = vd_zero();
    int64_t first[HS_VN], pnl_at[HS_VN], q[BATCH][HS_VN], f[BATCH][HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        first[l] = l < lanes && s->pos0[l] != 0.0 ? s->from0[l] : INT64_MAX; /* the first bar with a position */
        pnl_at[l] = (int64_t)((size_t)l * t->stride);
    }
    const hs_vi held_from = vi_loadu(first), pnl_row = vi_loadu(pnl_at);
    const hs_vi ione = vi_set1(1), izero = vi_set1(0);
    const hs_vd side_in = vd_loadu(s->pos0), side_out = vd_sub(zero, side_in);
    for (size_t k0 = 0; k0 < sp->n; k0 += BATCH) {
        size_t batch = sp->n - k0 < BATCH ? sp->n - k0 : BATCH;
        for (size_t kk = 0; kk < batch; kk++) { /* row counts and stretch starts (0 where no position: masked) */
            int64_t e = eq->ends[sp->k0 + k0 + kk];
            size_t chunk = (size_t)(e - t->span_bar) >> 6;
            uint64_t upto = ~0ULL >> (63 - ((uint64_t)(e - t->span_bar) & 63)); /* bars <= e of its chunk */
            int64_t chunk_bar = t->span_bar + (int64_t)(64 * chunk);
            for (int l = 0; l < HS_VN; l++) {
                size_t at = (size_t)l * t->chunks + chunk;
                uint64_t w = t->trades_at[at] & upto;
                int64_t rows = (int64_t)t->rows_at[at] + __builtin_popcountll(w);
                int64_t before = (int64_t)sp->from_at[(col0 + (size_t)l) * t->chunks + chunk];
                before = before > t->from_in[l] ? before : t->from_in[l];
                /* masks, not selects: GCC made each select a branch, mispredicted (w is 0 at a third of the
                 * ends on the default sweep at P = 1000) */
                int64_t last_row = chunk_bar + 63 - __builtin_clzll(w | 1); /* (w | 1: defined) */
                int64_t in_chunk = -(int64_t)(w != 0), held = -(int64_t)(e >= first[l]);
                q[kk][l] = rows & held;
                f[kk][l] = ((last_row & in_chunk) | (before & ~in_chunk)) & held;
            }
        }
        for (size_t kk = 0; kk < batch; kk++) {
            size_t k = sp->k0 + k0 + kk;
            int64_t e = eq->ends[k];
            hs_vi rows = vi_loadu(q[kk]);
            hs_vmask held = vi_cmpgt_mask(vi_set1(e + 1), held_from);
            hs_vd p = vd_blend(vi_cmpgt_mask(vi_and(rows, ione), izero), side_in, side_out);
            hs_vd entry = vd_gather(x->close, vi_loadu(f[kk]));
            hs_vd r = vd_mul(p, vd_sub(vd_div(vd_set1(x->close[e]), entry), one));
            hs_vd u = vd_mul(vd_sub(vd_mul(vd_add(one, r), keep), one), hundred);
            hs_vd v = vd_blend(held, zero, vd_add(vd_gather(t->pnl_at, vi_add(pnl_row, rows)), u));
            double *E = eq->equity + k * eq->stride + s->combo[0];
            if (lanes == HS_VN) {
                vd_storeu(E, v);
            } else { /* E's row beyond the last lane is another group's */
                double w[HS_VN];
                vd_storeu(w, v);
                for (int l = 0; l < lanes; l++) E[l] = w[l];
            }
        }
    }
}

/* The table's rows [0, rows) booked into one vector of lanes' totals (book_lanes.h: the same updates in the
 * same order per combo), the pnl before each row kept in pnl_at (rows + 1 of them, lane by lane: HS_VN rows
 * transposed at a time), for the passes; into
 * *lowest, each lane's lowest pnl after a row (its crosses' lowest e, but for at_open: fl(pnl + at_open) is
 * monotone in pnl; +inf with no row); returned, the bounds' additive margin for the table, (its largest
 * |pnl| + 200)·2^-44 per lane.  A lane's rows past its last book +0.0, which changes no total and no pnl.
 * (Booked inside pass A, the booking's seven totals and pass A's state took more registers than AVX2 has:
 * booked apart, the sweep cost 0.02 less at P = 16, at AVX2 and at AVX-512, AMD EPYC family 25 model 17.) */
static inline hs_vd hs_defer_book(const hs_defer_table *t, size_t rows, hs_book_lanes *acc_io, hs_vd *lowest) {
    hs_book_lanes acc = *acc_io; /* in registers, not stored back per row */
    hs_vd most = vd_abs(acc.pnl), least = vd_set1(INFINITY), v[HS_VN];
    size_t r0 = 0;
    for (; r0 + HS_VN <= rows; r0 += HS_VN) {
        for (int i = 0; i < HS_VN; i++) {
            v[i] = acc.pnl;
            hs_book_lanes_book(&acc, vd_loadu(t->p + (r0 + (size_t)i) * t->cols));
            most = vd_max(most, vd_abs(acc.pnl));
            least = vd_min(least, acc.pnl);
        }
        vd_transpose(v);
        for (int l = 0; l < HS_VN; l++) vd_storeu(t->pnl_at + (size_t)l * t->stride + r0, v[l]);
    }
    for (int i = 0; i < HS_VN; i++) { /* the last rows, and the pnl after them */
        v[i] = acc.pnl;
        if (r0 + (size_t)i < rows) {
            hs_book_lanes_book(&acc, vd_loadu(t->p + (r0 + (size_t)i) * t->cols));
            most = vd_max(most, vd_abs(acc.pnl));
            least = vd_min(least, acc.pnl);
        }
    }
    vd_transpose(v);
    for (int l = 0; l < HS_VN; l++) vd_storeu(t->pnl_at + (size_t)l * t->stride + r0, v[l]);
    *acc_io = acc;
    *lowest = least;
    return vd_mul(vd_add(most, vd_set1(200.0)), vd_set1(0x1p-44));
}

/* Lane l's rows [from, to) of a table whose lower bound is below `low`, listed for pass B as pass A lists
 * them (vectors of rows: row·256 + its lanes below) from hit[0]; returns the count. */
static size_t hs_defer_list(const double *lb, size_t from, size_t to, double low, uint32_t *hit) {
    const hs_vd under = vd_set1(low);
    size_t hits = 0;
    for (size_t r = from; r < to; r += HS_VN) {
        unsigned below = vm_bits(vd_cmpgt_mask(under, vd_loadu(lb + r)));
        if (to - r < HS_VN) below &= (1u << (to - r)) - 1;
        hit[hits] = (uint32_t)r << 8 | below;
        hits += below != 0;
    }
    return hits;
}

/* Pass A and pass B over lane l's rows of table t, after hs_defer_book (the pnl before a row is the pnl
 * its stretch was held at; `margin` and `lowest` its results for the lane), HS_VN rows at a time; `prev`:
 * the table before, its pass B list still waiting.
 *   - Pass A: per row, u(c) ≈ shift + slope·c (slope ±100·keep/entry from an approximate reciprocal of the
 *     exit field at the row before), so e over the stretch lies within [pnl + shift − margin + min(slope·hi,
 *     slope·lo), pnl + shift + margin + max(…)] (the header's margin: hi and lo are widened, so only the
 *     shift takes a margin, once per table).  The lower bound is stored; a row whose upper bound exceeds
 *     the peak is a barrier (hs_defer_barrier), and the rows after it are taken again against the new peak.
 *     In the last table, the lane's last row may be the close after the last bar: always a barrier, and no
 *     cross.
 *   - Pass B: the rows since the last barrier whose lower bound is below the epoch's lowest known e at the
 *     table's end are listed (without a barrier that low is known before pass A: the lowest pnl after a
 *     row, from the booking, plus at_open, monotone; so pass A lists them as it goes, without a branch).
 *     The list waits for the next table's low: a row still below it becomes a candidate (evaluated at the
 *     epoch's end, if still below then).  The list of the table before is taken now, against this table's
 *     low (or at a barrier, against the barrier's); the last table's at once.  (Kept at their own table's
 *     end, 22,904 rows became candidates on the default sweep at P = 16, AVX-512, with tables of 2,048
 *     bars; waiting a table, 4,514 did.  The sweep at P = 1000 cost 0.004-0.018 less, at P = 16 up to 0.007
 *     less, AMD EPYC family 25 model 17; reports/equity.md.  With tables of 4,096 bars, 2,456 do.) */
static inline __attribute__((always_inline)) void hs_defer_lane(const hs_defer_ctx *x, hs_defer_lanes *s,
                                                                const hs_defer_table *t, const hs_defer_table *prev,
                                                                int l, double margin, double lowest, int last_table) {
    size_t rows = s->rows[l];
    s->part[l] = 0;
    if (!rows) { /* no cross: the epoch's low is the table before's */
        s->low[l] = hs_defer_pending(x, s, prev, l, s->low[l]);
        return;
    }
    const float *hi_at = (const float *)(const void *)hs_defer_field(t, l, HS_DEFER_HI);
    const float *lo_at = (const float *)(const void *)hs_defer_field(t, l, HS_DEFER_LO);
    const float *exit_before = (const float *)(const void *)hs_defer_field(t, l, HS_DEFER_EXIT) - 1;
    const double *pnl = t->pnl_at + (size_t)l * t->stride;
    double *lb = t->lb + (size_t)l * t->stride;
    uint32_t *hit = t->hits + (size_t)l * t->stride;
    int fin = last_table; /* (its only row) */
    size_t body = rows - (size_t)fin, hits = 0;
    const hs_vd s_long = vd_set1(x->s_long), zero = vd_zero();
    const hs_vd long_hi = vd_set1(x->a_long + margin), long_lo = vd_set1(x->a_long - margin);
    const hs_vd short_hi = vd_set1(x->a_short + margin), short_lo = vd_set1(x->a_short - margin);
    double peak = s->peak[l], cross = lowest + x->at_open;
    double low = cross < s->low[l] ? cross : s->low[l]; /* at the table's end, if no barrier */
    hs_vd over = vd_set1(peak), under = vd_set1(low);
    for (size_t r = 0; r < body;) {
        hs_vd sx = vd_load_f32(exit_before + r);
        hs_vd hi = vd_load_f32(hi_at + r), lo = vd_load_f32(lo_at + r), p = vd_loadu(pnl + r);
        hs_vmask is_long = vd_cmpgt_mask(sx, zero);
        hs_vd slope = vd_mul(vd_recip_approx(sx), s_long);
        hs_vd sh = vd_mul(slope, hi), sl = vd_mul(slope, lo);
        hs_vd ub = vd_add(vd_add(p, vd_blend(is_long, short_hi, long_hi)), vd_max(sh, sl));
        hs_vd b = vd_add(vd_add(p, vd_blend(is_long, short_lo, long_lo)), vd_min(sh, sl));
        vd_storeu(lb + r, b);
        unsigned valid = body - r < HS_VN ? (1u << (body - r)) - 1 : (1u << HS_VN) - 1;
        unsigned barrier = vm_bits(vd_cmpgt_mask(ub, over)) & valid;
        unsigned below = vm_bits(vd_cmpgt_mask(under, b)) & valid;
        hit[hits] = (uint32_t)r << 8 | below;
        hits += below != 0;
        if (barrier) {
            size_t rb = r + (size_t)__builtin_ctz(barrier);
            peak = hs_defer_barrier(x, s, t, prev, l, rb, peak, 0);
            over = vd_set1(peak);
            hits = 0; /* listed again after the last barrier */
            r = rb + 1;
            continue;
        }
        r += HS_VN;
    }
    vd_storeu(lb + body, vd_set1(INFINITY)); /* defined bounds past the rows (a list's vector reads them) */
    if (fin) peak = hs_defer_barrier(x, s, t, prev, l, rows - 1, peak, 1);
    s->peak[l] = peak;
    if (s->part[l]) { /* a barrier: the low from the crosses after it, and the rows since listed again */
        if (!fin) {
            double m = INFINITY;
            for (size_t q = s->part[l] + 1; q <= rows; q++) m = pnl[q] < m ? pnl[q] : m;
            cross = m + x->at_open;
            s->low[l] = cross < s->low[l] ? cross : s->low[l];
        }
        hits = s->part[l] < body ? hs_defer_list(lb, s->part[l], body, s->low[l], hit) : 0;
    } else {
        s->low[l] = hs_defer_pending(x, s, prev, l, low);
    }
    s->pend[l] = hits;
    if (last_table) s->low[l] = hs_defer_pending(x, s, t, l, s->low[l]);
}

/* A table's passes for one vector of lanes: booked (hs_defer_book), then lane by lane (hs_defer_lane).
 * `prev`: the table before (its planes, which pass B's waiting lists read); `last_table`: the table of the
 * closes after the last bar. */
static inline void hs_defer_passes(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *t,
                                   const hs_defer_table *prev, size_t rows, hs_book_lanes *acc, int last_table) {
    hs_vd lowest, margin = hs_defer_book(t, rows, acc, &lowest);
    double mg[HS_VN], lw[HS_VN];
    vd_storeu(mg, margin), vd_storeu(lw, lowest);
    for (int l = 0; l < HS_VN; l++) hs_defer_lane(x, s, t, prev, l, mg[l], lw[l], last_table);
}

/* After a table's passes (and its E): the stretch each lane holds into the next table (from its last row, or
 * the one it held into this table), and the exit field's row −1 and from_in of `next`, the next table's
 * planes. */
static inline void hs_defer_next_table(hs_defer_lanes *s, const hs_defer_table *t, const hs_defer_table *next) {
    for (int l = 0; l < HS_VN; l++) {
        ptrdiff_t last = (ptrdiff_t)s->rows[l] - 1; /* −1: no row, the stretch held into this table */
        float exit = hs_defer_exit(t, last, l);
        if (s->rows[l]) s->from0[l] = s->last_bar[l], s->pos0[l] = exit > 0.0f ? 1.0 : -1.0;
        ((float *)(void *)hs_defer_field(next, l, HS_DEFER_EXIT))[-1] = exit;
        next->from_in[l] = s->from0[l];
    }
}

/* After the last table: the last epoch closed into the drawdown, to mtm[combo]. */
static inline void hs_defer_lanes_finish(const hs_defer_ctx *x, hs_defer_lanes *s, int l) {
    s->low[l] = hs_defer_settle(x, s, l, s->low[l]);
    double fall = s->peak[l] - s->low[l];
    if (fall > s->mdd[l]) s->mdd[l] = fall;
    if (x->eq->mtm) x->eq->mtm[s->combo[l]] = s->mdd[l];
}

#endif
