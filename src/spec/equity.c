/* §9.2's drawdown over a held stretch, exact without e at every bar (equity.h).
 *
 * Over bars [a, b) held at a constant (pnl, pos, entry), e[j] = F(close[j]) with F(c) = pnl +
 * hs_trade_pnl(pos, entry, c, keep).  Every operation of F is monotone in c under IEEE rounding (c/entry
 * with entry > 0, ± that, 1 + r, ·keep with keep > 0, − 1, ·100, pnl + x): F is non-decreasing for a long
 * position and non-increasing for a short one.  fl(peak − x) is non-increasing in x.  So, with "best" the
 * close that maximises F (the highest for long, the lowest for short) and "worst" the one that minimises it:
 *   - if F(best) <= peak, no bar of the stretch raises the peak, and the largest fall is peak − F(worst);
 *   - otherwise, the peak only changes at a record (a close better than every one before it in the
 *     stretch), to max(peak, F(record)), and between two records the largest fall is peak − F(the worst
 *     close since the record).  F is evaluated at the records and at each run's worst close only.
 * Both give the per-bar loop's mdd = max(mdd, t_j) and final peak bit for bit (NaN falls are never
 * taken, as `t > mdd` never takes them).
 *
 * The stretch's highest and lowest closes come from the sweep's range table (hs_mtm_ranges_make, one per
 * sweep for all combos) in a few reads: so a stretch that sets no new peak, the common case, costs two F
 * and about four table reads whatever its length, not a pass over its bars.  Without a table (live mode
 * advances one bar at a time) the bars are read.  The record scan costs at most two F per bar: no input
 * makes the tracker slower than a small multiple of the per-bar loop.
 *
 * Not kept, measured interleaved against this (reports/equity.md): estimating F with a per-sweep table of
 * 1/close and deciding most stretches without a division (1.90x the no-periods sweep against 1.57x), and
 * division-free bounds on u (1.68x against 1.55x), in-block extremes from the table's offsets (1.65x against
 * 1.56x): their extra data-dependent branches cost more than the work they saved.
 */
#include "equity.h"

static inline double mtm_at(const hs_mtm *m, double c) {
    return m->pnl + hs_trade_pnl((double)m->pos, m->entry, c, m->keep);
}

/* §9.2's `t = peak − e; if t > mdd: mdd = t`, as a select (a NaN t is never taken). */
static inline void mtm_fall(hs_mtm *m, double e) {
    double t = m->peak - e;
    m->mdd = t > m->mdd ? t : m->mdd;
}

static inline double max_of(double a, double b) { return b > a ? b : a; }
static inline double min_of(double a, double b) { return b < a ? b : a; }

hs_mtm_ranges hs_mtm_ranges_make(const double *close, size_t n_bars, double *table) {
    size_t blocks = hs_mtm_block_count(n_bars);
    double *bhi = table, *blo = table + blocks;
    uint16_t *edge = (uint16_t *)(void *)(blo + blocks);
    for (size_t k = 0; k < blocks; k++) {
        size_t a = k << HS_MTM_BLOCK_SHIFT, b = a + HS_MTM_BLOCK < n_bars ? a + HS_MTM_BLOCK : n_bars;
        double h = close[a], l = close[a];
        unsigned ho = 0, lo = 0; /* offsets in the block */
        for (size_t j = a; j < b; j++) {
            unsigned o = (unsigned)(j - a);
            ho = close[j] > h ? o : ho, h = max_of(h, close[j]);
            lo = close[j] < l ? o : lo, l = min_of(l, close[j]);
            edge[j] = (uint16_t)(ho | lo << 4);
        }
        bhi[k] = h, blo[k] = l;
        h = l = close[b - 1];
        ho = lo = (unsigned)(b - 1 - a);
        for (size_t j = b; j-- > a;) {
            unsigned o = (unsigned)(j - a);
            ho = close[j] > h ? o : ho, h = max_of(h, close[j]);
            lo = close[j] < l ? o : lo, l = min_of(l, close[j]);
            edge[j] = (uint16_t)(edge[j] | ho << 8 | lo << 12);
        }
    }
    return (hs_mtm_ranges){bhi, blo, edge};
}

