/* The worst case of the certified kernels (issue 21, "bounded worst case"): on series built so that
 * almost no sign of d can be certified, a tier-0 variant must not be slower than the reference
 * (`unchecked`) by more than a small constant.  Each series is timed with the variant and with
 * `unchecked` in this one process, interleaved, best of REPS each, and the ratio must stay under
 * MAX_RATIO; the results must also be the reference's, bit for bit.  Only ratios measured in the same
 * run are asserted, never a time.
 *
 *   flat        every price 100.0: every d is exactly 0, none certified
 *   ulp         prices alternating between 100 and the next double: d at the rounding level
 *   out-of-range close[0] = 1e306 (positive, finite, accepted): outside the certification range
 *   spike       one 1e12 price in a walk near 1.0: a bound scaled by the series' maximum certifies
 *               nothing anywhere else
 *   vol-0.3     a walk at volatility 0.3 per bar: prices over many orders of magnitude
 *
 * (the prices: prof/adversarial.h).  Before the local bound and the tier-0 ranges (src/variants/segments.c,
 * and pipeline.h's certified_books_bounded for the others), segments took 30-200x the reference on
 * these, sliding, sliding_lanes and simd_wma_dot 20-650x, live mode 26-640x.  Times are the process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID; every variant runs one thread), so the other jobs on a loaded machine do not
 * move the ratios.
 *
 * THE list below is every tier-0 production variant and live mode (`live`: the whole series replayed as
 * one-bar appends, against unchecked's batch; `live_many`: LIVE_SYMBOLS symbols of that series in one
 * many-symbol session, one call per bar, its time divided by LIVE_SYMBOLS); the registry check fails on a
 * tier-0 production variant missing from it.  Usage: test_worst_case [--reps N] [--bench] [--series NAME] [VARIANT...] (default:
 * the list).  One line of JSON per (series, variant) on stdout, for study/segments/adversarial.py. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_PROCESS_CPUTIME_ID under -std=c11 (clang) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../prof/adversarial.h"
#include "check.h"
#include "hmasweep.h"
#include "variant.h"

#define MAX_RATIO 3.0

#define LIVE "live"
#define LIVE_MANY "live_many"
static const char *default_variants[] = {"segments",  "segments_omp", "sliding",       "sliding_omp",
                                         "sliding_lanes", "sliding_lanes_omp", "simd_wma_dot", "simd_wma",
                                         "simd_wma_omp",       LIVE,   LIVE_MANY};

/* Symbols of a live_many session: past two full groups on AVX2, one past a full one on AVX-512, so every
 * ISA has full and padded groups, all of whose lanes take the reference's d at once. */
enum { LIVE_SYMBOLS = 9 };

enum { SERIES = ADV_COUNT, MAX_COMBOS = 80 };
#define series_names adv_names

/* Every tier-0 production variant is in THE list. */
static void check_list_is_complete(void) {
    size_t count, n_list = sizeof default_variants / sizeof default_variants[0];
    const hs_variant *v = hs_variants(&count);
    for (size_t i = 0; i < count; i++) {
        if (v[i].tier != 0 || v[i].role != HS_ROLE_PRODUCTION) continue;
        int listed = 0;
        for (size_t k = 0; k < n_list; k++) listed |= !strcmp(v[i].name, default_variants[k]);
        CHECK(listed, "tier-0 production variant %s is not in the worst-case list", v[i].name);
    }
}

typedef struct {
    double *close;
    size_t n;
    hs_windows w[MAX_COMBOS];
    size_t n_combos;
} series;

/* --bench: the sizes of issue 21's measurements (a 30,000-bar flat series and a 150,000-bar walk over
 * the default grid, 8,000 bars x the one serve combo), for study/segments/adversarial.py: minutes with
 * the old segments, so not the ctest's. */
static int bench;

