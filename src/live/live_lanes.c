/* live_lanes — one live bar for a group of combos in vector lanes (src/live/live_lanes.h).
 *
 * The arithmetic of src/live/live.c's scalar path (the `sliding` variant's, run forward), lane by lane: each
 * running sum slides by S2 += w·x_new − S1; S1 += x_new − x_old, with the leaving value gathered per lane
 * (lanes have different windows), and is re-anchored by a direct sum every SLIDE_BLOCK bars.  The sums'
 * values differ from the scalar path's only within the a-priori bound of certify.h (the anchors fall on
 * other bars), and a sign is trusted only where that bound certifies it, so the books see the
 * reference's signs: bit-identical to batch, on every ISA.  live.c does the rest (uncertified lanes,
 * books, warm-up). */
#include <string.h>

#include "certify.h"
#include "live_lanes.h"
#include "vec.h"

int HS_CAT3(hs_live_lanes_width__, HS_ISA_SUFFIX, )(void) { return HS_VN; }

/* `take` ? t : f by the bits, so the loop below has no branch and the compiler vectorizes it (a float select
 * stays a branch under the default -ftrapping-math). */
static inline double select_bits(int take, double t, double f) {
    uint64_t a, b, m = (uint64_t)0 - (uint64_t)take;
    memcpy(&a, &t, sizeof a);
    memcpy(&b, &f, sizeof b);
    a = (a & m) | (b & ~m);
    memcpy(&t, &a, sizeof t);
    return t;
}

void HS_CAT3(hs_live_results__, HS_ISA_SUFFIX, )(const double *restrict pos, const double *restrict entry,
                                               const double *restrict book_pnl, const int64_t *restrict book_trades,
                                               size_t n, double last, double keep, double *restrict pnl,
                                               int64_t *restrict trades, int8_t *restrict position) {
    if (pnl)
        for (size_t c = 0; c < n; c++)
            pnl[c] = select_bits(pos[c] != 0.0, book_pnl[c] + hs_trade_pnl(pos[c], entry[c], last, keep), book_pnl[c]);
    if (trades)
        for (size_t c = 0; c < n; c++) trades[c] = book_trades[c] + (pos[c] != 0.0);
    if (position)
        for (size_t c = 0; c < n; c++) position[c] = (int8_t)pos[c];
}

void HS_CAT3(hs_live_mtm__, HS_ISA_SUFFIX, )(const double *restrict pos, const double *restrict entry,
                                           const double *restrict book_pnl, size_t n, double last, double keep,
                                           double *restrict peak, double *restrict mdd) {
    for (size_t c = 0; c < n; c++) {
        double e = select_bits(pos[c] != 0.0, book_pnl[c] + hs_trade_pnl(pos[c], entry[c], last, keep), book_pnl[c]);
        double high = select_bits(e > peak[c], e, peak[c]), t = high - e;
        peak[c] = high;
        mdd[c] = select_bits(t > mdd[c], t, mdd[c]);
    }
}

/* The running-sum recurrence of every layout (the scalar path's slide_step, lane-wise):
 * S2 += w·x_new − S1; S1 += x_new − x_old. */
static inline void vslide_at(double *s1p, double *s2p, hs_vd wd, hs_vd x_new, hs_vd x_old) {
    hs_vd s1 = vd_loadu(s1p), s2 = vd_loadu(s2p);
    s2 = vd_add(s2, vd_sub(vd_mul(wd, x_new), s1));
    s1 = vd_add(s1, vd_sub(x_new, x_old));
    vd_storeu(s1p, s1);
    vd_storeu(s2p, s2);
}

/* The WMA of a running sum, and the two raw series from them: hs_hma_raw and hs_hma3_raw lane-wise. */
static inline hs_vd vwma(const double *s2p, hs_vd inv) { return vd_mul(vd_loadu(s2p), inv); }
static inline hs_vd vraw(hs_vd half, hs_vd full) { return vd_sub(vd_mul(vd_set1(2.0), half), full); }
static inline hs_vd vraw3(hs_vd third, hs_vd half, hs_vd full) {
    return vd_sub(vd_sub(vd_mul(vd_set1(3.0), third), half), full);
}

