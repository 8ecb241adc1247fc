/* live — the sweep one bar at a time (docs/live.md).
 *
 * The contract: after any sequence of appends, every combo's trades and PnL equal hs_sweep over every bar
 * so far, bit for bit.  The arithmetic is the `sliding` variant's (src/variants/sliding.c), run forward:
 * seven running-sum WMAs per combo (five over close, one over each raw series), re-anchored by a direct
 * sum at most every SLIDE_BLOCK bars, and a sign of d trusted only where certify.h's a-priori bound says it
 * equals the sign of the tier-0 d.  Everywhere else the bar's d is recomputed in the reference's order
 * from the retained history (hma_tier0_at), so the books (src/spec/tier0.h: hs_book_step) see the same
 * signs, at the same bars, as the batch's event loop — and they are the only thing PnL depends on.
 *
 * The bound is stated in M, the largest price the sums of this bar's d can have touched (certify.h, the
 * local bound): here the largest close of the last `lookback` bars (the longest combo's lag plus two
 * anchor intervals), kept as maxima of CERT_CHUNK-bar chunks.  Batch takes it per chunk of the series;
 * the two may recompute different bars, but each bar's sign is certified either way.
 *
 * Bounded per append (issue 21): a bar whose sign is not certified needs the tier-0 d, which from the
 * closes alone costs w2·(w0+w1+1) + w5·(w3+w4+w5+1) multiply-adds (a flat series needs it at every bar:
 * quadratic in the windows).  So a combo that needed one keeps, for the next max(w2, w5) bars, its raw
 * and raw3 series in the reference's order (exact tails, Σw multiply-adds per bar), and a tier-0 d is then
 * two WMAs of those tails: O(Σw) per bar amortised, the reference's own cost.  Filling the exact tails
 * costs one quadratic recompute, at most once per max(w2, w5) bars.
 *
 * Memory: a shared tail of the newest closes (long enough for the tier-0 recompute of the longest combo)
 * and per combo the newest w2+1 raw and w5+1 raw3 values.  A tail is a contiguous buffer of twice its
 * length: when full, the newest values move to the front (amortised O(1) per bar), so the certify.h
 * helpers, which take a plain array, read it directly.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "certify.h"
#include "error.h"
#include "hmasweep.h"
#include "isa.h"
#include "live.h"
#include "live_lanes.h"
#include "variant.h"

/* ---- a tail: the newest `keep` values of a stream, contiguous in p[len-keep .. len) --------------- */
typedef struct {
    double *p;
    size_t len, cap, keep;
} live_tail;

static int tail_init(live_tail *t, size_t keep) {
    *t = (live_tail){NULL, 0, 2 * keep, keep};
    t->p = malloc(t->cap * sizeof *t->p);
    return t->p != NULL;
}

static inline void tail_push(live_tail *t, double v) {
    if (t->len == t->cap) {
        memmove(t->p, t->p + t->len - t->keep, t->keep * sizeof *t->p);
        t->len = t->keep;
    }
    t->p[t->len++] = v;
}

static inline size_t tail_last(const live_tail *t) { return t->len - 1; }

/* ---- one combo's state ------------------------------------------------------------------------------ */

typedef struct {
    live_consts cst;                      /* windows and certification constants (live_lanes.h) */
    slide_sums sum[SUM_COUNT];
    live_tail raw, raw3;
    live_tail raw_x, raw3_x;              /* raw and raw3 in the reference's order (the exact tails) */
    size_t exact_through;                 /* the newest bar in the exact tails (SIZE_MAX: not kept) */
    size_t exact_until;                   /* keep the exact tails up to this bar */
    hs_windows win;
    size_t raw_first, raw3_first;         /* first bar (global index) where raw / raw3 are defined */
    size_t hma_first, hma3_first, start;  /* ... HMA, HMA3, and d */
    unsigned since_anchor;                /* bars since the sums were last re-anchored */
} live_combo;

/* The books of every combo, one array per field (combo c at index c), so that the per-append results
 * are one pass over contiguous arrays.  A step loads one hs_book, steps it, stores it back. */
typedef struct {
    double *pnl, *entry, *prev, *pos;
    int64_t *trades;
    int64_t *first_bar; /* the first trade's entry bar (bars_held) */
    double *peak;       /* pnl's running high (max_drawdown) */
    double *mtm_peak, *mtm_mdd; /* e's running high and mtm_max_drawdown (docs/spec.md §9.2), over every bar;
                                 * NULL unless the session was opened with n_periods >= 1 (live_mtm) */
    hs_stats *stats;    /* docs/spec.md §8, of the trades booked so far */
    double keep;        /* 1 − fee, the session's */
} live_books;

/* The largest close of the last `lookback` bars or more: the current chunk's running maximum and the
 * maxima of the `k` chunks before it (a ring), whose maximum is refreshed once per chunk. */
typedef struct {
    double cur, ring_max, *ring;
    size_t cur_len, k, pos;
} live_local_max;

/* The ISA's group step (src/live/live_lanes.c), chosen at open like a variant's (hs_isa_default). */
typedef struct {
    live_lanes_step_fn step;
    live_lanes_run_fn run;     /* ... every group at once, once all have entered */
    live_sym_step_fn sym_step; /* symbols in lanes (many-symbol sessions) */
    live_wins_step_fn wins_step; /* ... their shared close sums */
    live_results_fn *results;    /* the outputs after an append */
    live_mtm_fn *mtm;            /* e into the drawdown after every bar */
    int width;
} live_lanes_kernel;

struct hs_live {
    live_tail close;
    live_local_max m;
    size_t bars;
    size_t n_combos;
    live_combo *combos;
    live_books books;
    live_lanes_kernel k;
    size_t n_groups;
    live_group *groups;
    size_t run_from;      /* the first bar past every group's first vector bar: live_lanes_run from here */
    live_settle *settle;  /* [n_groups]: what live_lanes_run leaves to lanes_settle */
};

static void combo_init_windows(live_combo *c, const hs_windows *win) {
    const int64_t *w = win->w;
    const int64_t lens[SUM_COUNT] = {w[0], w[1], w[3], w[4], w[5], w[2], w[5]};
    c->win = *win;
    for (int k = 0; k < SUM_COUNT; k++) {
        c->cst.w[k] = lens[k];
        c->cst.wd[k] = (double)lens[k];
        c->cst.inv[k] = 1.0 / hs_wma_denom(lens[k]);
    }
    /* Where the reference's arrays stop being NaN, for any six windows (no ordering assumed). */
    hs_first_bars f = hs_first_bars_of(w);
    c->raw_first = f.raw, c->raw3_first = f.raw3, c->hma_first = f.hma, c->hma3_first = f.hma3, c->start = f.start;
    c->cst.coef = pipeline_bound(w, eps_slide) + pipeline_bound(w, eps_tier0) + 8.0 * 0x1p-53;
    int64_t wmax = 1;
    for (int k = 0; k < 6; k++) wmax = w[k] > wmax ? w[k] : wmax;
    c->cst.range_max = DBL_MAX / (16.0 * hs_wma_denom(wmax));
    c->exact_through = SIZE_MAX;
}

/* certify_threshold_eps(m, w, eps_slide), with the combo's constants computed once. */
static inline double combo_tau(const live_combo *c, double m) {
    return m >= CERTIFY_M_MIN && m <= c->cst.range_max ? 4.0 * (c->cst.coef * m) : INFINITY;
}

/* Closes a combo needs behind the newest: the tier-0 recompute of d reads raw_first + w2 (and
 * raw3_first + w5) bars, a slide reads the value w bars back. */
static size_t combo_close_history(const live_combo *c) {
    size_t need = hs_max_size(c->hma_first, c->hma3_first) + 1;
    for (int k = SUM_W0; k <= SUM_W5; k++) need = hs_max_size(need, (size_t)c->cst.w[k] + 1);
    return need;
}

/* One running sum over the tail t at this bar: anchored directly on its first bar and whenever the combo
 * re-anchors, otherwise slid by one.  `first` is the sum's first bar. */
static inline void sum_update(live_combo *c, int k, const live_tail *t, size_t bar, size_t first, int anchor) {
    size_t i = tail_last(t);
    if (bar == first || anchor)
        c->sum[k] = slide_anchor(t->p, i, c->cst.w[k]);
    else
        slide_step(&c->sum[k], c->cst.wd[k], t->p[i], t->p[i - (size_t)c->cst.w[k]]);
}

