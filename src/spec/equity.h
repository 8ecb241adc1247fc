/* Mark-to-market equity at period ends and its drawdown (docs/spec.md §9.1-§9.3), written once.
 *
 * e[i] and mtm_max_drawdown depend only on the trade sequence (the bar of each cross, the new side, its
 * entry price, the PnL p booked there) and the close.  So one tracker, hs_mtm, follows a combo's crosses
 * as every book path meets them (tier0.h hs_book_step_mtm: the reference, the ports, the pipelines,
 * sliding_lanes' lanes, segments' deferred books at scalar, SSE2 and NEON, live mode), and the driver
 * finishes it after the kernel.  (Segments at AVX2 and AVX-512 takes the deferred drawdown instead,
 * src/variants/mtm_defer.h: the same bits, checked against this tracker.)  It keeps its OWN running pnl: the same p values summed in the same order from +0.0, so it is
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

/* The close's range table, made once per sweep for all its combos (hs_mtm_ranges_make): the highest and
 * lowest close of any stretch of bars in a few reads, not a pass over its bars.
 * Per block of HS_MTM_BLOCK bars its high and low, and per level j = 1..HS_MTM_BLOCK_LEVELS the high and low
 * of the blocks [k, k + 2^j) (a sparse table over the blocks: 2·6 doubles a block, 0.9 MB for 150,000
 * bars), so the whole blocks of any stretch under 2^(HS_MTM_BLOCK_LEVELS + 1) blocks are two overlapping
 * windows (before, a loop over them: a tenth of the default sweep's stretches span 64 bars or more).
 * Per bar then either
 *   - (near) for the windows [i, i + 2^k), k = 1..HS_MTM_NEAR_LEVELS, where their high and low are (k bits
 *     each, at bit k(k − 1)): 4 bytes a bar.  A stretch of fewer than 2^(HS_MTM_NEAR_LEVELS + 1) bars is two
 *     overlapping windows: four reads and no branch on where it starts or ends; a longer one is its whole
 *     blocks and its two partial blocks, each two windows; or
 *   - (edge) where in its block the high and the low of [block start, i] and of [i, block end] are, as four
 *     4-bit offsets: 2 bytes a bar (first written as 4 doubles a bar, 4.8 MB: its loads were the tracker's
 *     hottest instruction, cache misses).
 * The closes it points at sit by the crosses the books just visited. */
#define HS_MTM_BLOCK_SHIFT 4
#define HS_MTM_BLOCK ((size_t)1 << HS_MTM_BLOCK_SHIFT)
#define HS_MTM_BLOCK_LEVELS 5
static inline size_t hs_mtm_block_count(size_t n_bars) { return (n_bars + HS_MTM_BLOCK - 1) >> HS_MTM_BLOCK_SHIFT; }
#define HS_MTM_NEAR_LEVELS 5
/* The first bit of level k's offsets in a bar's windows word (the high's k bits, then the low's). */
#define HS_MTM_NEAR_SHIFT(k) ((k) * ((k) - 1))
#define HS_MTM_NEAR_BARS ((size_t)2 << HS_MTM_NEAR_LEVELS)
/* The doubles a range table of n bars takes, with the windows (near) or with the block offsets. */
static inline size_t hs_mtm_ranges_doubles(size_t n_bars, int near) {
    size_t per_bar = near ? sizeof(uint32_t) : sizeof(uint16_t);
    return 2 * (HS_MTM_BLOCK_LEVELS + 1) * hs_mtm_block_count(n_bars) +
           (n_bars * per_bar + sizeof(double) - 1) / sizeof(double);
}
typedef struct {
    const double *hi, *lo; /* level j of block k at [j·blocks + k], j = 0..HS_MTM_BLOCK_LEVELS (NULL: no table) */
    const uint16_t *edge;  /* bits 0-3, 4-7: offsets of the high, low of [block start, i]; 8-11, 12-15: of [i, end] */
    const uint32_t *near;  /* the windows' offsets (above); a table has either edge or near */
    size_t blocks;
} hs_mtm_ranges;
/* Fill `table` (hs_mtm_ranges_doubles(n_bars, near)) for close and return the view of it; the windows (`near`)
 * only when asked: they cost ~8 ns a bar to make (a P = 16 sweep of 150,000 bars, AVX-512; about half that
 * since they are made with AVX2, a quarter with AVX-512, equity.c) and save ~0.4 µs a combo per 1,000 bars' trades in the default
 * grid, so they pay from about 40 combos a series (measured with the SSE2 build: 8 combos 2.3x the
 * no-periods sweep with them against 1.8x without, 40 even, 56 1.53x against 1.58x; not measured again). */
