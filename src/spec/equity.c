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
 * and four to twelve table reads whatever its length (to 1,024 bars; past that a read per 512 bars), not a
 * pass over its bars; one under 64 bars (most: the
 * short combos trade every few bars) takes them from two windows of the table's sparse part, with no branch
 * on where it starts or ends (1.55x -> 1.49x the no-periods sweep, AVX-512, P = 16; the perf profile had
 * the range query as the larger part of `held`: with it stubbed the sweep was ~1.20x, with the two F
 * stubbed ~1.48x).  Without a table (live mode advances one bar at a time) the bars are read.  The record scan costs at most two F per bar: no input
 * makes the tracker slower than a small multiple of the per-bar loop.
 *
 * Not kept, measured interleaved against this (reports/equity.md): estimating F with a per-sweep table of
 * 1/close and deciding most stretches without a division (1.90x the no-periods sweep against 1.57x), and
 * division-free bounds on u (1.68x against 1.55x), in-block extremes from the table's offsets (1.65x against
 * 1.56x): their extra data-dependent branches cost more than the work they saved.  With the windows: the
 * flush on a local copy of the tracker with held inlined (1.71x against 1.49x), 4 window levels instead of
 * 5 (even), the windows built bar by bar from the last (a chain of dependent loads: 5% of the profile);
 * the flush as three passes over its stretches (their ranges; F at best and worst in a loop the compiler
 * vectorises; the peaks and falls in order): 1.39, 1.37 against 1.34, 1.37 (AVX2), 1.50, 1.49 against
 * 1.44, 1.47 (AVX-512).  A cheaper bound that skips a stretch which can set no new peak and no new drawdown
 * cannot skip most: in the default sweep 42% of the stretches set one (reports/equity.md) (the short combos lose steadily, at
 * a new low of e most of the time), and an enclosure of the range by 16-bar blocks fails for 52%.
 */
#include "equity.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* The window offsets, a chunk of bars at a time, level by level: the window [i, i + 2^k) is [i, i + h) and
 * [i + h, i + 2h), h = 2^(k − 1), so its high is the larger of theirs (kept in place, ascending: i + h is
 * still at level k − 1).  A chunk reads HS_MTM_NEAR_BARS / 2 bars past its end for its last windows; a window
 * past the last bar is cut there (never queried).  Level by level, not bar by bar: no chain of dependent
 * loads (that form cost ~4% of the P = 16 sweep; this one has no loop-carried dependence). */
/* One level over positions [0, m): window i takes the higher (lower) of its halves i and i + h, in place
 * (i + h is read before it is overwritten), the offset with it.  x86-64's SSE2 two bars at a time
 * (compare, masks; gcc leaves the scalar form's double compare a branch, and the comparisons are random). */
static void near_level(double *vh, uint64_t *oh, double *vl, uint64_t *ol, size_t h, size_t m) {
    size_t i = 0;
#if defined(__SSE2__)
    __m128i step = _mm_set1_epi64x((long long)h);
    for (; i + 2 <= m; i += 2) {
        __m128d a = _mm_loadu_pd(vh + i), b = _mm_loadu_pd(vh + i + h);
        __m128d up = _mm_cmpgt_pd(b, a);
        __m128i oa = _mm_loadu_si128((const __m128i *)(const void *)(oh + i));
        __m128i ob = _mm_add_epi64(_mm_loadu_si128((const __m128i *)(const void *)(oh + i + h)), step);
        __m128i upi = _mm_castpd_si128(up);
        _mm_storeu_si128((__m128i *)(void *)(oh + i), _mm_or_si128(_mm_and_si128(upi, ob), _mm_andnot_si128(upi, oa)));
        _mm_storeu_pd(vh + i, _mm_or_pd(_mm_and_pd(up, b), _mm_andnot_pd(up, a)));
        a = _mm_loadu_pd(vl + i), b = _mm_loadu_pd(vl + i + h);
        __m128d down = _mm_cmplt_pd(b, a);
        oa = _mm_loadu_si128((const __m128i *)(const void *)(ol + i));
        ob = _mm_add_epi64(_mm_loadu_si128((const __m128i *)(const void *)(ol + i + h)), step);
        __m128i downi = _mm_castpd_si128(down);
        _mm_storeu_si128((__m128i *)(void *)(ol + i), _mm_or_si128(_mm_and_si128(downi, ob), _mm_andnot_si128(downi, oa)));
        _mm_storeu_pd(vl + i, _mm_or_pd(_mm_and_pd(down, b), _mm_andnot_pd(down, a)));
    }
#endif
    for (; i < m; i++) {
        if (vh[i + h] > vh[i]) oh[i] = h + oh[i + h], vh[i] = vh[i + h];
        if (vl[i + h] < vl[i]) ol[i] = h + ol[i + h], vl[i] = vl[i + h];
    }
}

