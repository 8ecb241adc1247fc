/* live_bench — the latency of one live append (docs/live.md), in process or over `hmasweep serve`.
 *
 * The default series extended to history + appends bars (its first 150,000 bars are the canonical ones:
 * the generator is a running sum), the default 80 combos.  A session opens over the first `history` bars
 * and then takes `appends` one-bar appends, each timed alone (CLOCK_MONOTONIC around the call).  At the
 * end the session's pnl and trades are compared with a batch sweep (hs_sweep, `unchecked`) over every
 * bar: "identical" is bit for bit, all combos.
 *
 *   live_bench [--equity] [--history H] [--appends 150000] [--series KIND] [--url unix:PATH|tcp://H:P|shm:NAME] [--label TEXT]
 *   live_bench --symbols N [--per-symbol] [--history H] [--appends 2000] [--series KIND] [--label TEXT]
 *
 * --history: by default one bar past the last combo's first d (bar 212 for the default grid: the longest
 * combo's hs_signal_lookback), so every combo has a d, and runs in its vector lanes, from the first append.
 *
 * --series KIND: `walk` (the default series), or one of prof/adversarial.h's (flat, ulp, out-of-range,
 * spike, vol-0.3) over history + appends bars, the one-price events (out-of-range 1e306, spike 1e12)
 * repeated every ADV_EVERY bars from the first append, so every timed append has one within its local
 * bound's look-back.  With --symbols every symbol gets the same adversarial series (the walk: seed 42 + s).
 *
 * --symbols N: a multi-symbol session (hs_live_open_many), symbol s over the walk of seed 42 + s; each
 * timed call appends one bar to every symbol (hs_live_append_many), and at the end every symbol's pnl and
 * trades are compared bit for bit with a batch sweep over its series (hs_sweep with the default variant,
 * tier 0: the gates hold it bit-identical to the reference).  --per-symbol: the reference path instead, one
 * hs_live session per symbol (hs_live_append for each symbol within the timed call).
 *
 * Prints one line: label, appends, p50 / p90 / p99 / p99.9 / max / mean per append in µs, identical, and
 * batch_us: the reference's own cost of one bar for the same work (a batch `unchecked` sweep over the whole
 * series, one thread, divided by its bars; with --symbols, symbol 0's times N: unchecked's cost does not
 * depend on the prices), the yardstick of issue 21's "no slower than the reference by more than 3x".
 * --equity: the session keeps every combo's mtm_max_drawdown (docs/spec.md §9; opened with n_periods = 1),
 * in process, one symbol.
 * Pinning is the caller's (taskset); prof/live_transports.sh runs the placements. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "adversarial.h"
#include "hmasweep.h"
#include "hmasweep_client.h"

/* The one-price events' period: under the local bound's look-back of every default combo (lag + 2 anchor
 * intervals of 256 bars, certify.h), so no append is ever out of an event's reach. */
enum { ADV_EVERY = 512, SERIES_WALK = -1 };

typedef struct {
    size_t history, appends, symbols;
    int series, per_symbol; /* SERIES_WALK or an ADV_ kind; --per-symbol */
    int equity;             /* --equity: the session keeps mtm_max_drawdown (n_periods = 1 at open) */
    const char *url, *label;
} bench_args;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int series_kind(const char *name, int *kind) {
    if (strcmp(name, "walk") == 0) return *kind = SERIES_WALK, 1;
    for (int k = 0; k < ADV_COUNT; k++)
        if (strcmp(name, adv_names[k]) == 0) return *kind = k, 1;
    return 0;
}