#define HS_MTM_NEAR_MIN_COMBOS 48
hs_mtm_ranges hs_mtm_ranges_make(const double *close, size_t n_bars, double *table, int near);
/* The windows' words alone (near), made `width` doubles at a time: 8 (AVX-512), 4 (AVX2) or 2 (SSE2, or
 * scalar where not x86-64); 0 where the CPU or the build lacks it.  hs_mtm_ranges_make takes the widest;
 * every width gives the same words (test_equity). */
int hs_mtm_near_windows_with(const double *close, size_t n_bars, uint32_t *near, int width);

/* What a sweep asks for beyond the results: the period ends (checked, strictly increasing, the last the
 * last bar), where E goes (E[k] of combo c at equity[k·stride + c]; NULL = not wanted), where each
 * combo's mtm_max_drawdown goes (mtm[c]; NULL = not wanted), and the close's block table (NULL: none;
 * the tracker then scans).  NULL terms: no periods. */
typedef struct {
    const int64_t *ends;
    size_t n_ends;
    double *equity;
    size_t stride;
    double *mtm;
    hs_mtm_ranges ranges; /* hi NULL: none (the tracker scans the bars) */
} hs_equity_terms;

/* A cross as the books meet it: its bar and the new side (bar·2 + 1 for long, bar·2 for short), and the p
 * it booked (+0.0 at the first cross, where nothing was open: adding it to the +0.0 pnl changes no bit). */
typedef struct {
    uint64_t bar_side;
    double p;
} hs_mtm_event;

/* Crosses are queued and accounted HS_MTM_EVENTS at a time (hs_mtm_flush, equity.c): the books' loops
 * only store two words per cross, and the accounting runs as its own tight loop. */
#define HS_MTM_EVENTS 64

/* One combo's tracker. */
typedef struct {
    const double *close;
    const int64_t *ends;
    size_t n_ends, k; /* the next period end to sample */
    double *e;        /* E column: e[k·stride] (NULL: not stored) */
    hs_mtm_ranges ranges; /* of close (hi NULL: none) */
    size_t stride;
    double keep;
    double pnl;   /* own running pnl, from +0.0 */
    double entry; /* the open position's entry price */
    double peak;  /* running high of e, from 0.0 (§9.2) */
    double mdd;   /* mtm_max_drawdown so far */
    int pos;      /* +1, −1, 0 flat */
    size_t from;  /* the first bar not yet accounted */
    size_t queued;
    hs_mtm_event queue[HS_MTM_EVENTS];
} hs_mtm;

/* Combo c's tracker for a sweep's terms. */
static inline void hs_mtm_init(hs_mtm *m, const hs_equity_terms *t, size_t c, const double *close, double keep) {
    m->close = close, m->ends = t->ends, m->n_ends = t->n_ends, m->k = 0;
    m->e = t->equity ? t->equity + c : NULL;
    m->ranges = t->ranges, m->stride = t->stride, m->keep = keep;
    m->pnl = m->entry = m->peak = m->mdd = 0.0;
    m->pos = 0, m->from = 0, m->queued = 0;
}

/* The highest and lowest of the whole blocks [ka, kb), kb > ka (two windows of the blocks' sparse table
 * under 2^(HS_MTM_BLOCK_LEVELS + 1) blocks, else its top level's windows in turn). */
void hs_mtm_blocks_range(const hs_mtm_ranges *r, size_t ka, size_t kb, double *hi, double *lo);

/* The drawdown of bars [a, b) held at m's pnl, pos and entry, bar by bar from its records (equity.c): for
 * a stretch that may set a new peak (and for mtm_defer.h's barriers). */
void hs_mtm_scan(hs_mtm *m, size_t a, size_t b);

/* Account the queued crosses, then bars [from, to) in the state after them (equity.c). */
void hs_mtm_flush(hs_mtm *m, size_t to);

/* A cross at bar `bar`: p booked (+0.0 when nothing was open), the new side `pos` (+1, −1) entered at
 * close[bar].  Queued; accounted in order by hs_mtm_flush. */
static inline void hs_mtm_cross(hs_mtm *m, size_t bar, double p, int pos) {
    m->queue[m->queued] = (hs_mtm_event){(uint64_t)bar << 1 | (uint64_t)(pos > 0), p};
    if (++m->queued == HS_MTM_EVENTS) hs_mtm_flush(m, 0);
}

/* After the kernel: every bar up to the last accounted; the drawdown to mtm[c] where wanted. */
static inline void hs_mtm_finish(hs_mtm *m, size_t n_bars, const hs_equity_terms *t, size_t c) {
    hs_mtm_flush(m, n_bars);
    if (t->mtm) t->mtm[c] = m->mdd;
}

#endif