/* One level with its packing into the chunk's words (w[i] |= the offsets << sh, i < len), x86-64 with
 * AVX2 (where the CPU has it, whatever the sweep's ISA) four bars at a time.  The whole table of 150,000
 * bars took 1.70 ms with SSE2, the packing a loop of its own and the block offsets made too, 0.87-0.93 ms
 * with this and no block offsets (best of 50, one core, load ~9; the perf profile of the P = 16 sweep had
 * the table at ~6% of it before).  The same compares and selects, so the same offsets bit for bit. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NEAR_AVX2 1
__attribute__((target("avx2"))) static void near_level_avx2(double *vh, uint64_t *oh, double *vl, uint64_t *ol,
                                                            uint32_t *w, size_t h, size_t m, size_t len, unsigned k) {
    size_t i = 0;
    unsigned sh = HS_MTM_NEAR_SHIFT(k);
    __m256i step = _mm256_set1_epi64x((long long)h), pick = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
    __m128i shift = _mm_cvtsi32_si128((int)sh), kk = _mm_cvtsi32_si128((int)k);
    for (; i + 4 <= m; i += 4) {
        __m256d a = _mm256_loadu_pd(vh + i), b = _mm256_loadu_pd(vh + i + h);
        __m256d up = _mm256_cmp_pd(b, a, _CMP_GT_OQ);
        __m256i oa = _mm256_loadu_si256((const __m256i *)(const void *)(oh + i));
        __m256i ob = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(oh + i + h)), step);
        __m256i hi_off = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(oa), _mm256_castsi256_pd(ob), up));
        _mm256_storeu_si256((__m256i *)(void *)(oh + i), hi_off);
        _mm256_storeu_pd(vh + i, _mm256_blendv_pd(a, b, up));
        a = _mm256_loadu_pd(vl + i), b = _mm256_loadu_pd(vl + i + h);
        __m256d down = _mm256_cmp_pd(b, a, _CMP_LT_OQ);
        oa = _mm256_loadu_si256((const __m256i *)(const void *)(ol + i));
        ob = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(ol + i + h)), step);
        __m256i lo_off = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(oa), _mm256_castsi256_pd(ob), down));
        _mm256_storeu_si256((__m256i *)(void *)(ol + i), lo_off);
        _mm256_storeu_pd(vl + i, _mm256_blendv_pd(a, b, down));
        __m256i both = _mm256_sll_epi64(_mm256_or_si256(hi_off, _mm256_sll_epi64(lo_off, kk)), shift);
        __m128i both32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(both, pick));
        __m128i *wi = (__m128i *)(void *)(w + i);
        _mm_storeu_si128(wi, _mm_or_si128(_mm_loadu_si128(wi), both32));
    }
    for (; i < m; i++) {
        if (vh[i + h] > vh[i]) oh[i] = h + oh[i + h], vh[i] = vh[i + h];
        if (vl[i + h] < vl[i]) ol[i] = h + ol[i + h], vl[i] = vl[i + h];
        w[i] |= (uint32_t)(oh[i] | ol[i] << k) << sh;
    }
    for (; i < len; i++) w[i] |= (uint32_t)(oh[i] | ol[i] << k) << sh;
}
#endif

#define NEAR_CHUNK 256
#define NEAR_PAD (HS_MTM_NEAR_BARS / 2)

/* The same levels with AVX-512 (F and VL), eight bars at a time, where the CPU has it: the compares give
 * mask registers, so the offsets are 32-bit (blended as eight lanes of a 256-bit register, packed with no
 * permute) and the chunk is one function with its arrays on its own stack.  The same compares and selects
 * as near_level, so the same offsets bit for bit (test_equity compares the builders at every width the CPU
 * runs).  The whole table of 150,000 bars, best of 50 builds, one core, Xeon family 6 model 207: 0.83-0.93
 * ms with the AVX2 builder, 0.43-0.45 with this one (level 1 from the close, the block levels two at a
 * time); the default sweep with P = 16 went 1.29-1.35x -> 1.28-1.31x the sweep without at AVX-512
 * (reports/equity.md). */
