/* segments — one combo at a time, its TIME SEGMENTS in the vector lanes, every stage fused in one pass,
 * every sign of d certified: tier 0.  hs:multi-isa
 *
 * Why time segments: a running-sum WMA is a serial chain along time, so sliding_x put different combos
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
 * two bytes: the lanes' sign bits and the lanes where |d| <= TAU (not certified).  Running sums are
 * re-anchored by direct sums every SEG_BLOCK steps; the warm-up runs the first level only, from the
 * first step whose raw value the second level needs.
 *
 * Certification: each lane's d is a sliding d (certify.h), re-anchored every SEG_BLOCK steps, over inputs
 * bounded by the largest price (the padding is a price of the series), so |d − d_tier0| <= E with E of
 * eps_slide_block(w, SEG_BLOCK), across warm-up and re-anchoring alike (each anchor restarts the drift;
 * the bound only counts steps since the last anchor).  Bars with |d| <= TAU = 4E, or NaN, are recomputed
 * in tier-0 order (hma3_tier0_at − hma_tier0_at) and counted (hs_kernel_counts).
 *
 * Books, stitched in time order: lane 0's bars, then lane 1's, ...  A bar is visited when it is a lane's
 * first valid bar, when its sign differs from the bar before (a cross is exactly that where no d is 0
 * or NaN, tier0.h hs_books_over), or when it or the bar before is uncertified.  Visiting runs the
 * reference's hs_book_step with the bar's certified sign (or its tier-0 d), so the trades, their prices
 * and the order their PnL is summed are the reference's: bit-identical PnL on every ISA.  The visits are
 * found 64 bars at a time from the byte masks (a multiply gathers one lane's bits of 8 bytes).
 */
#include <stdlib.h>
#include <string.h>
#ifdef HS_HAVE_OPENMP
#include <omp.h>
#endif

#include "certify.h"
#include "error.h"
#include "vec.h"

/* Steps between re-anchors.  Measured (default sweep, AVX2, 1 thread, shared 2-vCPU EPYC, median of 5;
 * prof/segments/): see reports/segments.md.  Larger blocks anchor less often but widen TAU (the drift
 * term grows with the block length squared), so more bars are recomputed. */
#ifndef SEG_BLOCK
#define SEG_BLOCK 512
#endif

static double eps_seg(int64_t w) { return eps_slide_block(w, SEG_BLOCK); }

static inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

/* Look-back of a combo: the first level must start max(w2, w5) − 1 steps before the second, and reads
 * its widest window back from there. */
static int64_t combo_lookback(const int64_t *w) {
    return imax(w[2], w[5]) + imax(imax(imax(w[0], w[1]), imax(w[3], w[4])), w[5]) - 2;
}

/* The first bar with a valid d (the reference's d is NaN before it). */
static size_t combo_first_d(const int64_t *w) {
    return (size_t)imax(imax(w[0], w[1]) + w[2] - 2, imax(imax(w[3], w[4]), w[5]) + w[5] - 2);
}

typedef struct {
    size_t n, seg, pad, steps; /* bars, bars per lane (S), warm-up steps (P), P + S */
    double *xt;                /* steps × HS_VN, lane l of step k = close[l·S − P + k] (clamped) */
    double max_close;
} seg_layout;

/* Per-thread state: rings of raw/raw3 (ring × HS_VN doubles each) and the per-step masks. */
typedef struct {
    double *ring_raw, *ring_raw3;
    size_t ring_mask;
    unsigned char *signs, *uncertain; /* seg + 64 bytes each */
    long long recomputed;
} seg_thread;

typedef struct {
    hs_vd s1, s2;
} vsums;

/* Direct sums of the window of length w ending at step k of an interleaved series (ring: index masked).
 * Four partial sums break the add chains; the order is free for the bound. */