static void default_grid(series *s) {
    for (int64_t c = 0; c < 80; c++) hs_windows_from_length(6 + (194 * c) / 79, &s->w[s->n_combos++], NULL);
}

static void lengths(series *s, const int64_t *ls, size_t count) {
    for (size_t c = 0; c < count; c++) hs_windows_from_length(ls[c], &s->w[s->n_combos++], NULL);
}

static void make_series(int kind, series *s) {
    static const int64_t grid[] = {6, 20, 50, 100, 200};
    memset(s, 0, sizeof *s);
    s->n = kind == ADV_OUT_OF_RANGE ? (bench ? 8000 : 6000) : bench ? (kind == 0 ? 30000 : 150000) : 20000;
    s->close = malloc(s->n * sizeof *s->close);
    adv_series(kind, s->close, s->n);
    if (kind == ADV_OUT_OF_RANGE) {
        /* the windows of the serve frame that held a worker for a minute (issue 21); scaled down here */
        s->w[s->n_combos++] = bench ? (hs_windows){{1000, 2000, 1000, 500, 1000, 2000}}
                                    : (hs_windows){{300, 600, 300, 150, 300, 600}};
        if (!bench) lengths(s, grid, 3);
        return;
    }
    if (bench) default_grid(s);
    else lengths(s, grid, 5);
}

/* CPU seconds of this process, all threads. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Live mode: open on the first bar, then one append per bar; the final state is the sweep's. */
static double timed_live(const series *s, hs_result *out) {
    static double pnl[MAX_COMBOS];
    static int64_t trades[MAX_COMBOS];
    hs_live *l = NULL;
    hs_error err;
    double t0 = now();
    int ok = hs_live_open(s->close, 1, s->w, s->n_combos, &l, &err) == HS_OK;
    for (size_t i = 1; ok && i < s->n; i++) ok = hs_live_append(l, s->close + i, 1, pnl, trades, NULL, NULL, &err) == HS_OK;
    double t = now() - t0;
    CHECK(ok, "live failed: %s", err.msg);
    for (size_t c = 0; c < s->n_combos; c++) out[c] = (hs_result){pnl[c], trades[c]};
    hs_live_free(l);
    return t;
}

/* live_many: LIVE_SYMBOLS symbols of the series, open on the first bar, then one call per bar; every symbol's
 * final state must be the same (symbol 0's is returned).  The time per symbol. */
static double timed_live_many(const series *s, hs_result *out) {
    static double pnl[LIVE_SYMBOLS * MAX_COMBOS];
    static int64_t trades[LIVE_SYMBOLS * MAX_COMBOS];
    const double *hist[LIVE_SYMBOLS];
    size_t n_bars[LIVE_SYMBOLS];
    double bars[LIVE_SYMBOLS];
    for (size_t k = 0; k < LIVE_SYMBOLS; k++) hist[k] = s->close, n_bars[k] = 1;
    hs_live_many *m = NULL;
    hs_error err;
    double t0 = now();
    int ok = hs_live_open_many(hist, n_bars, LIVE_SYMBOLS, s->w, s->n_combos, &m, &err) == HS_OK;
    for (size_t i = 1; ok && i < s->n; i++) {
        for (size_t k = 0; k < LIVE_SYMBOLS; k++) bars[k] = s->close[i];
        ok = hs_live_append_many(m, bars, pnl, trades, NULL, NULL, &err) == HS_OK;
    }
    double t = now() - t0;
    CHECK(ok, "live_many failed: %s", err.msg);
    size_t nc = s->n_combos;
    for (size_t k = 1; k < LIVE_SYMBOLS; k++)
        CHECK(memcmp(pnl, pnl + k * nc, nc * sizeof *pnl) == 0 && memcmp(trades, trades + k * nc, nc * sizeof *trades) == 0,
              "live_many: symbol %zu's final state differs from symbol 0's (same series)", k);
    for (size_t c = 0; c < nc; c++) out[c] = (hs_result){pnl[c], trades[c]};
    hs_live_free_many(m);
    return t / LIVE_SYMBOLS;
}