static inline void vslide(live_group *g, int k, hs_vd x_new, hs_vd x_old) {
    vslide_at(g->s1 + k * HS_VN, g->s2 + k * HS_VN, vd_loadu(g->wd + k * HS_VN), x_new, x_old);
}

static inline hs_vd vvalue(const live_group *g, int k) { return vwma(g->s2 + k * HS_VN, vd_loadu(g->inv + k * HS_VN)); }

/* base[idx[l]] in lane l.  Up to 4 lanes, scalar loads that gcc assembles into the vector (vmovhpd,
 * vinsertf128): one-symbol append p50 1.04 µs against 1.11 µs with vgatherqpd (AVX2 EPYC, 21 interleaved
 * reps, lower in 18).  8 lanes keep the gather (not measured: no AVX-512 machine here). */
static inline hs_vd lanes_at(const double *base, const int64_t *idx) {
#if HS_VN <= 4
    /* base in a register of its own, so each lane is one load at base + idx·8: left alone, gcc rebuilt the
     * address per lane from the tail's start and the newest index (an add per lane, 28 per group). */
    __asm__("" : "+r"(base));
    double t[HS_VN];
    for (int l = 0; l < HS_VN; l++) t[l] = base[idx[l]];
    return vd_loadu(t);
#else
    return vd_gather(base, vi_loadu(idx));
#endif
}

/* Direct sums over an interleaved tail: the w entries ending at entry e, lane l. */
static slide_sums anchor_interleaved(const double *p, size_t e, int64_t w, int l) {
    slide_sums s = {0.0, 0.0};
    const double *base = p + (e + 1 - (size_t)w) * HS_VN + (size_t)l;
    for (int64_t j = 0; j < w; j++) {
        double v = base[(size_t)j * HS_VN];
        s.s1 += v;
        s.s2 += v * (double)(j + 1);
    }
    return s;
}

/* Push one entry (HS_VN doubles) onto an interleaved tail of keep + LIVE_RAW_SLACK entries; returns the new
 * entry's index. */
static inline size_t push_entry(double *p, size_t *len, size_t keep, hs_vd v) {
    if (*len == keep + LIVE_RAW_SLACK) {
        memmove(p, p + (*len - keep) * HS_VN, keep * HS_VN * sizeof *p);
        *len = keep;
    }
    vd_storeu(p + *len * HS_VN, v);
    return (*len)++;
}

static inline __attribute__((always_inline)) unsigned lanes_step(live_group *g, const double *close, size_t last,
                                                                  double m, int anchor, unsigned *signs) {
    if (anchor) {
        for (int k = SUM_W0; k <= SUM_W5; k++)
            for (int l = 0; l < HS_VN; l++) {
                slide_sums a = slide_anchor(close, last, g->w[k * HS_VN + l]);
                g->s1[k * HS_VN + l] = a.s1;
                g->s2[k * HS_VN + l] = a.s2;
            }
    } else {
        hs_vd x_new = vd_set1(close[last]);
        const double *newest = close + last;
        for (int k = SUM_W0; k <= SUM_W5; k++) vslide(g, k, x_new, lanes_at(newest, g->back_close + k * HS_VN));
    }
    hs_vd raw = vraw(vvalue(g, SUM_W0), vvalue(g, SUM_W1));
    hs_vd raw3 = vraw3(vvalue(g, SUM_W3), vvalue(g, SUM_W4), vvalue(g, SUM_W5));
    size_t e = push_entry(g->raw, &g->raw_len, g->raw_keep, raw);
    size_t e3 = push_entry(g->raw3, &g->raw3_len, g->raw3_keep, raw3);
    if (anchor) {
        for (int l = 0; l < HS_VN; l++) {
            slide_sums a = anchor_interleaved(g->raw, e, g->w[SUM_HMA * HS_VN + l], l);
            slide_sums b = anchor_interleaved(g->raw3, e3, g->w[SUM_HMA3 * HS_VN + l], l);
            g->s1[SUM_HMA * HS_VN + l] = a.s1, g->s2[SUM_HMA * HS_VN + l] = a.s2;
            g->s1[SUM_HMA3 * HS_VN + l] = b.s1, g->s2[SUM_HMA3 * HS_VN + l] = b.s2;
        }
    } else {
        vslide(g, SUM_HMA, raw, lanes_at(g->raw + e * HS_VN, g->back_raw));
        vslide(g, SUM_HMA3, raw3, lanes_at(g->raw3 + e3 * HS_VN, g->back_raw + HS_VN));
    }
    hs_vd d = vd_sub(vvalue(g, SUM_HMA3), vvalue(g, SUM_HMA));
    vd_storeu(g->d, d);
    if (m != g->tau_m) { /* the local maximum moved: every lane's threshold (certify_threshold_eps) */
        for (int l = 0; l < HS_VN; l++)
            g->tau[l] = m >= CERTIFY_M_MIN && m <= g->range_max[l] ? 4.0 * (g->coef[l] * m) : INFINITY;
        g->tau_m = m;
    }
    *signs = vd_signbits(d);
    return vd_certain_bits(d, vd_loadu(g->tau));
}

