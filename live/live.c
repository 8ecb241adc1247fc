/* live — the sweep one bar at a time (docs/live.md).
 *
 * The contract: after any sequence of appends, every combo's trades and PnL equal hs_sweep over every bar
 * so far, bit for bit.  The arithmetic is the `sliding` variant's (variants/sliding.c), run forward:
 * seven running-sum WMAs per combo (five over close, one over each raw series), re-anchored by a direct
 * sum at most every SLIDE_BLOCK bars, and a sign of d trusted only where certify.h's a-priori bound says it
 * equals the sign of the tier-0 d.  Everywhere else the bar's d is recomputed in the reference's order
 * from the retained history (hma_tier0_at), so the books (kernels/tier0.h: hs_book_step) see the same
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
#include "live.h"

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
enum { SUM_W0, SUM_W1, SUM_W3, SUM_W4, SUM_W5, SUM_HMA, SUM_HMA3, SUM_COUNT };

typedef struct {
    double wd[SUM_COUNT], inv[SUM_COUNT]; /* window as a double, and 1 / denom (as sliding.c) */
    int64_t wl[SUM_COUNT];                /* window length of each running sum */
    slide_sums sum[SUM_COUNT];
    live_tail raw, raw3;
    live_tail raw_x, raw3_x;              /* raw and raw3 in the reference's order (the exact tails) */
    size_t exact_through;                 /* the newest bar in the exact tails (SIZE_MAX: not kept) */
    size_t exact_until;                   /* keep the exact tails up to this bar */
    hs_windows win;
    double coef, range_max;               /* tau = 4·(coef·M) for M <= range_max (certify_threshold_eps) */
    size_t raw_first, raw3_first;         /* first bar (global index) where raw / raw3 are defined */
    size_t hma_first, hma3_first, start;  /* ... HMA, HMA3, and d */
    unsigned since_anchor;                /* bars since the sums were last re-anchored */
    hs_book book;
} live_combo;

/* The largest close of the last `lookback` bars or more: the current chunk's running maximum and the
 * maxima of the `k` chunks before it (a ring), whose maximum is refreshed once per chunk. */
typedef struct {
    double cur, ring_max, *ring;
    size_t cur_len, k, pos;
} live_local_max;

struct hs_live {
    live_tail close;
    live_local_max m;
    size_t bars;
    size_t n_combos;
    live_combo *combos;
};

static void combo_init_windows(live_combo *c, const hs_windows *win) {
    const int64_t *w = win->w;
    const int64_t lens[SUM_COUNT] = {w[0], w[1], w[3], w[4], w[5], w[2], w[5]};
    c->win = *win;
    for (int k = 0; k < SUM_COUNT; k++) {
        c->wl[k] = lens[k];
        c->wd[k] = (double)lens[k];
        c->inv[k] = 1.0 / hs_wma_denom(lens[k]);
    }
    /* Where the reference's arrays stop being NaN, for any six windows (no ordering assumed). */
    hs_first_bars f = hs_first_bars_of(w);
    c->raw_first = f.raw, c->raw3_first = f.raw3, c->hma_first = f.hma, c->hma3_first = f.hma3, c->start = f.start;
    c->book = hs_book_new();
    c->coef = pipeline_bound(w, eps_slide) + pipeline_bound(w, eps_tier0) + 8.0 * 0x1p-53;
    int64_t wmax = 1;
    for (int k = 0; k < 6; k++) wmax = w[k] > wmax ? w[k] : wmax;
    c->range_max = DBL_MAX / (16.0 * hs_wma_denom(wmax));
    c->exact_through = SIZE_MAX;
}

/* certify_threshold_eps(m, w, eps_slide), with the combo's constants computed once. */
static inline double combo_tau(const live_combo *c, double m) {
    return m >= 0x1p-900 && m <= c->range_max ? 4.0 * (c->coef * m) : INFINITY;
}

/* Closes a combo needs behind the newest: the tier-0 recompute of d reads raw_first + w2 (and
 * raw3_first + w5) bars, a slide reads the value w bars back. */
static size_t combo_close_history(const live_combo *c) {
    size_t need = hs_max_size(c->hma_first, c->hma3_first) + 1;
    for (int k = SUM_W0; k <= SUM_W5; k++) need = hs_max_size(need, (size_t)c->wl[k] + 1);
    return need;
}