static double timed(const char *variant, const series *s, hs_result *out) {
    if (!strcmp(variant, LIVE)) return timed_live(s, out);
    if (!strcmp(variant, LIVE_MANY)) return timed_live_many(s, out);
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = variant;
    opt.threads = 1; /* the same one core for both: the ratio is the kernel's, not the thread count's */
    hs_error err;
    double t0 = now();
    hs_status st = hs_sweep(s->close, s->n, s->w, s->n_combos, out, &opt, &err);
    double t = now() - t0;
    CHECK(st == HS_OK, "%s failed: %s", variant, err.msg);
    return t;
}

int main(int argc, char **argv) {
    int reps = 3;
    const char **variants = default_variants;
    int n_variants = (int)(sizeof default_variants / sizeof default_variants[0]);
    if (argc > 2 && strcmp(argv[1], "--reps") == 0) {
        reps = atoi(argv[2]);
        argc -= 2, argv += 2;
        if (reps < 1) {
            fprintf(stderr, "test_worst_case: --reps wants a count >= 1\n");
            return 2;
        }
    }
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) bench = 1, argc--, argv++;
    const char *only = NULL; /* --series NAME: that series alone */
    if (argc > 2 && strcmp(argv[1], "--series") == 0) only = argv[2], argc -= 2, argv += 2;
    if (argc > 1) variants = (const char **)(argv + 1), n_variants = argc - 1;
    /* ctest runs this once per ISA built (test_worst_case_<isa>, HMASWEEP_ISA; issue 29 item 9: SSE2's
     * simd_wma_dot was 3.4-5.8x the reference, unseen while CI ran only the CPU's best ISA). */
    hs_isa isa;
    hs_error why;
    if (hs_isa_default(&isa, &why) != HS_OK) {
        printf("test_worst_case: skipped, %s\n", why.msg);
        return 77;
    }
    printf("test_worst_case: variants at ISA %s\n", hs_isa_name(isa));
    check_list_is_complete();
    for (int kind = 0; kind < SERIES; kind++) {
        if (only && strcmp(only, series_names[kind]) != 0) continue;
        series s;
        make_series(kind, &s);
        static hs_result want[MAX_COMBOS], got[MAX_COMBOS];
        for (int v = 0; v < n_variants; v++) {
            double best_ref = INFINITY, best_var = INFINITY;
            for (int r = 0; r < reps; r++) { /* interleaved: the machine's load falls on both alike */
                double a = timed("unchecked", &s, want), b = timed(variants[v], &s, got);
                best_ref = a < best_ref ? a : best_ref;
                best_var = b < best_var ? b : best_var;
            }
            for (size_t c = 0; c < s.n_combos; c++)
                CHECK(got[c].trades == want[c].trades && memcmp(&got[c].pnl, &want[c].pnl, sizeof(double)) == 0,
                      "%s on the %s series, combo %zu: %lld trades %.17g, reference %lld %.17g", variants[v],
                      series_names[kind], c, (long long)got[c].trades, got[c].pnl, (long long)want[c].trades,
                      want[c].pnl);
            double ratio = best_var / best_ref;
            printf("{\"series\": \"%s\", \"bars\": %zu, \"combos\": %zu, \"variant\": \"%s\", \"seconds\": %.6f, "
                   "\"unchecked_seconds\": %.6f, \"ratio\": %.3f}\n",
                   series_names[kind], s.n, s.n_combos, variants[v], best_var, best_ref, ratio);
            fflush(stdout);
            CHECK(ratio < MAX_RATIO, "%s on the %s series: %.3f s, %.2fx the reference's %.3f s (limit %.0fx)",
                  variants[v], series_names[kind], best_var, ratio, best_ref, MAX_RATIO);
        }
        free(s.close);
    }
    return hs_check_summary("test_worst_case");
}