static inline vsums anchor_vec(const double *x, size_t k, int64_t w, size_t mask) {
    hs_vd a[4] = {vd_zero(), vd_zero(), vd_zero(), vd_zero()}, b[4] = {vd_zero(), vd_zero(), vd_zero(), vd_zero()};
    size_t first = k - (size_t)(w - 1);
    int64_t j = 0;
    for (; j + 4 <= w; j += 4)
        for (int q = 0; q < 4; q++) {
            hs_vd v = vd_loadu(x + ((first + (size_t)(j + q)) & mask) * HS_VN);
            a[q] = vd_add(a[q], v);
            b[q] = vd_add(b[q], vd_mul(v, vd_set1((double)(j + q + 1))));
        }
    for (; j < w; j++) {
        hs_vd v = vd_loadu(x + ((first + (size_t)j) & mask) * HS_VN);
        a[0] = vd_add(a[0], v);
        b[0] = vd_add(b[0], vd_mul(v, vd_set1((double)(j + 1))));
    }
    return (vsums){vd_add(vd_add(a[0], a[1]), vd_add(a[2], a[3])), vd_add(vd_add(b[0], b[1]), vd_add(b[2], b[3]))};
}

/* sliding.c's step: S2 += w·x_new − S1; S1 += x_new − x_old. */
static inline void vstep(vsums *s, hs_vd w, hs_vd x_new, hs_vd x_old) {
    s->s2 = vd_add(s->s2, vd_sub(vd_mul(w, x_new), s->s1));
    s->s1 = vd_add(s->s1, vd_sub(x_new, x_old));
}

typedef struct {
    int64_t w[6];
    hs_vd wd[6], inv[6], two, three, tau;
} seg_consts;

/* The fused pass over steps [k0, k1) in blocks of SEG_BLOCK.  Steps before `second` run the first level
 * only (warm-up: they fill the rings); from `second` on, the second level and d as well, writing the
 * masks at index k − second. */
static void fused_pass(const seg_layout *L, seg_thread *t, const seg_consts *c, size_t k0, size_t second) {
    const double *xt = L->xt;
    const size_t all = ~(size_t)0, m = t->ring_mask;
    const int64_t *w = c->w;
    const unsigned lanes = (1u << HS_VN) - 1;
    for (size_t blk = k0, end; blk < L->steps; blk = end) {
        end = blk + SEG_BLOCK < L->steps ? blk + SEG_BLOCK : L->steps;
        if (blk < second && end > second) end = second; /* the second level starts on a block edge */
        int with_d = blk >= second;
        vsums s0 = anchor_vec(xt, blk, w[0], all), s1 = anchor_vec(xt, blk, w[1], all);
        vsums s3 = anchor_vec(xt, blk, w[3], all), s4 = anchor_vec(xt, blk, w[4], all);
        vsums s5 = anchor_vec(xt, blk, w[5], all), h = {vd_zero(), vd_zero()}, h3 = {vd_zero(), vd_zero()};
        for (size_t k = blk; k < end; k++) {
            if (k > blk) {
                hs_vd x_new = vd_loadu(xt + k * HS_VN);
                vstep(&s0, c->wd[0], x_new, vd_loadu(xt + (k - (size_t)w[0]) * HS_VN));
                vstep(&s1, c->wd[1], x_new, vd_loadu(xt + (k - (size_t)w[1]) * HS_VN));
                vstep(&s3, c->wd[3], x_new, vd_loadu(xt + (k - (size_t)w[3]) * HS_VN));
                vstep(&s4, c->wd[4], x_new, vd_loadu(xt + (k - (size_t)w[4]) * HS_VN));
                vstep(&s5, c->wd[5], x_new, vd_loadu(xt + (k - (size_t)w[5]) * HS_VN));
            }
            hs_vd raw = vd_sub(vd_mul(c->two, vd_mul(s0.s2, c->inv[0])), vd_mul(s1.s2, c->inv[1]));
            hs_vd raw3 = vd_sub(vd_sub(vd_mul(c->three, vd_mul(s3.s2, c->inv[3])), vd_mul(s4.s2, c->inv[4])),
                                vd_mul(s5.s2, c->inv[5]));
            vd_storeu(t->ring_raw + (k & m) * HS_VN, raw);
            vd_storeu(t->ring_raw3 + (k & m) * HS_VN, raw3);
            if (!with_d) continue;
            if (k == blk) {
                h = anchor_vec(t->ring_raw, k, w[2], m);
                h3 = anchor_vec(t->ring_raw3, k, w[5], m);
            } else {
                vstep(&h, c->wd[2], raw, vd_loadu(t->ring_raw + ((k - (size_t)w[2]) & m) * HS_VN));
                vstep(&h3, c->wd[5], raw3, vd_loadu(t->ring_raw3 + ((k - (size_t)w[5]) & m) * HS_VN));
            }
            hs_vd d = vd_sub(vd_mul(h3.s2, c->inv[5]), vd_mul(h.s2, c->inv[2]));
            t->signs[k - second] = (unsigned char)vd_signbits(d);
            t->uncertain[k - second] = (unsigned char)(~vd_absgt_bits(d, c->tau) & lanes);
        }
    }
}