static int parse_args(int argc, char **argv, bench_args *a) {
    *a = (bench_args){0, 0, 0, SERIES_WALK, 0, 0, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--per-symbol") == 0) {
            a->per_symbol = 1;
            continue;
        }
        if (strcmp(argv[i], "--equity") == 0) {
            a->equity = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return fprintf(stderr, "live_bench: %s needs a value\n", argv[i]), 0;
        if (strcmp(argv[i], "--history") == 0) a->history = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--appends") == 0) a->appends = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--url") == 0) a->url = v;
        else if (strcmp(argv[i], "--symbols") == 0) a->symbols = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--label") == 0) a->label = v;
        else if (strcmp(argv[i], "--series") == 0) {
            if (!series_kind(v, &a->series)) return fprintf(stderr, "live_bench: unknown series %s\n", v), 0;
        }
        else return fprintf(stderr, "live_bench: unknown option %s\n", argv[i]), 0;
        i++;
    }
    if (a->appends == 0) a->appends = a->symbols ? 2000 : 150000;
    if (a->symbols && a->url) return fprintf(stderr, "live_bench: --symbols is in process only (no --url)\n"), 0;
    if (a->per_symbol && !a->symbols) return fprintf(stderr, "live_bench: --per-symbol needs --symbols\n"), 0;
    return 1;
}

/* The first history long enough that every combo has a d at its last bar (so every combo runs in its lanes
 * from the first append): one past the largest hs_signal_lookback, bar 212 for the default grid. */
static size_t history_for(const hs_windows *w, size_t nc) {
    int64_t last = 0;
    for (size_t c = 0; c < nc; c++) {
        int64_t b = hs_signal_lookback(&w[c]);
        last = b > last ? b : last;
    }
    return (size_t)last + 1;
}

/* Symbol s's series (--series), n bars of which the first `history` open the session. */
static int make_series(const bench_args *a, size_t s, double *x, size_t n) {
    if (a->series == SERIES_WALK)
        return hs_make_close(HS_DEFAULT_SEED + s, n, HS_DEFAULT_VOL, HS_DEFAULT_START, x, NULL) == HS_OK;
    adv_series(a->series, x, n);
    adv_repeat_event(a->series, x, n, a->history, ADV_EVERY);
    return 1;
}

/* Microseconds per bar of a batch `unchecked` sweep (one thread) over x[0..n): the reference's own cost. */
static double batch_us_per_bar(const double *x, size_t n, const hs_windows *w, size_t nc, hs_result *out, int *ok) {
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "unchecked";
    opt.threads = 1;
    hs_error err;
    double t0 = now_us();
    *ok = hs_sweep(x, n, w, nc, out, &opt, &err) == HS_OK;
    return (now_us() - t0) / (double)n;
}

