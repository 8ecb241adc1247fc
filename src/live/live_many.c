/* live_many — the many-symbol live session (docs/live.md "Many symbols"): hs_live_many_open, hs_live_many_append
 * and the rest of that family.  Each symbol keeps a one-symbol session without groups (live.c, through
 * live_session.h); the symbols run in vector lanes in groups laid out as live_many.h says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "certify.h"
#include "error.h"
#include "hmasweep.h"
#include "live_lanes.h"
#include "live_many.h"
#include "live_session.h"

/* The first LIVE_BOOK_ARRAYS pointers of live_books are the arrays a book step touches, in live_many.h's
 * order; prof/live_floor.c lays out that many per symbol. */
_Static_assert(offsetof(live_books, pnl) == 0 && offsetof(live_books, peak) == (LIVE_BOOK_ARRAYS - 1) * sizeof(double *) &&
                   offsetof(live_books, mtm_peak) == LIVE_BOOK_ARRAYS * sizeof(double *),
               "live_books: pnl entry prev pos trades first_bar peak, then mtm_peak (live_many.h LIVE_BOOK_ARRAYS)");

/* ---- many symbols: symbols in vector lanes (live_lanes.h) ----------------------------------------------
 * Every symbol keeps a session without groups (its close tail, local maximum, books and exact tails; and,
 * until a combo runs in symbol lanes, that combo's scalar-path sums and tails, freed then).  Symbols are
 * grouped by the ISA's lanes (the last group padded with its first symbol, never read back); a group's
 * closes are one interleaved tail, and each combo runs in the group's lanes from the first call where every
 * symbol of the group has a d for it (before: the scalar path per symbol, as a one-symbol session's
 * warm-up).  Certification, recompute and books are the one-symbol session's (lanes_settle). */

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

/* Group gi: its symbols' closes so far (as far back as close_keep) into the interleaved tail, and its
 * combos' blocks. */
static int sym_group_init(hs_live_many *m, size_t gi) {
    live_sym_group *G = &m->groups[gi];
    int V = m->k.width;
    G->first = gi * (size_t)V;
    G->lanes = (int)(m->n_symbols - G->first < (size_t)V ? m->n_symbols - G->first : (size_t)V);
    size_t keep = m->close_keep, wsums = 2 * m->n_win * (size_t)V, sums = 4 * (size_t)V;
    size_t arena = sym_arena_head_doubles(m->n_win, m->n_combos, V);
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
    double *at = G->arena + sym_arena_head_doubles(m->n_win, m->n_combos, V);
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
                    combo_book(s, c, live_combo_d(&s->combos[c], &s->close, s->bars - 1, mv[l]), lane_crossed(&mp, l));
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
    if (ok) sym_windows(m->cst, m->n_combos, m->win, &m->n_win, m->slot);
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