/* Bits j of one lane over 64 steps from a byte-per-step mask: bit `lane` of bytes [at, at + 64). */
static inline uint64_t lane_bits64(const unsigned char *bytes, size_t at, int lane) {
    uint64_t word = 0;
    for (int q = 0; q < 8; q++) {
        uint64_t x;
        memcpy(&x, bytes + at + 8 * (size_t)q, 8);
        uint64_t t = (x >> lane) & 0x0101010101010101ULL;
        word |= ((t * 0x0102040810204080ULL) >> 56) << (8 * q); /* byte j's bit -> bit j (no carries) */
    }
    return word;
}

/* The books of lane `lane`, bars [lane·S + j_lo, lane·S + j_hi), continuing `book`. */
static void lane_books(const double *close, const seg_layout *L, seg_thread *t, const int64_t *w, int lane,
                       size_t j_lo, size_t j_hi, hs_book *book) {
    size_t base = (size_t)lane * L->seg;
    uint64_t prev_sign = 0, prev_unc = 0;
    for (size_t at = j_lo & ~(size_t)63; at < j_hi; at += 64) {
        uint64_t s = lane_bits64(t->signs, at, lane), u = lane_bits64(t->uncertain, at, lane);
        uint64_t visit = (s ^ (s << 1 | prev_sign)) | u | (u << 1 | prev_unc);
        prev_sign = s >> 63;
        prev_unc = u >> 63;
        if (at < j_lo) visit &= ~0ULL << (j_lo - at);
        if (j_lo >= at && j_lo < at + 64) visit |= 1ULL << (j_lo - at); /* the lane's first bar */
        if (j_hi < at + 64) visit &= (1ULL << (j_hi - at)) - 1;
        while (visit) {
            int b = __builtin_ctzll(visit);
            visit &= visit - 1;
            size_t bar = base + at + (size_t)b;
            double d;
            if (u >> b & 1) {
                d = hma3_tier0_at(close, bar, w) - hma_tier0_at(close, bar, w);
                t->recomputed++;
            } else {
                d = (s >> b & 1) ? -1.0 : 1.0; /* certified: the tier-0 d has this sign and is not 0 */
            }
            if (d == d) hs_book_step(book, d, close[bar]);
        }
    }
}

static hs_result segments_combo(const double *close, const seg_layout *L, seg_thread *t, const hs_windows *win) {
    const int64_t *w = win->w;
    hs_book book = hs_book_new();
    size_t first_d = combo_first_d(w);
    if (first_d >= L->n) return hs_book_finish(&book, close[L->n - 1]);
    seg_consts c;
    for (int q = 0; q < 6; q++) {
        c.w[q] = w[q];
        c.wd[q] = vd_set1((double)w[q]);
        c.inv[q] = vd_set1(1.0 / hs_wma_denom(w[q]));
    }
    c.two = vd_set1(2.0);
    c.three = vd_set1(3.0);
    c.tau = vd_set1(certify_threshold_eps(L->max_close, w, eps_seg));
    size_t second = L->pad, k0 = second - (size_t)(imax(w[2], w[5]) - 1);
    fused_pass(L, t, &c, k0, second);
    for (int lane = 0; lane < HS_VN; lane++) {
        size_t lo = (size_t)lane * L->seg, hi = lo + L->seg < L->n ? lo + L->seg : L->n;
        if (hi <= lo || hi <= first_d) continue;
        size_t j_lo = first_d > lo ? first_d - lo : 0;
        lane_books(close, L, t, w, lane, j_lo, hi - lo, &book);
    }
    return hs_book_finish(&book, close[L->n - 1]);
}

