/* study/segments/ab_kernel.sh: two builds of src/variants/segments.c (arms A and B, renamed by HS_ISA_NAME) in one
 * process, run alternately (A B, B A, ...) on the default series and grid with THREADS threads.  Prints each
 * arm's min / median / max and the per-pair ratio B/A (median, min-max): a pair runs back to back, so the
 * machine's load drifts little within it.  Time: thread CPU time with 1 thread, wall time with more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hmasweep.h"
#include "variant.h"
typedef hs_status (*sweep_fn)(const double *, size_t, const hs_windows *, size_t, double, hs_result *, hs_stats *, int,
                              hs_cancel *, hs_error *);
extern hs_status hs_sweep_segments__abA(const double *, size_t, const hs_windows *, size_t, double, hs_result *,
                                        hs_stats *, int, hs_cancel *, hs_error *);
extern hs_status hs_sweep_segments__abB(const double *, size_t, const hs_windows *, size_t, double, hs_result *,
                                        hs_stats *, int, hs_cancel *, hs_error *);
static double now(int threads) {
    struct timespec ts;
    clock_gettime(threads > 1 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 150000;
    int reps = argc > 2 ? atoi(argv[2]) : 30, threads = argc > 3 ? atoi(argv[3]) : 1;
    if (reps < 1 || reps > 1000 || threads < 1) { fprintf(stderr, "usage: ab BARS REPS(1..1000) THREADS\n"); return 2; }
    double *close = malloc(n * 8);
    hs_make_close(42, n, 0.0008, 100.0, close, NULL);
    hs_windows w[80];
    int64_t L[80];
    hs_grid(6, 200, 80, L, NULL);
    for (int c = 0; c < 80; c++) hs_windows_from_length(L[c], &w[c], NULL);
    hs_result ra[80], rb[80];
    hs_stats sa[80], sb[80];
    double *ta = malloc(reps * sizeof *ta), *tb = malloc(reps * sizeof *tb), *ratio = malloc(reps * sizeof *ratio);
    sweep_fn f[2] = {hs_sweep_segments__abA, hs_sweep_segments__abB};
    double keep = 1.0 - HS_DEFAULT_FEE;
    for (int r = 0; r < reps; r++) {
        for (int arm = 0; arm < 2; arm++) {
            int a = (r & 1) ? 1 - arm : arm;
            double t0 = now(threads);
            f[a](close, n, w, 80, keep, a ? rb : ra, a ? sb : sa, threads, NULL, NULL);
            (a ? tb : ta)[r] = now(threads) - t0;
        }
        ratio[r] = tb[r] / ta[r];
    }
    for (int c = 0; c < 80; c++)
        if (ra[c].trades != rb[c].trades || memcmp(&ra[c].pnl, &rb[c].pnl, 8)) printf("DIFF combo %d\n", c);
    int stats_differ = 0; /* expected where one arm compiles the statistics out (APATCH=no_stats.patch) */
    for (int c = 0; c < 80; c++) stats_differ += memcmp(&sa[c], &sb[c], sizeof sa[c]) != 0;
    qsort(ta, reps, 8, cmp), qsort(tb, reps, 8, cmp), qsort(ratio, reps, 8, cmp);
    printf("%d pairs, %d thread%s, %zu bars x 80 combos (%s time)\n", reps, threads, threads > 1 ? "s" : "", n,
           threads > 1 ? "wall" : "thread CPU");
    printf("A min %.2f med %.2f max %.2f ms | B min %.2f med %.2f max %.2f ms\n", ta[0] * 1e3, ta[reps / 2] * 1e3,
           ta[reps - 1] * 1e3, tb[0] * 1e3, tb[reps / 2] * 1e3, tb[reps - 1] * 1e3);
    printf("B/A per pair: median %.4f (min %.4f, max %.4f); B/A of the minima %.4f\n", ratio[reps / 2], ratio[0],
           ratio[reps - 1], tb[0] / ta[0]);
    printf("statistics: %s (%d of 80 combos differ)\n", stats_differ ? "DIFFER" : "equal", stats_differ);
    return 0;
}
