/* segments — one combo at a time, its TIME SEGMENTS in the vector lanes, every stage fused in one pass,
 * every sign of d certified: tier 0.
 *
 * Why time segments: a running-sum WMA is a serial chain along time, so sliding_lanes put different combos
 * in the lanes and paid a gather per leaving value (each lane has its own window).  Here all lanes run
 * the SAME combo over different stretches of the series: the series is split into HS_VN segments of S
 * bars, and lane l walks bars l·S .. l·S + S − 1.  The close is copied once per sweep into an interleaved
 * layout XT, with lane l at step k reading XT[k·V + l] = close[l·S − P + k], so every value entering or
 * leaving any window is one contiguous vector load.  P (the largest look-back of the sweep) gives each
 * lane the bars just before its segment to warm up on; bars before 0 or past the end are padded with the
 * first/last price (they only ever meet d values the books ignore).
 *
 * One fused pass per combo: the five WMAs of close as running sums (sliding.c's S1/S2 steps), raw and
 * raw3, small ring buffers of raw/raw3 for the two smoothing WMAs (no n-length arrays), d, and per step
 * a byte of the lanes' sign bits, plus, only in chunks where some lane is uncertain, a byte of the lanes
 * where |d| <= TAU or d is not finite (not certified).  The pass runs chunk by chunk as two short
 * loops (level 1: the five close windows, raw, raw3; level 2: the smoothing WMAs, d, the signs).
 * Running sums are re-anchored by direct sums every SEG_BLOCK steps; the warm-up runs the first level
 * only, from the first step whose raw value the second level needs.
 *
 * Certification: each lane's d is a sliding d (certify.h), re-anchored every SEG_BLOCK steps, over inputs
 * bounded by the largest price (the padding is a price of the series), so |d − d_tier0| <= E with E of
 * eps_slide_block(w, SEG_BLOCK), across warm-up and re-anchoring alike (each anchor restarts the drift;
 * the bound only counts steps since the last anchor).  Bars with |d| <= TAU = 4E, or NaN, are recomputed
 * in tier-0 order (hma3_tier0_at − hma_tier0_at) and counted (hs_kernel_count_recomputed).
 *
 * Books, stitched in time order: lane 0's bars, then lane 1's, ...  A bar is visited when it is a lane's
 * first valid bar, when its sign differs from the bar before (a cross is exactly that where no d is 0
 * or NaN, tier0.h hs_books_over), or when it or the bar before is uncertified.  Visiting runs the
 * reference's hs_book_step with the bar's certified sign (or its tier-0 d), so the trades, their prices
 * and the order their PnL is summed are the reference's: bit-identical PnL on every ISA.  The visits are
 * found 64 bars at a time from the byte masks (a multiply gathers one lane's bits of 8 bytes).  A group's
 * books advance together and defer their trades' PnLs, booked HS_VN combos at a time by the books' lane
 * form (book_lanes.h, group_books): the statistics cost 0-1% of the sweep that way, ~4% one trade at a
 * time (reports/stats.md).
 */
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

#include "error.h"
#include "pipeline.h" /* certify.h, and pipeline_d for the tier-0 ranges */
#include "vec.h"
#include "book_lanes.h"
#include "mtm_defer.h"
#include "team.h" /* hs_team_run: the caller never waits for a worker that has not started */

/* Steps between re-anchors.  Larger blocks anchor less often but widen TAU (the drift term grows with
 * the block length squared), so more bars are recomputed.  Measured with the anchors' own clock
 * (study/segments/seg_profile.c, default sweep, AVX2, 1 thread, 20-30 sweeps per arm interleaved, two
 * runs, reports/segments.md): 512 / 1024 / 2048 gave anchors 1.38-1.88 / 0.71-0.98 / 0.54 ms and the
 * profiled sweep over the library's 1.011 / 0.962-0.978 / 0.986 (2048: the books' recomputes grow). */
#ifndef SEG_BLOCK
#define SEG_BLOCK 1024
#endif

static double eps_seg(int64_t w) { return eps_slide_block(w, SEG_BLOCK); }

/* A hook around each part of the sweep (a block's anchors, a combo's fused pass, its books): the part as
 * written, unless a study that includes this file defines SEG_TIMED first (study/segments/seg_profile.c:
 * clocks around each part).  The library defines none, so its kernel has no measurement code. */
#ifndef SEG_TIMED
#define SEG_TIMED(part, ...)                                                                                \
    do {                                                                                                     \
        __VA_ARGS__;                                                                                         \
    } while (0)
#endif

static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* Look-back of a combo: the first level must start max(w2, w5) − 1 steps before the second, and reads
 * its widest window back from there. */
static int64_t combo_lookback(const int64_t *w) {
    return imax(w[2], w[5]) + imax(imax(imax(w[0], w[1]), imax(w[3], w[4])), w[5]) - 2;
}

/* The first bar with a valid d (the reference's d is NaN before it). */
static size_t combo_first_d(const int64_t *w) { return hs_first_bars_of(w).start; }

typedef struct {
    size_t n, seg, pad, steps; /* bars, bars per lane (S), warm-up steps (P), P + S */
    double *weight;            /* weight[j] = j + 1 for j below the sweep's widest window (anchors) */
    double *tile_max;          /* tiles × HS_VN: lane l's largest |price| over steps [t·SEG_TILE, (t+1)·SEG_TILE) */
    /* With periods on the deferred path (mtm_defer.h): per lane and 64-bar chunk of it, the bounds on its
     * highest and lowest close (hs_defer_bound_hi/lo), at [2·(lane·chunks_per_lane + j/64)] and the float
     * after it (NULL otherwise; one pointer for both: the books' locals spill). */
    float *chunks;
    size_t chunks_per_lane;
} seg_layout;

/* Steps per tile of the local maxima that scale each block's certification bound (block_tau). */
#define SEG_TILE 64

/* Combos a thread runs together (at most), block by block, over one window of the interleaved series
 * (segments_group): the window's copy from close is paid once per group, not once per combo.  Measured
 * against the whole-series copy it replaced (in-process A/B, thread CPU time, default sweep, 1 thread,
 * Zen 4 under load 9-12, B/A min and median of 30): copying per combo 1.15-1.39x; groups of 2
 * 1.00-1.12x, of 4 1.01-1.08x, of 8 0.99-1.06x (AVX-512 / AVX2). */
#ifndef SEG_GROUP
#define SEG_GROUP 8
#endif
#ifndef SEG_GROUP_BYTES
#define SEG_GROUP_BYTES ((size_t)32 << 20)
#endif

/* Bars of a lane the books of a group advance together (group_books): each combo's trades of a span
 * are deferred into its column of the book table, then booked a row of combos at a time.  The table
 * holds a span's rows (a combo trades at most once per bar): SEG_BOOK_SPAN × SEG_BOOK_COLS doubles,
 * 256 KiB at AVX-512, of which a span's rows touch the first (the shortest combo's, ~1,400 on the default
 * sweep).  4096, not 2048: the sweep without periods took the same time (15.52 against 15.57 ms at AVX2,
 * 14.57 against 14.54 at AVX-512, 30 runs), and with periods, half as many tables (each with its passes'
 * setup, and pass B's list waits twice as many bars) cost 0.002-0.016 less (reports/equity.md; AMD EPYC
 * family 25 model 17). */
#ifndef SEG_BOOK_SPAN
#define SEG_BOOK_SPAN 4096
#endif
#define SEG_BOOK_VECS ((SEG_GROUP + HS_VN - 1) / HS_VN)
#define SEG_BOOK_COLS (SEG_BOOK_VECS * HS_VN)
/* Words apart of a column's fields in the deferred path's cells (mtm_defer.h). */
#define SEG_CELL_STRIDE HS_DEFER_STRIDE(SEG_BOOK_SPAN)

/* What a thread's combos share: the window of the interleaved series, the book table, the count of
 * recomputed bars. */
typedef struct {
    long long recomputed;
    double *book_table; /* SEG_BOOK_SPAN rows × SEG_BOOK_COLS, +0.0 where nothing is deferred */
    /* With periods on the deferred path (mtm_defer.h hs_defer_table): what the books write beside each trade
     * (HS_DEFER_FIELDS words, column by column, SEG_CELL_STRIDE words a field), pass A's lower bound on e
     * and the pnl before each row (column by column, SEG_CELL_STRIDE rows each), per column and 64-bar chunk
     * of the table's span its rows before the chunk and the chunk's bars with a row, as the books walk
     * them; and the period ends of the span with, per column and chunk, the bar the stretch held at the
     * chunk's start began at. */
    uint32_t *cells[2], *hits[2]; /* two of each: tables alternate (pass B's list waits for the next table) */
    double *lower[2], *pnl_at[2];
    uint32_t *rows_at[2];   /* SEG_BOOK_COLS × SEG_SPAN_CHUNKS */
    uint64_t *trades_at[2]; /* likewise */
    int64_t *from_in[2];    /* SEG_BOOK_COLS */
    int64_t span_bar[2];
    size_t span_chunks[2];
    hs_defer_span ends;
    uint32_t *from_at; /* SEG_BOOK_COLS × SEG_SPAN_CHUNKS */
    /* The interleaved series, a window of it at a time (window_rows): rows [xw_base, xw_hi) of XT (step k,
     * lane l = close[l·S − P + k], clamped) at xw[(k − xw_base)·HS_VN + l], room for xw_rows rows. */
    double *xw;
    size_t xw_rows, xw_base, xw_hi;
} seg_shared;

/* One combo's slot in a thread: rings of raw/raw3 (ring × HS_VN doubles each), the per-step masks, and
 * the tier-0 d over a range of bars, for stretches where most bars are uncertain (tier0_range): d of bar
 * g at t0_d[g − t0_lo] for g in [t0_lo, t0_hi); bars before t0_sparse were counted and judged sparse
 * (recomputed one by one).  The range is the slot's own because a group's books advance together, a span
 * of each combo in turn.  Allocated on first need (t0_cap doubles), freed with the thread: data with no
 * such stretch (the default sweep) never allocates it. */
