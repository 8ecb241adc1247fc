/* The mark-to-market tracker (equity.h, docs/spec.md §9.1-§9.3) in vector lanes: one combo per lane, one
 * cross per lane per call, written against the vector vocabulary (vec.h, the ISA of the including unit).
 *
 * Why: the scalar tracker (equity.c) accounts each held stretch with data-dependent branches (how long it
 * is, whether it sets a new peak) and costs ~17 ns a trade: a sweep with periods took 1.35x (AVX2) and
 * 1.47x (AVX-512) the sweep without (reports/equity.md), where issue 27 allows 1.10x.  Here a row of the
 * segments kernel's book table (book_lanes.h: a combo's trades in booking order, one column per combo)
 * is accounted HS_VN combos at a time, with the range queries as gathers and every decision a select:
 *   - the stretch [from, b) held since the last cross: its highest and lowest close from the sweep's range
 *     table (equity.h hs_mtm_ranges, with the windows: two windows below 64 bars; above, the two level-5
 *     windows at its ends and two windows of the blocks' sparse table between them);
 *   - e at its best and worst close, eb = pnl + u(best), ew = pnl + u(worst) (hs_trade_pnl's operations in
 *     its order: the same bits as the scalar tracker's F);
 *   - mdd = max(mdd, fl(peak − ew)) and peak = max(peak, eb).  This is exact unless the stretch sets a new
 *     peak AND fl(eb − ew) exceeds that mdd: every fall t_j = fl(peak_j − e_j) of the stretch lies between
 *     fl(peak − ew) and fl(eb − ew) (F and fl(x − y) are monotone, equity.c), so when the upper end is no
 *     more than the new mdd, the per-bar loop ends with the same mdd and the same peak.  Only the other
 *     lanes take the scalar tracker's record scan (hs_mtm_scan): 296 of 946,762 stretches in two default
 *     sweeps (counted, AVX-512, P = 16);
 *   - the period ends in the stretch, E = pnl + u(close[end]), in a loop that runs only for rows where a
 *     lane has one.
 * The row's pnl is the book lanes' running total before the row is booked: the pnl the stretch was held
 * at, bit for bit (the books add the same p in the same order; padding rows add +0.0).
 *
 * Measured (reports/equity.md, Xeon family 6 model 207, main's binary and this one alternated): P = 16
 * costs 1.32-1.33x the sweep without at AVX-512 (1.46-1.48x with the scalar tracker); at AVX2 the lanes
 * lost (1.36-1.40x against 1.35-1.37x), so segments uses them at AVX-512 only (seg_equity_lanes).
 * Gathers stayed: eight scalar loads through memory per query were slower in place, though one 8-double
 * gather took 8.5 ns in a loop of them.  Not the 1.10x: that needs work per span of bars, not per trade
 * (the floor measured there).
 *
 * A lane's rows: each close of its book (a reversal, or the close after the last bar), coded bar·2 + (the
 * new side is long), −1 where the column has no trade.  The close after the last bar is coded at bar n,
 * so its stretch [from, n) takes the last bar too: e there is pnl + p, the combo's pnl (§9.1).  The first
 * cross opens without a close: the lane starts at its first row, from the book's first_bar and the side
 * opposite that row's (hs_mtm_lanes_start).
 */
#ifndef HS_MTM_LANES_H
#define HS_MTM_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "book_lanes.h" /* hs_vd_above: C's a > b ? a : b per lane */
#include "equity.h"
#include "vec.h"

/* The sweep's terms the lanes read. */
typedef struct {
    const double *close;
    size_t n_bars;
    double keep;
    const hs_equity_terms *eq; /* ends, E, stride; ranges with their windows (near) */
    uint32_t level_at[HS_MTM_BLOCK_LEVELS + 1]; /* level j of the blocks' sparse table starts at j·blocks */
} hs_mtm_lanes_ctx;

