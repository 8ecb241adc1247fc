/* The server's cost model, measured (issue 29 item 2; cli/server/session.c sweep_cost_ns, reports/fair.md).
 *
 * For every variant in the registry and live mode (`live`; or those named), on every adversarial series (prof/adversarial.h)
 * and a normal walk, one thread, the CPU time of hs_sweep over three shapes of combos:
 *   ones  every window 1 (Σw = 6): what one bar-combo costs whatever its windows
 *   grid  hs_windows_from_length(6, 20, 50, 100, 200)
 *   wide  hs_windows_from_length(1000) (Σw ~ 3,000): what a window-bar adds
 *   single  one combo of windows 1: what a call costs per bar whatever its combos (the series' passes)
 * and the model's three coefficients: a = the worst ns per bar-combo of `ones`, b = the worst (ns per
 * bar-combo - a) / Σw of grid and wide (>= 0), c = the worst ns per bar of `single` less a (>= 0).  One JSON line per variant, then the table that
 * cli/server/session.c carries (before its safety margin).
 *
 *   cost_probe [--bars N] [--reps R] [VARIANT...] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../adversarial.h"
#include "hmasweep.h"

enum { SHAPE_ONES, SHAPE_GRID, SHAPE_WIDE, SHAPE_SINGLE, SHAPES, MAX_COMBOS = 40, KINDS = ADV_COUNT + 1 };
static const char *const shape_names[SHAPES] = {"ones", "grid", "wide", "single"};

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t make_combos(int shape, hs_windows *w, double *sum_w) {
    static const int64_t grid[] = {6, 20, 50, 100, 200};
    size_t n = shape == SHAPE_ONES ? MAX_COMBOS : shape == SHAPE_GRID ? 10 : shape == SHAPE_WIDE ? 2 : 1;
    double s = 0;
    for (size_t c = 0; c < n; c++) {
        if (shape == SHAPE_ONES || shape == SHAPE_SINGLE) w[c] = (hs_windows){{1, 1, 1, 1, 1, 1}};
        else hs_windows_from_length(shape == SHAPE_GRID ? grid[c % 5] : 1000, &w[c], NULL);
        for (int k = 0; k < 6; k++) s += (double)w[c].w[k];
    }
    *sum_w = s / (double)n;
    return n;
}

/* `live`: the server's LIVE_OPEN and LIVE_APPEND, a session opened on the first bar, the rest appended
 * in one call. */
static hs_status live_run(const double *x, size_t n_bars, const hs_windows *w, size_t n, hs_error *err) {
    hs_live *l = NULL;
    hs_status st = hs_live_open(x, 1, w, n, &l, err);
    if (st == HS_OK) st = hs_live_append(l, x + 1, n_bars - 1, NULL, NULL, NULL, NULL, err);
    hs_live_free(l);
    return st;
}

/* ns per bar-combo, the best of reps (CPU time, one thread). */
static double time_one(const char *variant, const double *x, size_t n_bars, const hs_windows *w, size_t n, int reps) {
    static hs_result out[MAX_COMBOS];
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = variant, opt.threads = 1;
    int live = !strcmp(variant, "live");
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        hs_error err;
        double t0 = cpu_now();
        if ((live ? live_run(x, n_bars, w, n, &err) : hs_sweep(x, n_bars, w, n, out, &opt, &err)) != HS_OK) {
            fprintf(stderr, "cost_probe: %s: %s\n", variant, err.msg);
            exit(1);
        }
        double t = cpu_now() - t0;
        if (t < best) best = t;
    }
    return 1e9 * best / ((double)n_bars * (double)n);
}

static void probe(const char *variant, size_t n_bars, int reps, double *a_out, double *b_out, double *c_out) {
    double *x = malloc(n_bars * sizeof *x);
    hs_windows w[MAX_COMBOS];
    double cost[KINDS][SHAPES], sum_w[SHAPES];
    for (int kind = 0; kind < KINDS; kind++) {
        if (kind < ADV_COUNT) adv_series(kind, x, n_bars);
        else hs_make_close(7, n_bars, HS_DEFAULT_VOL, HS_DEFAULT_START, x, NULL);
        for (int s = 0; s < SHAPES; s++) {
            size_t n = make_combos(s, w, &sum_w[s]);
            cost[kind][s] = time_one(variant, x, n_bars, w, n, reps);
        }
    }
    double a = 0, b = 0;
    for (int kind = 0; kind < KINDS; kind++)
        if (cost[kind][SHAPE_ONES] > a) a = cost[kind][SHAPE_ONES];
    double c = 0;
    for (int kind = 0; kind < KINDS; kind++)
        if (cost[kind][SHAPE_SINGLE] - a > c) c = cost[kind][SHAPE_SINGLE] - a;
    for (int kind = 0; kind < KINDS; kind++)
        for (int s = SHAPE_GRID; s <= SHAPE_WIDE; s++) {
            double per_w = (cost[kind][s] - a) / sum_w[s];
            if (per_w > b) b = per_w;
        }
    printf("{\"variant\": \"%s\", \"bars\": %zu, \"a_ns_per_bar_combo\": %.2f, \"b_ns_per_window_bar\": %.4f, \"ns_per_bar_combo\": {",
           variant, n_bars, a, b);
    for (int kind = 0; kind < KINDS; kind++)
        for (int s = 0; s < SHAPES; s++)
            printf("%s\"%s/%s\": %.2f", kind || s ? ", " : "", kind < ADV_COUNT ? adv_names[kind] : "walk", shape_names[s],
                   cost[kind][s]);
    printf("}}\n");
    fflush(stdout);
    free(x);
    *a_out = a, *b_out = b, *c_out = c;
}

int main(int argc, char **argv) {
    size_t n_bars = 20000;
    int reps = 2;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--bars")) n_bars = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else break;
    }
    if (n_bars < 4000 || reps < 1) {
        fprintf(stderr, "cost_probe: --bars >= 4000 (the wide windows), --reps >= 1\n");
        return 2;
    }
    const char *names[64];
    size_t n_names = 0;
    if (i < argc) {
        for (; i < argc && n_names < 64; i++) names[n_names++] = argv[i];
    } else {
        for (size_t k = 0, n = hs_variant_count(); k < n && n_names < 64; k++) {
            hs_variant_info v;
            hs_variant_describe(k, &v, NULL);
            if (strcmp(v.role, "experiment") != 0) names[n_names++] = v.name;
        }
        names[n_names++] = "live";
    }
    double a[64], b[64], c[64];
    for (size_t k = 0; k < n_names; k++) probe(names[k], n_bars, reps, &a[k], &b[k], &c[k]);
    printf("\n/* variant, a ns per bar-combo, b ns per window-bar, c ns per bar (worst over the series; before the margin) */\n");
    for (size_t k = 0; k < n_names; k++) printf("    {\"%s\", %.0f, %.2f, %.0f},\n", names[k], a[k] + 0.5, b[k], c[k] + 0.5);
    return 0;
}