static inline double sum_wma(const live_combo *c, int k) { return c->sum[k].s2 * c->cst.inv[k]; }

/* raw and raw3 in the reference's order at the bar `back` bars before the newest close. */
static inline double raw_exact(const live_combo *c, const live_tail *close, size_t back) {
    const int64_t *w = c->win.w;
    size_t i = tail_last(close) - back;
    return hs_hma_raw(wma_tier0_at(close->p, i, w[0]), wma_tier0_at(close->p, i, w[1]));
}

static inline double raw3_exact(const live_combo *c, const live_tail *close, size_t back) {
    const int64_t *w = c->win.w;
    size_t i = tail_last(close) - back;
    return hs_hma3_raw(wma_tier0_at(close->p, i, w[3]), wma_tier0_at(close->p, i, w[4]), wma_tier0_at(close->p, i, w[5]));
}

/* A combo whose d at `bar` came from the exact tails keeps them for the next max(w2, w5) bars. */
static inline void exact_keep(live_combo *c, size_t bar) {
    c->exact_until = bar + (size_t)(c->win.w[2] > c->win.w[5] ? c->win.w[2] : c->win.w[5]);
}

/* The tier-0 d at `bar` (>= start, the newest bar): two WMAs of the exact tails, filled first (the last w2
 * raw and w5 raw3 values, all defined from `start` on) if they are not current. */
static double exact_d(live_combo *c, const live_tail *close, size_t bar) {
    const int64_t *w = c->win.w;
    if (c->exact_through != bar) {
        c->raw_x.len = c->raw3_x.len = 0;
        for (size_t b = (size_t)w[2]; b-- > 0;) tail_push(&c->raw_x, raw_exact(c, close, b));
        for (size_t b = (size_t)w[5]; b-- > 0;) tail_push(&c->raw3_x, raw3_exact(c, close, b));
        c->exact_through = bar;
    }
    exact_keep(c, bar);
    return wma_tier0_at(c->raw3_x.p, tail_last(&c->raw3_x), w[5]) - wma_tier0_at(c->raw_x.p, tail_last(&c->raw_x), w[2]);
}

/* d at `bar` (the newest close), or NaN where the reference's d is NaN (before `start`). */
static double combo_d(live_combo *c, const live_tail *close, size_t bar, double m) {
    int anchor = ++c->since_anchor >= SLIDE_BLOCK;
    if (anchor) c->since_anchor = 0;
    if (bar >= c->raw_first) {
        sum_update(c, SUM_W0, close, bar, c->raw_first, anchor);
        sum_update(c, SUM_W1, close, bar, c->raw_first, anchor);
        tail_push(&c->raw, hs_hma_raw(sum_wma(c, SUM_W0), sum_wma(c, SUM_W1)));
        if (bar >= c->hma_first) sum_update(c, SUM_HMA, &c->raw, bar, c->hma_first, anchor);
    }
    if (bar >= c->raw3_first) {
        sum_update(c, SUM_W3, close, bar, c->raw3_first, anchor);
        sum_update(c, SUM_W4, close, bar, c->raw3_first, anchor);
        sum_update(c, SUM_W5, close, bar, c->raw3_first, anchor);
        tail_push(&c->raw3, hs_hma3_raw(sum_wma(c, SUM_W3), sum_wma(c, SUM_W4), sum_wma(c, SUM_W5)));
        if (bar >= c->hma3_first) sum_update(c, SUM_HMA3, &c->raw3, bar, c->hma3_first, anchor);
    }
    if (bar < c->start) return NAN;
    if (c->exact_through != SIZE_MAX && c->exact_through + 1 == bar) { /* kept: extend them by this bar */
        if (bar <= c->exact_until) {
            tail_push(&c->raw_x, raw_exact(c, close, 0));
            tail_push(&c->raw3_x, raw3_exact(c, close, 0));
            c->exact_through = bar;
        } else {
            c->exact_through = SIZE_MAX;
        }
    }
    double d = sum_wma(c, SUM_HMA3) - sum_wma(c, SUM_HMA);
    if (!certify_sure(d, combo_tau(c, m))) d = exact_d(c, close, bar); /* the reference's order decides */
    return d;
}

/* The local maximum after `price` joined it. */
static inline double local_max_push(live_local_max *m, double price) {
    if (m->cur_len == CERT_CHUNK) { /* the current chunk is complete: into the ring */
        m->ring[m->pos] = m->cur;
        m->pos = (m->pos + 1) % m->k;
        m->ring_max = 0.0;
        for (size_t j = 0; j < m->k; j++) m->ring_max = m->ring[j] > m->ring_max ? m->ring[j] : m->ring_max;
        m->cur = 0.0;
        m->cur_len = 0;
    }
    m->cur = price > m->cur ? price : m->cur;
    m->cur_len++;
    return m->cur > m->ring_max ? m->cur : m->ring_max;
}

/* ---- the books ------------------------------------------------------------------------------------ */
static inline hs_book book_load(const live_books *b, size_t c) {
    return (hs_book){b->prev[c], b->entry[c],   b->pnl[c],  b->trades[c], (int)b->pos[c],
                     b->keep,    b->first_bar[c], b->peak[c], b->stats[c]};
}

/* Step combo c's books with a non-NaN d at bar `bar`; returns 1 when the position changed (a cross: an open
 * position always has prev's sign, and a cross opens the opposite one).  Only a cross changes more than
 * prev, so only then is the rest stored back. */
static inline int book_step(live_books *b, size_t c, double d, double price, size_t bar) {
    hs_book k = book_load(b, c);
    int before = k.pos;
    hs_book_step(&k, d, price, bar);
    b->prev[c] = k.prev;
    if (k.pos == before) return 0;
    b->entry[c] = k.entry, b->pnl[c] = k.pnl, b->trades[c] = k.trades, b->pos[c] = k.pos;
    b->first_bar[c] = k.first_bar, b->peak[c] = k.peak, b->stats[c] = k.stats;
    return 1;
}

/* ---- a group in vector lanes ------------------------------------------------------------------------- */
static inline size_t lane_combo(const live_group *g, int l) { return g->first + (size_t)(l < g->lanes ? l : 0); }

/* The first vector bar: the interleaved raw and raw3 tails from the combos' scalar tails (bars up to the
 * previous one), and the lanes' books and exact tails as the scalar path left them. */
static void group_enter(hs_live *s, live_group *g, size_t bar) {
    int V = s->k.width;
    g->raw_len = g->raw_keep - 1;
    g->raw3_len = g->raw3_keep - 1;
    memset(g->raw, 0, (g->raw_keep + LIVE_RAW_SLACK) * (size_t)V * sizeof *g->raw);
    memset(g->raw3, 0, (g->raw3_keep + LIVE_RAW_SLACK) * (size_t)V * sizeof *g->raw3);
    g->f.prevset = g->f.prevneg = g->f.exact = 0;
    for (int l = 0; l < V; l++) {
        const live_combo *c = &s->combos[lane_combo(g, l)];
        for (size_t i = 1; i <= c->raw.len && i < g->raw_keep; i++)
            g->raw[(g->raw_keep - 1 - i) * (size_t)V + (size_t)l] = c->raw.p[c->raw.len - i];
        for (size_t i = 1; i <= c->raw3.len && i < g->raw3_keep; i++)
            g->raw3[(g->raw3_keep - 1 - i) * (size_t)V + (size_t)l] = c->raw3.p[c->raw3.len - i];
        if (l >= g->lanes) continue;
        double prev = s->books.prev[lane_combo(g, l)];
        g->f.prevset |= (unsigned)(prev != 0.0) << l;
        g->f.prevneg |= (unsigned)(prev < 0.0) << l;
        if (c->exact_through != SIZE_MAX && c->exact_through + 1 == bar) g->f.exact |= 1u << l;
    }
    g->tau_m = NAN; /* every threshold recomputed at the first step */
}

/* The newest close of a session, and its bar. */
static inline double newest_price(const hs_live *s) { return s->close.p[tail_last(&s->close)]; }

/* Combo c's books at the session's newest bar with d (NaN: skipped, docs/spec.md §4). */
static inline void combo_book(hs_live *s, size_t c, double d, uint8_t *crossed) {
    if (d != d) return;
    if (book_step(&s->books, c, d, newest_price(s), s->bars - 1) && crossed) crossed[c] = 1;
}