static inline void hs_mtm_lanes_ctx_init(hs_mtm_lanes_ctx *x, const double *close, size_t n_bars, double keep,
                                         const hs_equity_terms *eq) {
    x->close = close, x->n_bars = n_bars, x->keep = keep, x->eq = eq;
    for (int j = 0; j <= HS_MTM_BLOCK_LEVELS; j++) x->level_at[j] = (uint32_t)((size_t)j * eq->ranges.blocks);
}

/* The lanes' state, kept in memory between tables (loaded once per table: segments.c book_table_mtm). */
typedef struct {
    double pos[HS_VN], entry[HS_VN], peak[HS_VN], mdd[HS_VN]; /* pos ±1.0, 0.0 before the first cross */
    int64_t from[HS_VN], next_end[HS_VN];                     /* next_end: n_bars when none is left */
    size_t k[HS_VN], combo[HS_VN];                             /* the next end's index; the E column */
} hs_mtm_lanes;

/* Lanes of combos first..first + HS_VN − 1 (E columns), none started. */
static inline void hs_mtm_lanes_new(hs_mtm_lanes *s, const hs_mtm_lanes_ctx *x, size_t first) {
    for (int l = 0; l < HS_VN; l++) {
        s->pos[l] = s->entry[l] = s->peak[l] = s->mdd[l] = 0.0;
        s->from[l] = 0;
        s->k[l] = 0;
        s->next_end[l] = x->eq->n_ends ? x->eq->ends[0] : (int64_t)x->n_bars;
        s->combo[l] = first + (size_t)l;
    }
}

/* E[k] of lane l's combo. */
static inline void mtm_lanes_put(const hs_mtm_lanes_ctx *x, const hs_mtm_lanes *s, int l, double e) {
    if (x->eq->equity) x->eq->equity[s->k[l] * x->eq->stride + s->combo[l]] = e;
}

static inline void mtm_lanes_next_end(const hs_mtm_lanes_ctx *x, hs_mtm_lanes *s, int l) {
    s->k[l]++;
    s->next_end[l] = s->k[l] < x->eq->n_ends ? x->eq->ends[s->k[l]] : (int64_t)x->n_bars;
}

/* Lane l's first cross: at bar first_bar, to side pos.  Before it the book is flat at pnl +0.0: e = +0.0
 * on every bar (peak and mdd stay 0.0), so E = +0.0 at the ends before it. */
static inline void hs_mtm_lanes_start(const hs_mtm_lanes_ctx *x, hs_mtm_lanes *s, int l, int64_t first_bar, int pos) {
    while (s->next_end[l] < first_bar) {
        mtm_lanes_put(x, s, l, 0.0);
        mtm_lanes_next_end(x, s, l);
    }
    s->pos[l] = pos > 0 ? 1.0 : -1.0;
    s->entry[l] = x->close[first_bar];
    s->from[l] = first_bar;
}

/* After the last table: a lane that never started has E = +0.0 throughout; every started lane's last row
 * (the close after the last bar) took every end.  The drawdown to mtm[combo]. */
static inline void hs_mtm_lanes_finish(const hs_mtm_lanes_ctx *x, hs_mtm_lanes *s, int l) {
    while (s->k[l] < x->eq->n_ends) {
        mtm_lanes_put(x, s, l, 0.0);
        mtm_lanes_next_end(x, s, l);
    }
    if (x->eq->mtm) x->eq->mtm[s->combo[l]] = s->mdd[l];
}

/* hs_trade_pnl per lane, its operations in its order. */
static inline hs_vd mtm_lanes_u(hs_vd pos, hs_vd entry, hs_vd c, hs_vd keep) {
    hs_vd one = vd_set1(1.0);
    hs_vd r = vd_mul(pos, vd_sub(vd_div(c, entry), one));
    return vd_mul(vd_sub(vd_mul(vd_add(one, r), keep), one), vd_set1(100.0));
}