unsigned HS_CAT3(hs_live_lanes_step__, HS_ISA_SUFFIX, )(live_group *g, const double *close, size_t last, double m,
                                                      int anchor, unsigned *signs) {
    return lanes_step(g, close, last, m, anchor, signs);
}

size_t HS_CAT3(hs_live_lanes_run__, HS_ISA_SUFFIX, )(live_group *g, size_t n, const double *close, size_t last,
                                                   double m, live_settle *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        live_group *gi = &g[i];
        int anchor = ++gi->since_anchor >= SLIDE_BLOCK;
        if (anchor) gi->since_anchor = 0;
        unsigned signs, live = (1u << gi->lanes) - 1;
        unsigned certain = lanes_step(gi, close, last, m, anchor, &signs) & live;
        const live_lane_flags *f = &gi->f;
        /* lanes_settle's three conditions, without its work */
        if (f->exact | (live & ~certain) | lanes_to_book(f, certain, signs))
            out[k++] = (live_settle){(uint32_t)i, certain, signs};
    }
    return k;
}

/* ---- symbols in lanes ----------------------------------------------------------------------------------- */

/* Direct sums of w entries of an interleaved series, every lane at once (all lanes have the same window):
 * entry j of the window (oldest first) at p + ((first + j) mod len)·V.  The order of an anchor's sums is
 * free (certify.h), so one vector chain per sum. */
static inline void vanchor(const double *p, size_t first, size_t len, int64_t w, double *s1p, double *s2p) {
    hs_vd s1 = vd_zero(), s2 = vd_zero();
    size_t e = first;
    for (int64_t j = 0; j < w; j++) {
        hs_vd v = vd_loadu(p + e * HS_VN);
        s1 = vd_add(s1, v);
        s2 = vd_add(s2, vd_mul(v, vd_set1((double)(j + 1))));
        e = e + 1 == len ? 0 : e + 1;
    }
    vd_storeu(s1p, s1);
    vd_storeu(s2p, s2);
}

/* Push v onto a ring of exactly w entries; returns the entry it replaced (the one leaving the window).  The
 * new value goes where the leaving one was, so a lane's ring line serves 64 / (8·V) bars. */
static inline hs_vd ring_push(double *ring, uint32_t *pos, int64_t w, hs_vd v) {
    double *at = ring + (size_t)*pos * HS_VN;
    hs_vd old = vd_loadu(at);
    vd_storeu(at, v);
    *pos = *pos + 1 == (uint32_t)w ? 0 : *pos + 1;
    /* The next call's slot, a whole call ahead, so that by then it is at least in the last-level cache: perf
     * had 70% of the symbol step on these loads, a miss to memory every other call (500 symbols: 36 MB of
     * rings), which the prefetch two combos ahead (live.c) was too late to hide alone. */
    __builtin_prefetch(ring + (size_t)*pos * HS_VN, 1);
    return old;
}