typedef struct {
    double *ring_raw, *ring_raw3;
    size_t ring_mask;
    unsigned char *signs, *uncertain; /* seg + 128 bytes each (thread_bytes) */
    unsigned uncertain_lanes;         /* OR of this combo's uncertain bytes: lanes that need them read */
    double *t0_buf, *t0_d;
    size_t t0_cap, t0_lo, t0_hi, t0_sparse;
    seg_shared *sh;
} seg_thread;

/* Hardware FMA where the ISA has it (one rounding fewer, inside the same bound); elsewhere a multiply
 * and an add, the rounding the bound was derived for.  Only approximate values (certified later) use it. */
#ifdef HS_VD_FMA_FUSED /* the vector header says vd_fma is one instruction (SSE2's and scalar's are libm) */
#define seg_fma vd_fma
#else
static inline hs_vd seg_fma(hs_vd a, hs_vd b, hs_vd c) { return vd_add(vd_mul(a, b), c); }
#endif

/* A running window sum with S1 kept negated (N1 = −S1), so that a step is one multiply-add and two adds:
 *   S2 += w·x_new − S1 = fma(w, x_new, N1);  N1 += x_old − x_new.
 * Same roundings as sliding.c's step, or one fewer with FMA: the bound of certify.h holds. */
typedef struct {
    hs_vd n1, s2;
} vsums;

/* Direct sums of the window of length w ending at step k of an interleaved series (ring: index masked).
 * Four partial sums break the add chains; the order is free for the bound.  The weights j + 1 come from
 * a table (one broadcast load each) and enter through seg_fma: per element a subtraction and a
 * multiply-add, against a subtraction, an int-to-double conversion, a broadcast, a multiply and an add
 * before (anchors 2.34 -> 1.86 ms median, reports/segments.md, frontier4).  With hardware FMA the product
 * is not rounded on its own: one rounding fewer per term, inside the direct sum's bound γ_w·denom·M. */
/* noinline (here and on the other stages): a profile then shows each part's share of the time by symbol
 * (study/segments); the calls are per block or chunk, not per step. */
static __attribute__((noinline)) vsums anchor_vec(const double *x, size_t k, int64_t w, size_t mask,
                                                  const double *weight) {
    hs_vd a[4] = {vd_zero(), vd_zero(), vd_zero(), vd_zero()}, b[4] = {vd_zero(), vd_zero(), vd_zero(), vd_zero()};
    size_t first = k - (size_t)(w - 1);
    int64_t j = 0;
    for (; j + 4 <= w; j += 4)
        for (int q = 0; q < 4; q++) {
            hs_vd v = vd_loadu(x + ((first + (size_t)(j + q)) & mask) * HS_VN);
            a[q] = vd_sub(a[q], v);
            b[q] = seg_fma(v, vd_set1(weight[j + q]), b[q]);
        }
    for (; j < w; j++) {
        hs_vd v = vd_loadu(x + ((first + (size_t)j) & mask) * HS_VN);
        a[0] = vd_sub(a[0], v);
        b[0] = seg_fma(v, vd_set1(weight[j]), b[0]);
    }
    return (vsums){vd_add(vd_add(a[0], a[1]), vd_add(a[2], a[3])), vd_add(vd_add(b[0], b[1]), vd_add(b[2], b[3]))};
}

/* x_old − x_new.  With hardware FMA as fma(x_new, −1, x_old): the product is exact, so the one rounding
 * is the subtraction's, bit for bit (a zero difference is +0 either way), but it runs on the FMA pipes.
 * AMD Zen 3 (this machine) adds on two pipes and multiplies/FMAs on two others; the d pass had 21 adds
 * and 14 multiplies per step, so the adds bound it.  Moving the seven subtractions across: 14 and 21. */
static inline hs_vd seg_diff(hs_vd x_old, hs_vd x_new) {
#ifdef HS_VD_FMA_FUSED
    return vd_fma(x_new, vd_set1(-1.0), x_old);
#else
    return vd_sub(x_old, x_new);
#endif
}

static inline void vstep(vsums *s, hs_vd w, hs_vd x_new, hs_vd x_old) {
    s->s2 = vd_add(s->s2, seg_fma(w, x_new, s->n1));
    s->n1 = vd_add(s->n1, seg_diff(x_old, x_new));
}

/* The first level's step: S2 = fma(w, x_new, S2 + N1), the same two roundings in another order (the
 * add's error is at most u(denom + w)M, the FMA's u(denom + 2w)M: inside the 3u(denom + w)M per step of
 * certify.h; with a separate multiply, three roundings, u(2·denom + 4w)M, still inside for w >= 1).  Why:
 * fma(w, x_new, N1) overwrites one of three live operands, so the compiler copied one first, ten register
 * moves per step, and Intel's 512-bit ports (0 and 5) execute those moves.  llvm-mca 14 (-mcpu=icelake-
 * server and sapphirerapids alike), level1's loop: 17.1 -> 14.6 cycles per step on AVX-512 (a prediction,
 * not a measurement; Zen 4 eliminates the moves at rename).  Only the first level: in the second,
 * latency-bound, the longer S2 chain (an add then an FMA) cost 8.2 -> 12.1 cycles per step (same tool). */
static inline void vstep_wide(vsums *s, hs_vd w, hs_vd x_new, hs_vd x_old) {
    s->s2 = seg_fma(w, x_new, vd_add(s->s2, s->n1));
    s->n1 = vd_add(s->n1, seg_diff(x_old, x_new));
}

/* Per combo: windows, weights, and the scalings folded where that is exact or inside the bound:
 * 2/denom (exact), −1/denom (exact), 3/denom (one rounding more than 3·(S2/denom), well inside it). */
typedef struct {
    int64_t w[6];
    hs_vd wd[6], inv[6], ninv[6], two_inv0, three_inv3;
    hs_vd tau;       /* the current block's threshold, lane by lane (block_tau) */
    double tau_unit; /* the threshold for a largest price of 1: it scales linearly with the price */
    size_t reach;    /* steps before a block whose prices its d values depend on (block_tau) */
} seg_consts;

/* The running state of one combo: the five first-level WMAs and the two second-level ones. */
typedef struct {
    vsums s0, s1, s3, s4, s5, h, h3;
} seg_state;

/* Steps between writing the first level's raw values and the second level reading them: the two
 * levels run as separate loops over chunks of SEG_CHUNK steps, so that each loop's running sums stay in
 * registers (fused in one loop, 14 sums overflow AVX2's 16 registers and the spills sit on the
 * loop-carried chains).  The ring then holds SEG_CHUNK + the widest second-level window. */
#ifndef SEG_CHUNK
#define SEG_CHUNK 128
#endif

static inline hs_vd raw_of(hs_vd s2_0, hs_vd s2_1, const seg_consts *c) {
    return seg_fma(s2_0, c->two_inv0, vd_mul(s2_1, c->ninv[1]));
}
static inline hs_vd raw3_of(hs_vd s2_3, hs_vd s2_4, hs_vd s2_5, const seg_consts *c) {
    return seg_fma(s2_5, c->ninv[5], seg_fma(s2_3, c->three_inv3, vd_mul(s2_4, c->ninv[4])));
}
static inline hs_vd d_of(hs_vd h_s2, hs_vd h3_s2, hs_vd inv5, hs_vd ninv2) {
    return seg_fma(h3_s2, inv5, vd_mul(h_s2, ninv2));
}

static inline void level1_store(const seg_state *st, const seg_consts *c, seg_thread *t, size_t k) {
    size_t at = (k & t->ring_mask) * HS_VN;
    vd_storeu(t->ring_raw + at, raw_of(st->s0.s2, st->s1.s2, c));
    vd_storeu(t->ring_raw3 + at, raw3_of(st->s3.s2, st->s4.s2, st->s5.s2, c));
}

/* Steps from k on (at most `left`) before ring index (k − back) & m wraps: within such a run every ring
 * stream is a pointer moving by HS_VN, no index masks (level 2 had three and-shift pairs per step, 8-9%
 * of its samples).  Measured (seg_profile, default sweep, 1T avx2, interleaved, d pass / library sweep
 * in the same process): level 2 in runs 0.794-0.806 -> 0.729-0.753 (two runs); level 1 too, 0.740-0.750
 * -> 0.682-0.693 (two runs). */
static inline size_t ring_run(size_t k, size_t back, size_t m, size_t left) {
    size_t to_wrap = m + 1 - ((k - back) & m);
    return to_wrap < left ? to_wrap : left;
}

/* The first level, steps (k0, k1): the five close windows' running sums, raw and raw3 into their rings,
 * in one loop (x_new loaded once; ten independent add chains per step for the out-of-order core to
 * overlap).  The constants are copied into a local (the ring stores are double stores and would
 * otherwise force reloads of constants read through the pointer).  Measured against the two loops it
 * replaced (raw: w0, w1; raw3: w3, w4, w5), interleaved, seg_profile, default sweep 1T avx2, 20-32
 * sweeps per arm in three runs: the d pass's time over the library sweep's in the same process 0.733 vs
 * 0.779-0.847, best d pass 14.7-14.9 vs 15.3-15.5 ms (reports/segments.md, frontier4). */