#if defined(NEAR_AVX2)
#define NEAR_AVX512 1
/* Level 1 straight from the close (no copy of it first: the copies were a fifth of the profile): the
 * window [i, i + 2) of c = close + s, its offsets 0 or 1, the words' first bits (level 1's shift is 0). */
__attribute__((target("avx512f,avx512vl"))) static void near_level1_avx512(const double *c, size_t len, double *vh,
                                                                          uint32_t *oh, double *vl, uint32_t *ol,
                                                                          uint32_t *w) {
    _Static_assert(HS_MTM_NEAR_SHIFT(1) == 0, "level 1's offsets are the words' first bits");
    size_t m = len > 1 ? len - 1 : 0, i = 0;
    __m256i one = _mm256_set1_epi32(1);
    for (; i + 8 <= m; i += 8) {
        __m512d a = _mm512_loadu_pd(c + i), b = _mm512_loadu_pd(c + i + 1);
        __mmask8 up = _mm512_cmp_pd_mask(b, a, _CMP_GT_OQ), down = _mm512_cmp_pd_mask(b, a, _CMP_LT_OQ);
        __m256i hi_off = _mm256_maskz_mov_epi32(up, one), lo_off = _mm256_maskz_mov_epi32(down, one);
        _mm512_storeu_pd(vh + i, _mm512_mask_blend_pd(up, a, b));
        _mm512_storeu_pd(vl + i, _mm512_mask_blend_pd(down, a, b));
        _mm256_storeu_si256((__m256i *)(void *)(oh + i), hi_off);
        _mm256_storeu_si256((__m256i *)(void *)(ol + i), lo_off);
        _mm256_storeu_si256((__m256i *)(void *)(w + i), _mm256_or_si256(hi_off, _mm256_slli_epi32(lo_off, 1)));
    }
    for (; i < m; i++) {
        oh[i] = c[i + 1] > c[i], vh[i] = oh[i] ? c[i + 1] : c[i];
        ol[i] = c[i + 1] < c[i], vl[i] = ol[i] ? c[i + 1] : c[i];
        w[i] = oh[i] | ol[i] << 1;
    }
    for (; i < len; i++) vh[i] = vl[i] = c[i], oh[i] = ol[i] = w[i] = 0; /* the last bar: cut there */
}

/* One side of a level, bars [i, i + 8): the window's high (`higher`) or low and its offset, in place; the
 * offsets returned. */
__attribute__((target("avx512f,avx512vl"), always_inline)) static inline __m256i
near_side_avx512(double *v, uint32_t *o, size_t i, size_t h, __m256i step, int higher) {
    __m512d a = _mm512_loadu_pd(v + i), b = _mm512_loadu_pd(v + i + h);
    __mmask8 take = higher ? _mm512_cmp_pd_mask(b, a, _CMP_GT_OQ) : _mm512_cmp_pd_mask(b, a, _CMP_LT_OQ);
    __m256i off = _mm256_mask_blend_epi32(take, _mm256_loadu_si256((const __m256i *)(const void *)(o + i)),
                                          _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(o + i + h)), step));
    _mm256_storeu_si256((__m256i *)(void *)(o + i), off);
    _mm512_storeu_pd(v + i, _mm512_mask_blend_pd(take, a, b));
    return off;
}