/* certify_threshold_eps per lane, from each lane's local maximum (live.c's combo_tau, lane-wise). */
static inline hs_vd vtau(const live_consts *k, hs_vd m) {
    hs_vd tau = vd_mul(vd_set1(4.0), vd_mul(vd_set1(k->coef), m)), inf = vd_set1(INFINITY);
    tau = vd_blend(vd_cmpgt_mask(m, vd_set1(k->range_max)), tau, inf);
    return vd_blend(vd_cmpgt_mask(vd_set1(CERTIFY_M_MIN), m), tau, inf);
}

void HS_CAT3(hs_live_wins_step__, HS_ISA_SUFFIX, )(double *sums, uint16_t *since, const live_win *win, size_t n_win,
                                                  const double *close, size_t last) {
    const double *newest = close + last * HS_VN;
    hs_vd x_new = vd_loadu(newest);
    for (size_t i = 0; i < n_win; i++) {
        if (since[i] == LIVE_WIN_OFF) continue;
        double *s1 = sums + i * 2 * HS_VN, *s2 = s1 + HS_VN;
        int64_t w = win[i].w;
        if (since[i] == LIVE_WIN_ANCHOR || ++since[i] >= SLIDE_BLOCK) {
            if (since[i] != LIVE_WIN_ANCHOR) since[i] = 0;
            else since[i] = (uint16_t)(i * 37 % SLIDE_BLOCK); /* staggered anchors: a flatter p99 */
            vanchor(close, last + 1 - (size_t)w, SIZE_MAX, w, s1, s2);
        } else {
            vslide_at(s1, s2, vd_set1(win[i].wd), x_new, vd_loadu(newest - (size_t)w * HS_VN));
        }
    }
}

unsigned HS_CAT3(hs_live_sym_step__, HS_ISA_SUFFIX, )(live_sym_combo *sc, const live_consts *k, const double *wsums,
                                                    const uint32_t *slot, const double *m, int anchor, double *d_out,
                                                    unsigned *signs) {
    enum { HMA, HMA3 }; /* the combo's own two sums */
    double *s1 = sc->sums, *s2 = sc->sums + 2 * HS_VN;
#define WIN_WMA(j, sum) vwma(wsums + (size_t)slot[j] * 2 * HS_VN + HS_VN, vd_set1(k->inv[sum]))
    hs_vd raw = vraw(WIN_WMA(0, SUM_W0), WIN_WMA(1, SUM_W1));
    hs_vd raw3 = vraw3(WIN_WMA(2, SUM_W3), WIN_WMA(3, SUM_W4), WIN_WMA(4, SUM_W5));
#undef WIN_WMA
    int64_t w2 = k->w[SUM_HMA], w5 = k->w[SUM_HMA3];
    hs_vd raw_old = ring_push(sc->raw, &sc->raw_pos, w2, raw);
    hs_vd raw3_old = ring_push(sc->raw3, &sc->raw3_pos, w5, raw3);
    if (anchor) {
        vanchor(sc->raw, sc->raw_pos, (size_t)w2, w2, s1 + HMA * HS_VN, s2 + HMA * HS_VN);
        vanchor(sc->raw3, sc->raw3_pos, (size_t)w5, w5, s1 + HMA3 * HS_VN, s2 + HMA3 * HS_VN);
    } else {
        vslide_at(s1 + HMA * HS_VN, s2 + HMA * HS_VN, vd_set1(k->wd[SUM_HMA]), raw, raw_old);
        vslide_at(s1 + HMA3 * HS_VN, s2 + HMA3 * HS_VN, vd_set1(k->wd[SUM_HMA3]), raw3, raw3_old);
    }
    hs_vd d = vd_sub(vwma(s2 + HMA3 * HS_VN, vd_set1(k->inv[SUM_HMA3])), vwma(s2 + HMA * HS_VN, vd_set1(k->inv[SUM_HMA])));
    vd_storeu(d_out, d);
    *signs = vd_signbits(d);
    return vd_certain_bits(d, vtau(k, vd_loadu(m)));
}
