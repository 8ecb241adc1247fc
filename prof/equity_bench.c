/* equity_bench: what periods (docs/spec.md §9, E and mtm_max_drawdown) cost a sweep, interleaved A/B.
 *
 * Each round runs the sweep without periods, then with each P asked for, in turn (so slow drifts of a
 * shared machine hit every arm alike), on one thread unless --threads says otherwise.  Per arm: the median
 * [min-max] seconds over the rounds, and the median [min-max] of the per-round ratio against the round's
 * no-periods run (the pairs are adjacent in time).  The ISA is the variant's default, capped by
 * $HMASWEEP_ISA (HMASWEEP_ISA=avx2 measures AVX2 on an AVX-512 machine).
 *
 * usage: equity_bench [--variant NAME] [--bars N] [--grid LO:HI:COUNT] [--rounds R] [--threads T]
 *                     [--periods P[,P...]] [--wall]   (defaults: best, 150000, 6:200:80, 15, 1, 16,1000;
 *                                                    CPU time of the process unless --wall) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"

enum { MAX_ARMS = 8 };

/* CPU time of the process (every thread), or wall time (--wall): on a shared 2-vCPU machine with a load
 * of 5-9 the wall clock of a 12 ms sweep varied 2-4x between rounds, its CPU time far less. */
static clockid_t clock_kind = CLOCK_PROCESS_CPUTIME_ID;

static double now(void) {
    struct timespec ts;
    clock_gettime(clock_kind, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summary(double *v, int n, double *med, double *lo, double *hi) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *lo = v[0];
    *hi = v[n - 1];
}

int main(int argc, char **argv) {
    const char *variant = "best", *grid = HS_DEFAULT_GRID_SPEC, *periods = "16,1000";
    size_t bars = HS_DEFAULT_BARS;
    int rounds = 15, threads = 1;
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--wall")) {
            clock_kind = CLOCK_MONOTONIC;
            i--;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "equity_bench: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--variant")) variant = argv[i + 1];
        else if (!strcmp(argv[i], "--bars")) bars = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--grid")) grid = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds")) rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--periods")) periods = argv[i + 1];
        else {
            fprintf(stderr, "equity_bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    size_t P[MAX_ARMS] = {0}; /* arm 0: no periods */
    int arms = 1;
    for (const char *p = periods; *p && arms < MAX_ARMS; arms++) {
        char *end;
        P[arms] = strtoull(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    if (rounds < 1 || bars < 1) return 2;
    hs_error err = {{0}};
    double *close = malloc(bars * sizeof *close);
    int64_t *lengths = NULL;
    size_t n = 0;
    if (hs_make_close(HS_DEFAULT_SEED, bars, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK ||
        hs_parse_combo_lengths(NULL, grid, &lengths, &n, &err) != HS_OK) {
        fprintf(stderr, "equity_bench: %s\n", err.msg);
        return 1;
    }
    hs_windows *w = malloc(n * sizeof *w);
    for (size_t c = 0; c < n; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    hs_result *out = malloc(n * sizeof *out);
    size_t most = 0;
    for (int a = 1; a < arms; a++) most = P[a] > most ? P[a] : most;
    double *E = malloc((most ? most : 1) * n * sizeof *E), *mdd = malloc(n * sizeof *mdd);
    double *t = malloc((size_t)(arms * rounds) * sizeof *t), *ratio = malloc((size_t)(arms * rounds) * sizeof *ratio);
    hs_sweep_report rep;
    memset(&rep, 0, sizeof rep);
    for (int r = -1; r < rounds; r++) /* round −1 warms up */
        for (int a = 0; a < arms; a++) {
            hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
            o.variant = variant, o.threads = threads, o.report = &rep;
            if (P[a]) o.n_periods = P[a], o.equity = E, o.mtm_max_drawdown = mdd;
            double t0 = now();
            if (hs_sweep(close, bars, w, n, out, &o, &err) != HS_OK) {
                fprintf(stderr, "equity_bench: %s\n", err.msg);
                return 1;
            }
            double dt = now() - t0;
            if (r < 0) continue;
            t[a * rounds + r] = dt;
            ratio[a * rounds + r] = dt / t[r];
        }
    printf("equity_bench: %s (%s, %d thread%s), %zu bars x %zu combos, %d interleaved rounds, %s time\n", rep.variant,
           rep.isa, rep.threads, rep.threads == 1 ? "" : "s", bars, n, rounds,
           clock_kind == CLOCK_MONOTONIC ? "wall" : "CPU");
    for (int a = 0; a < arms; a++) {
        double m, lo, hi, rm, rlo, rhi;
        summary(t + a * rounds, rounds, &m, &lo, &hi);
        summary(ratio + a * rounds, rounds, &rm, &rlo, &rhi);
        if (a == 0) printf("  no periods: %.2f ms [%.2f-%.2f]\n", 1e3 * m, 1e3 * lo, 1e3 * hi);
        else printf("  P = %-6zu  %.2f ms [%.2f-%.2f]  ratio %.3f [%.3f-%.3f]\n", P[a], 1e3 * m, 1e3 * lo, 1e3 * hi, rm,
                    rlo, rhi);
    }
    free(close), free(lengths), free(w), free(out), free(E), free(mdd), free(t), free(ratio);
    return 0;
}