__attribute__((target("avx512f,avx512vl"))) static void near_windows_avx512(const double *close, size_t n_bars,
                                                                           uint32_t *near) {
    double vh[NEAR_CHUNK + NEAR_PAD], vl[NEAR_CHUNK + NEAR_PAD];
    uint32_t oh[NEAR_CHUNK + NEAR_PAD], ol[NEAR_CHUNK + NEAR_PAD], w[NEAR_CHUNK + NEAR_PAD];
    for (size_t s = 0; s < n_bars; s += NEAR_CHUNK) {
        size_t len = n_bars - s < NEAR_CHUNK + NEAR_PAD ? n_bars - s : NEAR_CHUNK + NEAR_PAD;
        size_t out = n_bars - s < NEAR_CHUNK ? n_bars - s : NEAR_CHUNK;
        near_level1_avx512(close + s, len, vh, oh, vl, ol, w);
        for (unsigned k = 2; k <= HS_MTM_NEAR_LEVELS; k++) {
            size_t h = (size_t)1 << (k - 1), m = len > h ? len - h : 0, i = 0;
            unsigned sh = HS_MTM_NEAR_SHIFT(k);
            __m256i step = _mm256_set1_epi32((int)h);
            __m128i shift = _mm_cvtsi32_si128((int)sh), kk = _mm_cvtsi32_si128((int)k);
            for (; i + 8 <= m; i += 8) {
                __m256i hi_off = near_side_avx512(vh, oh, i, h, step, 1), lo_off = near_side_avx512(vl, ol, i, h, step, 0);
                __m256i both = _mm256_sll_epi32(_mm256_or_si256(hi_off, _mm256_sll_epi32(lo_off, kk)), shift);
                __m256i *wi = (__m256i *)(void *)(w + i);
                _mm256_storeu_si256(wi, _mm256_or_si256(_mm256_loadu_si256(wi), both));
            }
            for (; i < m; i++) {
                if (vh[i + h] > vh[i]) oh[i] = (uint32_t)h + oh[i + h], vh[i] = vh[i + h];
                if (vl[i + h] < vl[i]) ol[i] = (uint32_t)h + ol[i + h], vl[i] = vl[i + h];
                w[i] |= (oh[i] | ol[i] << k) << sh;
            }
            for (; i < len; i++) w[i] |= (oh[i] | ol[i] << k) << sh;
        }
        memcpy(near + s, w, out * sizeof *w);
    }
}
#endif

/* `width`: 8 (AVX-512), 4 (AVX2) or 2 (SSE2 where built, else scalar). */
static void near_windows_width(const double *close, size_t n_bars, uint32_t *near, int width) {
#ifdef NEAR_AVX512
    if (width == 8) {
        near_windows_avx512(close, n_bars, near);
        return;
    }
#endif
    double vh[NEAR_CHUNK + NEAR_PAD], vl[NEAR_CHUNK + NEAR_PAD];
    uint64_t oh[NEAR_CHUNK + NEAR_PAD], ol[NEAR_CHUNK + NEAR_PAD]; /* 64-bit: the width of the compares' masks */
    uint32_t w[NEAR_CHUNK + NEAR_PAD];
#ifdef NEAR_AVX2
    int avx2 = width == 4;
#endif
    for (size_t s = 0; s < n_bars; s += NEAR_CHUNK) {
        size_t len = n_bars - s < NEAR_CHUNK + NEAR_PAD ? n_bars - s : NEAR_CHUNK + NEAR_PAD;
        size_t out = n_bars - s < NEAR_CHUNK ? n_bars - s : NEAR_CHUNK;
        for (size_t i = 0; i < len; i++) vh[i] = vl[i] = close[s + i], oh[i] = ol[i] = w[i] = 0;
        for (unsigned k = 1; k <= HS_MTM_NEAR_LEVELS; k++) {
            size_t h = (size_t)1 << (k - 1), m = len > h ? len - h : 0;
            unsigned sh = HS_MTM_NEAR_SHIFT(k);
#ifdef NEAR_AVX2
            if (avx2) {
                near_level_avx2(vh, oh, vl, ol, w, h, m, len, k);
                continue;
            }
#endif
            near_level(vh, oh, vl, ol, h, m);
            for (size_t i = 0; i < len; i++) w[i] |= (uint32_t)(oh[i] | ol[i] << k) << sh;
        }
        memcpy(near + s, w, out * sizeof *w);
    }
}