/* The highest and lowest close of [a, b) per lane, b > a (equity.c's range_of, as gathers).  Below 64
 * bars: the windows [a, a + 2^k) and [b − 2^k, b), 2^k <= b − a < 2^(k+1).  From 64 bars: the level-5
 * windows at both ends cover the partial blocks, and the whole blocks [⌈a/16⌉, ⌊b/16⌋) (at least three)
 * are two windows of the blocks' sparse table; a lane with 64 blocks or more (1,024 bars) takes the scalar
 * query for them. */
static inline void mtm_lanes_range(const hs_mtm_lanes_ctx *x, hs_vi a, hs_vi b, hs_vd *hi, hs_vd *lo) {
    static const uint32_t shift_of[HS_MTM_NEAR_LEVELS + 1] = {
        HS_MTM_NEAR_SHIFT(0), HS_MTM_NEAR_SHIFT(1), HS_MTM_NEAR_SHIFT(2),
        HS_MTM_NEAR_SHIFT(3), HS_MTM_NEAR_SHIFT(4), HS_MTM_NEAR_SHIFT(5)}; /* level k's first bit */
    _Static_assert(HS_MTM_NEAR_LEVELS == 5, "shift_of lists levels 0-5");
    const hs_mtm_ranges *r = &x->eq->ranges;
    hs_vi one = vi_set1(1), len = vi_sub(b, a), top = vi_set1(HS_MTM_NEAR_LEVELS);
    hs_vi k = vi_log2(len);
    k = vi_blend(vi_cmpgt_mask(k, top), k, top);
    hs_vi width = vi_sllv(one, k), y = vi_sub(b, width), mask = vi_sub(width, one);
    hs_vi sh = vi_gather_u32(shift_of, k);
    hs_vi wa = vi_srlv(vi_gather_u32(r->near, a), sh), wy = vi_srlv(vi_gather_u32(r->near, y), sh);
    hs_vd h = vd_max(vd_gather(x->close, vi_add(a, vi_and(wa, mask))), vd_gather(x->close, vi_add(y, vi_and(wy, mask))));
    hs_vd l = vd_min(vd_gather(x->close, vi_add(a, vi_and(vi_srlv(wa, k), mask))),
                     vd_gather(x->close, vi_add(y, vi_and(vi_srlv(wy, k), mask))));
    hs_vmask longer = vi_cmpgt_mask(len, vi_set1((int64_t)HS_MTM_NEAR_BARS - 1));
    if (vm_bits(longer)) {
        hs_vi fifteen = vi_set1((int64_t)HS_MTM_BLOCK - 1);
        hs_vi ka = vi_srl(vi_add(a, fifteen), HS_MTM_BLOCK_SHIFT), kb = vi_srl(b, HS_MTM_BLOCK_SHIFT);
        ka = vi_blend(longer, vi_set1(0), ka), kb = vi_blend(longer, one, kb); /* short lanes: block 0, harmless */
        hs_vi m = vi_sub(kb, ka), j = vi_log2(m), jtop = vi_set1(HS_MTM_BLOCK_LEVELS);
        hs_vmask beyond = vi_cmpgt_mask(j, jtop);
        j = vi_blend(beyond, j, jtop);
        hs_vi at = vi_gather_u32(x->level_at, j);
        hs_vi i1 = vi_add(at, ka), i2 = vi_add(at, vi_sub(kb, vi_sllv(one, j)));
        hs_vd bh = vd_max(vd_gather(r->hi, i1), vd_gather(r->hi, i2));
        hs_vd bl = vd_min(vd_gather(r->lo, i1), vd_gather(r->lo, i2));
        unsigned far = vm_bits(beyond);
        if (far) { /* 2,048 bars or more: the scalar query over the blocks (its top level, a read per 512 bars) */
            double fh[HS_VN], fl[HS_VN];
            int64_t fa[HS_VN], fb[HS_VN];
            vd_storeu(fh, bh), vd_storeu(fl, bl), vi_storeu(fa, ka), vi_storeu(fb, kb);
            for (int q = 0; q < HS_VN; q++)
                if (far >> q & 1) hs_mtm_blocks_range(r, (size_t)fa[q], (size_t)fb[q], &fh[q], &fl[q]);
            bh = vd_loadu(fh), bl = vd_loadu(fl);
        }
        h = vd_blend(longer, h, vd_max(h, bh));
        l = vd_blend(longer, l, vd_min(l, bl));
    }
    *hi = h, *lo = l;
}