static int thread_alloc(seg_thread *t, const seg_layout *L, size_t ring) {
    t->ring_mask = ring - 1;
    t->ring_raw = aligned_alloc(64, 2 * ring * HS_VN * sizeof(double));
    t->ring_raw3 = t->ring_raw ? t->ring_raw + ring * HS_VN : NULL;
    size_t mask_bytes = (L->seg + 128 + 63) & ~(size_t)63;
    t->signs = calloc(2 * mask_bytes, 1);
    t->uncertain = t->signs ? t->signs + mask_bytes : NULL;
    t->recomputed = 0;
    return t->ring_raw && t->signs;
}

static void thread_free(seg_thread *t) {
    free(t->ring_raw);
    free(t->signs);
}

/* XT: steps × HS_VN, step-major. */
static void fill_layout(const double *close, size_t k_from, size_t k_to, seg_layout *L) {
    for (size_t k = k_from; k < k_to; k++)
        for (int l = 0; l < HS_VN; l++) {
            int64_t bar = (int64_t)((size_t)l * L->seg + k) - (int64_t)L->pad;
            L->xt[k * HS_VN + (size_t)l] = bar < 0 ? close[0] : (size_t)bar >= L->n ? close[L->n - 1] : close[bar];
        }
}

/* The whole sweep: layout once, then combos (each one thread's, costliest first) over `threads`. */
hs_status HS_CAT3(hs_sweep_segments__, HS_ISA_NAME, )(const double *close, size_t n, const hs_windows *combos,
                                                     size_t n_combos, hs_result *out, int threads, hs_error *err) {
    if (n_combos == 0) return HS_OK;
    seg_layout L = {n, (n + HS_VN - 1) / HS_VN, 0, 0, NULL, max_price(close, n)};
    int64_t widest = 1;
    for (size_t c = 0; c < n_combos; c++) {
        L.pad = (size_t)imax((int64_t)L.pad, combo_lookback(combos[c].w));
        widest = imax(widest, imax(combos[c].w[2], combos[c].w[5]));
    }
    size_t ring = 1;
    while (ring <= (size_t)widest) ring <<= 1; /* > the widest second-level window */
    L.steps = L.pad + L.seg;
    L.xt = aligned_alloc(64, ((L.steps * HS_VN * sizeof(double)) + 63) & ~(size_t)63);
    if (!L.xt) return hs_fail(err, HS_ERR_NOMEM, "out of memory for the interleaved series (%zu bars)", n);
    long long recomputed = 0;
    int failed = 0;
    if (threads < 1) threads = 1;
    if ((size_t)threads > n_combos) threads = (int)n_combos; /* a thread with no combo would cost ~a wake-up */
#ifdef HS_HAVE_OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(+ : recomputed) reduction(| : failed)
#endif
    {
        int me = 0, team = 1;
#ifdef HS_HAVE_OPENMP
        me = omp_get_thread_num();
        team = omp_get_num_threads();
#endif
        size_t chunk = (L.steps + (size_t)team - 1) / (size_t)team;
        size_t from = chunk * (size_t)me < L.steps ? chunk * (size_t)me : L.steps;
        fill_layout(close, from, from + chunk < L.steps ? from + chunk : L.steps, &L);
        seg_thread t;
        int ok = thread_alloc(&t, &L, ring);
        failed |= !ok;
#ifdef HS_HAVE_OPENMP
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t c = 0; c < n_combos; c++)
            if (ok) out[c] = segments_combo(close, &L, &t, &combos[c]);
        recomputed += t.recomputed;
        thread_free(&t);
    }
    free(L.xt);
    hs_kernel_count_recomputed(recomputed);
    if (failed) return hs_fail(err, HS_ERR_NOMEM, "out of memory for per-thread rings (%zu bars)", n);
    return HS_OK;
}

/* One combo (the registry's per-combo entry; the drivers call the sweep kernel above instead).  The
 * combo kernel signature cannot report an error, so an allocation failure gives trades = −1, pnl NaN. */
hs_result HS_COMBO(segments)(const double *close, size_t n, const hs_windows *win, double *scratch) {
    hs_result r = {NAN, -1};
    HS_CAT3(hs_sweep_segments__, HS_ISA_NAME, )(close, n, win, 1, &r, 1, NULL);
    return r;
}