int hs_mtm_near_windows_with(const double *close, size_t n_bars, uint32_t *near, int width) {
#ifdef NEAR_AVX2
    int have = width == 2 || (width == 4 && __builtin_cpu_supports("avx2")) ||
               (width == 8 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"));
#else
    int have = width == 2;
#endif
    if (have) near_windows_width(close, n_bars, near, width);
    return have;
}

/* The widest builder the CPU runs, whatever the sweep's ISA (compares and selects only). */
static void near_windows(const double *close, size_t n_bars, uint32_t *near) {
    if (!hs_mtm_near_windows_with(close, n_bars, near, 8) && !hs_mtm_near_windows_with(close, n_bars, near, 4))
        hs_mtm_near_windows_with(close, n_bars, near, 2);
}

/* Levels 1..HS_MTM_BLOCK_LEVELS of the blocks' sparse table from level 0 (a window past the last block is
 * cut there). */
static void block_levels(double *hi, double *lo, size_t blocks) {
    for (unsigned j = 1; j <= HS_MTM_BLOCK_LEVELS; j++) {
        const double *ph = hi + (j - 1) * blocks, *pl = lo + (j - 1) * blocks;
        double *h = hi + j * blocks, *l = lo + j * blocks;
        size_t half = (size_t)1 << (j - 1), k = 0;
#if defined(__SSE2__)
        /* two blocks at a time: maxpd(x, y) is x > y ? x : y, so max_of(a, b) is maxpd(b, a), bit for bit (and
         * minpd likewise); a fifth of the table's build before (perf, 150,000 bars, with the AVX-512 windows) */
        for (; k + 2 + half <= blocks; k += 2) {
            _mm_storeu_pd(h + k, _mm_max_pd(_mm_loadu_pd(ph + k + half), _mm_loadu_pd(ph + k)));
            _mm_storeu_pd(l + k, _mm_min_pd(_mm_loadu_pd(pl + k + half), _mm_loadu_pd(pl + k)));
        }
#endif
        for (; k + half < blocks; k++) h[k] = max_of(ph[k], ph[k + half]), l[k] = min_of(pl[k], pl[k + half]);
        for (; k < blocks; k++) h[k] = ph[k], l[k] = pl[k];
    }
}

/* Per block its high and low, and per bar its offsets to the block's prefix and suffix extremes. */
static void block_edges(const double *close, size_t n_bars, double *bhi, double *blo, uint16_t *edge) {
    for (size_t k = 0; k < hs_mtm_block_count(n_bars); k++) {
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
}

hs_mtm_ranges hs_mtm_ranges_make(const double *close, size_t n_bars, double *table, int near_wanted) {
    size_t blocks = hs_mtm_block_count(n_bars), levels = (HS_MTM_BLOCK_LEVELS + 1) * blocks;
    double *hi = table, *lo = table + levels;
    void *per_bar = lo + levels;
    if (near_wanted) {
        uint32_t *near = per_bar;
        near_windows(close, n_bars, near);
        /* a block is the level-4 window at its first bar (cut at the last bar) */
        unsigned sh = HS_MTM_NEAR_SHIFT(HS_MTM_BLOCK_SHIFT), mask = (unsigned)HS_MTM_BLOCK - 1;
        for (size_t k = 0; k < blocks; k++) {
            size_t a = k << HS_MTM_BLOCK_SHIFT;
            unsigned w = near[a] >> sh;
            hi[k] = close[a + (w & mask)], lo[k] = close[a + (w >> HS_MTM_BLOCK_SHIFT & mask)];
        }
        block_levels(hi, lo, blocks);
        return (hs_mtm_ranges){hi, lo, NULL, near, blocks};
    }
    uint16_t *edge = per_bar;
    block_edges(close, n_bars, hi, lo, edge);
    block_levels(hi, lo, blocks);
    return (hs_mtm_ranges){hi, lo, edge, NULL, blocks};
}

/* The highest and lowest close of bars [a, b), 0 < b − a < HS_MTM_NEAR_BARS: two windows of 2^k bars, 2^k <=
 * b − a < 2^(k+1). */
static inline void near_range(const hs_mtm *m, size_t a, size_t b, double *hi, double *lo) {
    const double *c = m->close;
    unsigned k = 31u - (unsigned)__builtin_clz((unsigned)(b - a));
    size_t y = b - ((size_t)1 << k);
    unsigned sh = HS_MTM_NEAR_SHIFT(k), mask = (1u << k) - 1, ea = m->ranges.near[a] >> sh, ey = m->ranges.near[y] >> sh;
    *hi = max_of(c[a + (ea & mask)], c[y + (ey & mask)]);
    *lo = min_of(c[a + (ea >> k & mask)], c[y + (ey >> k & mask)]);
}

/* The highest and lowest of whole blocks [ka, kb), kb > ka: two windows of the blocks' sparse table when
 * there are fewer than 2^(HS_MTM_BLOCK_LEVELS + 1) blocks, else its top level's windows in turn. */
void hs_mtm_blocks_range(const hs_mtm_ranges *r, size_t ka, size_t kb, double *hi, double *lo) {
    size_t n = kb - ka, blocks = r->blocks;
    unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)n);
    if (k > HS_MTM_BLOCK_LEVELS) k = HS_MTM_BLOCK_LEVELS;
    size_t w = (size_t)1 << k;
    const double *h = r->hi + k * blocks, *l = r->lo + k * blocks;
    double x = h[kb - w], y = l[kb - w];
    for (size_t j = ka; j < kb - w; j += w) x = max_of(x, h[j]), y = min_of(y, l[j]); /* once when n < 2w */
    *hi = x, *lo = y;
}