static int by_value(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double quantile(const double *sorted, size_t n, double q) { return sorted[(size_t)(q * (double)(n - 1))]; }

/* Where the appends go: an in-process session or a server's. */
typedef struct {
    hs_live *live;
    hs_client *client;
    uint32_t session;
} target;

static hs_status open_target(const bench_args *a, const double *close, const hs_windows *w, size_t nc, target *t,
                             hs_error *err) {
    memset(t, 0, sizeof *t);
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.n_periods = (size_t)a->equity;
    if (!a->url) return hs_live_open_opt(close, a->history, w, nc, &o, &t->live, err);
    hs_status st = hs_client_connect(a->url, 30000, &t->client, err);
    uint32_t h = 0;
    if (st == HS_OK) st = hs_client_load(t->client, close, a->history, &h, err);
    if (st == HS_OK) st = hs_client_live_open(t->client, h, w, nc, &t->session, err);
    if (st == HS_OK) st = hs_client_free(t->client, h, err);
    return st;
}

static hs_status append_one(target *t, const double *bar, size_t nc, double *pnl, int64_t *trades, int8_t *pos,
                            uint8_t *crossed, hs_error *err) {
    if (t->live) return hs_live_append(t->live, bar, 1, pnl, trades, pos, crossed, err);
    return hs_client_live_append(t->client, t->session, bar, 1, nc, pnl, trades, pos, crossed, err);
}

static void close_target(target *t) {
    if (t->client) hs_client_live_close(t->client, t->session, NULL);
    hs_client_close(t->client);
    hs_live_free(t->live);
}

static void report(const bench_args *a, double *lat, const char *what, long long trades0, double pnl0, int identical,
                   double batch_us) {
    double mean = 0;
    for (size_t i = 0; i < a->appends; i++) mean += lat[i] / (double)a->appends;
    qsort(lat, a->appends, sizeof *lat, by_value);
    printf("%-24s %s %zu  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.1f  mean %.2f us  combo0 %lld trades %.*g  "
           "identical-to-batch %s  batch_us %.3f\n",
           a->label ? a->label : (a->url ? a->url : "in-process"), what, a->appends, quantile(lat, a->appends, 0.5),
           quantile(lat, a->appends, 0.9), quantile(lat, a->appends, 0.99), quantile(lat, a->appends, 0.999),
           lat[a->appends - 1], mean, trades0, fabs(pnl0) < 1e9 ? 13 : 9, pnl0, identical ? "yes" : "NO", batch_us);
}

/* The symbols of a --symbols run: one multi-symbol session, or (--per-symbol) one session each. */
typedef struct {
    hs_live_many *many;
    hs_live **one;
    size_t n;
} symbols_target;

static hs_status open_symbols(const bench_args *a, double **series, const size_t *n_hist, const hs_windows *w,
                              size_t nc, symbols_target *t, hs_error *err) {
    t->n = a->symbols;
    if (!a->per_symbol) return hs_live_open_many((const double *const *)series, n_hist, a->symbols, w, nc, &t->many, err);
    t->one = calloc(a->symbols, sizeof *t->one);
    if (!t->one) return snprintf(err->msg, sizeof err->msg, "out of memory"), HS_ERR_NOMEM;
    for (size_t s = 0; s < a->symbols; s++) {
        hs_status st = hs_live_open(series[s], n_hist[s], w, nc, &t->one[s], err);
        if (st != HS_OK) return st;
    }
    return HS_OK;
}

static hs_status append_symbols(symbols_target *t, const double *bars, size_t nc, double *pnl, int64_t *trades,
                                int8_t *pos, uint8_t *crossed, hs_error *err) {
    if (t->many) return hs_live_append_many(t->many, bars, pnl, trades, pos, crossed, err);
    for (size_t s = 0; s < t->n; s++) {
        size_t at = s * nc;
        hs_status st = hs_live_append(t->one[s], &bars[s], 1, pnl + at, trades + at, pos + at, crossed + at, err);
        if (st != HS_OK) return st;
    }
    return HS_OK;
}

static void close_symbols(symbols_target *t) {
    hs_live_free_many(t->many);
    if (t->one)
        for (size_t s = 0; s < t->n; s++) hs_live_free(t->one[s]);
    free(t->one);
}

/* --symbols: one bar for each of N symbols per call. */
static int bench_many(const bench_args *a, const hs_windows *w, size_t nc) {
    size_t n = a->history + a->appends, S = a->symbols;
    double **series = calloc(S, sizeof *series), *lat = malloc(a->appends * sizeof *lat), *bars = malloc(S * sizeof *bars);
    size_t *n_hist = malloc(S * sizeof *n_hist);
    double *pnl = malloc(S * nc * sizeof *pnl);
    int64_t *trades = malloc(S * nc * sizeof *trades);
    int8_t *pos = malloc(S * nc);
    uint8_t *crossed = malloc(S * nc);
    hs_result *ref = malloc(nc * sizeof *ref);
    hs_error err;
    if (!series || !lat || !bars || !n_hist || !pnl || !trades || !pos || !crossed || !ref)
        return fprintf(stderr, "live_bench: out of memory\n"), 1;
    for (size_t s = 0; s < S; s++) {
        series[s] = malloc(n * sizeof **series);
        n_hist[s] = a->history;
        if (!series[s] || !make_series(a, s, series[s], n)) return fprintf(stderr, "live_bench: series %zu\n", s), 1;
    }
    symbols_target t = {NULL, NULL, 0};
    if (open_symbols(a, series, n_hist, w, nc, &t, &err) != HS_OK)
        return fprintf(stderr, "live_bench: open many: %s\n", err.msg), 1;
    for (size_t i = 0; i < a->appends; i++) {
        for (size_t s = 0; s < S; s++) bars[s] = series[s][a->history + i];
        double t0 = now_us();
        hs_status st = append_symbols(&t, bars, nc, pnl, trades, pos, crossed, &err);
        lat[i] = now_us() - t0;
        if (st != HS_OK) return fprintf(stderr, "live_bench: append %zu: %s\n", i, err.msg), 1;
    }
    close_symbols(&t);
    /* symbol 0 against the reference itself (timed), the others against the default variant (tier 0) */
    int identical = 1;
    double batch_us = batch_us_per_bar(series[0], n, w, nc, ref, &identical) * (double)S;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    for (size_t s = 0; s < S && identical; s++) {
        if (s > 0) identical = hs_sweep(series[s], n, w, nc, ref, &opt, &err) == HS_OK;
        for (size_t c = 0; identical && c < nc; c++)
            identical = ref[c].trades == trades[s * nc + c] && memcmp(&ref[c].pnl, &pnl[s * nc + c], sizeof *pnl) == 0;
    }
    char what[80];
    snprintf(what, sizeof what, "symbols %zu x combos %zu%s, calls", S, nc, a->per_symbol ? " (per symbol)" : "");
    report(a, lat, what, (long long)trades[0], pnl[0], identical, batch_us);
    for (size_t s = 0; s < S; s++) free(series[s]);
    free(series), free(lat), free(bars), free(n_hist), free(pnl), free(trades), free(pos), free(crossed), free(ref);
    return identical ? 0 : 1;
}

int main(int argc, char **argv) {
    bench_args a;
    if (!parse_args(argc, argv, &a)) return 2;
    size_t nc = HS_DEFAULT_GRID_COUNT;
    int64_t lengths[HS_DEFAULT_GRID_COUNT], trades[HS_DEFAULT_GRID_COUNT];
    hs_windows w[HS_DEFAULT_GRID_COUNT];
    double pnl[HS_DEFAULT_GRID_COUNT];
    int8_t pos[HS_DEFAULT_GRID_COUNT];
    uint8_t crossed[HS_DEFAULT_GRID_COUNT];
    hs_error err;
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, nc, lengths, NULL);
    for (size_t c = 0; c < nc; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    size_t first = history_for(w, nc);
    if (!a.history) a.history = first;
    if (a.history < first)
        return fprintf(stderr, "live_bench: --history %zu: the last combo's first d is bar %zu (need >= %zu)\n",
                       a.history, first - 1, first), 2;
    if (a.symbols) return bench_many(&a, w, nc);
    size_t n = a.history + a.appends;
    double *close = malloc(n * sizeof *close), *lat = malloc(a.appends * sizeof *lat);
    if (!close || !lat || !make_series(&a, 0, close, n)) return fprintf(stderr, "live_bench: series\n"), 1;

    target t;
    if (open_target(&a, close, w, nc, &t, &err) != HS_OK) return fprintf(stderr, "live_bench: open: %s\n", err.msg), 1;
    for (size_t i = 0; i < a.appends; i++) {
        double t0 = now_us();
        hs_status st = append_one(&t, &close[a.history + i], nc, pnl, trades, pos, crossed, &err);
        lat[i] = now_us() - t0;
        if (st != HS_OK) return fprintf(stderr, "live_bench: append %zu: %s\n", i, err.msg), 1;
    }
    close_target(&t);

    hs_result *ref = malloc(nc * sizeof *ref);
    int identical;
    double batch_us = batch_us_per_bar(close, n, w, nc, ref, &identical);
    for (size_t c = 0; identical && c < nc; c++)
        identical = ref[c].trades == trades[c] && memcmp(&ref[c].pnl, &pnl[c], sizeof pnl[c]) == 0;

    report(&a, lat, "appends", (long long)trades[0], pnl[0], identical, batch_us);
    free(ref);
    free(close);
    free(lat);
    return identical ? 0 : 1;
}
