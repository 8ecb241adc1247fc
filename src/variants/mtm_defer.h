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
 * min and a max per chunk walked, no gather), its exit price and its cross; and they note the period ends
 * they pass.  Per table of rows (one close per combo and row):
 *   - bounds on e over the stretch, without a division: u(c) = A + s·c with s = ±100·keep/entry (one
 *     approximate reciprocal per stretch) and A = −100 (long) or 100·(2·keep − 1) (short), the extremes at
 *     the chunk bounds, widened by a margin that covers every rounding of the exact expression (below);
 *   - pass A, rows in order, booking them (book_lanes.h): a stretch whose upper bound exceeds the peak (or
 *     the close after the last bar) is a barrier: the epoch's candidates are settled, the epoch is closed
 *     into the drawdown, and the stretch is scanned bar by bar from its records (equity.c hs_mtm_scan, the
 *     exact per-bar rule); otherwise its lower bound is kept, and the lowest known e follows the crosses;
 *   - pass B: the rows whose lower bound is below the epoch's lowest known e become candidates, kept per
 *     lane (their pnl and bars) until the epoch ends, when most are below no more and are dropped
 *     unevaluated; the others are evaluated exactly (their stretch's worst close and hs_trade_pnl), the
 *     lowest bound first.  Counted on the default sweep (AVX-512, P = 16): 473,381 stretches, 22,910
 *     candidates kept, 366 evaluated, 684 barriers (45,072 bars scanned);
 *   - E at the ends the books noted: u there, computed when they met it, plus the pnl before the row whose
 *     stretch holds the end.
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
    /* the stretch held at the table's first row (pos 0.0: not started), its bounds' slope and shift */
    double pos0[HS_VN], entry0[HS_VN], slope[HS_VN], shift[HS_VN];
    int64_t from0[HS_VN];
    double peak[HS_VN], mdd[HS_VN], low[HS_VN]; /* low: the epoch's lowest e known exactly (+inf: none) */
    size_t combo[HS_VN];
    size_t rows[HS_VN], part[HS_VN]; /* the lane's rows in this table; the first not yet resolved (barriers) */
    int n_cand[HS_VN];
    hs_defer_cand cand[HS_VN][HS_DEFER_CANDS];
} hs_defer_lanes;

static inline void hs_defer_lanes_new(hs_defer_lanes *s, size_t first_combo) {
    for (int l = 0; l < HS_VN; l++) {
        s->pos0[l] = s->entry0[l] = s->slope[l] = s->shift[l] = 0.0;
        s->peak[l] = s->mdd[l] = 0.0;
        s->low[l] = INFINITY;
        s->from0[l] = 0;
        s->combo[l] = first_combo + (size_t)l;
        s->n_cand[l] = 0;
    }
}

/* Lane l's first stretch: opened at first_bar, to side pos (+1, −1). */
static inline void hs_defer_lanes_start(const hs_defer_ctx *x, hs_defer_lanes *s, int l, int64_t first_bar, int pos) {
    double entry = x->close[first_bar];
    s->pos0[l] = pos > 0 ? 1.0 : -1.0;
    s->entry0[l] = entry;
    s->slope[l] = (pos > 0 ? x->s_long : x->s_short) / entry;
    s->shift[l] = pos > 0 ? x->a_long : x->a_short;
    s->from0[l] = first_bar;
}

/* What the books write beside a trade's deferred PnL, as 32-bit words: the chunk bounds on its stretch's
 * closes (hs_defer_bound_hi/lo), its exit price signed by the new side (hs_defer_signed_exit: only the next
 * stretch's slope reads it, s_long / that) and its cross, coded bar·2 + (the new side is long).  Per row of
 * the table, each field's words for all the columns in turn (HS_DEFER_FIELDS × cols words), so a vector of
 * lanes loads each field with one widening load.  (As four planes of doubles the books' stores touched four more lines a trade, and cost more than
 * the rest of the accounting; as one 16-byte record per trade, one line, pass A's transposes cost more.) */
enum { HS_DEFER_HI, HS_DEFER_LO, HS_DEFER_EXIT, HS_DEFER_CODE, HS_DEFER_FIELDS };

/* The exit field: the price as a float, negated when the new side is short. */
static inline float hs_defer_signed_exit(double price, int to_long) { return to_long ? (float)price : -(float)price; }

