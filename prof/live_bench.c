/* live_bench — the latency of one live append (docs/live.md), in process or over `hmasweep serve`.
 *
 * The default series extended to history + appends bars (its first 150,000 bars are the canonical ones:
 * the generator is a running sum), the default 80 combos.  A session opens over the first `history` bars
 * and then takes `appends` one-bar appends, each timed alone (CLOCK_MONOTONIC around the call).  At the
 * end the session's pnl and trades are compared with a batch sweep (hs_sweep, `unchecked`) over every
 * bar: "identical" is bit for bit, all combos.
 *
 *   live_bench [--history 200] [--appends 150000] [--url unix:PATH|tcp://H:P|shm:NAME] [--label TEXT]
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
    size_t history, appends;
    const char *url, *label;
} bench_args;

static int parse_args(int argc, char **argv, bench_args *a) {
    *a = (bench_args){200, 150000, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return fprintf(stderr, "live_bench: %s needs a value\n", argv[i]), 0;
        if (strcmp(argv[i], "--history") == 0) a->history = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--appends") == 0) a->appends = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--url") == 0) a->url = v;
        else if (strcmp(argv[i], "--label") == 0) a->label = v;
        else return fprintf(stderr, "live_bench: unknown option %s\n", argv[i]), 0;
        i++;
    }
    if (a->history < HS_DEFAULT_GRID_HI || a->appends == 0)
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
    if (!close || !lat || hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK)
        return fprintf(stderr, "live_bench: series: %s\n", err.msg), 1;
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, nc, lengths, NULL);
    for (size_t c = 0; c < nc; c++) hs_windows_from_length(lengths[c], &w[c], NULL);

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
    hs_sweep_options opt = {"unchecked", NULL, 1};
    int identical = hs_sweep(close, n, w, nc, ref, &opt, &err) == HS_OK;
    for (size_t c = 0; identical && c < nc; c++)
        identical = ref[c].trades == trades[c] && memcmp(&ref[c].pnl, &pnl[c], sizeof pnl[c]) == 0;

    double mean = 0;
    for (size_t i = 0; i < a.appends; i++) mean += lat[i] / (double)a.appends;
    qsort(lat, a.appends, sizeof *lat, by_value);
    printf("%-24s appends %zu  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.1f  mean %.2f us  combo0 %lld trades %.9f  "
           "identical-to-batch %s\n",
           a.label ? a.label : (a.url ? a.url : "in-process"), a.appends, quantile(lat, a.appends, 0.5),
           quantile(lat, a.appends, 0.9), quantile(lat, a.appends, 0.99), quantile(lat, a.appends, 0.999),
           lat[a.appends - 1], mean, (long long)trades[0], pnl[0], identical ? "yes" : "NO");
    free(ref);
    free(close);
    free(lat);
    return identical ? 0 : 1;
}