static __attribute__((noinline)) void level1(const double *restrict xt, size_t xbase, double *restrict ring,
                                             double *restrict ring3, size_t m, const seg_consts *c, seg_state *p,
                                             size_t k0, size_t k1) {
    const size_t o0 = (size_t)c->w[0] * HS_VN, o1 = (size_t)c->w[1] * HS_VN, o3 = (size_t)c->w[3] * HS_VN,
                 o4 = (size_t)c->w[4] * HS_VN, o5 = (size_t)c->w[5] * HS_VN;
    const seg_consts cc = *c;
    vsums s0 = p->s0, s1 = p->s1, s3 = p->s3, s4 = p->s4, s5 = p->s5;
    for (size_t k = k0 + 1; k < k1;) {
        size_t run = ring_run(k, 0, m, k1 - k);
        double *r = ring + (k & m) * HS_VN, *r3 = ring3 + (k & m) * HS_VN;
        const double *x = xt + (k - xbase) * HS_VN; /* row k of the window */
        for (size_t i = 0; i < run; i++, x += HS_VN) {
            hs_vd x_new = vd_loadu(x);
            vstep_wide(&s0, cc.wd[0], x_new, vd_loadu(x - o0));
            vstep_wide(&s1, cc.wd[1], x_new, vd_loadu(x - o1));
            vstep_wide(&s3, cc.wd[3], x_new, vd_loadu(x - o3));
            vstep_wide(&s4, cc.wd[4], x_new, vd_loadu(x - o4));
            vstep_wide(&s5, cc.wd[5], x_new, vd_loadu(x - o5));
            vd_storeu(r + i * HS_VN, raw_of(s0.s2, s1.s2, &cc));
            vd_storeu(r3 + i * HS_VN, raw3_of(s3.s2, s4.s2, s5.s2, &cc));
        }
        k += run;
    }
    p->s0 = s0, p->s1 = s1, p->s3 = s3, p->s4 = s4, p->s5 = s5;
}

static inline void d_masks(const seg_state *st, const seg_consts *c, seg_thread *t, size_t j) {
    const unsigned lanes = (1u << HS_VN) - 1;
    hs_vd d = d_of(st->h.s2, st->h3.s2, c->inv[5], c->ninv[2]);
    t->signs[j] = (unsigned char)vd_signbits(d);
    t->uncertain[j] = (unsigned char)(~vd_certain_bits(d, c->tau) & lanes);
    t->uncertain_lanes |= t->uncertain[j];
}

/* Second level, steps (k0, k1): slide the two smoothing WMAs over the rings, d, the sign bytes.  The
 * uncertain bars are only detected here, in vector registers: `lo` is the running minimum of |d| and
 * `sum` the running sum of d, so the chunk is all certain (certify_sure, lane by lane) iff lo > tau and
 * sum is finite: an infinite or NaN d makes the sum inf or NaN (where a NaN leaves lo meaningless, as
 * vd_min's NaN rule differs by ISA), and a sum that overflows from finite d only sends a certain chunk
 * to level2_masks.  Two operations per step (vd_min, vd_add), against four (abs, compare, blend, max)
 * for the running maximum it replaced.  Otherwise it returns 1 and the caller reruns the chunk with
 * level2_masks, which writes the per-step uncertain bytes (the same arithmetic, so the same d).  A
 * movemask, a byte store and the scalar OR per step fewer: a third of this loop before (reports). */
static __attribute__((noinline)) int level2_signs(const double *restrict ring, const double *restrict ring3,
                                                  unsigned char *restrict signs, size_t m, const seg_consts *c,
                                                  vsums *ph, vsums *ph3, size_t k0, size_t k1) {
    const size_t r2 = (size_t)c->w[2], r5 = (size_t)c->w[5];
    const hs_vd wd2 = c->wd[2], wd5 = c->wd[5], inv5 = c->inv[5], ninv2 = c->ninv[2], tau = c->tau;
    vsums h = *ph, h3 = *ph3;
    hs_vd lo = vd_set1(INFINITY), sum = vd_zero();
    for (size_t k = k0 + 1; k < k1;) {
        size_t a0 = k & m, a2 = (k - r2) & m, a5 = (k - r5) & m;
        size_t run = ring_run(k, r5, m, ring_run(k, r2, m, ring_run(k, 0, m, k1 - k)));
        const double *p0 = ring + a0 * HS_VN, *p2 = ring + a2 * HS_VN, *q0 = ring3 + a0 * HS_VN,
                     *q5 = ring3 + a5 * HS_VN;
        unsigned char *sg = signs + k;
        for (size_t i = 0; i < run; i++) {
            vstep(&h, wd2, vd_loadu(p0 + i * HS_VN), vd_loadu(p2 + i * HS_VN));
            vstep(&h3, wd5, vd_loadu(q0 + i * HS_VN), vd_loadu(q5 + i * HS_VN));
            hs_vd d = d_of(h.s2, h3.s2, inv5, ninv2);
            sg[i] = (unsigned char)vd_signbits(d);
            lo = vd_min(lo, vd_abs(d));
            sum = vd_add(sum, d);
        }
        k += run;
    }
    *ph = h;
    *ph3 = h3;
    const unsigned lanes = (1u << HS_VN) - 1;
    return vd_absgt_bits(lo, tau) != lanes || vd_certain_bits(sum, vd_set1(-1.0)) != lanes;
}

/* level2_signs writing the uncertain bytes too (a chunk with an uncertain lane: rare on market-like
 * data, every chunk on the gate's flat stretches). */
static __attribute__((noinline)) void level2_masks(seg_thread *t, const seg_consts *c, vsums *ph, vsums *ph3,
                                                   size_t k0, size_t k1, size_t second) {
    const size_t m = t->ring_mask, r2 = (size_t)c->w[2], r5 = (size_t)c->w[5];
    const unsigned lanes = (1u << HS_VN) - 1;
    const double *ring = t->ring_raw, *ring3 = t->ring_raw3;
    unsigned char *signs = t->signs - second, *unc = t->uncertain - second;
    vsums h = *ph, h3 = *ph3;
    unsigned any = 0;
    for (size_t k = k0 + 1; k < k1; k++) {
        vstep(&h, c->wd[2], vd_loadu(ring + (k & m) * HS_VN), vd_loadu(ring + ((k - r2) & m) * HS_VN));
        vstep(&h3, c->wd[5], vd_loadu(ring3 + (k & m) * HS_VN), vd_loadu(ring3 + ((k - r5) & m) * HS_VN));
        hs_vd d = d_of(h.s2, h3.s2, c->inv[5], c->ninv[2]);
        signs[k] = (unsigned char)vd_signbits(d);
        unc[k] = (unsigned char)(~vd_certain_bits(d, c->tau) & lanes);
        any |= unc[k];
    }
    t->uncertain_lanes |= any;
    *ph = h;
    *ph3 = h3;
}

/* Rows [k0, k1) of XT into dst (row k0 first): lane l's steps are the contiguous bars l·S − P + k,
 * clamped to the first/last price before 0 and past the end (they only meet d values the books ignore).
 * Row by row (each row's eight stores together), not lane by lane: the pass reads a row as one vector
 * soon after, and a load that finds part of its row still in the store buffer cannot be forwarded (lane
 * by lane, the last lane's stores were the ones pending: +30% on the default sweep, measured). */
static void fill_rows(const double *close, const seg_layout *L, double *dst, size_t k0, size_t k1) {
    size_t rows = k1 - k0;
    const double *src[HS_VN];
    int inside = 1;
    for (int l = 0; l < HS_VN; l++) {
        int64_t b0 = (int64_t)((size_t)l * L->seg + k0) - (int64_t)L->pad;
        inside &= b0 >= 0 && (size_t)b0 + rows <= L->n;
        src[l] = close + (inside ? b0 : 0);
    }
    if (inside) {
        for (size_t i = 0; i < rows; i++, dst += HS_VN)
            for (int l = 0; l < HS_VN; l++) dst[l] = src[l][i];
        return;
    }
    for (size_t i = 0; i < rows; i++, dst += HS_VN)
        for (int l = 0; l < HS_VN; l++) {
            int64_t b = (int64_t)((size_t)l * L->seg + k0 + i) - (int64_t)L->pad;
            dst[l] = b < 0 ? close[0] : (size_t)b >= L->n ? close[L->n - 1] : close[b];
        }
}

/* Make rows [lo, hi) of XT valid in the thread's window and return it (row k at (k − xw_base)·HS_VN).
 * The pass asks for non-decreasing ranges (a block's anchor rows, then its chunks), so only the new
 * rows are copied from close; when the window is full its last rows from lo on move to the front (a
 * memmove of at most the widest window per xw_rows − widest rows).  Memory: O((SEG_XW + widest) × lanes)
 * per thread, not the whole series (an interleaved copy of it was 800 MB at 10^8 bars). */
static const double *window_rows(const double *close, const seg_layout *L, seg_shared *t, size_t lo, size_t hi) {
    if (lo < t->xw_base || lo > t->xw_hi) t->xw_base = t->xw_hi = lo; /* nothing to keep (a new combo) */
    if (hi > t->xw_base + t->xw_rows) {
        memmove(t->xw, t->xw + (lo - t->xw_base) * HS_VN, (t->xw_hi - lo) * HS_VN * sizeof(double));
        t->xw_base = lo;
    }
    if (hi > t->xw_hi) {
        fill_rows(close, L, t->xw + (t->xw_hi - t->xw_base) * HS_VN, t->xw_hi, hi);
        t->xw_hi = hi;
    }
    return t->xw;
}

/* The certification threshold of the block [blk, end), lane by lane, from the lane's own largest price
 * over every step its d values there depend on (a local bound: a spike or a regime far above the rest
 * only loosens the blocks that see it, not the whole series).  The d at a step of the block reads the
 * raw values of the last max(w2, w5) steps, each made by the running sums of a block that started at
 * most SEG_BLOCK − 1 steps before it, whose anchor reads the widest window back from there: at most
 * c->reach = lookback + SEG_BLOCK steps before blk, and the tier-0 d of the same bars reads less.  Every
 * input of both d values is then within the lane's maximum M, which is all the bound of certify.h
 * asks; outside certify_in_range(M) the lane certifies nothing in this block (tau = inf).  tau_unit·M
 * rounds differently from certify_threshold_eps(M) by an ulp of a 4x margin. */