/* The period ends of a table, k0 .. k0 + n − 1, as the books met them with a position open: per end and
 * column, the side held (+0.0: none noted, E left as it is), the entry (then u there) and where the pnl
 * before the row whose stretch holds the end is in pnl_at (E = that + u, once pass A knows it).  A flat
 * end's E (+0.0) the books write themselves. */
typedef struct {
    double *pos, *u; /* end k0 + kk, column c at [kk·cols + c]; pos and at back to 0 once put */
    uint32_t *at;
    size_t k0, n, cols;
} hs_defer_ends;

/* The book table's planes, at the first column of a vector of lanes: row q of lane l at [q·cols + l]. */
typedef struct {
    const uint32_t *cells; /* row q, field f, lane l at [(q·HS_DEFER_FIELDS + f)·cols + l] (floats but the code) */
    const double *p;
    double *lb;     /* pass A: each row's lower bound on e (+inf: none, or taken exactly) */
    double *pnl_at; /* pass A: the pnl before each row (rows + 1 of them) */
    size_t cols;
} hs_defer_table;

static inline uint32_t hs_defer_code(const hs_defer_table *t, size_t q, int l) {
    return t->cells[(q * HS_DEFER_FIELDS + HS_DEFER_CODE) * t->cols + (size_t)l];
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

/* The stretch row q of lane l closes: held from bar *from at side *pos, entered at *entry. */
static inline void hs_defer_row_stretch(const double *close, const hs_defer_lanes *s, const hs_defer_table *t, int l,
                                        size_t q, int64_t *from, double *pos, double *entry) {
    if (q == 0) {
        *from = s->from0[l], *pos = s->pos0[l], *entry = s->entry0[l];
    } else {
        uint32_t c = hs_defer_code(t, q - 1, l);
        *from = (int64_t)(c >> 1), *pos = c & 1 ? 1.0 : -1.0, *entry = close[c >> 1];
    }
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
    hs_defer_row_stretch(x->close, s, t, l, q, &c->from, &c->pos, &entry);
    c->b = (int64_t)(hs_defer_code(t, q, l) >> 1);
    c->lb = t->lb[q * t->cols + (size_t)l];
    c->pnl = t->pnl_at[q * t->cols + (size_t)l];
    return low;
}

typedef struct {
    hs_vd peak, low;
} hs_defer_pl;

/* The barrier lanes of row r (rare): each lane's deferred rows of the table resolved against its epoch's
 * lowest known e, the epoch closed into the drawdown, then the stretch scanned bar by bar (the exact rule,
 * which may set new peaks), and a new epoch. */
static __attribute__((noinline)) hs_defer_pl hs_defer_barrier(const hs_defer_ctx *x, hs_defer_lanes *s,
                                                              const hs_defer_table *t, size_t r, unsigned lanes,
                                                              hs_defer_pl in) {
    double peak[HS_VN], low[HS_VN];
    vd_storeu(peak, in.peak), vd_storeu(low, in.low);
    for (int l = 0; l < HS_VN; l++) {
        if (!(lanes >> l & 1)) continue;
        int64_t from, b = (int64_t)(hs_defer_code(t, r, l) >> 1);
        double pos, entry, pnl = t->pnl_at[r * t->cols + (size_t)l];
        hs_defer_row_stretch(x->close, s, t, l, r, &from, &pos, &entry);
        double m = low[l];
        for (size_t q = s->part[l]; q < r; q++) {
            double *lb = &t->lb[q * t->cols + (size_t)l];
            if (*lb < m) m = hs_defer_keep(x, s, t, l, q, m);
            *lb = INFINITY;
        }
        m = hs_defer_settle(x, s, l, m);
        double fall = peak[l] - m; /* −inf when the epoch knows no e yet */
        double mdd = fall > s->mdd[l] ? fall : s->mdd[l];
        hs_mtm w; /* the fields the scan reads */
        w.close = x->close, w.keep = x->keep, w.pnl = pnl, w.entry = entry, w.pos = pos > 0.0 ? 1 : -1;
        w.peak = peak[l], w.mdd = mdd;
        hs_mtm_scan(&w, (size_t)from, (size_t)b);
        peak[l] = w.peak, s->mdd[l] = w.mdd;
        low[l] = INFINITY;
        t->lb[r * t->cols + (size_t)l] = INFINITY;
        s->part[l] = r + 1;
    }
    return (hs_defer_pl){vd_loadu(peak), vd_loadu(low)};
}

/* Period end k (of the table's) met inside a held stretch (side pos, entered at `entry`) that row `row` of
 * column `col` closes. */
static inline void hs_defer_note_end(hs_defer_ends *e, size_t k, size_t row, size_t col, double pos, double entry) {
    size_t at = (k - e->k0) * e->cols + col;
    e->pos[at] = pos, e->u[at] = entry, e->at[at] = (uint32_t)(row * e->cols + col);
}

/* E at the table's ends noted, for columns [0, count) (column c is combo first_combo + c; pnl_at: the pnl
 * before each row, row q of column c at [q·cols + c]), HS_VN columns at a time: u with hs_trade_pnl's
 * operations lane-wise (each rounded alone: the same bits), plus the pnl gathered, into the lanes noted.
 * (Before, one end at a time from the table's cells: a dependent load of the entry's close, then a division
 * and six dependent operations per end.  The books' stores here and this stage, against the sweep with no
 * end noted: 1.02 of the sweep at P = 1000, AMD EPYC family 25 model 17.)  Columns past the last whole
 * vector one at a time: E's row beyond `count` is another group's. */
static inline void hs_defer_put_ends(const hs_defer_ctx *x, hs_defer_ends *e, const double *pnl_at, size_t count,
                                     size_t first_combo) {
    const hs_equity_terms *eq = x->eq;
    const hs_vd one = vd_set1(1.0), keep = vd_set1(x->keep), hundred = vd_set1(100.0), zero = vd_zero();
    size_t whole = count / HS_VN * HS_VN;
    for (size_t kk = 0; kk < e->n; kk++) {
        double c1 = x->close[eq->ends[e->k0 + kk]];
        hs_vd c = vd_set1(c1);
        double *E = eq->equity + (e->k0 + kk) * eq->stride + first_combo;
        size_t at = kk * e->cols;
        for (size_t col = 0; col < whole; col += HS_VN, at += HS_VN) {
            hs_vd pos = vd_loadu(e->pos + at);
            hs_vd r = vd_mul(pos, vd_sub(vd_div(c, vd_loadu(e->u + at)), one));
            hs_vd u = vd_mul(vd_sub(vd_mul(vd_add(one, r), keep), one), hundred);
            hs_vd sum = vd_add(vd_gather(pnl_at, vi_load_u32(e->at + at)), u);
            vd_storeu(E + col, vd_blend(vd_cmpgt_mask(vd_abs(pos), zero), vd_loadu(E + col), sum));
            vd_storeu(e->pos + at, zero);
            for (int l = 0; l < HS_VN; l++) e->at[at + (size_t)l] = 0;
        }
        for (size_t col = whole; col < count; col++, at++)
            if (e->pos[at] != 0.0) {
                E[col] = pnl_at[e->at[at]] + hs_trade_pnl(e->pos[at], e->u[at], c1, x->keep);
                e->pos[at] = 0.0, e->at[at] = 0;
            }
    }
}
/* The table's rows [0, rows) booked into one vector of lanes' totals (book_lanes.h: the same updates in the
 * same order per combo), the pnl before each row kept in pnl_at (rows + 1 of them), for pass A; returned,
 * the bounds' additive margin for the table, (its largest |pnl| + 200)·2^-44 per lane.  (Booked inside
 * pass A, the booking's seven totals and pass A's state took more registers than AVX2 has: booked apart,
 * the sweep cost 0.02 less at P = 16, at AVX2 and at AVX-512, AMD EPYC family 25 model 17.) */
static inline hs_vd hs_defer_book(const hs_defer_table *t, size_t rows, hs_book_lanes *acc_io) {
    hs_book_lanes acc = *acc_io; /* in registers, not stored back per row */
    hs_vd most = vd_abs(acc.pnl);
    size_t at = 0;
    for (size_t r = 0; r < rows; r++, at += t->cols) {
        vd_storeu(t->pnl_at + at, acc.pnl);
        hs_book_lanes_book(&acc, vd_loadu(t->p + at));
        most = vd_max(most, vd_abs(acc.pnl));
    }
    vd_storeu(t->pnl_at + at, acc.pnl);
    *acc_io = acc;
    return vd_mul(vd_add(most, vd_set1(200.0)), vd_set1(0x1p-44));
}

/* Pass A over a table's rows for one vector of lanes, after hs_defer_book (the pnl before a row is the pnl
 * its stretch was held at; `margin` its result).  Per row and lane: u(c) ≈ shift + slope·c (slope
 * ±100·keep/entry from an approximate reciprocal), so e over the stretch lies within [pnl + shift −
 * margin + min(slope·hi, slope·lo), pnl + shift + margin + max(…)] (the header's margin: hi and lo are
 * widened, so only the shift takes a margin, once per table).  A lane's rows past its last are no barrier
 * and no candidate; they book +0.0, so their cross value is the lane's last one again, and their slope and
 * shift are replaced after the loop by each lane's last row's (a lane not started has no e: its low is
 * put back).  Only the last table, whose rows include the closes after the last bar (no cross), masks the
 * cross values too.  (Computed per row from the row's own |pnl| and |slope·hi|, with the slope and shift
 * blended per valid lane, pass A took 0.01 more of the sweep at AVX2, the same at AVX-512: AMD EPYC
 * family 25 model 17, P = 16.) */
static inline __attribute__((always_inline)) void hs_defer_pass_a(const hs_defer_ctx *x, hs_defer_lanes *s,
                                                                  hs_defer_table *t, size_t rows, hs_vd margin,
                                                                  int last_table) {
    for (int l = 0; l < HS_VN; l++) s->part[l] = 0;
    const hs_vd slope0 = vd_loadu(s->slope), shift0 = vd_loadu(s->shift);
    hs_vd slope = slope0, lift = vd_add(shift0, margin), drop = vd_sub(shift0, margin);
    hs_defer_pl pl = {vd_loadu(s->peak), vd_loadu(s->low)};
    const hs_vd at_open = vd_set1(x->at_open), s_long = vd_set1(x->s_long), zero = vd_zero();
    const hs_vd a_long = vd_set1(x->a_long), a_short = vd_set1(x->a_short);
    const hs_vd long_hi = vd_add(a_long, margin), long_lo = vd_sub(a_long, margin);
    const hs_vd short_hi = vd_add(a_short, margin), short_lo = vd_sub(a_short, margin);
    const hs_vi last = vi_set1((int64_t)x->n_bars - 1), ione = vi_set1(1), izero = vi_set1(0);
    int64_t n_rows[HS_VN];
    for (int l = 0; l < HS_VN; l++) n_rows[l] = (int64_t)s->rows[l];
    hs_vi left = vi_loadu(n_rows); /* (last table) rows left in each lane: a row is valid while positive */
    size_t at = 0;
    for (size_t r = 0; r < rows; r++, at += t->cols) {
        const uint32_t *w = t->cells + r * HS_DEFER_FIELDS * t->cols;
        const float *f = (const float *)(const void *)w;
        hs_vd hi = vd_load_f32(f + HS_DEFER_HI * t->cols), lo = vd_load_f32(f + HS_DEFER_LO * t->cols);
        hs_vd pnl = vd_loadu(t->pnl_at + at);
        hs_vd sh = vd_mul(slope, hi), sl = vd_mul(slope, lo);
        hs_vd ub = vd_add(vd_add(pnl, lift), vd_max(sh, sl));
        hs_vd lb = vd_add(vd_add(pnl, drop), vd_min(sh, sl));
        hs_vd cross = vd_min(pl.low, vd_add(vd_loadu(t->pnl_at + at + t->cols), at_open));
        hs_vmask valid = vi_cmpgt_mask(left, izero);
        left = vi_sub(left, ione);
        unsigned barrier = vm_bits(vm_and(valid, vd_cmpgt_mask(ub, pl.peak)));
        if (last_table) {
            /* the close after the last bar: always a barrier, and no cross */
            hs_vmask fin = vm_and(valid, vi_cmpgt_mask(vi_srl(vi_load_u32(w + HS_DEFER_CODE * t->cols), 1), last));
            barrier = vm_bits(vm_and(valid, vd_cmpgt_mask(ub, pl.peak))) | vm_bits(fin);
            lb = vd_blend(valid, vd_set1(INFINITY), lb);
            vd_storeu(t->lb + at, lb);
            if (barrier) pl = hs_defer_barrier(x, s, t, r, barrier, pl);
            cross = vd_min(pl.low, vd_add(vd_loadu(t->pnl_at + at + t->cols), at_open));
            pl.low = vd_blend(vm_andnot(valid, fin), pl.low, cross);
        } else {
            vd_storeu(t->lb + at, vd_blend(valid, vd_set1(INFINITY), lb));
            if (barrier) {
                pl = hs_defer_barrier(x, s, t, r, barrier, pl);
                cross = vd_min(pl.low, vd_add(vd_loadu(t->pnl_at + at + t->cols), at_open));
            }
            pl.low = cross;
        }
        hs_vd sx = vd_load_f32(f + HS_DEFER_EXIT * t->cols);
        hs_vmask is_long = vd_cmpgt_mask(sx, zero);
        slope = vd_mul(vd_recip_approx(sx), s_long);
        lift = vd_blend(is_long, short_hi, long_hi);
        drop = vd_blend(is_long, short_lo, long_lo);
    }
    /* each lane's last row's slope and shift (those of the rows past it are another table's), or its own with
     * no row */
    double sx[HS_VN], has[HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        has[l] = s->rows[l] ? 1.0 : 0.0;
        sx[l] = s->rows[l] ? ((const float *)(const void *)t->cells)[((s->rows[l] - 1) * HS_DEFER_FIELDS + HS_DEFER_EXIT) *
                                                                         t->cols + (size_t)l]
                           : 1.0;
    }
    hs_vd v = vd_loadu(sx);
    hs_vmask had = vd_cmpgt_mask(vd_loadu(has), zero);
    vd_storeu(s->slope, vd_blend(had, slope0, vd_mul(vd_recip_approx(v), s_long)));
    vd_storeu(s->shift, vd_blend(had, shift0, vd_blend(vd_cmpgt_mask(v, zero), a_short, a_long)));
    vd_storeu(s->peak, pl.peak), vd_storeu(s->low, pl.low);
    for (int l = 0; l < HS_VN; l++)
        if (s->pos0[l] == 0.0) s->low[l] = INFINITY; /* not started: its rows' cross values are none */
}

/* After a table's passes: the stretch each lane holds into the next table (its last row's cross). */
static inline void hs_defer_next_table(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *t) {
    for (int l = 0; l < HS_VN; l++)
        if (s->rows[l]) {
            uint32_t c = hs_defer_code(t, s->rows[l] - 1, l);
            s->from0[l] = (int64_t)(c >> 1), s->pos0[l] = c & 1 ? 1.0 : -1.0;
            s->entry0[l] = x->close[c >> 1 < x->n_bars ? c >> 1 : x->n_bars - 1];
        }
}

/* Pass B: the rows whose lower bound is below the epoch's lowest known e become candidates (evaluated at
 * the epoch's end, if still below then).  The rows below are first listed without a branch, a batch at a
 * time, then kept: about 5% of the rows are, at random, and a branch per row on it mispredicted at each
 * (the loop over the rows was a quarter of book_table_defer's samples at P = 16: AMD EPYC family 25
 * model 17, AVX-512, perf cpu-clock).  A row listed against the batch's first low is kept only if still
 * below the lane's low then (hs_defer_keep may lower it), as row by row. */
static inline void hs_defer_pass_b(const hs_defer_ctx *x, hs_defer_lanes *s, const hs_defer_table *t, size_t rows) {
    enum { BATCH = 256 };
    _Static_assert(HS_VN <= 8, "a row's lanes in a byte");
    uint32_t hit[BATCH]; /* row·256 + its lanes below (a table's rows: under 2^24) */
    for (size_t r0 = 0; r0 < rows; r0 += BATCH) {
        size_t r1 = rows - r0 < BATCH ? rows : r0 + BATCH, n = 0;
        hs_vd low = vd_loadu(s->low);
        for (size_t r = r0; r < r1; r++) {
            unsigned below = vm_bits(vd_cmpgt_mask(low, vd_loadu(t->lb + r * t->cols)));
            hit[n] = (uint32_t)r << 8 | below;
            n += below != 0;
        }
        for (size_t i = 0; i < n; i++) {
            size_t r = hit[i] >> 8;
            for (unsigned below = hit[i] & 255; below; below &= below - 1) {
                int l = __builtin_ctz(below);
                if (t->lb[r * t->cols + (size_t)l] < s->low[l]) s->low[l] = hs_defer_keep(x, s, t, l, r, s->low[l]);
            }
        }
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
