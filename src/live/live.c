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
#include "live_session.h"
#include "variant.h"


static int tail_init(live_tail *t, size_t keep) {
    *t = (live_tail){NULL, 0, 2 * keep, keep};
    t->p = malloc(t->cap * sizeof *t->p);
    return t->p != NULL;
}



/* ---- one combo's state ------------------------------------------------------------------------------ */






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
double live_combo_d(live_combo *c, const live_tail *close, size_t bar, double m) {
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
void live_lanes_exact_extend(const lane_map *mp, live_lane_flags *f) {
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
void live_lanes_exact_books(const lane_map *mp, live_lane_flags *f, unsigned amb) {
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



/* One bar through a group: the scalar path per combo before every lane has a d, the vector step after. */
static void group_step(hs_live *s, live_group *g, size_t bar, double m, uint8_t *crossed) {
    lane_map mp = {&s, 0, g->first, 1, crossed, 0};
    if (bar < g->start) {
        for (int l = 0; l < g->lanes; l++) lane_book(&mp, &g->f, l, live_combo_d(&s->combos[g->first + (size_t)l], &s->close, bar, m));
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


/* The newest bar through every combo; crossed[c] |= a cross happened here.  A session without groups (a
 * symbol of a many-symbol session, before its combos run in symbol lanes) takes the scalar path. */

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
            for (size_t c = 0; c < s->n_combos; c++) combo_book(s, c, live_combo_d(&s->combos[c], &s->close, bar, m), crossed);
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
hs_status live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
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
void live_results(const live_lanes_kernel *k, const live_books *b, size_t n, double last, double *pnl,
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
void live_stats_of(const hs_live *s, hs_stats *out) {
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
void live_equity_of(const hs_live *s, double *equity, double *mtm) {
    if (equity) live_results(&s->k, &s->books, s->n_combos, newest_price(s), equity, NULL, NULL);
    if (mtm) memcpy(mtm, s->books.mtm_mdd, s->n_combos * sizeof *mtm);
}

hs_status live_mtm_asked(const hs_live *s, const double *mtm, hs_error *err) {
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