static hs_vd block_tau(const seg_layout *L, const seg_consts *c, size_t blk, size_t end) {
    size_t lo = blk > c->reach ? blk - c->reach : 0;
    hs_vd m = vd_zero();
    for (size_t tile = lo / SEG_TILE; tile <= (end - 1) / SEG_TILE; tile++)
        m = vd_max(m, vd_loadu(L->tile_max + tile * HS_VN));
    double mm[HS_VN], tau[HS_VN];
    vd_storeu(mm, m);
    for (int l = 0; l < HS_VN; l++) tau[l] = certify_in_range(mm[l], c->w) ? c->tau_unit * mm[l] : INFINITY;
    return vd_loadu(tau);
}

/* One block of one combo's pass, steps [blk, end) (at most SEG_BLOCK), reading the interleaved series
 * from the window xt (row k at (k − xbase)·HS_VN): direct sums at blk (the anchor), then chunks of
 * SEG_CHUNK (first level, then second).  Steps before `second` run the first level only (warm-up: they
 * fill the rings); from `second` on, both, writing masks at k − second. */
static void combo_block(const seg_layout *L, seg_thread *t, seg_consts *c, const double *xt, size_t xbase,
                        size_t blk, size_t end, size_t second) {
    const size_t all = ~(size_t)0, m = t->ring_mask;
    const int64_t *w = c->w;
    const double *wt = L->weight;
    seg_state st;
    size_t kb = blk - xbase;
    SEG_TIMED(SEG_PART_ANCHORS,
              st = (seg_state){anchor_vec(xt, kb, w[0], all, wt), anchor_vec(xt, kb, w[1], all, wt),
                               anchor_vec(xt, kb, w[3], all, wt), anchor_vec(xt, kb, w[4], all, wt),
                               anchor_vec(xt, kb, w[5], all, wt), {vd_zero(), vd_zero()}, {vd_zero(), vd_zero()}});
    level1_store(&st, c, t, blk);
    int with_d = blk >= second;
    if (with_d) {
        c->tau = block_tau(L, c, blk, end);
        SEG_TIMED(SEG_PART_ANCHORS, st.h = anchor_vec(t->ring_raw, blk, w[2], m, wt);
                  st.h3 = anchor_vec(t->ring_raw3, blk, w[5], m, wt));
        d_masks(&st, c, t, blk - second);
    }
    for (size_t done = blk; done + 1 < end;) { /* step `done` is computed; run (done, stop) */
        size_t stop = done + 1 + SEG_CHUNK < end ? done + 1 + SEG_CHUNK : end;
        level1(xt, xbase, t->ring_raw, t->ring_raw3, m, c, &st, done, stop);
        if (with_d) {
            vsums h = st.h, h3 = st.h3;
            if (level2_signs(t->ring_raw, t->ring_raw3, t->signs - second, m, c, &st.h, &st.h3, done, stop)) {
                st.h = h, st.h3 = h3;
                level2_masks(t, c, &st.h, &st.h3, done, stop, second);
            }
        }
        done = stop - 1;
    }
}

/* The tier-0 d of one bar, from the building blocks in the reference order. */
static __attribute__((noinline)) double recompute_d(const double *close, size_t bar, const int64_t *w) {
    return hma3_tier0_at(close, bar, w) - hma_tier0_at(close, bar, w);
}

/* Uncertain bars among the bars [g0, g1) (any lanes). */
static size_t count_uncertain(const seg_thread *t, const seg_layout *L, size_t g0, size_t g1) {
    size_t count = 0;
    while (g0 < g1) {
        int lane = (int)(g0 / L->seg);
        size_t j = g0 % L->seg, j1 = L->seg - j < g1 - g0 ? L->seg : j + (g1 - g0);
        if (t->uncertain_lanes >> lane & 1)
            for (size_t at = j & ~(size_t)63; at < j1; at += 64) {
                uint64_t u = vb_lane_bits64(t->uncertain + at, lane);
                if (at < j) u &= ~0ULL << (j - at);
                if (j1 < at + 64) u &= (1ULL << (j1 - at)) - 1;
                count += (size_t)__builtin_popcountll(u);
            }
        g0 += j1 - j;
    }
    return count;
}

/* Bars per tier-0 range at least (and at least 4 look-backs, so the look-back adds at most 25%). */
#ifndef SEG_T0_SPAN
#define SEG_T0_SPAN 2048
#endif

/* The tier-0 d of the bars [g, hi) into the thread's range buffer: the reference's pipeline (pipeline.h)
 * over close[g − start, hi), start = the combo's first bar with a d, so every value it forms reads the
 * same prices in the same order as the reference's at that bar.  0 when out of memory (the caller then
 * recomputes bar by bar). */
static int tier0_range(const double *close, seg_thread *t, const hs_windows *win, size_t g, size_t hi) {
    size_t start = combo_first_d(win->w), s0 = g - start, len = hi - s0, stride = hs_scratch_stride(len);
    size_t need = PIPELINE_BUFFERS * stride;
    if (need > t->t0_cap) {
        free(t->t0_buf);
        t->t0_buf = malloc(need * sizeof(double));
        t->t0_cap = t->t0_buf ? need : 0;
        if (!t->t0_buf) return 0;
    }
    pipeline_d(close + s0, len, win, t->t0_buf, wma_tier0_pass); /* span-sized buffers, not n */
    t->t0_d = t->t0_buf + stride + start; /* d is the pipeline's second buffer, bar s0 + i at index i */
    t->t0_lo = g;
    t->t0_hi = hi;
    return 1;
}

/* The tier-0 d of an uncertain bar g.  One bar alone costs recompute_d, O(w2·(w0 + w1) + w5·(w3 + w4 +
 * w5)): quadratic in the windows.  Where uncertain bars are dense (flat prices, prices outside the
 * certification range, a spike's neighbourhood) that is many times the reference's O(Σw) per bar, so
 * the uncertain bars of the next span are counted first: when recomputing them one by one would cost
 * more than the reference's pipeline over the span (plus its look-back), the span is computed that way
 * (tier0_range) and its bars read from it; otherwise the span is marked sparse and its bars recomputed
 * one by one.  Either way a span costs at most about the reference's pipeline over it (1.25x with the
 * look-back), so no input makes the books cost more than a small multiple of the reference. */
static double tier0_d(const double *close, const seg_layout *L, seg_thread *t, const hs_windows *win, size_t g) {
    t->sh->recomputed++;
    if (g >= t->t0_lo && g < t->t0_hi) return t->t0_d[g - t->t0_lo];
    const int64_t *w = win->w;
    if (g >= t->t0_sparse) {
        size_t start = combo_first_d(w), span = start * 4 > SEG_T0_SPAN ? start * 4 : SEG_T0_SPAN;
        size_t hi = L->n - g < span ? L->n : g + span;
        double per_bar = (double)(w[2] * (w[0] + w[1]) + w[5] * (w[3] + w[4] + w[5]));
        double per_range = (double)(hi - g + start) * (double)(w[0] + w[1] + w[2] + w[3] + w[4] + 2 * w[5]);
        if ((double)count_uncertain(t, L, g, hi) * per_bar >= per_range && tier0_range(close, t, win, g, hi))
            return t->t0_d[0];
        t->t0_sparse = hi;
    }
    return recompute_d(close, g, w);
}

/* A visit known to be a cross with a position open: the previous bar's sign (certified, = prev) is the
 * opposite of this one.  Exactly what hs_book_step does then, without its tests. */
static inline void book_reverse(hs_book *b, int negative, double price, size_t bar, hs_pnl_column *col,
                                hs_mtm *mtm) {
    double p = hs_book_close_to(b, price, bar, NULL, col);
    hs_book_open(b, negative ? -1 : 1, price);
    b->prev = negative ? -1.0 : 1.0;
    if (mtm) hs_mtm_cross(mtm, bar, p, b->pos);
}

/* Where a combo's books stopped in a lane: the sign and uncertain bits of the last bar visited. */
typedef struct {
    uint64_t prev_sign, prev_unc;
} seg_cursor;

/* One combo's column of the deferred path's cells, and what its books carry between calls: the chunk
 * bounds of the stretch held now. */
typedef struct {
    uint32_t *cells; /* the column's cells (mtm_defer.h hs_defer_put_cell), fields SEG_CELL_STRIDE words apart */
    /* per 64-bar chunk of the span the books walk, the rows before it and its bars with a row
     * (mtm_defer.h hs_defer_table), and the bar the stretch held at its start began at (hs_defer_span;
     * from_at NULL without E) */
    uint32_t *rows_at;
    uint64_t *trades_at;
    uint32_t *from_at;
    float run_hi, run_lo;
} seg_dcol;

/* 64-bar chunks of a span (mtm_defer.h hs_defer_span). */
#define SEG_SPAN_CHUNKS (SEG_BOOK_SPAN / 64)
_Static_assert(SEG_BOOK_SPAN % 64 == 0 && (SEG_SPAN_CHUNKS & (SEG_SPAN_CHUNKS - 1)) == 0, "spans of whole chunks");

/* A row's cell (the new side long when `to_long` is 1, else 0): the chunk bounds of the stretch it closes and
 * its exit price signed by the new side. */
static inline void seg_row_cell(uint32_t *cells, size_t row, unsigned to_long, double price, float run_hi,
                                float run_lo) {
    hs_defer_put_cell(cells, SEG_CELL_STRIDE, row, run_hi, run_lo, price, to_long);
}

/* The books of lane `lane`, bars [lane·S + j_lo, lane·S + j_hi), continuing `*io` from `*cur` (j_lo a
 * multiple of 64 unless `lane_first`: then j_lo is the lane's first bar with a d, visited whatever its
 * sign), their trades' PnLs deferred into `*col_io`.  They are stepped in local copies: through the
 * pointers, every field would be stored and reloaded per trade (a double field may alias price[]; with
 * the statistics' six fields in the book that cost 6.6% of the sweep, reports/stats.md).  `mtm`: the
 * combo's equity tracker, fed at every cross, or NULL; `dc`: the combo's column of the deferred path's
 * planes (mtm_defer.h), written beside each deferred PnL, and the period ends it passes, or NULL
 * (lane_books, lane_books_mtm and lane_books_defer below are the three copies: without periods the code
 * is what it was before §9). */
