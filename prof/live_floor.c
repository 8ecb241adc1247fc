/* live_floor — the floors under one many-symbol live call (hs_live_many_append, reports/live.md).
 *
 * A call of S symbols x the default 80 combos touches a fixed set of state: per symbol its session's
 * close tail and local maximum, per group of V symbols (the ISA's lanes) the interleaved close tail, the
 * shared close sums, and per (group, combo) the combo's record, its two smoothing sums and one slot of each
 * raw ring; the books of the lanes that cross; and the results pass (books in, outputs out).  This program
 * lays out that state as src/live/live_many.c does (sym_group_init: the same allocations and sizes,
 * sizeof(live_sym_combo) from live_lanes.h) and runs two loops over it, each timed per call like
 * live_bench:
 *
 *   memory floor:  every byte the real call loads or stores, in the same order and with the same
 *                  prefetches, loaded (and stored back unchanged where the call writes), no arithmetic;
 *   compute floor: the call's arithmetic — the ISA's own kernels (hs_live_wins_step, hs_live_sym_step,
 *                  hs_live_results) and the books' steps — over state small enough to stay in L1/L2 (one
 *                  group's close tail and close sums, eight combo records whose rings alias one buffer).
 *
 * Which books cross is recorded first from a real session over the same walks as live_bench (symbol s:
 * seed 42 + s, history one bar past the longest combo's lookback) and replayed.  It also prints the bytes
 * per call by kind, counted in 64-byte lines (each line once per kind and call).  Lanes that keep exact
 * tails (flat or ulp prices) are not modelled: on the walk there are next to none.
 *
 *   live_floor [--symbols 500] [--calls 200] [--drop KIND,...]
 *
 * --drop leaves kinds out of the memory floor (symbol gclose wins record sums ring books results output), to
 * see what each costs.
 *
 * A measurement tool, not part of the product.  The group layout is the session's own (src/live/live_many.h:
 * live_sym_group, the arena's cut, SYM_AHEAD, LIVE_BOOK_ARRAYS, checked against live_books in live_many.c),
 * so it cannot drift; the traversal below follows sym_group_step by hand (its ctest checks that it runs,
 * not its times). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certify.h"
#include "hmasweep.h"
#include "isa.h"
#include "live_lanes.h"
#include "live_many.h"

#define LIVE_FLOOR_DECLARE(k, isa, ...)                                                                            \
    live_sym_step hs_live_sym_step__##isa;                                                                       \
    live_wins_step hs_live_wins_step__##isa;                                                                     \
    live_results_fn hs_live_results__##isa;                                                                      \
    int hs_live_lanes_width__##isa(void);
HS_ISA_LIST(LIVE_FLOOR_DECLARE, ~)

typedef struct {
    live_sym_step_fn sym_step;
    live_wins_step_fn wins_step;
    live_results_fn *results;
    int (*width)(void);
} kernels;

/* The default ISA's kernels, as live.c's lanes_kernel_of picks them. */
static kernels kernels_of(hs_isa isa) {
    static const kernels built[HS_ISA_COUNT] = {
#define LIVE_FLOOR_IF_BUILT(k, isa, ISA, ...)                                                                       \
    {HS_IF_BUILT(ISA, hs_live_sym_step__##isa), HS_IF_BUILT(ISA, hs_live_wins_step__##isa),                      \
     HS_IF_BUILT(ISA, hs_live_results__##isa), HS_IF_BUILT(ISA, hs_live_lanes_width__##isa)},
        HS_ISA_LIST(LIVE_FLOOR_IF_BUILT, ~)};
    if ((unsigned)isa >= HS_ISA_COUNT || !built[isa].sym_step) isa = HS_ISA_SCALAR;
    return built[isa];
}

/* ---- the layout --------------------------------------------------------------------------------------- */
/* The session's own layout (src/live/live_many.h, shared with live_many.c): the group record, the arena's
 * cut, how far ahead the step prefetches, the books' arrays.  Only the fields below are set here. */
enum { NC = HS_DEFAULT_GRID_COUNT, N_BOOK_ARRAYS = LIVE_BOOK_ARRAYS, AHEAD = SYM_AHEAD };
typedef live_sym_group group;

typedef struct {
    double *tail;      /* the symbol's close tail (2·history doubles) */
    double *rec;       /* its session's hot fields: close tail and local maximum (live_bar_push), 128 bytes */
    double *book[N_BOOK_ARRAYS];
    hs_stats *stats;
} symbol;

typedef struct {
    size_t S, G, calls, history;
    int V;
    kernels k;
    live_consts cst[NC];
    live_win win[5 * NC];
    size_t n_win, keep;
    uint32_t slot[5 * NC];
    group *g;
    symbol *sym;
    double *out_pnl, *out_trades;
    int8_t *out_pos;
    uint8_t *crossed;
    uint8_t *pattern; /* [calls][S·NC]: 1 where (symbol, combo) crossed at that call of the real session */
    size_t pattern_calls;
    uint32_t **cross; /* per recorded call, its crossings in traversal order: ((group·NC + combo) << 3) | lane,
                       * ending in UINT32_MAX (a cursor instead of a test per lane: the floor's own overhead) */
} model;

static void consts_of(const hs_windows *win, live_consts *c) {
    const int64_t *w = win->w;
    const int64_t lens[SUM_COUNT] = {w[0], w[1], w[3], w[4], w[5], w[2], w[5]};
    for (int k = 0; k < SUM_COUNT; k++) {
        c->w[k] = lens[k];
        c->wd[k] = (double)lens[k];
        c->inv[k] = 1.0 / hs_wma_denom(lens[k]);
    }
    c->coef = certify_threshold_eps(1.0, w, eps_slide) / 4.0; /* tau = 4·(coef·M), certify.h's, at M = 1 */
    c->range_max = 1e300; /* the walk's prices are far inside certify_in_range */
}

/* The distinct close windows and each combo's five slots (live_many.h's sym_windows, the session's own), and
 * the closes a group keeps (the longest close window + 1, as hs_live_many_open's close_keep). */
static void windows_of(model *m) {
    static const int sums[5] = {SUM_W0, SUM_W1, SUM_W3, SUM_W4, SUM_W5};
    sym_windows(m->cst, NC, m->win, &m->n_win, m->slot);
    m->keep = 1;
    for (size_t c = 0; c < NC; c++)
        for (int j = 0; j < 5; j++) m->keep = hs_max_size(m->keep, (size_t)m->cst[c].w[sums[j]] + 1);
}

static void *zalloc(size_t bytes) {
    void *p = aligned_alloc(64, live_round64(bytes ? bytes : 1));
    if (p) memset(p, 0, live_round64(bytes ? bytes : 1));
    return p;
}

/* Group gi's allocations, as sym_group_init sizes them. */
static int group_alloc(model *m, group *G) {
    size_t V = (size_t)m->V, wsums = 2 * m->n_win * V, sums = 4 * V;
    size_t head = sym_arena_head_doubles(m->n_win, NC, m->V), arena = head;
    for (size_t c = 0; c < NC; c++) arena += sym_ring_doubles(&m->cst[c], m->V);
    G->close = zalloc(2 * m->keep * V * sizeof(double));
    G->arena = zalloc(arena * sizeof(double));
    G->combo = zalloc(NC * sizeof *G->combo);
    G->since = zalloc(m->n_win * sizeof *G->since);
    if (!G->close || !G->arena || !G->combo || !G->since) return 0;
    G->wsums = G->arena;
    double *at = G->arena + head;
    for (size_t c = 0; c < NC; c++) {
        live_sym_combo *sc = &G->combo[c];
        sc->sums = G->arena + wsums + c * sums;
        sc->raw = at;
        sc->raw3 = at + (size_t)m->cst[c].w[SUM_HMA] * V;
        at += sym_ring_doubles(&m->cst[c], m->V);
        sc->entered = 1;
    }
    for (size_t i = 0; i < m->n_win; i++) G->since[i] = (uint16_t)(i * 37 % SLIDE_BLOCK);
    for (size_t e = 0; e < 2 * m->keep * V; e++) G->close[e] = 100.0 + (double)(e % 7);
    return 1;
}

static int symbol_alloc(model *m, symbol *s) {
    s->tail = zalloc(2 * m->history * sizeof(double));
    s->rec = zalloc(128);
    s->stats = zalloc(NC * sizeof *s->stats);
    int ok = s->tail && s->rec && s->stats;
    for (int a = 0; a < N_BOOK_ARRAYS; a++) ok = ok && (s->book[a] = zalloc(NC * sizeof(double))) != NULL;
    return ok;
}

/* ---- touching: one traversal, counting lines or loading and storing them ----------------------------- */
enum { K_SYMBOL, K_GCLOSE, K_WINS, K_RECORD, K_SUMS, K_RING, K_BOOKS, K_RESULTS, K_OUTPUT, K_KINDS };
static const char *const kind_flag[K_KINDS] = {"symbol", "gclose", "wins", "record", "sums",
                                                "ring", "books", "results", "output"};
static const char *const kind_name[K_KINDS] = {
    "symbol sessions (close tail, local max)", "group close tails (push, window reads)", "shared close sums + since",
    "combo records (live_sym_combo)", "combo smoothing sums", "raw/raw3 ring slots", "books of crossing lanes",
    "results pass: books read", "outputs (pnl, trades, position, crossed)"};

typedef struct {
    uintptr_t *line[K_KINDS];
    size_t n[K_KINDS], cap[K_KINDS];
    size_t stored[K_KINDS];
} counter;

static unsigned dropped; /* kinds (bit k) the memory floor leaves out (--drop): what each kind costs */

static void count_lines(counter *count_on, int kind, const void *p, size_t bytes, int store) {
    uintptr_t a = (uintptr_t)p / 64, b = ((uintptr_t)p + bytes - 1) / 64;
    for (uintptr_t l = a; l <= b; l++) {
        if (count_on->n[kind] == count_on->cap[kind]) {
            count_on->cap[kind] = count_on->cap[kind] ? 2 * count_on->cap[kind] : 1024;
            count_on->line[kind] = realloc(count_on->line[kind], count_on->cap[kind] * sizeof(uintptr_t));
        }
        count_on->line[kind][count_on->n[kind]++] = l * 2 + (uintptr_t)store;
    }
}

typedef double v2 __attribute__((vector_size(16)));
/* The register class that keeps a loaded value live without arithmetic: SSE on x86, the SIMD/FP registers on
 * aarch64 (clang rejects "x" there for a double), memory elsewhere. */
#if defined(__aarch64__)
#define FLOOR_KEEP "+w"
#elif defined(__x86_64__) || defined(__i386__)
#define FLOOR_KEEP "+x"
#else
#define FLOOR_KEEP "+m"
#endif

/* Load `bytes` (a multiple of 8) at p, and store them back unchanged when `store`: the real call's traffic
 * without its arithmetic.  The empty asm keeps the compiler from dropping either. */
#define touch(kind, p, bytes, store) touch_as(count_on, dropped, kind, p, bytes, store)
static inline __attribute__((always_inline)) void touch_as(counter *count_on, unsigned dropped, int kind, void *p,
                                                           size_t bytes, int store) {
    if (count_on) {
        count_lines(count_on, kind, p, bytes, store);
        return;
    }
    if (dropped >> kind & 1) return;
    char *c = p;
    size_t i = 0;
    for (; i + 16 <= bytes; i += 16) {
        v2 v;
        memcpy(&v, c + i, 16);
        __asm__ volatile("" : FLOOR_KEEP(v));
        if (store) memcpy(c + i, &v, 16);
    }
    for (; i < bytes; i += 8) {
        double v;
        memcpy(&v, c + i, 8);
        __asm__ volatile("" : FLOOR_KEEP(v));
        if (store) memcpy(c + i, &v, 8);
    }
}

/* One call of the memory floor: live_many.c's hs_live_many_append, sym_group_step and live_results, in order;
 * with `count_on`, the lines it would touch are counted instead; kinds in `dropped` are left out.  Always
 * inlined into the three callers below, so the floor itself tests neither. */
static inline __attribute__((always_inline)) void memory_call_as(model *m, size_t t, counter *count_on,
                                                                 unsigned dropped) {
    size_t V = (size_t)m->V, keep = m->keep;
    const uint32_t *cross = m->cross[t % m->pattern_calls];
    size_t tail_at = m->history + t % m->history, last = keep + t % keep; /* the newest entries */
    if (count_on) count_lines(count_on, K_OUTPUT, m->crossed, m->S * NC, 1);
    else if (!(dropped >> K_OUTPUT & 1)) memset(m->crossed, 0, m->S * NC);
    for (size_t gi = 0; gi < m->G; gi++) {
        group *G = &m->g[gi];
        size_t first = gi * V, lanes = m->S - first < V ? m->S - first : V;
        for (size_t l = 0; l < lanes; l++) { /* live_bar_push */
            symbol *s = &m->sym[first + l];
            touch(K_SYMBOL, s->rec, 88, 1);
            touch(K_SYMBOL, s->tail + tail_at, 8, 1);
        }
        touch(K_GCLOSE, G->close + last * V, V * 8, 1);
        touch(K_WINS, G->since, m->n_win * sizeof *G->since, 1);
        for (size_t i = 0; i < m->n_win; i++) { /* hs_live_wins_step */
            touch(K_WINS, G->wsums + i * 2 * V, 2 * V * 8, 1);
            touch(K_GCLOSE, G->close + (last - (size_t)m->win[i].w) * V, V * 8, 0);
        }
        for (size_t c = 0; c < NC; c++) {
            live_sym_combo *sc = &G->combo[c];
            if (c + AHEAD < NC && !count_on) { /* sym_group_step's prefetch, AHEAD combos ahead */
                const live_sym_combo *ahead = &G->combo[c + AHEAD];
                if (!(dropped >> K_RING & 1)) {
                    __builtin_prefetch(ahead->raw + (size_t)ahead->raw_pos * V, 1);
                    __builtin_prefetch(ahead->raw3 + (size_t)ahead->raw3_pos * V, 1);
                }
                if (!(dropped >> K_SUMS & 1))
                    for (size_t b = 0; b < 4 * V; b += 8) __builtin_prefetch(ahead->sums + b, 1);
            }
            touch(K_RECORD, sc, sizeof *sc, 1);
            touch(K_SUMS, sc->sums, 4 * V * 8, 1);
            touch(K_RING, sc->raw + (size_t)sc->raw_pos * V, V * 8, 1);
            touch(K_RING, sc->raw3 + (size_t)sc->raw3_pos * V, V * 8, 1);
            /* ring_push's wrap, and its prefetch of the next call's slots */
            if (!(dropped >> K_RING & 1) || !(dropped >> K_RECORD & 1)) {
                sc->raw_pos = sc->raw_pos + 1 == (uint32_t)m->cst[c].w[SUM_HMA] ? 0 : sc->raw_pos + 1;
                sc->raw3_pos = sc->raw3_pos + 1 == (uint32_t)m->cst[c].w[SUM_HMA3] ? 0 : sc->raw3_pos + 1;
            }
            if (!count_on && !(dropped >> K_RING & 1)) {
                __builtin_prefetch(sc->raw + (size_t)sc->raw_pos * V, 1);
                __builtin_prefetch(sc->raw3 + (size_t)sc->raw3_pos * V, 1);
            }
            for (uint32_t key = (uint32_t)(gi * NC + c); *cross >> 3 == key; cross++) { /* lane_book where it crosses */
                size_t sy = first + (*cross & 7);
                symbol *s = &m->sym[sy];
                for (int a = 0; a < N_BOOK_ARRAYS; a++) touch(K_BOOKS, s->book[a] + c, 8, 1);
                touch(K_BOOKS, s->stats + c, sizeof *s->stats, 1);
                touch(K_OUTPUT, m->crossed + sy * NC + c, 1, 1);
            }
        }
        for (size_t l = 0; l < lanes; l++) { /* live_results: pos, entry, pnl, trades in; three outputs */
            size_t sy = first + l;
            symbol *s = &m->sym[sy];
            static const int read[4] = {0, 1, 3, 4}; /* pnl, entry, pos, trades */
            for (int a = 0; a < 4; a++) touch(K_RESULTS, s->book[read[a]], NC * 8, 0);
            touch(K_OUTPUT, m->out_pnl + sy * NC, NC * 8, 1);
            touch(K_OUTPUT, m->out_trades + sy * NC, NC * 8, 1);
            touch(K_OUTPUT, m->out_pos + sy * NC, NC, 1);
        }
    }
}

static __attribute__((noinline)) void memory_call(model *m, size_t t) { memory_call_as(m, t, NULL, 0); }
static __attribute__((noinline)) void memory_call_drop(model *m, size_t t) { memory_call_as(m, t, NULL, dropped); }
static void memory_call_count(model *m, size_t t, counter *c) { memory_call_as(m, t, c, 0); }

/* ---- the compute floor: the call's arithmetic over state that stays in L1/L2 ----------------------------- */
enum { HOT_COMBOS = 8 };
typedef struct {
    double *close, *wsums, *ring, *sums;
    uint16_t *since;
    live_sym_combo sc[NC]; /* their own ring positions; the sums rotate over HOT_COMBOS, the rings alias */
    hs_book book[HOT_COMBOS];
    double pos[NC], entry[NC], pnl[NC], mx[LIVE_LANES_MAX];
    int64_t trades[NC];
    double out_pnl[NC];
    int64_t out_trades[NC];
    int8_t out_pos[NC];
} hot_state;

static int hot_alloc(model *m, hot_state *h) {
    size_t V = (size_t)m->V, wmax = 1;
    for (size_t c = 0; c < NC; c++)
        wmax = hs_max_size(wmax, (size_t)hs_max_size((size_t)m->cst[c].w[SUM_HMA], (size_t)m->cst[c].w[SUM_HMA3]));
    memset(h, 0, sizeof *h);
    h->close = zalloc((m->keep + 1) * V * sizeof(double));
    h->wsums = zalloc(2 * m->n_win * V * sizeof(double));
    h->ring = zalloc(wmax * V * sizeof(double));
    h->sums = zalloc(HOT_COMBOS * 4 * V * sizeof(double));
    h->since = zalloc(m->n_win * sizeof *h->since);
    if (!h->close || !h->wsums || !h->ring || !h->sums || !h->since) return 0;
    for (size_t e = 0; e < (m->keep + 1) * V; e++) h->close[e] = 100.0 + 0.01 * (double)(e % 13);
    for (size_t i = 0; i < m->n_win; i++) h->since[i] = (uint16_t)(i * 37 % SLIDE_BLOCK);
    for (size_t c = 0; c < NC; c++)
        h->sc[c] = (live_sym_combo){h->sums + c % HOT_COMBOS * 4 * V, h->ring, h->ring, 0, 0, 0, 1, {0, 0, 0}};
    for (int q = 0; q < HOT_COMBOS; q++) {
        h->book[q] = (hs_book){0.5, 100.0, 0.0, 0, 1, hs_keep(HS_DEFAULT_FEE), 0, 0.0, {0, 0, 0, 0, 0, 0}};
    }
    for (size_t c = 0; c < NC; c++) h->pos[c] = c % 2 ? 1.0 : -1.0, h->entry[c] = 100.0;
    for (int l = 0; l < LIVE_LANES_MAX; l++) h->mx[l] = 110.0;
    return 1;
}

/* Everything main allocated (LeakSanitizer runs the ctest smoke in CI's ASan step). */
static void model_free(model *m, hot_state *h) {
    if (h) free(h->close), free(h->wsums), free(h->ring), free(h->sums), free(h->since), free(h);
    for (size_t g = 0; m->g && g < m->G; g++)
        free(m->g[g].close), free(m->g[g].arena), free(m->g[g].combo), free(m->g[g].since);
    for (size_t s = 0; m->sym && s < m->S; s++) {
        free(m->sym[s].tail), free(m->sym[s].rec), free(m->sym[s].stats);
        for (int a = 0; a < N_BOOK_ARRAYS; a++) free(m->sym[s].book[a]);
    }
    for (size_t i = 0; m->cross && i < m->pattern_calls; i++) free(m->cross[i]);
    free(m->g), free(m->sym), free(m->out_pnl), free(m->out_trades), free(m->out_pos), free(m->crossed);
    free(m->cross), free(m->pattern);
}


static void compute_call(model *m, hot_state *h, size_t t) {
    size_t V = (size_t)m->V, keep = m->keep;
    const uint32_t *cross = m->cross[t % m->pattern_calls];
    double d[LIVE_LANES_MAX], price = 100.0 + 0.001 * (double)(t % 17);
    for (size_t gi = 0; gi < m->G; gi++) {
        size_t first = gi * V, lanes = m->S - first < V ? m->S - first : V;
        for (size_t l = 0; l < lanes; l++) h->mx[l] = price > h->mx[l] ? price : h->mx[l]; /* local_max_push */
        h->close[keep * V] = price;
        m->k.wins_step(h->wsums, h->since, m->win, m->n_win, h->close, keep);
        unsigned live = (1u << lanes) - 1;
        for (size_t c = 0; c < NC; c++) {
            live_sym_combo *sc = &h->sc[c];
            int anchor = (t + c * 37 + gi * 11) % SLIDE_BLOCK == 0;
            unsigned signs, certain = m->k.sym_step(sc, &m->cst[c], h->wsums, m->slot + c * 5, h->mx, anchor, d, &signs) & live;
            /* lanes_settle: the flag test, then the books of the lanes that cross (the recorded pattern) */
            unsigned st = certain & (~sc->f.prevset | (signs ^ sc->f.prevneg)); /* lane_book's flags after it */
            sc->f.prevset |= st, sc->f.prevneg = (sc->f.prevneg & ~st) | (signs & st);
            for (uint32_t key = (uint32_t)(gi * NC + c); *cross >> 3 == key; cross++) {
                hs_book *b = &h->book[c % HOT_COMBOS];
                hs_book_step(b, b->prev > 0.0 ? -1.0 : 1.0, price, t);
                h->pos[c] = b->pos, h->entry[c] = b->entry, h->pnl[c] = b->pnl, h->trades[c] = b->trades;
            }
        }
        for (size_t l = 0; l < lanes; l++)
            m->k.results(h->pos, h->entry, h->pnl, h->trades, NC, price, hs_keep(HS_DEFAULT_FEE), h->out_pnl, h->out_trades,
                         h->out_pos);
    }
}

/* ---- the crossing pattern of a real session ------------------------------------------------------------ */
static int record_pattern(model *m, const hs_windows *w) {
    size_t n = m->history + m->pattern_calls;
    double **series = calloc(m->S, sizeof *series), *bars = malloc(m->S * sizeof *bars);
    size_t *n_hist = malloc(m->S * sizeof *n_hist);
    int ok = series && bars && n_hist;
    for (size_t s = 0; ok && s < m->S; s++) {
        series[s] = malloc(n * sizeof **series);
        n_hist[s] = m->history;
        ok = series[s] && hs_make_close(HS_DEFAULT_SEED + s, n, HS_DEFAULT_VOL, HS_DEFAULT_START, series[s], NULL) == HS_OK;
    }
    hs_live_many *lm = NULL;
    hs_error err;
    if (ok && hs_live_open_many((const double *const *)series, n_hist, m->S, w, NC, &lm, &err) != HS_OK)
        ok = 0, fprintf(stderr, "live_floor: open many: %s\n", err.msg);
    for (size_t i = 0; ok && i < m->pattern_calls; i++) {
        for (size_t s = 0; s < m->S; s++) bars[s] = series[s][m->history + i];
        ok = hs_live_append_many(lm, bars, NULL, NULL, NULL, m->pattern + i * m->S * NC, &err) == HS_OK;
    }
    hs_live_free_many(lm);
    for (size_t s = 0; series && s < m->S; s++) free(series[s]);
    free(series), free(bars), free(n_hist);
    return ok;
}

/* ---- timing and the report ------------------------------------------------------------------------------- */
static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int by_line(const void *pa, const void *pb) {
    uintptr_t a = *(const uintptr_t *)pa, b = *(const uintptr_t *)pb;
    return (a > b) - (a < b);
}

static void print_p(const char *what, double *lat, size_t n) {
    qsort(lat, n, sizeof *lat, by_value);
    printf("%-14s p50 %.2f  p90 %.2f  p99 %.2f us\n", what, lat[n / 2], lat[(size_t)(0.9 * (double)(n - 1))],
           lat[(size_t)(0.99 * (double)(n - 1))]);
}

/* The distinct lines of each kind in one call (a line loaded and stored counts once, as stored). */
static void print_bytes(model *m, size_t t) {
    counter c;
    memset(&c, 0, sizeof c);
    memory_call_count(m, t, &c);
    size_t total = 0, total_st = 0, crossings = 0;
    const uint8_t *cross = m->pattern + (t % m->pattern_calls) * m->S * NC;
    for (size_t i = 0; i < m->S * NC; i++) crossings += cross[i];
    printf("bytes one call touches (64-byte lines, each once per kind), call %zu, %zu crossing lanes:\n", t, crossings);
    for (int k = 0; k < K_KINDS; k++) {
        qsort(c.line[k], c.n[k], sizeof(uintptr_t), by_line);
        size_t lines = 0, stored = 0;
        for (size_t i = 0; i < c.n[k]; i++) {
            uintptr_t l = c.line[k][i] / 2;
            int last_of_line = i + 1 == c.n[k] || c.line[k][i + 1] / 2 != l;
            if (last_of_line) lines++, stored += c.line[k][i] & 1; /* sorted: the stored copy comes last */
        }
        printf("  %-42s %9zu B  (%zu stored)  %7.1f B per symbol\n", kind_name[k], lines * 64, stored * 64,
               (double)(lines * 64) / (double)m->S);
        total += lines * 64, total_st += stored * 64;
        free(c.line[k]);
    }
    printf("  %-42s %9zu B  (%zu stored)  %7.1f B per symbol, %.1f per symbol-combo\n", "total", total, total_st,
           (double)total / (double)m->S, (double)total / (double)(m->S * NC));
}

int main(int argc, char **argv) {
    model m;
    memset(&m, 0, sizeof m);
    m.S = 500, m.calls = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--symbols") == 0) m.S = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--calls") == 0) m.calls = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--drop") == 0) { /* kinds, comma-separated (kind_flag) */
            for (int k = 0; k < K_KINDS; k++)
                if (strstr(argv[i + 1], kind_flag[k])) dropped |= 1u << k;
        }
        else return fprintf(stderr, "live_floor: unknown option %s\n", argv[i]), 2;
    }
    if (argc % 2 == 0 || !m.S || !m.calls) return fprintf(stderr, "usage: live_floor [--symbols N] [--calls N]\n"), 2;
    hs_isa isa;
    hs_error err;
    if (hs_isa_default(&isa, &err) != HS_OK) return fprintf(stderr, "live_floor: %s\n", err.msg), 1;
    m.k = kernels_of(isa);
    m.V = m.k.width();
    int64_t lengths[NC];
    hs_windows w[NC];
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, NC, lengths, NULL);
    int64_t lookback = 0;
    for (size_t c = 0; c < NC; c++) {
        hs_windows_from_length(lengths[c], &w[c], NULL);
        consts_of(&w[c], &m.cst[c]);
        int64_t b = hs_signal_lookback(&w[c]);
        lookback = b > lookback ? b : lookback;
    }
    m.history = (size_t)lookback + 1; /* live_bench's default */
    windows_of(&m);
    m.G = (m.S + (size_t)m.V - 1) / (size_t)m.V;
    m.pattern_calls = m.calls < 64 ? m.calls : 64;
    m.pattern = calloc(m.pattern_calls * m.S, NC);
    if (!m.pattern || !record_pattern(&m, w)) return fprintf(stderr, "live_floor: recording the crossings failed\n"), model_free(&m, NULL), 1;
    if (!(m.cross = calloc(m.pattern_calls, sizeof *m.cross))) return model_free(&m, NULL), 1;
    for (size_t i = 0; i < m.pattern_calls; i++) {
        const uint8_t *p = m.pattern + i * m.S * NC;
        size_t n = 0;
        for (size_t x = 0; x < m.S * NC; x++) n += p[x];
        if (!(m.cross[i] = malloc((n + 1) * sizeof **m.cross))) return model_free(&m, NULL), 1;
        n = 0;
        for (size_t gi = 0; gi < m.G; gi++)
            for (size_t c = 0; c < NC; c++)
                for (size_t l = 0; l < (size_t)m.V && gi * (size_t)m.V + l < m.S; l++)
                    if (p[(gi * (size_t)m.V + l) * NC + c]) m.cross[i][n++] = (uint32_t)((gi * NC + c) << 3 | l);
        m.cross[i][n] = UINT32_MAX;
    }
    m.g = calloc(m.G, sizeof *m.g);
    m.sym = calloc(m.S, sizeof *m.sym);
    m.out_pnl = zalloc(m.S * NC * 8), m.out_trades = zalloc(m.S * NC * 8), m.out_pos = zalloc(m.S * NC);
    m.crossed = zalloc(m.S * NC);
    int ok = m.g && m.sym && m.out_pnl && m.out_trades && m.out_pos && m.crossed;
    for (size_t s = 0; ok && s < m.S; s++) ok = symbol_alloc(&m, &m.sym[s]);
    for (size_t g = 0; ok && g < m.G; g++) ok = group_alloc(&m, &m.g[g]);
    hot_state *h = calloc(1, sizeof *h);
    if (!ok || !h || !hot_alloc(&m, h)) return fprintf(stderr, "live_floor: out of memory\n"), model_free(&m, h), 1;
    printf("live_floor: %zu symbols x %d combos, isa %s (%d lanes, %zu groups), %zu distinct close windows, %zu calls\n",
           m.S, NC, hs_isa_name(isa), m.V, m.G, m.n_win, m.calls);
    for (int k = 0; k < K_KINDS; k++)
        if (dropped >> k & 1) printf("memory floor without: %s\n", kind_name[k]);
    print_bytes(&m, m.calls);
    double *lat = malloc(m.calls * sizeof *lat);
    if (!lat) return model_free(&m, h), 1;
    void (*call)(model *, size_t) = dropped ? memory_call_drop : memory_call;
    for (size_t t = 0; t < 2 * m.calls; t++) { /* the first half untimed (warm-up) */
        double t0 = now_us();
        call(&m, t);
        lat[t % m.calls] = now_us() - t0;
    }
    print_p("memory floor", lat, m.calls);
    for (size_t t = 0; t < 2 * m.calls; t++) {
        double t0 = now_us();
        compute_call(&m, h, t);
        lat[t % m.calls] = now_us() - t0;
    }
    print_p("compute floor", lat, m.calls);
    free(lat);
    model_free(&m, h);
    return 0;
}