/* The highest and lowest close of bars [a, b), b > a. */
static void range_of(const hs_mtm *m, size_t a, size_t b, double *hi, double *lo) {
    size_t ka = a >> HS_MTM_BLOCK_SHIFT, kb = (b - 1) >> HS_MTM_BLOCK_SHIFT;
    const double *c = m->close;
    if (!m->ranges.edge || ka == kb) { /* within one block (at most 16 bars), or no table */
        double h = c[a], l = c[a];
        for (size_t j = a + 1; j < b; j++) h = max_of(h, c[j]), l = min_of(l, c[j]);
        *hi = h, *lo = l;
        return;
    }
    unsigned ea = m->ranges.edge[a], eb = m->ranges.edge[b - 1];
    const double *ba = c + (ka << HS_MTM_BLOCK_SHIFT), *bb = c + (kb << HS_MTM_BLOCK_SHIFT);
    double h = max_of(ba[ea >> 8 & 15], bb[eb & 15]), l = min_of(ba[ea >> 12], bb[eb >> 4 & 15]);
    for (size_t k = ka + 1; k < kb; k++) h = max_of(h, m->ranges.block_hi[k]), l = min_of(l, m->ranges.block_lo[k]);
    *hi = h, *lo = l;
}

/* The records of [a, b) in order; `sign` +1 long (better = higher), −1 short (better = lower). */
static void held_records(hs_mtm *m, size_t a, size_t b, double sign) {
    const double *c = m->close;
    double best = c[a], worst = c[a], e = mtm_at(m, best);
    if (e > m->peak) m->peak = e;
    for (size_t j = a + 1; j < b; j++) {
        double x = c[j];
        if (sign * x > sign * best) {
            mtm_fall(m, worst == best ? e : mtm_at(m, worst));
            best = worst = x;
            e = mtm_at(m, x);
            if (e > m->peak) m->peak = e;
        } else if (sign * x < sign * worst) {
            worst = x;
        }
    }
    mtm_fall(m, worst == best ? e : mtm_at(m, worst));
}

/* The drawdown of bars [a, b) held at a constant pnl. */
static void held(hs_mtm *m, size_t a, size_t b) {
    double hi, lo;
    range_of(m, a, b, &hi, &lo);
    double best = m->pos > 0 ? hi : lo, worst = m->pos > 0 ? lo : hi;
    if (!(mtm_at(m, best) > m->peak)) {
        mtm_fall(m, mtm_at(m, worst));
        return;
    }
    held_records(m, a, b, m->pos > 0 ? 1.0 : -1.0);
}

/* Account bars [from, to) in the current state: the period ends among them (E = pnl + u, or pnl when
 * flat), and the drawdown (flat: e = pnl on every bar, and §9.2's update is idempotent on equal values). */
static inline void advance(hs_mtm *m, size_t to) {
    size_t a = m->from;
    if (a >= to) return;
    m->from = to;
    while (m->k < m->n_ends && (size_t)m->ends[m->k] < to) {
        double e = m->pnl;
        if (m->pos) e = mtm_at(m, m->close[m->ends[m->k]]);
        if (m->e) m->e[m->k * m->stride] = e;
        m->k++;
    }
    if (m->pos) {
        held(m, a, to);
    } else {
        m->peak = m->pnl > m->peak ? m->pnl : m->peak;
        mtm_fall(m, m->pnl);
    }
}

void hs_mtm_flush(hs_mtm *m, size_t to) {
    for (size_t q = 0; q < m->queued; q++) {
        size_t bar = (size_t)(m->queue[q].bar_side >> 1);
        advance(m, bar);
        m->pnl += m->queue[q].p;
        m->pos = m->queue[q].bar_side & 1 ? 1 : -1;
        m->entry = m->close[bar];
    }
    m->queued = 0;
    advance(m, to);
}