static inline __attribute__((always_inline)) void lane_books_with(const double *close, const seg_layout *L,
                                                                  seg_thread *t, const hs_windows *win, int lane,
                                                                  size_t j_lo, size_t j_hi, int lane_first,
                                                                  seg_cursor *cur, hs_book *io, hs_pnl_column *col_io,
                                                                  hs_mtm *mtm, seg_dcol *dc) {
    hs_book local = *io, *book = &local;
    hs_pnl_column col_local = *col_io, *col = &col_local;
    size_t lane_bar = (size_t)lane * L->seg; /* the global bar of the lane's j = 0 */
    const double *price = close + lane_bar;
    uint64_t prev_sign = lane_first ? 0 : cur->prev_sign, prev_unc = lane_first ? 0 : cur->prev_unc;
    int any_uncertain = t->uncertain_lanes >> lane & 1; /* usually not: skip reading those bits */
    float run_hi = 0.0f, run_lo = 0.0f, ch_hi = 0.0f, ch_lo = 0.0f;
    const float *chunk = NULL;
    uint32_t *cells = NULL;
    if (dc) {
        cells = dc->cells;
        run_hi = dc->run_hi, run_lo = dc->run_lo;
        chunk = L->chunks + 2 * (size_t)lane * L->chunks_per_lane;
        if (lane_first) /* the span's chunks before the lane's first: no row (hs_defer_row_bars counts them) */
            for (size_t k = 0; k < ((j_lo >> 6) & (SEG_SPAN_CHUNKS - 1)); k++) dc->rows_at[k] = 0, dc->trades_at[k] = 0;
    }
    for (size_t at = j_lo & ~(size_t)63; at < j_hi; at += 64) {
        uint64_t s = vb_lane_bits64(t->signs + at, lane), u = any_uncertain ? vb_lane_bits64(t->uncertain + at, lane) : 0;
        uint64_t flips = s ^ (s << 1 | prev_sign), visit = flips | u | (u << 1 | prev_unc);
        uint64_t prev_unc_bit = prev_unc;
        prev_sign = s >> 63;
        prev_unc = u >> 63;
        int first_here = lane_first && j_lo >= at && j_lo < at + 64;
        if (at < j_lo) visit &= ~0ULL << (j_lo - at);
        if (first_here) visit |= 1ULL << (j_lo - at); /* the lane's first bar */
        if (j_hi < at + 64) visit &= (1ULL << (j_hi - at)) - 1;
        for (int q = 0; q < 8; q++) __builtin_prefetch(price + at + 128 + 8 * q); /* prices two chunks ahead */
        size_t in_span = (at >> 6) & (SEG_SPAN_CHUNKS - 1); /* (spans start on multiples of SEG_BOOK_SPAN) */
        if (dc) dc->rows_at[in_span] = (uint32_t)col->n;
        if (dc && dc->from_at) dc->from_at[in_span] = (uint32_t)col->last_bar;
        if (dc) {
            ch_hi = chunk[at / 32], ch_lo = chunk[at / 32 + 1]; /* chunk at/64's pair */
            run_hi = ch_hi > run_hi ? ch_hi : run_hi, run_lo = ch_lo < run_lo ? ch_lo : run_lo;
        }
        if (!(u | prev_unc_bit) && !first_here && book->pos != 0) {
            /* No bar here or just before is uncertain, so every visit is a sign change between two
             * certified bars (the earlier one is the book's prev) with a position open: a reversal.
             * (The common case: no branch on the cross conditions.)  With an uncertain bar just before,
             * its tier-0 d may be 0 or of the other sign: the general path below (the qemu NEON gate
             * caught that on the flat-stretch quotes). */
            if (dc) dc->trades_at[in_span] = visit; /* every visit a reversal */
            while (visit) {
                int b = __builtin_ctzll(visit);
                visit &= visit - 1;
                size_t bar = lane_bar + at + (size_t)b;
                int negative = (int)(s >> b & 1);
                if (dc) {
                    seg_row_cell(cells, col->n, (unsigned)negative ^ 1u, price[at + (size_t)b], run_hi, run_lo);
                    run_hi = ch_hi, run_lo = ch_lo;
                }
                book_reverse(book, negative, price[at + (size_t)b], bar, col, mtm);
            }
            continue;
        }
        uint64_t trades = 0; /* (dead without dc) */
        while (visit) {
            int b = __builtin_ctzll(visit);
            visit &= visit - 1;
            size_t j = at + (size_t)b;
            double d;
            if (u >> b & 1) {
                d = tier0_d(close, L, t, win, (size_t)lane * L->seg + j);
            } else {
                d = (s >> b & 1) ? -1.0 : 1.0; /* certified: the tier-0 d has this sign and is not 0 */
            }
            if (d == d) {
                size_t rows = col->n; /* (dead without dc: the NULL copies compile to what they were) */
                int was = book->pos;
                hs_book_step_mtm(book, d, price[j], lane_bar + j, NULL, col, mtm);
                if (dc && col->n != rows) {
                    seg_row_cell(cells, rows, book->pos > 0, price[j], run_hi, run_lo);
                    trades |= 1ULL << b;
                }
                if (dc && (col->n != rows || book->pos != was)) run_hi = ch_hi, run_lo = ch_lo; /* a new stretch */
            }
        }
        if (dc) dc->trades_at[in_span] = trades;
    }
    if (dc) dc->run_hi = run_hi, dc->run_lo = run_lo;
    cur->prev_sign = prev_sign;
    cur->prev_unc = prev_unc;
    *io = local;
    *col_io = col_local;
}

static __attribute__((noinline)) void lane_books(const double *close, const seg_layout *L, seg_thread *t,
                                                 const hs_windows *win, int lane, size_t j_lo, size_t j_hi,
                                                 int lane_first, seg_cursor *cur, hs_book *io, hs_pnl_column *col_io) {
    lane_books_with(close, L, t, win, lane, j_lo, j_hi, lane_first, cur, io, col_io, NULL, NULL);
}

static __attribute__((noinline)) void lane_books_mtm(const double *close, const seg_layout *L, seg_thread *t,
                                                     const hs_windows *win, int lane, size_t j_lo, size_t j_hi,
                                                     int lane_first, seg_cursor *cur, hs_book *io,
                                                     hs_pnl_column *col_io, hs_mtm *mtm) {
    lane_books_with(close, L, t, win, lane, j_lo, j_hi, lane_first, cur, io, col_io, mtm, NULL);
}

static __attribute__((noinline)) void lane_books_defer(const double *close, const seg_layout *L, seg_thread *t,
                                                       const hs_windows *win, int lane, size_t j_lo, size_t j_hi,
                                                       int lane_first, seg_cursor *cur, hs_book *io,
                                                       hs_pnl_column *col_io, seg_dcol *dc) {
    lane_books_with(close, L, t, win, lane, j_lo, j_hi, lane_first, cur, io, col_io, NULL, dc);
}

/* The period ends of the span of bars [from, to), after the previous span's (spans in order): the
 * table's ends (mtm_defer.h hs_defer_span), and their rows of E for combos [c0, c0 + count) fetched now,
 * for the table's end.  (Each is a line no other work touches, so it misses, and a store that misses
 * holds back every store after it: the books store four words a trade.  Fetched here, the sweep at
 * P = 1000 cost ~0.02 less: AMD EPYC family 25 model 17.) */
static void seg_span_ends(hs_defer_span *e, const hs_equity_terms *eq, size_t from, size_t to, size_t c0,
                          size_t count) {
    size_t k = e->k0 + e->n;
    while (k < eq->n_ends && (size_t)eq->ends[k] < from) k++;
    e->k0 = k;
    for (; k < eq->n_ends && (size_t)eq->ends[k] < to; k++) {
        __builtin_prefetch(eq->equity + k * eq->stride + c0, 1);
        __builtin_prefetch(eq->equity + k * eq->stride + c0 + count - 1, 1);
    }
    e->n = k - e->k0;
}

/* Book the table's rows [0, rows): each row's HS_VN-combo vectors in turn (independent chains), then
 * the rows back to +0.0 and every column empty. */
static void book_table(double *table, hs_pnl_column *col, size_t count, hs_book_lanes *acc) {
    size_t rows = 0, vecs = (count + HS_VN - 1) / HS_VN;
    for (size_t g = 0; g < count; g++) {
        rows = col[g].n > rows ? col[g].n : rows;
        col[g].n = 0;
    }
    for (size_t r = 0; r < rows; r++)
        for (size_t v = 0; v < vecs; v++) hs_book_lanes_book(&acc[v], vd_loadu(table + r * SEG_BOOK_COLS + v * HS_VN));
    memset(table, 0, rows * SEG_BOOK_COLS * sizeof(double));
}

/* Whether a sweep's books take the deferred path (mtm_defer.h): with periods, at an ISA with native vector
 * lane integers (AVX2, AVX-512), with keep >= 2^-20, and (fill_chunks, when the sweep makes its chunk
 * table) on prices in [2^-100, 2^100] and fewer than 2^31 bars: where its bounds hold.  Else the exact
 * scalar trackers (equity.c), which cost less at the other ISAs (reports/equity.md: at SSE2 the lane
 * integers go through memory). */
static int seg_equity_defer(const hs_equity_terms *eq, double keep) {
#if defined(HS_HAVE_VI_LANES) && HS_VN >= 4
    return eq && keep >= 0x1p-20;
#else
    (void)eq, (void)keep;
    return 0;
#endif
}

/* book_table on the deferred path (mtm_defer.h): per vector of lanes the rows booked, pass A and pass B
 * (the rows that may hold an epoch's lowest e become candidates), then E at the span's period ends, then
 * each lane's stretch into the next table.  The planes alternate by table, `par` this one's (pass B's list
 * of the table before is taken against this one's low).  `last_table`: the table of the closes after the
 * last bar.  The book table back to +0.0 (the cells need no reset: a lane's rows are counted). */
