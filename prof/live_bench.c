/* live_bench — the latency of one live append (docs/live.md), in process or over `hmasweep serve`.
 *
 * The default series extended to history + appends bars (its first 150,000 bars are the canonical ones:
 * the generator is a running sum), the default 80 combos.  A session opens over the first `history` bars
 * and then takes `appends` one-bar appends, each timed alone (CLOCK_MONOTONIC around the call).  At the
 * end the session's pnl and trades are compared with a batch sweep (hs_sweep, `unchecked`) over every
 * bar: "identical" is bit for bit, all combos.
 *
 *   live_bench [--history 200] [--appends 150000] [--url unix:PATH|tcp://H:P|shm:NAME] [--label TEXT]
 *   live_bench --symbols N [--history 200] [--appends 2000] [--label TEXT]
 *
 * --symbols N: a multi-symbol session (hs_live_open_many), symbol s over the walk of seed 42 + s; each
 * timed call appends one bar to every symbol (hs_live_append_many), and at the end every symbol's pnl and
 * trades are compared bit for bit with a batch sweep over its series (hs_sweep with the default variant,
 * tier 0: the gates hold it bit-identical to the reference).
 *
 * Prints one line: label, appends, p50 / p90 / p99 / p99.9 / max / mean per append in µs, identical.
 * Pinning is the caller's (taskset); prof/live_transports.sh runs the placements. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "hmasweep_client.h"

typedef struct {
    size_t history, appends, symbols;
    const char *url, *label;
} bench_args;

static int parse_args(int argc, char **argv, bench_args *a) {
    *a = (bench_args){200, 0, 0, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return fprintf(stderr, "live_bench: %s needs a value\n", argv[i]), 0;
        if (strcmp(argv[i], "--history") == 0) a->history = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--appends") == 0) a->appends = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--url") == 0) a->url = v;
        else if (strcmp(argv[i], "--symbols") == 0) a->symbols = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--label") == 0) a->label = v;
        else return fprintf(stderr, "live_bench: unknown option %s\n", argv[i]), 0;
        i++;
    }
    if (a->appends == 0) a->appends = a->symbols ? 2000 : 150000;
    if (a->symbols && a->url) return fprintf(stderr, "live_bench: --symbols is in process only (no --url)\n"), 0;
    if (a->history < HS_DEFAULT_GRID_HI)
        return fprintf(stderr, "live_bench: need --history >= %d (the longest window) and --appends >= 1\n",
                       HS_DEFAULT_GRID_HI), 0;
    return 1;
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
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
    if (!a->url) return hs_live_open(close, a->history, w, nc, &t->live, err);
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

static void report(const bench_args *a, double *lat, const char *what, long long trades0, double pnl0, int identical) {
    double mean = 0;
    for (size_t i = 0; i < a->appends; i++) mean += lat[i] / (double)a->appends;
    qsort(lat, a->appends, sizeof *lat, by_value);
    printf("%-24s %s %zu  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.1f  mean %.2f us  combo0 %lld trades %.9f  "
           "identical-to-batch %s\n",
           a->label ? a->label : (a->url ? a->url : "in-process"), what, a->appends, quantile(lat, a->appends, 0.5),
           quantile(lat, a->appends, 0.9), quantile(lat, a->appends, 0.99), quantile(lat, a->appends, 0.999),
           lat[a->appends - 1], mean, trades0, pnl0, identical ? "yes" : "NO");
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
        if (!series[s] || hs_make_close(HS_DEFAULT_SEED + s, n, HS_DEFAULT_VOL, HS_DEFAULT_START, series[s], &err) != HS_OK)
            return fprintf(stderr, "live_bench: series %zu\n", s), 1;
    }
    hs_live_many *m = NULL;
    if (hs_live_open_many((const double *const *)series, n_hist, S, w, nc, &m, &err) != HS_OK)
        return fprintf(stderr, "live_bench: open many: %s\n", err.msg), 1;
    for (size_t i = 0; i < a->appends; i++) {
        for (size_t s = 0; s < S; s++) bars[s] = series[s][a->history + i];
        double t0 = now_us();
        hs_status st = hs_live_append_many(m, bars, pnl, trades, pos, crossed, &err);
        lat[i] = now_us() - t0;
        if (st != HS_OK) return fprintf(stderr, "live_bench: append %zu: %s\n", i, err.msg), 1;
    }
    hs_live_free_many(m);
    int identical = 1;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    for (size_t s = 0; s < S && identical; s++) {
        identical = hs_sweep(series[s], n, w, nc, ref, &opt, &err) == HS_OK;
        for (size_t c = 0; identical && c < nc; c++)
            identical = ref[c].trades == trades[s * nc + c] && memcmp(&ref[c].pnl, &pnl[s * nc + c], sizeof *pnl) == 0;
    }
    char what[64];
    snprintf(what, sizeof what, "symbols %zu x combos %zu, calls", S, nc);
    report(a, lat, what, (long long)trades[0], pnl[0], identical);
    for (size_t s = 0; s < S; s++) free(series[s]);
    free(series), free(lat), free(bars), free(n_hist), free(pnl), free(trades), free(pos), free(crossed), free(ref);
    return identical ? 0 : 1;
}

int main(int argc, char **argv) {
    bench_args a;
    if (!parse_args(argc, argv, &a)) return 2;
    size_t n = a.history + a.appends, nc = HS_DEFAULT_GRID_COUNT;
    double *close = malloc(n * sizeof *close), *lat = malloc(a.appends * sizeof *lat);
    int64_t lengths[HS_DEFAULT_GRID_COUNT], trades[HS_DEFAULT_GRID_COUNT];
    hs_windows w[HS_DEFAULT_GRID_COUNT];
    double pnl[HS_DEFAULT_GRID_COUNT];
    int8_t pos[HS_DEFAULT_GRID_COUNT];
    uint8_t crossed[HS_DEFAULT_GRID_COUNT];
    hs_error err;
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, nc, lengths, NULL);
    for (size_t c = 0; c < nc; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    if (a.symbols) return free(close), free(lat), bench_many(&a, w, nc);
    if (!close || !lat || hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK)
        return fprintf(stderr, "live_bench: series: %s\n", err.msg), 1;

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
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "unchecked";
    opt.threads = 1;
    int identical = hs_sweep(close, n, w, nc, ref, &opt, &err) == HS_OK;
    for (size_t c = 0; identical && c < nc; c++)
        identical = ref[c].trades == trades[c] && memcmp(&ref[c].pnl, &pnl[c], sizeof pnl[c]) == 0;

    report(&a, lat, "appends", (long long)trades[0], pnl[0], identical);
    free(ref);
    free(close);
    free(lat);
    return identical ? 0 : 1;
}