/* The highest and lowest close of bars [a, b), b > a. */
static void range_of(const hs_mtm *m, size_t a, size_t b, double *hi, double *lo) {
    const double *c = m->close;
    if (m->ranges.near && b - a < HS_MTM_NEAR_BARS) {
        near_range(m, a, b, hi, lo);
        return;
    }
    size_t ka = a >> HS_MTM_BLOCK_SHIFT, kb = (b - 1) >> HS_MTM_BLOCK_SHIFT;
    if (!m->ranges.hi || ka == kb) { /* within one block (at most 16 bars), or no table */
        double h = c[a], l = c[a];
        for (size_t j = a + 1; j < b; j++) h = max_of(h, c[j]), l = min_of(l, c[j]);
        *hi = h, *lo = l;
        return;
    }
    double h, l, h2, l2;
    if (m->ranges.near) { /* the partial blocks at each end (1 to 16 bars each) */
        near_range(m, a, (ka + 1) << HS_MTM_BLOCK_SHIFT, &h, &l);
        near_range(m, kb << HS_MTM_BLOCK_SHIFT, b, &h2, &l2);
    } else {
        unsigned ea = m->ranges.edge[a], eb = m->ranges.edge[b - 1];
        const double *ba = c + (ka << HS_MTM_BLOCK_SHIFT), *bb = c + (kb << HS_MTM_BLOCK_SHIFT);
        h = ba[ea >> 8 & 15], l = ba[ea >> 12], h2 = bb[eb & 15], l2 = bb[eb >> 4 & 15];
    }
    h = max_of(h, h2), l = min_of(l, l2);
    if (kb > ka + 1) {
        hs_mtm_blocks_range(&m->ranges, ka + 1, kb, &h2, &l2);
        h = max_of(h, h2), l = min_of(l, l2);
    }
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

void hs_mtm_scan(hs_mtm *m, size_t a, size_t b) { held_records(m, a, b, m->pos > 0 ? 1.0 : -1.0); }

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
