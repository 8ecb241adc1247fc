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
 * Before the local bound and the tier-0 ranges (variants/segments.c), segments took 30-200x the
 * reference on these.  Usage: test_worst_case [--reps N] [--bench] [--series NAME] [VARIANT...] (default: the list below; other
 * tier-0 variants join it as their worst case is bounded).  One line of JSON per (series, variant) on
 * stdout, for prof/segments/adversarial.py. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "hmasweep.h"

#define MAX_RATIO 3.0

static const char *default_variants[] = {"segments", "segments_omp"};

enum { SERIES = 5, MAX_COMBOS = 80 };
static const char *series_names[SERIES] = {"flat", "ulp", "out-of-range", "spike", "vol-0.3"};

typedef struct {
    double *close;
    size_t n;
    hs_windows w[MAX_COMBOS];
    size_t n_combos;
} series;

/* --bench: the sizes of issue 21's measurements (a 30,000-bar flat series and a 150,000-bar walk over
 * the default grid, 8,000 bars x the one serve combo), for prof/segments/adversarial.py: minutes with
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
    s->n = kind == 2 ? (bench ? 8000 : 6000) : bench ? (kind == 0 ? 30000 : 150000) : 20000;
    s->close = malloc(s->n * sizeof *s->close);
    switch (kind) {
    case 0:
        for (size_t i = 0; i < s->n; i++) s->close[i] = 100.0;
        break;
    case 1:
        for (size_t i = 0; i < s->n; i++) s->close[i] = (i & 1) ? nextafter(100.0, 200.0) : 100.0;
        break;
    case 2:
        /* the windows of the serve frame that held a worker for a minute (issue 21); scaled down here */
        hs_make_close(7, s->n, 0.0008, 100.0, s->close, NULL);
        s->close[0] = 1e306;
        s->w[s->n_combos++] = bench ? (hs_windows){{1000, 2000, 1000, 500, 1000, 2000}}
                                    : (hs_windows){{300, 600, 300, 150, 300, 600}};
        if (!bench) lengths(s, grid, 3);
        return;
    case 3:
        hs_make_close(7, s->n, 0.0008, 1.0, s->close, NULL);
        s->close[s->n / 2] = 1e12;
        break;
    default:
        hs_make_close(7, s->n, 0.3, 1.0, s->close, NULL); /* prices over hundreds of orders of magnitude */
        break;
    }
    if (bench) default_grid(s);
    else lengths(s, grid, 5);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timed(const char *variant, const series *s, hs_result *out) {
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