/* One running sum over the tail t at this bar: anchored directly on its first bar and whenever the combo
 * re-anchors, otherwise slid by one.  `first` is the sum's first bar. */
static inline void sum_update(live_combo *c, int k, const live_tail *t, size_t bar, size_t first, int anchor) {
    size_t i = tail_last(t);
    if (bar == first || anchor)
        c->sum[k] = slide_anchor(t->p, i, c->wl[k]);
    else
        slide_step(&c->sum[k], c->wd[k], t->p[i], t->p[i - (size_t)c->wl[k]]);
}

static inline double sum_wma(const live_combo *c, int k) { return c->sum[k].s2 * c->inv[k]; }

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
    c->exact_until = bar + (size_t)(w[2] > w[5] ? w[2] : w[5]);
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

/* The newest bar through every combo; crossed[c] |= a cross happened here. */
static void live_step(hs_live *s, double price, uint8_t *crossed) {
    tail_push(&s->close, price);
    double m = local_max_push(&s->m, price);
    size_t bar = s->bars++;
    for (size_t c = 0; c < s->n_combos; c++) {
        live_combo *lc = &s->combos[c];
        double d = combo_d(lc, &s->close, bar, m);
        if (d != d) continue; /* docs/spec.md §4: NaN bars are skipped */
        int before = lc->book.pos;
        hs_book_step(&lc->book, d, price);
        /* A cross always changes the position: an open position always has prev's sign, and a cross
         * opens the opposite one. */
        if (crossed && lc->book.pos != before) crossed[c] = 1;
    }
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

size_t hs_live_bytes_for(const hs_windows *combos, size_t n_combos) {
    size_t history = 1, doubles = 0, ring = 1;
    for (size_t c = 0; c < n_combos; c++) {
        combo_tails t = tails_of(&combos[c]);
        doubles += 2 * 2 * (t.raw + t.raw3); /* the sliding and the exact tails; tail_init: twice the length */
        ring = hs_max_size(ring, lookback_chunks(&combos[c]));
        history = hs_max_size(history, t.close);
    }
    return sizeof(hs_live) + n_combos * sizeof(live_combo) + (doubles + 2 * history + ring) * sizeof(double);
}

static hs_live *live_alloc(const hs_windows *combos, size_t n_combos) {
    hs_live *s = calloc(1, sizeof *s);
    if (!s) return NULL;
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
    if (!s->m.ring) return hs_live_free(s), NULL;
    return s;
}

hs_status hs_live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos, hs_live **out,
                       hs_error *err) {
    if (!out) return hs_fail(err, HS_ERR_USAGE, "live open: the session pointer is NULL");
    *out = NULL;
    hs_status st = hs_check_series(close, n_bars, err);
    if (st != HS_OK) return st;
    if (n_combos == 0) return hs_fail(err, HS_ERR_USAGE, "live open: no combos (n_combos = 0)");
    if (!combos) return hs_fail(err, HS_ERR_USAGE, "live open: the combos pointer is NULL (n_combos = %zu)", n_combos);
    if (n_combos > SIZE_MAX / sizeof(live_combo))
        return hs_fail(err, HS_ERR_USAGE, "live open: too many combos (%zu)", n_combos);
    st = check_live_windows(combos, n_combos, err);
    if (st != HS_OK) return st;
    hs_live *s = live_alloc(combos, n_combos);
    if (!s) return hs_fail(err, HS_ERR_NOMEM, "live open: out of memory for %zu combos", n_combos);
    for (size_t i = 0; i < n_bars; i++) live_step(s, close[i], NULL);
    *out = s;
    return HS_OK;
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
    double last = bars[k - 1];
    for (size_t c = 0; c < s->n_combos; c++) {
        hs_book b = s->combos[c].book;
        if (position) position[c] = (int8_t)b.pos;
        hs_result r = hs_book_finish(&b, last); /* docs/spec.md §4's close at the end, on a copy */
        if (pnl) pnl[c] = r.pnl;
        if (trades) trades[c] = r.trades;
    }
    return HS_OK;
}

size_t hs_live_combos(const hs_live *s) { return s ? s->n_combos : 0; }

size_t hs_live_bars(const hs_live *s) { return s ? s->bars : 0; }