/* A row's peak and drawdown, returned by value: the rare paths take no address of the lanes' registers
 * (through a pointer they would live in memory for the whole row loop). */
typedef struct {
    hs_vd peak, mdd;
} mtm_lanes_pm;

/* The rare lanes: the record scan of a stretch that sets a new peak and may set a new drawdown; `out` the
 * row's selects, replaced in those lanes. */
static __attribute__((noinline)) mtm_lanes_pm mtm_lanes_scan(const hs_mtm_lanes_ctx *x, unsigned lanes, hs_vd vpnl,
                                                             hs_vd vpos, hs_vd ventry, hs_vd vpeak, hs_vd vmdd,
                                                             hs_vi va, hs_vi vb, mtm_lanes_pm out) {
    double pnl[HS_VN], pos[HS_VN], entry[HS_VN], peak[HS_VN], mdd[HS_VN], po[HS_VN], mo[HS_VN];
    int64_t a[HS_VN], b[HS_VN];
    vd_storeu(pnl, vpnl), vd_storeu(pos, vpos), vd_storeu(entry, ventry), vd_storeu(peak, vpeak), vd_storeu(mdd, vmdd);
    vd_storeu(po, out.peak), vd_storeu(mo, out.mdd), vi_storeu(a, va), vi_storeu(b, vb);
    for (int l = 0; l < HS_VN; l++) {
        if (!(lanes >> l & 1)) continue;
        hs_mtm m; /* the fields the scan reads (its queue, 1 KB, is not touched: no memset per scan) */
        m.close = x->close, m.keep = x->keep, m.pnl = pnl[l], m.entry = entry[l], m.pos = pos[l] > 0.0 ? 1 : -1;
        m.peak = peak[l], m.mdd = mdd[l];
        hs_mtm_scan(&m, (size_t)a[l], (size_t)b[l]);
        po[l] = m.peak, mo[l] = m.mdd;
    }
    return (mtm_lanes_pm){vd_loadu(po), vd_loadu(mo)};
}

/* The rows where a lane has period ends in its stretch [from, b): E = pnl + u(close[end]), the lanes' next
 * ends at once (one division for all), until none is left (P = 1000 on the default sweep: ~79,000 ends;
 * scalar, one division each, they cost 0.08x the sweep at AVX-512). */
static __attribute__((noinline)) hs_vi mtm_lanes_ends(const hs_mtm_lanes_ctx *x, hs_mtm_lanes *s, hs_vmask due,
                                                      hs_vd pnl, hs_vd pos, hs_vd entry, hs_vi b, hs_vi next_end) {
    hs_vd keep = vd_set1(x->keep);
    hs_vi none = vi_set1(0);
    vi_storeu(s->next_end, next_end);
    for (unsigned lanes = vm_bits(due); lanes; lanes = vm_bits(due)) {
        double e[HS_VN];
        vd_storeu(e, vd_add(pnl, mtm_lanes_u(pos, entry, vd_gather(x->close, vi_blend(due, none, next_end)), keep)));
        for (int l = 0; l < HS_VN; l++)
            if (lanes >> l & 1) {
                mtm_lanes_put(x, s, l, e[l]);
                mtm_lanes_next_end(x, s, l);
            }
        next_end = vi_loadu(s->next_end);
        due = vm_and(due, vi_cmpgt_mask(b, next_end));
    }
    return next_end;
}