/* Which (session, combo) lane l of a group is, in either layout: combos in lanes (one session, combos
 * combo + l) or symbols in lanes (sessions sess[l], one combo).  Lane l's crossed array (indexed by combo)
 * is crossed + l·crossed_step. */
typedef struct {
    hs_live *const *sess;
    size_t sess_step, combo, combo_step;
    uint8_t *crossed;
    size_t crossed_step;
} lane_map;

static inline hs_live *lane_session(const lane_map *mp, int l) { return mp->sess[(size_t)l * mp->sess_step]; }
static inline size_t lane_combo_of(const lane_map *mp, int l) { return mp->combo + (size_t)l * mp->combo_step; }
static inline uint8_t *lane_crossed(const lane_map *mp, int l) {
    return mp->crossed ? mp->crossed + (size_t)l * mp->crossed_step : NULL;
}

/* Lane l's books with d, and the lane's flags after them. */
static inline void lane_book(const lane_map *mp, live_lane_flags *f, int l, double d) {
    hs_live *s = lane_session(mp, l);
    size_t c = lane_combo_of(mp, l);
    if (d != d) return;
    combo_book(s, c, d, lane_crossed(mp, l));
    double prev = s->books.prev[c];
    unsigned bit = 1u << l;
    f->prevset = (f->prevset & ~bit) | (prev != 0.0 ? bit : 0);
    f->prevneg = (f->prevneg & ~bit) | (prev < 0.0 ? bit : 0);
}

/* Reference-order WMAs of several lanes (wma_tier0_at), four at a time (wma_tier0_at4): where no sign is
 * certified (flat, ulp or out-of-range prices) every lane needs seven of them per bar, each a serial add
 * chain, and side by side the chains overlap.  Entries are added window kind by window kind, so the four
 * chains of a batch have one length (symbols in lanes) or nearly (neighbouring combos in lanes). */
enum { WMA_BATCH_MAX = 5 * LIVE_LANES_MAX };
typedef struct {
    const double *end[WMA_BATCH_MAX]; /* the window's newest value */
    int64_t w[WMA_BATCH_MAX];
    double out[WMA_BATCH_MAX];
    size_t n;
} wma_batch;

static inline void wma_batch_add(wma_batch *b, const double *end, int64_t w) {
    b->end[b->n] = end;
    b->w[b->n++] = w;
}

static void wma_batch_run(wma_batch *b) {
    size_t q = 0;
    for (; q + 4 <= b->n; q += 4) wma_tier0_at4(b->end + q, b->w + q, b->out + q);
    if (q == b->n) return;
    const double *end[4]; /* the last 1-3: padded with the last one, computed twice */
    int64_t w[4];
    double out[4];
    for (size_t r = 0; r < 4; r++) {
        size_t from = q + r < b->n ? q + r : b->n - 1;
        end[r] = b->end[from], w[r] = b->w[from];
    }
    wma_tier0_at4(end, w, out);
    for (size_t r = 0; q + r < b->n; r++) b->out[q + r] = out[r];
}

/* The lanes keeping exact tails extend them by this bar (raw and raw3 in the reference's order:
 * raw_exact and raw3_exact, every lane's five WMAs in one batch), or stop keeping them. */
static void lanes_exact_extend(const lane_map *mp, live_lane_flags *f) {
    static const int kinds[5] = {0, 1, 3, 4, 5}; /* raw: w0, w1; raw3: w3, w4, w5 */
    live_combo *cs[LIVE_LANES_MAX];
    size_t bars[LIVE_LANES_MAX], k = 0;
    wma_batch b;
    b.n = 0;
    const double *ends[LIVE_LANES_MAX];
    for (unsigned ex = f->exact; ex; ex &= ex - 1) {
        int l = __builtin_ctz(ex);
        hs_live *s = lane_session(mp, l);
        live_combo *c = &s->combos[lane_combo_of(mp, l)];
        if (s->bars - 1 > c->exact_until) {
            c->exact_through = SIZE_MAX;
            f->exact &= ~(1u << l);
            continue;
        }
        cs[k] = c, bars[k] = s->bars - 1, ends[k++] = s->close.p + tail_last(&s->close);
    }
    for (int t = 0; t < 5; t++)
        for (size_t q = 0; q < k; q++) wma_batch_add(&b, ends[q], cs[q]->win.w[kinds[t]]);
    if (k) wma_batch_run(&b);
    for (size_t q = 0; q < k; q++) {
        const double *o = b.out;
        tail_push(&cs[q]->raw_x, hs_hma_raw(o[q], o[k + q]));
        tail_push(&cs[q]->raw3_x, hs_hma3_raw(o[2 * k + q], o[3 * k + q], o[4 * k + q]));
        cs[q]->exact_through = bars[q];
    }
}

/* The uncertified live lanes `amb` take the reference's d: two WMAs of the exact tails where they are
 * current (all lanes in one batch), exact_d's refill where not; then their books. */
static void lanes_exact_books(const lane_map *mp, live_lane_flags *f, unsigned amb) {
    live_combo *cs[LIVE_LANES_MAX];
    size_t bars[LIVE_LANES_MAX], k = 0;
    int lanes[LIVE_LANES_MAX];
    wma_batch b;
    b.n = 0;
    for (; amb; amb &= amb - 1) {
        int l = __builtin_ctz(amb);
        hs_live *s = lane_session(mp, l);
        live_combo *c = &s->combos[lane_combo_of(mp, l)];
        f->exact |= 1u << l;
        if (c->exact_through != s->bars - 1) { /* not current: the quadratic refill (exact_d) */
            lane_book(mp, f, l, exact_d(c, &s->close, s->bars - 1));
            continue;
        }
        cs[k] = c, bars[k] = s->bars - 1, lanes[k++] = l;
    }
    for (size_t q = 0; q < k; q++) wma_batch_add(&b, cs[q]->raw3_x.p + tail_last(&cs[q]->raw3_x), cs[q]->win.w[5]);
    for (size_t q = 0; q < k; q++) wma_batch_add(&b, cs[q]->raw_x.p + tail_last(&cs[q]->raw_x), cs[q]->win.w[2]);
    if (k) wma_batch_run(&b);
    for (size_t q = 0; q < k; q++) {
        exact_keep(cs[q], bars[q]);
        lane_book(mp, f, lanes[q], b.out[q] - b.out[k + q]); /* exact_d's d: WMA(raw3, w5) − WMA(raw, w2) */
    }
}

/* After a vector step (either layout): the lanes keeping exact tails extend them (or stop), the uncertified
 * live lanes take the reference's d, and the certified lanes visit their books where the sign flips.
 * Inlined into both callers, whose lane maps are then constants: left to itself gcc stopped inlining it
 * once the many-symbol step grew, and one-symbol appends took 1.29 µs p50 instead of 1.18 µs (15 interleaved
 * reps, AVX2 EPYC). */
static inline __attribute__((always_inline)) void lanes_settle_exact(const lane_map *mp, live_lane_flags *f, unsigned live,
                                                                     unsigned certain) {
    if (f->exact) lanes_exact_extend(mp, f);
    if (live & ~certain) lanes_exact_books(mp, f, live & ~certain);
}

static inline __attribute__((always_inline)) void lanes_settle(const lane_map *mp, live_lane_flags *f, unsigned live, unsigned certain, unsigned signs,
                         const double *d) {
    lanes_settle_exact(mp, f, live, certain);
    for (unsigned st = lanes_to_book(f, certain, signs); st; st &= st - 1) {
        int l = __builtin_ctz(st);
        lane_book(mp, f, l, d[l]);
    }
}

/* One bar through a group: the scalar path per combo before every lane has a d, the vector step after. */
static void group_step(hs_live *s, live_group *g, size_t bar, double m, uint8_t *crossed) {
    lane_map mp = {&s, 0, g->first, 1, crossed, 0};
    if (bar < g->start) {
        for (int l = 0; l < g->lanes; l++) lane_book(&mp, &g->f, l, combo_d(&s->combos[g->first + (size_t)l], &s->close, bar, m));
        return;
    }
    int anchor = 1;
    if (bar == g->start) { /* the anchors of groups entering together are staggered: a flatter p99 */
        group_enter(s, g, bar);
        g->since_anchor = (unsigned)((size_t)(g - s->groups) * 37 % SLIDE_BLOCK);
    } else if (++g->since_anchor >= SLIDE_BLOCK) {
        g->since_anchor = 0;
    } else {
        anchor = 0;
    }
    unsigned signs, live = (1u << g->lanes) - 1;
    unsigned certain = s->k.step(g, s->close.p, tail_last(&s->close), m, anchor, &signs) & live;
    lanes_settle(&mp, &g->f, live, certain, signs, g->d);
}