static uint32_t *seg_defer_cells(seg_shared *sh, int par, size_t g) {
    return sh->cells[par] + g * HS_DEFER_FIELDS * SEG_CELL_STRIDE;
}
static hs_defer_table seg_defer_table(seg_shared *sh, int par, size_t v) {
    return (hs_defer_table){seg_defer_cells(sh, par, v * HS_VN), sh->book_table + v * HS_VN,
                            sh->lower[par] + v * HS_VN * SEG_CELL_STRIDE, sh->pnl_at[par] + v * HS_VN * SEG_CELL_STRIDE,
                            sh->hits[par] + v * HS_VN * SEG_CELL_STRIDE, SEG_BOOK_COLS, SEG_CELL_STRIDE,
                            sh->rows_at[par] + v * HS_VN * SEG_SPAN_CHUNKS, sh->trades_at[par] + v * HS_VN * SEG_SPAN_CHUNKS,
                            SEG_SPAN_CHUNKS, sh->span_chunks[par], sh->span_bar[par], sh->from_in[par] + v * HS_VN};
}

static void book_table_defer(seg_shared *sh, int par, hs_pnl_column *col, size_t count, hs_book_lanes *acc,
                             const hs_defer_ctx *x, hs_defer_lanes *dl, const hs_book *book, int last_table) {
    size_t rows = 0, vecs = (count + HS_VN - 1) / HS_VN;
    hs_defer_table t[SEG_BOOK_VECS], other[SEG_BOOK_VECS]; /* this table's planes; the table before's and after's */
    for (size_t v = 0; v < vecs; v++) t[v] = seg_defer_table(sh, par, v), other[v] = seg_defer_table(sh, !par, v);
    for (size_t g = 0; g < vecs * HS_VN; g++) dl[g / HS_VN].rows[g % HS_VN] = 0; /* lanes past count: none */
    for (size_t g = 0; g < count; g++) {
        rows = col[g].n > rows ? col[g].n : rows;
        hs_defer_lanes *s = &dl[g / HS_VN];
        int l = (int)(g % HS_VN);
        /* a lane starts with its book's first position: before its first close (the first row's new side is
         * the other one), or still open with no close yet (a period end may lie in it) */
        if (s->pos0[l] == 0.0 && (col[g].n || book[g].pos))
            hs_defer_lanes_start(x, s, &t[g / HS_VN], l, book[g].first_bar,
                                 !col[g].n ? book[g].pos : hs_defer_exit(&t[g / HS_VN], 0, l) > 0.0f ? -1 : 1);
        s->rows[l] = col[g].n;
        s->last_bar[l] = col[g].last_bar;
        for (int f = 0; f < HS_DEFER_FIELDS; f++) /* defined bytes in the rows past the lane's last (pass A) */
            memset(hs_defer_field(&t[g / HS_VN], l, f) + col[g].n, 0, HS_VN * sizeof(uint32_t));
        col[g].n = 0;
    }
    for (size_t v = 0; v < vecs; v++) {
        /* only this vector's rows: the rest would book +0.0, which changes no total (book_lanes.h) */
        size_t mine = 0;
        for (int l = 0; l < HS_VN; l++) mine = dl[v].rows[l] > mine ? dl[v].rows[l] : mine;
        hs_defer_passes(x, &dl[v], &t[v], &other[v], mine, &acc[v], last_table);
    }
    for (size_t v = 0; v < vecs; v++)
        hs_defer_put_ends(x, &dl[v], &t[v], &sh->ends, v * HS_VN, count - v * HS_VN < HS_VN ? (int)(count - v * HS_VN) : HS_VN);
    for (size_t v = 0; v < vecs; v++) hs_defer_next_table(&dl[v], &t[v], &other[v]);
    memset(sh->book_table, 0, rows * SEG_BOOK_COLS * sizeof(double));
}

static void combo_consts(seg_consts *c, const int64_t *w) {
    for (int q = 0; q < 6; q++) {
        c->w[q] = w[q];
        c->wd[q] = vd_set1((double)w[q]);
        c->inv[q] = vd_set1(1.0 / hs_wma_denom(w[q]));
        c->ninv[q] = vd_set1(-1.0 / hs_wma_denom(w[q]));
    }
    c->two_inv0 = vd_set1(2.0 / hs_wma_denom(w[0]));
    c->three_inv3 = vd_set1(3.0 / hs_wma_denom(w[3]));
    c->tau = vd_zero(); /* set per block (block_tau) */
    c->tau_unit = certify_threshold_eps(1.0, w, eps_seg);
    c->reach = (size_t)combo_lookback(w) + SEG_BLOCK;
}

/* The books of a group's combos after their pass, each lane by lane in time order.  They advance
 * together, SEG_BOOK_SPAN bars of a lane at a time: every combo's trades of the span are deferred into
 * its column of the book table, then the table is booked HS_VN combos at a time (book_lanes.h: the same
 * updates in the same order per combo, bit-identical).  Measured: reports/stats.md. */
static void group_books(const double *close, const seg_layout *L, seg_thread *slots, const hs_windows *wins,
                        const int *live, size_t count, double keep, hs_outcome *out, const hs_equity_terms *eq,
                        size_t c0) {
    hs_book book[SEG_GROUP];
    hs_mtm mtm[SEG_GROUP];
    seg_cursor cur[SEG_GROUP];
    hs_pnl_column col[SEG_GROUP];
    size_t first_d[SEG_GROUP];
    hs_book_lanes acc[SEG_BOOK_VECS];
    seg_shared *sh = slots[0].sh;
    double *table = sh->book_table;
    int defer = L->chunks != NULL; /* the sweep made the chunk table: eq on the deferred path */
    hs_defer_ctx x;
    hs_defer_lanes dl[SEG_BOOK_VECS];
    seg_dcol dc[SEG_GROUP];
    int par = 0; /* the planes of the table the books fill (book_table_defer) */
    if (defer) {
        hs_defer_ctx_init(&x, close, L->n, keep, eq);
        for (size_t v = 0; v < SEG_BOOK_VECS; v++) hs_defer_lanes_new(&dl[v], c0 + v * HS_VN);
        sh->ends.k0 = sh->ends.n = 0;
    }
    for (size_t v = 0; v < SEG_BOOK_VECS; v++) acc[v] = hs_book_lanes_new();
    for (size_t g = 0; g < count; g++) {
        book[g] = hs_book_new(keep);
        if (eq && !defer) hs_mtm_init(&mtm[g], eq, c0 + g, close, keep);
        if (defer)
            dc[g] = (seg_dcol){seg_defer_cells(sh, 0, g), sh->rows_at[0] + g * SEG_SPAN_CHUNKS,
                               sh->trades_at[0] + g * SEG_SPAN_CHUNKS,
                               eq->equity ? sh->from_at + g * SEG_SPAN_CHUNKS : NULL, 0.0f, 0.0f};
        cur[g] = (seg_cursor){0, 0};
        col[g] = (hs_pnl_column){table + g, SEG_BOOK_COLS, 0, 0};
        first_d[g] = combo_first_d(wins[g].w);
        slots[g].t0_lo = slots[g].t0_hi = slots[g].t0_sparse = 0;
    }
    for (int lane = 0; lane < HS_VN; lane++) {
        size_t lo = (size_t)lane * L->seg, hi = lo + L->seg < L->n ? lo + L->seg : L->n;
        for (size_t a = 0; lo + a < hi; a += SEG_BOOK_SPAN) {
            size_t b = hi - lo - a < SEG_BOOK_SPAN ? hi - lo : a + SEG_BOOK_SPAN;
            if (defer) sh->span_bar[par] = (int64_t)(lo + a), sh->span_chunks[par] = (b - a + 63) / 64;
            if (defer && eq->equity) seg_span_ends(&sh->ends, eq, lo + a, lo + b, c0, count);
            for (size_t g = 0; g < count; g++) {
                if (!live[g] || hi <= first_d[g]) continue;
                size_t j_first = first_d[g] > lo ? first_d[g] - lo : 0;
                if (j_first >= b) continue;
                int lane_first = j_first >= a;
                if (defer)
                    lane_books_defer(close, L, &slots[g], &wins[g], lane, lane_first ? j_first : a, b, lane_first,
                                     &cur[g], &book[g], &col[g], &dc[g]);
                else if (eq)
                    lane_books_mtm(close, L, &slots[g], &wins[g], lane, lane_first ? j_first : a, b, lane_first,
                                   &cur[g], &book[g], &col[g], &mtm[g]);
                else
                    lane_books(close, L, &slots[g], &wins[g], lane, lane_first ? j_first : a, b, lane_first, &cur[g],
                               &book[g], &col[g]);
            }
            if (defer) {
                book_table_defer(sh, par, col, count, acc, &x, dl, book, 0);
                par = !par;
                for (size_t g = 0; g < count; g++) {
                    dc[g].cells = seg_defer_cells(sh, par, g);
                    dc[g].rows_at = sh->rows_at[par] + g * SEG_SPAN_CHUNKS;
                    dc[g].trades_at = sh->trades_at[par] + g * SEG_SPAN_CHUNKS;
                }
            } else {
                book_table(table, col, count, acc);
            }
        }
    }
    for (size_t g = 0; g < count; g++)
        if (live[g] && book[g].pos != 0) {
            if (defer) { /* the close after the last bar, coded at bar n: its stretch takes the last bar */
                seg_row_cell(dc[g].cells, col[g].n, book[g].pos < 0, close[L->n - 1], dc[g].run_hi, dc[g].run_lo);
            }
            hs_book_close_to(&book[g], close[L->n - 1], L->n - 1, NULL, &col[g]);
        }
    if (defer) {
        sh->ends.n = 0; /* (every end is before the close after the last bar) */
        sh->span_bar[par] = (int64_t)L->n, sh->span_chunks[par] = 0; /* (its rows' bars are not read) */
        book_table_defer(sh, par, col, count, acc, &x, dl, book, 1);
        for (size_t g = 0; g < count; g++) hs_defer_lanes_finish(&x, &dl[g / HS_VN], (int)(g % HS_VN));
    } else {
        book_table(table, col, count, acc);
    }
    for (size_t g = 0; eq && !defer && g < count; g++) hs_mtm_finish(&mtm[g], L->n, eq, c0 + g);
    for (size_t g = 0; g < count; g++) {
        out[g] = live[g] ? hs_book_lanes_outcome(&acc[g / HS_VN], (int)(g % HS_VN), book[g].trades, book[g].first_bar,
                                                 col[g].last_bar)
                         : hs_outcome_empty();
        /* level2_signs leaves the uncertain bytes of an all-certain chunk unwritten: they must be zero for
         * the next group (thread_init zeroes them; only level2_masks and d_masks write them). */
        if (slots[g].uncertain_lanes) memset(slots[g].uncertain, 0, L->seg);
    }
}

