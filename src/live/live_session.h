/* live_session.h — the one-symbol session's state and its inline steps, shared by the two modes' files
 * (live.c: one symbol, combos in lanes; live_many.c: many symbols, symbols in lanes).  An internal header
 * of src/live/: the public API is include/hmasweep.h.
 *
 * The steps below are static inline because both files run them on every bar: lanes_settle is always
 * inlined into its callers (live.c's measurement beside it), and a call per lane or per book step would
 * cost the append what the split must not (issue 30 §4: a move changes no speed). */
#ifndef HS_LIVE_SESSION_H
#define HS_LIVE_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "certify.h"
#include "hmasweep.h"
#include "live_lanes.h"

/* ---- a tail: the newest `keep` values of a stream, contiguous in p[len-keep .. len) --------------- */
typedef struct {
    double *p;
    size_t len, cap, keep;
} live_tail;

static inline void tail_push(live_tail *t, double v) {
    if (t->len == t->cap) {
        memmove(t->p, t->p + t->len - t->keep, t->keep * sizeof *t->p);
        t->len = t->keep;
    }
    t->p[t->len++] = v;
}

static inline size_t tail_last(const live_tail *t) { return t->len - 1; }

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

/* The lanes keeping exact tails extend them by this bar, or stop keeping them; the uncertified live lanes
 * `amb` take the reference's d, then their books (live.c). */
void live_lanes_exact_extend(const lane_map *mp, live_lane_flags *f);
void live_lanes_exact_books(const lane_map *mp, live_lane_flags *f, unsigned amb);

/* After a vector step (either layout): the lanes keeping exact tails extend them (or stop), the uncertified
 * live lanes take the reference's d, and the certified lanes visit their books where the sign flips.
 * Inlined into both callers, whose lane maps are then constants: left to itself gcc stopped inlining it
 * once the many-symbol step grew, and one-symbol appends took 1.29 µs p50 instead of 1.18 µs (15 interleaved
 * reps, AVX2 EPYC). */
static inline __attribute__((always_inline)) void lanes_settle_exact(const lane_map *mp, live_lane_flags *f, unsigned live,
                                                                     unsigned certain) {
    if (f->exact) live_lanes_exact_extend(mp, f);
    if (live & ~certain) live_lanes_exact_books(mp, f, live & ~certain);
}

static inline __attribute__((always_inline)) void lanes_settle(const lane_map *mp, live_lane_flags *f, unsigned live, unsigned certain, unsigned signs,
                         const double *d) {
    lanes_settle_exact(mp, f, live, certain);
    for (unsigned st = lanes_to_book(f, certain, signs); st; st &= st - 1) {
        int l = __builtin_ctz(st);
        lane_book(mp, f, l, d[l]);
    }
}

/* The newest bar into a session's close tail and local maximum; returns its bar index, the maximum in *m. */
static inline size_t live_bar_push(hs_live *s, double price, double *m) {
    tail_push(&s->close, price);
    *m = local_max_push(&s->m, price);
    return s->bars++;
}

/* The newest bar's e of every combo into its mtm drawdown (§9.2), once its books have stepped.  Opt-in at
 * open (n_periods >= 1): it is a division per combo per bar, +13% on the p50 of a one-bar append of the
 * default 80 combos (prof/live_bench --equity: p50 median 0.43 [0.42-0.53] us against 0.38 [0.36-0.41],
 * five interleaved runs of 20,000 appends, AVX-512 Xeon, taskset -c 1), above the 5% an unused feature may
 * cost; opened without it, the append is main's (0.37-0.41 against 0.39-0.41 us, three interleaved runs). */
static inline void live_mtm(hs_live *s, double price) {
    live_books *b = &s->books;
    if (b->mtm_mdd) s->k.mtm(b->pos, b->entry, b->pnl, s->n_combos, price, b->keep, b->mtm_peak, b->mtm_mdd);
}

/* ---- defined in live.c, used by live_many.c too ------------------------------------------------------ */

/* One combo's d at `bar` through the scalar path: its sums, certified against M = m, or the reference's d. */
double live_combo_d(live_combo *c, const live_tail *close, size_t bar, double m);
/* Open one symbol's session; grouped: its combos in vector lanes (a one-symbol session), else the scalar
 * path only (a symbol of a many-symbol session). */
hs_status live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                    const hs_sweep_options *opt, int grouped, hs_live **out, hs_error *err);
/* The outputs after an append: every combo's PnL marked at `last`, trades and position. */
void live_results(const live_lanes_kernel *k, const live_books *b, size_t n, double last, double *pnl,
                  int64_t *trades, int8_t *position);
void live_stats_of(const hs_live *s, hs_stats *out);
void live_equity_of(const hs_live *s, double *equity, double *mtm);
/* HS_ERR_USAGE when mtm is asked of a session opened without periods. */
hs_status live_mtm_asked(const hs_live *s, const double *mtm, hs_error *err);

#endif