/* The lanes' state in registers while a table's rows are accounted. */
typedef struct {
    hs_vd pos, entry, peak, mdd;
    hs_vi from, next_end;
} mtm_lanes_regs;

/* One row: the stretch up to each valid lane's cross at b, then the new side from b. */
static inline mtm_lanes_regs hs_mtm_lanes_row(const hs_mtm_lanes_ctx *x, hs_mtm_lanes *s, mtm_lanes_regs reg,
                                              hs_vi code, hs_vd pnl) {
    mtm_lanes_regs *g = &reg;
    hs_vi one = vi_set1(1);
    hs_vmask valid = vi_cmpgt_mask(code, vi_set1(-1));
    hs_vi b = vi_srl(code, 1);
    hs_vd hi, lo; /* an idle lane (no trade, or done: from = n) asks for bar 0, and keeps nothing */
    mtm_lanes_range(x, vi_blend(valid, vi_set1(0), g->from), vi_blend(valid, one, b), &hi, &lo);
    hs_vmask is_long = vd_cmpgt_mask(g->pos, vd_zero());
    hs_vd keep = vd_set1(x->keep);
    hs_vd eb = vd_add(pnl, mtm_lanes_u(g->pos, g->entry, vd_blend(is_long, lo, hi), keep));
    hs_vd ew = vd_add(pnl, mtm_lanes_u(g->pos, g->entry, vd_blend(is_long, hi, lo), keep));
    mtm_lanes_pm pm = {vd_blend(vd_cmpgt_mask(eb, g->peak), g->peak, eb), hs_vd_above(vd_sub(g->peak, ew), g->mdd)};
    hs_vmask up = vd_cmpgt_mask(eb, g->peak);
    unsigned scan = vm_bits(vm_and(vm_and(valid, up), vd_cmpgt_mask(vd_sub(eb, ew), pm.mdd)));
    if (scan) pm = mtm_lanes_scan(x, scan, pnl, g->pos, g->entry, g->peak, g->mdd, g->from, b, pm);
    g->peak = vd_blend(valid, g->peak, pm.peak);
    g->mdd = vd_blend(valid, g->mdd, pm.mdd);
    hs_vmask due = vm_and(valid, vi_cmpgt_mask(b, g->next_end));
    if (vm_bits(due)) g->next_end = mtm_lanes_ends(x, s, due, pnl, g->pos, g->entry, b, g->next_end);
    hs_vi last = vi_set1((int64_t)x->n_bars - 1);
    hs_vi at = vi_blend(vi_cmpgt_mask(b, last), b, last); /* the close after the last bar: coded n */
    g->entry = vd_blend(valid, g->entry, vd_gather(x->close, at));
    hs_vd side = vd_blend(vi_cmpgt_mask(vi_and(code, one), vi_set1(0)), vd_set1(-1.0), vd_set1(1.0));
    g->pos = vd_blend(valid, g->pos, side);
    g->from = vi_blend(valid, g->from, b);
    return reg;
}

static inline void hs_mtm_lanes_load(const hs_mtm_lanes *s, mtm_lanes_regs *g) {
    g->pos = vd_loadu(s->pos), g->entry = vd_loadu(s->entry), g->peak = vd_loadu(s->peak), g->mdd = vd_loadu(s->mdd);
    g->from = vi_loadu(s->from), g->next_end = vi_loadu(s->next_end);
}

static inline void hs_mtm_lanes_store(hs_mtm_lanes *s, const mtm_lanes_regs *g) {
    vd_storeu(s->pos, g->pos), vd_storeu(s->entry, g->entry), vd_storeu(s->peak, g->peak), vd_storeu(s->mdd, g->mdd);
    vi_storeu(s->from, g->from), vi_storeu(s->next_end, g->next_end);
}

#endif