/* `count` (<= SEG_GROUP) combos, one slot each, run block by block over the same window of the
 * interleaved series: for each block of steps the window gets the block's rows (and the widest window
 * before them) once, and every combo of the group runs its block from it.  The blocks are the group's
 * (from the earliest first step, split at `second`); a combo starts at its own first step k0, inside a
 * block or on its edge.  Then each combo's books. */
static void segments_group(const double *close, const seg_layout *L, seg_thread *slots, const hs_windows *wins,
                           size_t count, double keep, hs_result *out, hs_stats *stats, const hs_equity_terms *eq,
                           size_t c0) {
    seg_consts c[SEG_GROUP];
    size_t k0[SEG_GROUP], second = L->pad, first = L->steps, wide = 1;
    int live[SEG_GROUP];
    for (size_t g = 0; g < count; g++) {
        const int64_t *w = wins[g].w;
        live[g] = combo_first_d(w) < L->n;
        if (!live[g]) continue;
        combo_consts(&c[g], w);
        k0[g] = second - (size_t)(imax(w[2], w[5]) - 1);
        first = k0[g] < first ? k0[g] : first;
        wide = (size_t)imax((int64_t)wide, imax(imax(imax(w[0], w[1]), imax(w[3], w[4])), w[5]));
        slots[g].uncertain_lanes = 0;
    }
    SEG_TIMED(SEG_PART_FUSED, for (size_t blk = first, end; blk < L->steps; blk = end) {
        end = blk + SEG_BLOCK < L->steps ? blk + SEG_BLOCK : L->steps;
        if (blk < second && end > second) end = second; /* the second level starts on a block edge */
        const double *xt = window_rows(close, L, slots[0].sh, blk + 1 > wide ? blk + 1 - wide : 0, end);
        for (size_t g = 0; g < count; g++)
            if (live[g] && k0[g] < end)
                combo_block(L, &slots[g], &c[g], xt, slots[0].sh->xw_base, blk > k0[g] ? blk : k0[g], end, second);
    });
    hs_outcome o[SEG_GROUP];
    SEG_TIMED(SEG_PART_BOOKS, group_books(close, L, slots, wins, live, count, keep, o, eq, c0));
    for (size_t g = 0; g < count; g++) {
        out[g] = o[g].r;
        if (stats) stats[g] = o[g].s;
    }
}

/* One thread's part of the sweep's single allocation: two rings (ring × HS_VN doubles each), then the
 * sign and uncertain bytes (seg + 128 each, rounded to 64).  Sizes are multiples of 64, so every part
 * stays 64-byte aligned. */
static size_t ring_bytes(size_t ring) { return (2 * ring * HS_VN * sizeof(double) + 63) & ~(size_t)63; }
static size_t mask_bytes(const seg_layout *L) { return (L->seg + 128 + 63) & ~(size_t)63; }
static size_t window_bytes(size_t rows) { return (rows * HS_VN * sizeof(double) + 63) & ~(size_t)63; }
static size_t slot_bytes(const seg_layout *L, size_t ring) { return ring_bytes(ring) + 2 * mask_bytes(L); }
static size_t book_table_bytes(void) { return SEG_BOOK_SPAN * SEG_BOOK_COLS * sizeof(double); }
/* `defer`: the deferred path's planes follow the book table (mtm_defer.h: the bounds and exit prices, the
 * lower bounds, the pnl before each row, pass B's lists, and per chunk the rows before it, its bars with a
 * row and the bar its held stretch began at). */
static size_t cells_bytes(void) {
    return (SEG_BOOK_COLS * HS_DEFER_FIELDS * SEG_CELL_STRIDE * sizeof(uint32_t) + 63) & ~(size_t)63;
}
static size_t lower_bytes(void) { return (SEG_BOOK_COLS * SEG_CELL_STRIDE * sizeof(double) + 63) & ~(size_t)63; }
static size_t pnl_at_bytes(void) { return lower_bytes(); }
static size_t span_rows_bytes(void) { return (SEG_BOOK_COLS * SEG_SPAN_CHUNKS * sizeof(uint64_t) + 63) & ~(size_t)63; }
static size_t from_in_bytes(void) { return (SEG_BOOK_COLS * sizeof(int64_t) + 63) & ~(size_t)63; }
static size_t hits_bytes(void) { return (SEG_BOOK_COLS * SEG_CELL_STRIDE * sizeof(uint32_t) + 63) & ~(size_t)63; }
static size_t defer_bytes(void) {
    return 2 * (cells_bytes() + lower_bytes() + pnl_at_bytes() + hits_bytes() + 2 * span_rows_bytes() + from_in_bytes()) +
           span_rows_bytes();
}
static size_t thread_bytes(const seg_layout *L, size_t ring, size_t rows, size_t group, int defer) {
    return group * slot_bytes(L, ring) + window_bytes(rows) + book_table_bytes() + (defer ? defer_bytes() : 0);
}

/* Rows of the interleaved window beyond the widest window and a block: it slides (a memmove of the
 * widest window) once per SEG_XW rows. */
#ifndef SEG_XW
#define SEG_XW 2048
#endif

/* The thread zeroes its own bytes (first touch on its core; the uncertain bytes must start zero). */
static void thread_init(seg_thread *slots, seg_shared *sh, unsigned char *base, const seg_layout *L, size_t ring,
                        size_t rows, size_t group, int defer) {
    size_t masks = mask_bytes(L);
    for (size_t g = 0; g < group; g++, base += slot_bytes(L, ring)) {
        seg_thread *t = &slots[g];
        t->ring_mask = ring - 1;
        t->ring_raw = (double *)(void *)base;
        t->ring_raw3 = t->ring_raw + ring * HS_VN;
        t->signs = base + ring_bytes(ring);
        t->uncertain = t->signs + masks;
        memset(t->signs, 0, 2 * masks);
        t->uncertain_lanes = 0;
        t->t0_buf = t->t0_d = NULL;
        t->t0_cap = t->t0_lo = t->t0_hi = t->t0_sparse = 0;
        t->sh = sh;
    }
    *sh = (seg_shared){0};
    sh->xw = (double *)(void *)base;
    sh->xw_rows = rows;
    sh->book_table = (double *)(void *)(base + window_bytes(rows));
    memset(sh->book_table, 0, book_table_bytes());
    if (defer) {
        unsigned char *d = base + window_bytes(rows) + book_table_bytes();
        /* (not zeroed: a lane's rows are written before they are read, and the rows just past them, which
         * pass A loads and masks off, are zeroed per table, book_table_defer; zeroing the planes here touched
         * every page of them, 141 more page faults per sweep on the default sweep, most of them pages no row
         * reaches) */
        for (int par = 0; par < 2; par++) {
            sh->cells[par] = (uint32_t *)(void *)d + HS_DEFER_LEAD; /* row 0 of column 0's first field */
            d += cells_bytes();
            sh->lower[par] = (double *)(void *)d;
            d += lower_bytes();
            sh->pnl_at[par] = (double *)(void *)d;
            d += pnl_at_bytes();
        }
        for (int par = 0; par < 2; par++, d += hits_bytes()) sh->hits[par] = (uint32_t *)(void *)d;
        for (int par = 0; par < 2; par++) {
            sh->rows_at[par] = (uint32_t *)(void *)d;
            sh->trades_at[par] = (uint64_t *)(void *)(d + span_rows_bytes());
            sh->from_in[par] = (int64_t *)(void *)(d + 2 * span_rows_bytes());
            d += 2 * span_rows_bytes() + from_in_bytes();
        }
        sh->from_at = (uint32_t *)(void *)d;
        sh->ends = (hs_defer_span){0, 0, sh->from_at};
    }
}

/* Tile maxima of lane l (see seg_layout), tiles [t_from, t_to): lane l's steps are the contiguous bars
 * l·S − P + k, clamped to the first/last price as the interleaved series is. */
static void fill_tile_max(const double *close, size_t t_from, size_t t_to, seg_layout *L) {
    for (int l = 0; l < HS_VN; l++)
        for (size_t tile = t_from; tile < t_to; tile++) {
            size_t k0 = tile * SEG_TILE, k1 = k0 + SEG_TILE < L->steps ? k0 + SEG_TILE : L->steps;
            int64_t b0 = (int64_t)((size_t)l * L->seg + k0) - (int64_t)L->pad, b1 = b0 + (int64_t)(k1 - k0);
            double m = 0.0;
            if (b0 < 0) m = fabs(close[0]);
            if (b1 > (int64_t)L->n) m = fmax(m, fabs(close[L->n - 1]));
            for (int64_t b = b0 < 0 ? 0 : b0; b < b1 && b < (int64_t)L->n; b++) m = fabs(close[b]) > m ? fabs(close[b]) : m;
            L->tile_max[tile * HS_VN + (size_t)l] = m;
        }
}

/* The deferred path's chunk table (seg_layout): per lane and 64-bar chunk of it, the bounds on the highest
 * and lowest close.  Returns whether every price is in [2^-100, 2^100] and the bars fewer than 2^31,
 * where the path's bounds hold (mtm_defer.h). */