/* The newest bar into a session's close tail and local maximum; returns its bar index, the maximum in *m. */
static inline size_t live_bar_push(hs_live *s, double price, double *m) {
    tail_push(&s->close, price);
    *m = local_max_push(&s->m, price);
    return s->bars++;
}

/* The newest bar through every combo; crossed[c] |= a cross happened here.  A session without groups (a
 * symbol of a many-symbol session, before its combos run in symbol lanes) takes the scalar path. */
/* The newest bar's e of every combo into its mtm drawdown (§9.2), once its books have stepped.  Opt-in at
 * open (n_periods >= 1): it is a division per combo per bar, +13% on the p50 of a one-bar append of the
 * default 80 combos (prof/live_bench --equity: p50 median 0.43 [0.42-0.53] us against 0.38 [0.36-0.41],
 * five interleaved runs of 20,000 appends, AVX-512 Xeon, taskset -c 1), above the 5% an unused feature may
 * cost; opened without it, the append is main's (0.37-0.41 against 0.39-0.41 us, three interleaved runs). */
static inline void live_mtm(hs_live *s, double price) {
    live_books *b = &s->books;
    if (b->mtm_mdd) s->k.mtm(b->pos, b->entry, b->pnl, s->n_combos, price, b->keep, b->mtm_peak, b->mtm_mdd);
}

static void live_step(hs_live *s, double price, uint8_t *crossed) {
    double m;
    size_t bar = live_bar_push(s, price, &m);
    if (s->n_groups && bar >= s->run_from) { /* the steady state: every group in one call, settled where listed */
        size_t n = s->k.run(s->groups, s->n_groups, s->close.p, tail_last(&s->close), m, s->settle);
        for (size_t i = 0; i < n; i++) {
            live_group *g = &s->groups[s->settle[i].group];
            lane_map mp = {&s, 0, g->first, 1, crossed, 0};
            lanes_settle(&mp, &g->f, (1u << g->lanes) - 1, s->settle[i].certain, s->settle[i].signs, g->d);
        }
    } else {
        for (size_t g = 0; g < s->n_groups; g++) group_step(s, &s->groups[g], bar, m, crossed);
        if (!s->n_groups)
            for (size_t c = 0; c < s->n_combos; c++) combo_book(s, c, combo_d(&s->combos[c], &s->close, bar, m), crossed);
    }
    live_mtm(s, price);
}

/* ---- the public API ------------------------------------------------------------------------------- */
static hs_status check_live_windows(const hs_windows *combos, size_t n_combos, hs_error *err) {
    for (size_t c = 0; c < n_combos; c++)
        for (int k = 0; k < 6; k++) {
            int64_t w = combos[c].w[k];
            if (w < 1 || w > HS_LIVE_MAX_WINDOW)
                return hs_fail(err, HS_ERR_USAGE, "combo %zu: window w%d = %lld is outside 1..%lld (HS_LIVE_MAX_WINDOW)",
                               c, k, (long long)w, (long long)HS_LIVE_MAX_WINDOW);
        }
    return HS_OK;
}

void hs_live_free(hs_live *s) {
    if (!s) return;
    if (s->combos)
        for (size_t c = 0; c < s->n_combos; c++) {
            free(s->combos[c].raw.p);
            free(s->combos[c].raw3.p);
            free(s->combos[c].raw_x.p);
            free(s->combos[c].raw3_x.p);
        }
    free(s->combos);
    free(s->close.p);
    free(s->m.ring);
    if (s->groups)
        for (size_t g = 0; g < s->n_groups; g++) {
            free(s->groups[g].raw);
            free(s->groups[g].raw3);
        }
    free(s->groups);
    free(s->settle);
    free(s->books.pnl);
    free(s->books.entry);
    free(s->books.prev);
    free(s->books.pos);
    free(s->books.trades);
    free(s->books.first_bar);
    free(s->books.peak);
    free(s->books.mtm_peak);
    free(s->books.mtm_mdd);
    free(s->books.stats);
    free(s);
}

/* The tail lengths of one combo (its raw and raw3 tails, and the close history it needs). */
typedef struct {
    size_t raw, raw3, close;
} combo_tails;

/* Chunks of closes behind the current one that the local maximum keeps for this combo (at least 1). */
static size_t lookback_chunks(const hs_windows *win) {
    return (certify_lookback(win->w, SLIDE_BLOCK) + CERT_CHUNK - 1) / CERT_CHUNK + 1;
}

static combo_tails tails_of(const hs_windows *win) {
    live_combo c;
    combo_init_windows(&c, win);
    return (combo_tails){(size_t)win->w[2] + 1, (size_t)win->w[5] + 1, combo_close_history(&c)};
}

/* The group step of the ISA hs_sweep would choose (hs_isa_default: the widest built and supported, or
 * $HMASWEEP_ISA). */
#define LIVE_LANES_DECLARE(k, isa, ...)                                                                            \
    live_lanes_step hs_live_lanes_step__##isa; live_lanes_run hs_live_lanes_run__##isa;                              \
    live_sym_step hs_live_sym_step__##isa;                                                                        \
    live_wins_step hs_live_wins_step__##isa; live_results_fn hs_live_results__##isa; live_mtm_fn hs_live_mtm__##isa;                               \
    int hs_live_lanes_width__##isa(void);
HS_ISA_LIST(LIVE_LANES_DECLARE, ~)