static int fill_chunks(const double *close, const seg_layout *L, float *pairs) {
    for (size_t l = 0; l < HS_VN; l++)
        for (size_t k = 0; k < L->chunks_per_lane; k++) {
            size_t a = l * L->seg + k * HS_DEFER_CHUNK, b = a + HS_DEFER_CHUNK;
            b = b < (l + 1) * L->seg ? b : (l + 1) * L->seg;
            b = b < L->n ? b : L->n;
            double h = 0.0, m = INFINITY;
            if (a < b) hs_defer_extremes(close, (int64_t)a, (int64_t)b, &h, &m);
            if (!(h <= 0x1p100 && m >= 0x1p-100)) return 0; /* (an empty chunk of the last lane: h 0, m +inf) */
            pairs[2 * (l * L->chunks_per_lane + k)] = hs_defer_bound_hi(h);
            pairs[2 * (l * L->chunks_per_lane + k) + 1] = hs_defer_bound_lo(m);
        }
    return L->n < ((size_t)1 << 31); /* a code is 32 bits */
}

/* The sweep's job for its team (src/team/team.c): each seat claims groups of `group` combos in grid order
 * from `next_group`, one at a time, until none is left.  Their costs are nearly equal (the fused pass is
 * L.steps steps for every combo; the books and anchors differ by ~20%), so the tail is at most one
 * group, and there are at least four groups per thread.  A seat that runs late finds fewer (or none)
 * and the caller never waits for one that has not started (issue 28 item 2). */
typedef struct {
    const double *close;
    const seg_layout *L;
    const hs_windows *combos;
    size_t n_combos;
    double keep;
    hs_result *out;
    hs_stats *stats;
    hs_cancel *cancel;
    const hs_equity_terms *eq;
    unsigned char *seats_base; /* seat s's bytes at seats_base + s * per_seat */
    size_t per_seat, ring, rows, group, n_groups;
    _Atomic size_t next_group;
    _Atomic long long recomputed;
} seg_team;

static void seg_seat(void *ctx, int seat) {
    seg_team *j = ctx;
    if (atomic_load_explicit(&j->next_group, memory_order_relaxed) >= j->n_groups) return; /* nothing left */
    seg_thread slots[SEG_GROUP];
    seg_shared sh;
    thread_init(slots, &sh, j->seats_base + (size_t)seat * j->per_seat, j->L, j->ring, j->rows, j->group,
                j->L->chunks != NULL);
    for (;;) {
        size_t g = atomic_fetch_add_explicit(&j->next_group, 1, memory_order_relaxed);
        if (g >= j->n_groups) break;
        if (hs_cancel_stopped(j->cancel)) continue; /* stopped: the rest are claimed and skipped */
        size_t g0 = g * j->group, count = j->n_combos - g0 < j->group ? j->n_combos - g0 : j->group;
        segments_group(j->close, j->L, slots, j->combos + g0, count, j->keep, j->out + g0,
                       j->stats ? j->stats + g0 : NULL, j->eq, g0);
        hs_cancel_tick(j->cancel, count, seat == 0);
    }
    atomic_fetch_add_explicit(&j->recomputed, sh.recomputed, memory_order_relaxed);
    for (size_t g = 0; g < j->group; g++) free(slots[g].t0_buf);
}

/* The whole sweep: layout once, then combos (each one thread's, grid order, dynamic) over `threads`. */
hs_status HS_SWEEP(segments)(const double *close, size_t n, const hs_windows *combos,
                             size_t n_combos, double keep, hs_result *out, hs_stats *stats,
                             int threads, hs_cancel *cancel, const hs_equity_terms *eq, hs_error *err) {
    if (n_combos == 0) return HS_OK;
    seg_layout L = {n, (n + HS_VN - 1) / HS_VN, 0, 0, NULL, NULL, NULL, 0};
    int64_t widest = 1, widest_any = 1;
    for (size_t c = 0; c < n_combos; c++) {
        L.pad = (size_t)imax((int64_t)L.pad, combo_lookback(combos[c].w));
        widest = imax(widest, imax(combos[c].w[2], combos[c].w[5]));
        for (int q = 0; q < 6; q++) widest_any = imax(widest_any, combos[c].w[q]);
    }
    size_t ring = 1;
    while (ring <= (size_t)widest + SEG_CHUNK + 1) ring <<= 1; /* a chunk plus the widest second-level window */
    L.steps = L.pad + L.seg;
    long long recomputed = 0;
    if (threads < 1) threads = 1;
    if ((size_t)threads > n_combos) threads = (int)n_combos; /* a thread with no combo would cost ~a wake-up */
    /* One allocation, made here, for the weights, the tile maxima and every thread's rings, masks and
     * window of the interleaved series.  Allocated inside the
     * parallel region (one malloc arena per thread), the second thread's buffers cost 0.3-0.5 ms per
     * sweep against 0.1 ms for the first (omp_get_wtime per thread, default sweep, 2026-12-03): a few
     * percent of a 2-thread sweep that takes 12 ms of CPU per thread. */
    size_t weight_bytes = ((size_t)widest_any * sizeof(double) + 63) & ~(size_t)63;
    size_t tiles = (L.steps + SEG_TILE - 1) / SEG_TILE, tile_bytes = (tiles * HS_VN * sizeof(double) + 63) & ~(size_t)63;
    weight_bytes += tile_bytes; /* the tile maxima follow the weights */
    size_t group = n_combos / (4 * (size_t)threads);
    group = group < 1 ? 1 : group > SEG_GROUP ? SEG_GROUP : group;
    /* Each slot holds two S-byte masks (S = n/lanes): at most SEG_GROUP_BYTES of them per thread, so
     * long series run smaller groups (10^8 bars on AVX-512: 25 MB a slot, one combo at a time). */
    size_t by_memory = SEG_GROUP_BYTES / (2 * mask_bytes(&L));
    if (group > by_memory) group = by_memory < 1 ? 1 : by_memory;
    size_t n_groups = (n_combos + group - 1) / group;
    size_t rows = (size_t)widest_any + SEG_BLOCK + SEG_XW;
    int defer = seg_equity_defer(eq, keep);
    L.chunks_per_lane = (L.seg + HS_DEFER_CHUNK - 1) / HS_DEFER_CHUNK;
    size_t chunk_bytes = defer ? (2 * HS_VN * L.chunks_per_lane * sizeof(float) + 63) & ~(size_t)63 : 0;
    weight_bytes += chunk_bytes; /* then the chunk table */
    size_t per_thread = thread_bytes(&L, ring, rows, group, defer);
    unsigned char *block = aligned_alloc(64, weight_bytes + (size_t)threads * per_thread);
    if (!block) return hs_fail(err, HS_ERR_NOMEM, "out of memory for the segments kernel (%zu bars)", n);
    L.weight = (double *)(void *)block;
    for (int64_t j = 0; j < widest_any; j++) L.weight[j] = (double)(j + 1);
    L.tile_max = (double *)(void *)(block + weight_bytes - chunk_bytes - tile_bytes);
    fill_tile_max(close, 0, tiles, &L); /* one pass over the bars, before any seat reads them */
    if (defer && fill_chunks(close, &L, (float *)(void *)(block + weight_bytes - chunk_bytes))) {
        L.chunks = (float *)(void *)(block + weight_bytes - chunk_bytes);
    }
    /* Periods without the deferred path: the exact trackers, with the close's range table (the driver
     * makes none for a whole-sweep kernel: sweep.c hs_options_equity). */
    hs_equity_terms own_eq;
    double *own_table = NULL;
    if (eq && !L.chunks && !eq->ranges.hi) {
        int near = n_combos >= HS_MTM_NEAR_MIN_COMBOS;
        own_table = malloc(hs_mtm_ranges_doubles(n, near) * sizeof *own_table);
        if (!own_table) {
            free(block);
            return hs_fail(err, HS_ERR_NOMEM, "out of memory for the close's range table (%zu bars)", n);
        }
        own_eq = *eq;
        own_eq.ranges = hs_mtm_ranges_make(close, n, own_table, near);
        eq = &own_eq;
    }
    seg_team job = {close, &L, combos, n_combos, keep, out, stats, cancel, eq, block + weight_bytes, per_thread, ring,
                    rows, group, n_groups, 0, 0};
    hs_team_run(threads, seg_seat, &job);
    recomputed = atomic_load_explicit(&job.recomputed, memory_order_relaxed);
    free(L.weight); /* the start of the one allocation */
    free(own_table);
    hs_kernel_count_recomputed(recomputed);
    return HS_OK;
}

/* One combo (the registry's per-combo entry; the drivers call the sweep kernel above instead).  The
 * combo kernel signature cannot report an error, so an allocation failure gives trades = −1, pnl NaN. */
size_t HS_SCRATCH(segments)(size_t n) { return 0; } /* the sweep owns its scratch (seg_shared) */

hs_outcome HS_COMBO(segments)(const double *close, size_t n, const hs_windows *win, double keep, double *scratch,
                              hs_mtm *mtm) {
    hs_outcome o = {{NAN, -1}, {0, 0.0, 0.0, 0.0, 0.0, 0}};
    /* The sweep kernel makes and finishes its own trackers from terms: give it terms naming this tracker's
     * period ends and E column, then leave the tracker finished (every bar accounted) with its drawdown. */
    if (!mtm) {
        HS_SWEEP(segments)(close, n, win, 1, keep, &o.r, &o.s, 1, NULL, NULL, NULL);
        return o;
    }
    double mdd;
    hs_equity_terms one = {mtm->ends, mtm->n_ends, mtm->e, mtm->stride, &mdd, mtm->ranges};
    if (HS_SWEEP(segments)(close, n, win, 1, keep, &o.r, &o.s, 1, NULL, &one, NULL) == HS_OK) {
        mtm->mdd = mdd;
        mtm->k = mtm->n_ends;
        mtm->from = n;
    }
    return o;
}