static live_lanes_kernel lanes_kernel_of(hs_isa isa) {
    static const struct {
        live_lanes_step_fn step;
        live_lanes_run_fn run;
        live_sym_step_fn sym_step;
        live_wins_step_fn wins_step;
        live_results_fn *results;
        live_mtm_fn *mtm;
        int (*width)(void);
    } built[HS_ISA_COUNT] = {
#define LIVE_LANES_IF_BUILT(k, isa, ISA, ...)                                                         \
    {HS_IF_BUILT(ISA, hs_live_lanes_step__##isa), HS_IF_BUILT(ISA, hs_live_lanes_run__##isa),  \
     HS_IF_BUILT(ISA, hs_live_sym_step__##isa),                                                \
     HS_IF_BUILT(ISA, hs_live_wins_step__##isa), HS_IF_BUILT(ISA, hs_live_results__##isa),    \
     HS_IF_BUILT(ISA, hs_live_mtm__##isa), HS_IF_BUILT(ISA, hs_live_lanes_width__##isa)},
        HS_ISA_LIST(LIVE_LANES_IF_BUILT, ~)
    };
    if ((unsigned)isa >= HS_ISA_COUNT || !built[isa].step) isa = HS_ISA_SCALAR;
    return (live_lanes_kernel){built[isa].step,    built[isa].run, built[isa].sym_step, built[isa].wins_step,
                               built[isa].results, built[isa].mtm, built[isa].width()};
}

size_t hs_live_bytes_for(const hs_windows *combos, size_t n_combos) {
    size_t history = 1, doubles = 0, ring = 1, raw_keep = 1, raw3_keep = 1;
    for (size_t c = 0; c < n_combos; c++) {
        combo_tails t = tails_of(&combos[c]);
        doubles += 2 * 2 * (t.raw + t.raw3); /* the sliding and the exact tails; tail_init: twice the length */
        ring = hs_max_size(ring, lookback_chunks(&combos[c]));
        history = hs_max_size(history, t.close);
        raw_keep = hs_max_size(raw_keep, t.raw);
        raw3_keep = hs_max_size(raw3_keep, t.raw3);
    }
    /* groups: at most one per combo, each with interleaved tails of at most LIVE_LANES_MAX lanes */
    size_t groups = n_combos * (sizeof(live_group) + sizeof(live_settle) +
                                LIVE_LANES_MAX * (raw_keep + raw3_keep + 2 * LIVE_RAW_SLACK) * sizeof(double));
    return sizeof(hs_live) + n_combos * (sizeof(live_combo) + 5 * sizeof(double) + 2 * sizeof(int64_t) + sizeof(hs_stats)) + groups +
           (doubles + 2 * history + ring) * sizeof(double);
}

/* Group g: combos [g·V, g·V + lanes), their windows and constants per lane. */
static int group_init(hs_live *s, size_t gi) {
    live_group *g = &s->groups[gi];
    int V = s->k.width;
    g->first = gi * (size_t)V;
    g->lanes = (int)(s->n_combos - g->first < (size_t)V ? s->n_combos - g->first : (size_t)V);
    g->raw_keep = g->raw3_keep = 1;
    g->start = 0;
    for (int l = 0; l < V; l++) {
        const live_combo *c = &s->combos[lane_combo(g, l)];
        for (int k = 0; k < SUM_COUNT; k++) {
            g->w[k * V + l] = c->cst.w[k];
            g->wd[k * V + l] = c->cst.wd[k];
            g->inv[k * V + l] = c->cst.inv[k];
        }
        for (int k = SUM_W0; k <= SUM_W5; k++) g->back_close[k * V + l] = -c->cst.w[k];
        g->back_raw[l] = -c->cst.w[SUM_HMA] * V + l;
        g->back_raw[V + l] = -c->cst.w[SUM_HMA3] * V + l;
        g->coef[l] = c->cst.coef;
        g->range_max[l] = c->cst.range_max;
        g->raw_keep = hs_max_size(g->raw_keep, (size_t)c->cst.w[SUM_HMA] + 1);
        g->raw3_keep = hs_max_size(g->raw3_keep, (size_t)c->cst.w[SUM_HMA3] + 1);
        g->start = hs_max_size(g->start, c->start);
    }
    g->raw = malloc((g->raw_keep + LIVE_RAW_SLACK) * (size_t)V * sizeof *g->raw);
    g->raw3 = malloc((g->raw3_keep + LIVE_RAW_SLACK) * (size_t)V * sizeof *g->raw3);
    return g->raw && g->raw3;
}

/* A session over these combos, its combos in groups of the kernel's lanes, or with no groups (`grouped` 0:
 * every combo on the scalar path; a many-symbol session runs them in symbol lanes instead). */
static hs_live *live_alloc(const hs_windows *combos, size_t n_combos, live_lanes_kernel k, double keep, int grouped,
                           int mtm) {
    hs_live *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->k = k;
    s->n_combos = n_combos;
    s->combos = calloc(n_combos, sizeof *s->combos);
    if (!s->combos) return hs_live_free(s), NULL;
    size_t history = 1;
    for (size_t c = 0; c < n_combos; c++) {
        live_combo *lc = &s->combos[c];
        combo_init_windows(lc, &combos[c]);
        lc->since_anchor = (unsigned)(c % SLIDE_BLOCK); /* stagger the anchors: a flatter p99 per append */
        combo_tails t = tails_of(&combos[c]);
        if (!tail_init(&lc->raw, t.raw) || !tail_init(&lc->raw3, t.raw3) || !tail_init(&lc->raw_x, t.raw) ||
            !tail_init(&lc->raw3_x, t.raw3))
            return hs_live_free(s), NULL;
        s->m.k = hs_max_size(s->m.k, lookback_chunks(&combos[c]));
        history = hs_max_size(history, t.close);
    }
    if (!tail_init(&s->close, history)) return hs_live_free(s), NULL;
    s->m.ring = calloc(s->m.k, sizeof *s->m.ring);
    s->books = (live_books){calloc(n_combos, sizeof(double)), calloc(n_combos, sizeof(double)),
                            calloc(n_combos, sizeof(double)), calloc(n_combos, sizeof(double)),
                            calloc(n_combos, sizeof(int64_t)), calloc(n_combos, sizeof(int64_t)),
                            calloc(n_combos, sizeof(double)),
                            mtm ? calloc(n_combos, sizeof(double)) : NULL, mtm ? calloc(n_combos, sizeof(double)) : NULL,
                            calloc(n_combos, sizeof(hs_stats)), keep};
    if (!s->m.ring || !s->books.pnl || !s->books.entry || !s->books.prev || !s->books.pos || !s->books.trades ||
        !s->books.first_bar || !s->books.peak || (mtm && (!s->books.mtm_peak || !s->books.mtm_mdd)) || !s->books.stats)
        return hs_live_free(s), NULL;
    if (!grouped) return s;
    s->n_groups = (n_combos + (size_t)s->k.width - 1) / (size_t)s->k.width;
    /* 64-byte aligned: a group's rows are 64 bytes, and a row that straddles two lines costs split loads */
    size_t gbytes = (s->n_groups * sizeof *s->groups + 63) / 64 * 64;
    s->groups = aligned_alloc(64, gbytes);
    if (!s->groups) return hs_live_free(s), NULL;
    memset(s->groups, 0, gbytes);
    s->settle = malloc(s->n_groups * sizeof *s->settle);
    if (!s->settle) return hs_live_free(s), NULL;
    for (size_t g = 0; g < s->n_groups; g++) {
        if (!group_init(s, g)) return hs_live_free(s), NULL;
        s->run_from = hs_max_size(s->run_from, s->groups[g].start + 1);
    }
    return s;
}

/* hs_live_open_opt, grouped or not (live_alloc). */
static hs_status live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                           const hs_sweep_options *opt, int grouped, hs_live **out, hs_error *err) {
    if (!out) return hs_fail(err, HS_ERR_USAGE, "live open: the session pointer is NULL");
    *out = NULL;
    hs_sweep_options known;
    double fee;
    /* reach 1.2: a binary built against the 1.2 header calls this symbol with a struct that ends at has_fee */
    hs_status st = hs_read_sweep_options(opt, HS_OPTIONS_SIZE_1_2, &known, err);
    if (st == HS_OK) st = hs_options_fee(&known, &fee, err);
    if (st != HS_OK) return st;
    st = hs_check_series(close, n_bars, err);
    if (st != HS_OK) return st;
    if (n_combos == 0) return hs_fail(err, HS_ERR_USAGE, "live open: no combos (n_combos = 0)");
    if (!combos) return hs_fail(err, HS_ERR_USAGE, "live open: the combos pointer is NULL (n_combos = %zu)", n_combos);
    if (n_combos > SIZE_MAX / sizeof(live_combo))
        return hs_fail(err, HS_ERR_USAGE, "live open: too many combos (%zu)", n_combos);
    st = check_live_windows(combos, n_combos, err);
    if (st != HS_OK) return st;
    hs_isa isa;
    st = hs_isa_default(&isa, err);
    if (st != HS_OK) return st;
    if (known.equity || known.mtm_max_drawdown || known.period_ends)
        return hs_fail(err, HS_ERR_USAGE, "live open: %s is not read by a live session (ask for the equity with "
                       "n_periods >= 1 and read it with hs_live_equity)",
                       known.equity ? "equity" : known.mtm_max_drawdown ? "mtm_max_drawdown" : "period_ends");
    hs_live *s = live_alloc(combos, n_combos, lanes_kernel_of(isa), hs_keep(fee), grouped, known.n_periods != 0);
    if (!s) return hs_fail(err, HS_ERR_NOMEM, "live open: out of memory for %zu combos", n_combos);
    for (size_t i = 0; i < n_bars; i++) live_step(s, close[i], NULL);
    *out = s;
    return HS_OK;
}

hs_status hs_live_open_opt(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                           const hs_sweep_options *opt, hs_live **out, hs_error *err) {
    return live_open(close, n_bars, combos, n_combos, opt, 1, out, err);
}

hs_status hs_live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos, hs_live **out,
                       hs_error *err) {
    return hs_live_open_opt(close, n_bars, combos, n_combos, NULL, out, err);
}

/* Every combo's books closed at `last` (docs/spec.md §4's close at the end: hs_book_finish on a copy), as one
 * branch-free pass over the book arrays: the same operations as hs_book_close_at, selected where a
 * position is open (the ISA's hs_live_results). */
static void live_results(const live_lanes_kernel *k, const live_books *b, size_t n, double last, double *pnl,
                         int64_t *trades, int8_t *position) {
    k->results(b->pos, b->entry, b->pnl, b->trades, n, last, b->keep, pnl, trades, position);
}

hs_status hs_live_append(hs_live *s, const double *bars, size_t k, double *pnl, int64_t *trades, int8_t *position,
                         uint8_t *crossed, hs_error *err) {
    if (!s) return hs_fail(err, HS_ERR_USAGE, "live append: the session is NULL");
    if (k == 0) return hs_fail(err, HS_ERR_USAGE, "live append: k = 0 bars (at least 1 is needed)");
    /* Every bar is checked before any is applied, so a refused append leaves the session unchanged. */
    hs_error why;
    hs_status st = hs_check_series(bars, k, &why);
    if (st != HS_OK)
        return hs_fail(err, st, "live append of %zu bars at bar %zu: %s (index within the append; session unchanged)", k,
                       s->bars, why.msg);
    if (crossed) memset(crossed, 0, s->n_combos);
    for (size_t i = 0; i < k; i++) live_step(s, bars[i], crossed);
    live_results(&s->k, &s->books, s->n_combos, bars[k - 1], pnl, trades, position);
    return HS_OK;
}

/* The statistics as a batch sweep over the bars so far has them: each book copied and, where a position is
 * open, closed at the newest close (bar bars − 1), as hs_book_finish does after the last bar. */
static void live_stats_of(const hs_live *s, hs_stats *out) {
    double last = s->close.p[tail_last(&s->close)];
    for (size_t c = 0; c < s->n_combos; c++) {
        hs_book k = book_load(&s->books, c);
        out[c] = hs_book_finish(&k, last, s->bars - 1).s;
    }
}

hs_status hs_live_stats(const hs_live *s, hs_stats *out, hs_error *err) {
    if (!s || !out) return hs_fail(err, HS_ERR_USAGE, "live stats: the %s pointer is NULL", s ? "out" : "session");
    live_stats_of(s, out);
    return HS_OK;
}

/* Each combo's e at the newest bar (the pnl hs_live_append reports) and its mtm_max_drawdown so far. */
static void live_equity_of(const hs_live *s, double *equity, double *mtm) {
    if (equity) live_results(&s->k, &s->books, s->n_combos, newest_price(s), equity, NULL, NULL);
    if (mtm) memcpy(mtm, s->books.mtm_mdd, s->n_combos * sizeof *mtm);
}

static hs_status live_mtm_asked(const hs_live *s, const double *mtm, hs_error *err) {
    if (mtm && !s->books.mtm_mdd)
        return hs_fail(err, HS_ERR_USAGE, "live equity: mtm_max_drawdown was asked of a session opened without "
                       "n_periods: open it with hs_sweep_options.n_periods >= 1 to keep it (docs/live.md)");
    return HS_OK;
}

hs_status hs_live_equity(const hs_live *s, double *equity, double *mtm_max_drawdown, hs_error *err) {
    if (!s) return hs_fail(err, HS_ERR_USAGE, "live equity: the session is NULL");
    hs_status st = live_mtm_asked(s, mtm_max_drawdown, err);
    if (st != HS_OK) return st;
    live_equity_of(s, equity, mtm_max_drawdown);
    return HS_OK;
}

size_t hs_live_combos(const hs_live *s) { return s ? s->n_combos : 0; }

size_t hs_live_bars(const hs_live *s) { return s ? s->bars : 0; }

/* ---- many symbols: symbols in vector lanes (live_lanes.h) ----------------------------------------------
 * Every symbol keeps a session without groups (its close tail, local maximum, books and exact tails; and,
 * until a combo runs in symbol lanes, that combo's scalar-path sums and tails, freed then).  Symbols are
 * grouped by the ISA's lanes (the last group padded with its first symbol, never read back); a group's
 * closes are one interleaved tail, and each combo runs in the group's lanes from the first call where every
 * symbol of the group has a d for it (before: the scalar path per symbol, as a one-symbol session's
 * warm-up).  Certification, recompute and books are the one-symbol session's (lanes_settle). */
typedef struct {
    size_t first;          /* lane l is symbol first + l (l < lanes) */
    int lanes;             /* real symbols in the group */
    double *close;         /* the group's closes, interleaved; the newest close_keep entries contiguous */
    size_t close_len;
    double *arena;         /* the shared close sums, then every combo's sums and rings (live_lanes.h) */
    double *wsums;         /* [n_win][2][V]: s1, s2 of each distinct close window, in the arena */
    uint16_t *since;       /* [n_win]: LIVE_WIN_OFF, LIVE_WIN_ANCHOR or bars since the anchor */
    int all_entered;       /* every combo runs in the lanes: nothing left to enter */
    live_sym_combo *combo; /* [n_combos] */
} live_sym_group;

/* A certified lane whose books sym_group_step visits after the group's combos, with its d. */
typedef struct {
    uint32_t combo;
    int lane;
    double d;
} sym_book_visit;

struct hs_live_many {
    size_t n_symbols, n_combos;
    hs_live **s;           /* one session per symbol, without groups */
    live_lanes_kernel k;
    live_consts *cst;      /* per combo, shared by every group */
    live_win *win;         /* the distinct close windows of all combos, ascending */
    size_t n_win;
    uint32_t *slot;        /* [n_combos][5]: combo c's w0, w1, w3, w4, w5 in win[] */
    size_t *start;         /* per combo: its first bar with a d */
    size_t close_keep;     /* closes a group keeps: the longest close window + 1 */
    sym_book_visit *queue; /* [n_combos · LIVE_LANES_MAX]: a group's certified crossings, booked after its combos */
    size_t n_groups;
    live_sym_group *groups;
};

void hs_live_many_free(hs_live_many *m) {
    if (!m) return;
    if (m->s)
        for (size_t i = 0; i < m->n_symbols; i++) hs_live_free(m->s[i]);
    if (m->groups)
        for (size_t g = 0; g < m->n_groups; g++) {
            free(m->groups[g].close);
            free(m->groups[g].arena);
            free(m->groups[g].since);
            free(m->groups[g].combo);
        }
    free(m->groups);
    free(m->cst);
    free(m->win);
    free(m->slot);
    free(m->queue);
    free(m->start);
    free(m->s);
    free(m);
}

static size_t round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Doubles of one combo's rings in a group's arena (whole lines).  The sums come first, one contiguous run
 * (the shared close sums, then each combo's two: 4·V doubles) that a call walks in order, so the hardware
 * prefetcher streams them; with each combo's rings between its sums, the sums' loads were most of the step
 * (perf). */
static size_t sym_ring_doubles(const live_consts *k, int V) {
    return round64(((size_t)k->w[SUM_HMA] + (size_t)k->w[SUM_HMA3]) * (size_t)V * sizeof(double)) / sizeof(double);
}

static int by_window(const void *pa, const void *pb) {
    int64_t a = ((const live_win *)pa)->w, b = ((const live_win *)pb)->w;
    return (a > b) - (a < b);
}

/* The distinct close windows of all combos (m->win, ascending) and each combo's five slots in it. */
static void sym_windows(hs_live_many *m) {
    static const int sums[5] = {SUM_W0, SUM_W1, SUM_W3, SUM_W4, SUM_W5};
    size_t n = 0;
    for (size_t c = 0; c < m->n_combos; c++)
        for (int j = 0; j < 5; j++) m->win[n++] = (live_win){m->cst[c].w[sums[j]], m->cst[c].wd[sums[j]]};
    qsort(m->win, n, sizeof *m->win, by_window);
    m->n_win = 0;
    for (size_t i = 0; i < n; i++)
        if (m->n_win == 0 || m->win[m->n_win - 1].w != m->win[i].w) m->win[m->n_win++] = m->win[i];
    for (size_t c = 0; c < m->n_combos; c++)
        for (int j = 0; j < 5; j++) {
            size_t lo = 0, hi = m->n_win; /* binary search: win[lo].w == the window */
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (m->win[mid].w <= m->cst[c].w[sums[j]]) lo = mid;
                else hi = mid;
            }
            m->slot[c * 5 + (size_t)j] = (uint32_t)lo;
        }
}

/* Group gi: its symbols' closes so far (as far back as close_keep) into the interleaved tail, and its
 * combos' blocks. */
static int sym_group_init(hs_live_many *m, size_t gi) {
    live_sym_group *G = &m->groups[gi];
    int V = m->k.width;
    G->first = gi * (size_t)V;
    G->lanes = (int)(m->n_symbols - G->first < (size_t)V ? m->n_symbols - G->first : (size_t)V);
    size_t keep = m->close_keep, wsums = 2 * m->n_win * (size_t)V, sums = 4 * (size_t)V;
    size_t arena = round64((wsums + m->n_combos * sums) * sizeof(double)) / sizeof(double);
    for (size_t c = 0; c < m->n_combos; c++) arena += sym_ring_doubles(&m->cst[c], V);
    G->close = calloc(2 * keep * (size_t)V, sizeof *G->close);
    G->arena = aligned_alloc(64, arena * sizeof(double));
    G->combo = calloc(m->n_combos, sizeof *G->combo);
    G->since = malloc(m->n_win * sizeof *G->since);
    if (!G->close || !G->arena || !G->combo || !G->since) return 0;
    for (size_t i = 0; i < m->n_win; i++) G->since[i] = LIVE_WIN_OFF;
    G->wsums = G->arena;
    memset(G->arena, 0, arena * sizeof(double));
    G->close_len = keep;
    for (int l = 0; l < V; l++) {
        const live_tail *t = &m->s[G->first + (size_t)(l < G->lanes ? l : 0)]->close;
        for (size_t back = 0; back < keep && back < t->len; back++)
            G->close[(keep - 1 - back) * (size_t)V + (size_t)l] = t->p[t->len - 1 - back];
    }
    double *at = G->arena + round64((wsums + m->n_combos * sums) * sizeof(double)) / sizeof(double);
    for (size_t c = 0; c < m->n_combos; c++) {
        live_sym_combo *sc = &G->combo[c];
        const live_consts *k = &m->cst[c];
        sc->sums = G->arena + wsums + c * sums;
        sc->raw = at;
        sc->raw3 = sc->raw + (size_t)k->w[SUM_HMA] * (size_t)V;
        at += sym_ring_doubles(k, V);
    }
    return 1;
}

/* Lane l's symbol (the padding lanes repeat the group's first). */
static inline hs_live *sym_session(const hs_live_many *m, const live_sym_group *G, int l) {
    return m->s[G->first + (size_t)(l < G->lanes ? l : 0)];
}

/* Combo c's first bar in the group's lanes: its raw rings from each symbol's scalar tails (bars up to the
 * previous one), the lanes' flags from the books and exact tails as the scalar path left them; then the
 * scalar tails are freed.  The step anchors every sum at this bar. */
static void sym_enter(hs_live_many *m, live_sym_group *G, size_t c, size_t gi) {
    int V = m->k.width;
    live_sym_combo *sc = &G->combo[c];
    size_t w2 = (size_t)m->cst[c].w[SUM_HMA], w5 = (size_t)m->cst[c].w[SUM_HMA3];
    sc->f = (live_lane_flags){0, 0, 0};
    for (int l = 0; l < V; l++) {
        hs_live *s = sym_session(m, G, l);
        const live_combo *lc = &s->combos[c];
        for (size_t e = 0; e < w2; e++) /* entry e: the raw of bar (this one) − w2 + e */
            sc->raw[e * (size_t)V + (size_t)l] = w2 - e <= lc->raw.len ? lc->raw.p[lc->raw.len - (w2 - e)] : 0.0;
        for (size_t e = 0; e < w5; e++)
            sc->raw3[e * (size_t)V + (size_t)l] = w5 - e <= lc->raw3.len ? lc->raw3.p[lc->raw3.len - (w5 - e)] : 0.0;
        if (l >= G->lanes) continue;
        double prev = s->books.prev[c];
        sc->f.prevset |= (unsigned)(prev != 0.0) << l;
        sc->f.prevneg |= (unsigned)(prev < 0.0) << l;
        if (lc->exact_through != SIZE_MAX && lc->exact_through + 1 == s->bars - 1) sc->f.exact |= 1u << l;
    }
    for (int l = 0; l < G->lanes; l++) { /* the scalar path's tails are no longer read */
        live_combo *lc = &sym_session(m, G, l)->combos[c];
        free(lc->raw.p);
        free(lc->raw3.p);
        lc->raw = lc->raw3 = (live_tail){NULL, 0, 0, 0};
    }
    sc->raw_pos = sc->raw3_pos = 0;
    sc->since_anchor = (unsigned)((c * 37 + gi * 11) % SLIDE_BLOCK); /* staggered anchors: a flatter p99 */
    sc->entered = 1;
}

/* Push one entry (V lanes) onto a group's interleaved close tail. */
static void sym_close_push(live_sym_group *G, size_t keep, int V, const double *entry) {
    if (G->close_len == 2 * keep) {
        memmove(G->close, G->close + keep * (size_t)V, keep * (size_t)V * sizeof *G->close);
        G->close_len = keep;
    }
    memcpy(G->close + G->close_len * (size_t)V, entry, (size_t)V * sizeof *entry);
    G->close_len++;
}

/* How far ahead sym_group_step prefetches a combo's ring slots and sums: 500 x 80 p50 0.92 [0.80-0.99] of two
 * ahead, lower in 11 of 11 interleaved reps (AVX2 EPYC, load 3.7); the call is bound by how many of its misses
 * are in flight (perf: the stalls sit on the prefetches themselves), and four combos give them longer. */
enum { SYM_AHEAD = 4 };

/* Combo c's books in b, on their way to the cache: a crossing lane's books are visited after the group's
 * combos (sym_group_step), so their misses overlap the steps in between instead of stalling each book_step. */
static inline void books_prefetch(const live_books *b, size_t c) {
    __builtin_prefetch(&b->prev[c], 1), __builtin_prefetch(&b->entry[c], 1), __builtin_prefetch(&b->pnl[c], 1);
    __builtin_prefetch(&b->pos[c], 1), __builtin_prefetch(&b->trades[c], 1), __builtin_prefetch(&b->first_bar[c], 1);
    __builtin_prefetch(&b->peak[c], 1), __builtin_prefetch(&b->stats[c], 1);
    __builtin_prefetch((const char *)&b->stats[c] + sizeof b->stats[c] - 1, 1);
}

/* One bar for each symbol of group gi, through every combo. */
static void sym_group_step(hs_live_many *m, size_t gi, const double *bars, uint8_t *crossed) {
    live_sym_group *G = &m->groups[gi];
    int V = m->k.width;
    double mv[LIVE_LANES_MAX], entry[LIVE_LANES_MAX], d[LIVE_LANES_MAX];
    size_t min_bar = SIZE_MAX;
    for (int l = 0; l < V; l++) {
        entry[l] = bars[G->first + (size_t)(l < G->lanes ? l : 0)];
        if (l >= G->lanes) {
            mv[l] = mv[0];
            continue;
        }
        size_t bar = live_bar_push(m->s[G->first + (size_t)l], entry[l], &mv[l]);
        min_bar = bar < min_bar ? bar : min_bar;
    }
    sym_close_push(G, m->close_keep, V, entry);
    size_t nc = m->n_combos;
    if (!G->all_entered) { /* the combos entering at this bar: their shared close sums anchor now if unused */
        int all = 1;
        for (size_t c = 0; c < nc; c++) {
            if (G->combo[c].entered) continue;
            if (min_bar < m->start[c]) {
                all = 0;
                continue;
            }
            for (int j = 0; j < 5; j++)
                if (G->since[m->slot[c * 5 + (size_t)j]] == LIVE_WIN_OFF) G->since[m->slot[c * 5 + (size_t)j]] = LIVE_WIN_ANCHOR;
        }
        G->all_entered = all;
    }
    m->k.wins_step(G->wsums, G->since, m->win, m->n_win, G->close, G->close_len - 1);
    lane_map mp = {m->s + G->first, 1, 0, 0, crossed ? crossed + G->first * nc : NULL, nc};
    unsigned live = (1u << G->lanes) - 1;
    size_t n_queued = 0;
    for (size_t c = 0; c < nc; c++) {
        live_sym_combo *sc = &G->combo[c];
        mp.combo = c;
        /* SYM_AHEAD combos ahead: the ring slots (far apart, no prefetcher guesses them) and the sums.  500
         * symbols x 80 combos, AVX2 EPYC: two ahead, p50 1.28-2.18 ms against 2.26-3.67 ms without (4 interleaved
         * reps, load 3); four rather than two, see SYM_AHEAD. */
        if (c + SYM_AHEAD < nc) {
            const live_sym_combo *ahead = &G->combo[c + SYM_AHEAD];
            __builtin_prefetch(ahead->raw + (size_t)ahead->raw_pos * (size_t)V, 1);
            __builtin_prefetch(ahead->raw3 + (size_t)ahead->raw3_pos * (size_t)V, 1);
            for (size_t b = 0; b < 4 * (size_t)V; b += 8) __builtin_prefetch(ahead->sums + b, 1);
        }
        int anchor = 1;
        if (!sc->entered) {
            if (min_bar < m->start[c]) { /* a symbol has no d for it yet: the scalar path per symbol */
                for (int l = 0; l < G->lanes; l++) {
                    hs_live *s = m->s[G->first + (size_t)l];
                    combo_book(s, c, combo_d(&s->combos[c], &s->close, s->bars - 1, mv[l]), lane_crossed(&mp, l));
                }
                continue;
            }
            sym_enter(m, G, c, gi);
        } else if (++sc->since_anchor >= SLIDE_BLOCK) {
            sc->since_anchor = 0;
        } else {
            anchor = 0;
        }
        unsigned signs;
        unsigned certain = m->k.sym_step(sc, &m->cst[c], G->wsums, m->slot + c * 5, mv, anchor, d, &signs) & live;
        lanes_settle_exact(&mp, &sc->f, live, certain);
        for (unsigned st = lanes_to_book(&sc->f, certain, signs); st; st &= st - 1) { /* queued: books_prefetch */
            int l = __builtin_ctz(st);
            books_prefetch(&m->s[G->first + (size_t)l]->books, c);
            m->queue[n_queued++] = (sym_book_visit){(uint32_t)c, l, d[l]};
        }
    }
    for (size_t q = 0; q < n_queued; q++) {
        const sym_book_visit *v = &m->queue[q];
        mp.combo = v->combo;
        lane_book(&mp, &G->combo[v->combo].f, v->lane, v->d);
    }
}

hs_status hs_live_many_open(const double *const *history, const size_t *n_bars, size_t n_symbols,
                            const hs_windows *combos, size_t n_combos, const hs_sweep_options *opt,
                            hs_live_many **out, hs_error *err) {
    if (!out) return hs_fail(err, HS_ERR_USAGE, "live open many: the session pointer is NULL");
    *out = NULL;
    if (n_symbols == 0) return hs_fail(err, HS_ERR_USAGE, "live open many: no symbols (n_symbols = 0)");
    if (!history || !n_bars)
        return hs_fail(err, HS_ERR_USAGE, "live open many: the %s pointer is NULL", history ? "n_bars" : "history");
    hs_live_many *m = calloc(1, sizeof *m);
    if (m) m->s = calloc(n_symbols, sizeof *m->s);
    if (!m || !m->s) return hs_live_many_free(m), hs_fail(err, HS_ERR_NOMEM, "live open many: out of memory for %zu symbols", n_symbols);
    m->n_symbols = n_symbols;
    for (size_t i = 0; i < n_symbols; i++) {
        hs_error why;
        hs_status st = live_open(history[i], n_bars[i], combos, n_combos, opt, 0, &m->s[i], &why);
        if (st != HS_OK) {
            hs_live_many_free(m);
            return hs_fail(err, st, "live open many, symbol %zu: %s", i, why.msg);
        }
    }
    m->n_combos = n_combos;
    m->k = m->s[0]->k;
    m->cst = malloc(n_combos * sizeof *m->cst);
    m->start = malloc(n_combos * sizeof *m->start);
    m->win = malloc(5 * n_combos * sizeof *m->win);
    m->slot = malloc(5 * n_combos * sizeof *m->slot);
    m->queue = malloc(n_combos * LIVE_LANES_MAX * sizeof *m->queue);
    m->n_groups = (n_symbols + (size_t)m->k.width - 1) / (size_t)m->k.width;
    m->groups = calloc(m->n_groups, sizeof *m->groups);
    int ok = m->cst && m->start && m->groups && m->win && m->slot && m->queue;
    m->close_keep = 1;
    for (size_t c = 0; ok && c < n_combos; c++) {
        const live_combo *lc = &m->s[0]->combos[c];
        m->cst[c] = lc->cst;
        m->start[c] = lc->start;
        for (int k = SUM_W0; k <= SUM_W5; k++) m->close_keep = hs_max_size(m->close_keep, (size_t)lc->cst.w[k] + 1);
    }
    if (ok) sym_windows(m);
    for (size_t g = 0; ok && g < m->n_groups; g++) ok = sym_group_init(m, g);
    if (!ok) return hs_live_many_free(m), hs_fail(err, HS_ERR_NOMEM, "live open many: out of memory for %zu symbols", n_symbols);
    *out = m;
    return HS_OK;
}

hs_status hs_live_many_append(hs_live_many *m, const double *bars, double *pnl, int64_t *trades, int8_t *position,
                              uint8_t *crossed, hs_error *err) {
    if (!m) return hs_fail(err, HS_ERR_USAGE, "live append many: the session is NULL");
    if (!bars) return hs_fail(err, HS_ERR_USAGE, "live append many: the bars pointer is NULL");
    /* Every price is checked before any is applied: a refused call changes no session. */
    hs_error why;
    hs_status st = hs_check_series(bars, m->n_symbols, &why);
    if (st != HS_OK)
        return hs_fail(err, st, "live append many of %zu symbols: %s (the index is the symbol's; no session changed)",
                       m->n_symbols, why.msg);
    size_t nc = m->n_combos;
    if (crossed) memset(crossed, 0, m->n_symbols * nc);
    for (size_t g = 0; g < m->n_groups; g++) {
        sym_group_step(m, g, bars, crossed);
        const live_sym_group *G = &m->groups[g];
        for (size_t i = G->first; i < G->first + (size_t)G->lanes; i++) {
            size_t at = i * nc;
            live_mtm(m->s[i], bars[i]);
            live_results(&m->k, &m->s[i]->books, nc, bars[i], pnl ? pnl + at : NULL, trades ? trades + at : NULL,
                         position ? position + at : NULL);
        }
    }
    return HS_OK;
}

/* The 1.2 names of the many-symbol family (deprecated in 1.4, include/hmasweep.h): thin wrappers. */
hs_status hs_live_open_many(const double *const *history, const size_t *n_bars, size_t n_symbols,
                            const hs_windows *combos, size_t n_combos, hs_live_many **out, hs_error *err) {
    return hs_live_many_open(history, n_bars, n_symbols, combos, n_combos, NULL, out, err);
}

hs_status hs_live_open_many_opt(const double *const *history, const size_t *n_bars, size_t n_symbols,
                                const hs_windows *combos, size_t n_combos, const hs_sweep_options *opt,
                                hs_live_many **out, hs_error *err) {
    return hs_live_many_open(history, n_bars, n_symbols, combos, n_combos, opt, out, err);
}

hs_status hs_live_append_many(hs_live_many *m, const double *bars, double *pnl, int64_t *trades, int8_t *position,
                              uint8_t *crossed, hs_error *err) {
    return hs_live_many_append(m, bars, pnl, trades, position, crossed, err);
}

void hs_live_free_many(hs_live_many *m) { hs_live_many_free(m); }

hs_status hs_live_many_stats(const hs_live_many *m, hs_stats *out, hs_error *err) {
    if (!m || !out) return hs_fail(err, HS_ERR_USAGE, "live stats many: the %s pointer is NULL", m ? "out" : "session");
    size_t nc = m->n_combos;
    for (size_t i = 0; i < m->n_symbols; i++) live_stats_of(m->s[i], out + i * nc);
    return HS_OK;
}

hs_status hs_live_many_equity(const hs_live_many *m, double *equity, double *mtm_max_drawdown, hs_error *err) {
    if (!m) return hs_fail(err, HS_ERR_USAGE, "live equity many: the session is NULL");
    hs_status st = live_mtm_asked(m->s[0], mtm_max_drawdown, err);
    if (st != HS_OK) return st;
    size_t nc = m->n_combos;
    for (size_t i = 0; i < m->n_symbols; i++)
        live_equity_of(m->s[i], equity ? equity + i * nc : NULL, mtm_max_drawdown ? mtm_max_drawdown + i * nc : NULL);
    return HS_OK;
}

size_t hs_live_many_symbols(const hs_live_many *m) { return m ? m->n_symbols : 0; }
