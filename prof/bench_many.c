/* Many short series: one hs_sweep_many call against a loop of hs_sweep calls (the frontier issue's
 * "500 symbols x 5,000 bars must not pay the per-call fixed cost 500 times").  Prints JSON for
 * mpi/universe_report.  Interleaved, median and min-max of the repeats.
 *   hs_bench_many [series=500] [bars=5000] [repeats=7] [variant=best] [threads=0] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t n_series = argc > 1 ? strtoul(argv[1], NULL, 10) : 500, bars = argc > 2 ? strtoul(argv[2], NULL, 10) : 5000;
    int repeats = argc > 3 ? atoi(argv[3]) : 7;
    hs_sweep_options opt;
    memset(&opt, 0, sizeof opt);
    opt.variant = argc > 4 ? argv[4] : "best";
    opt.threads = argc > 5 ? atoi(argv[5]) : 0;
    enum { COMBOS = 80 };
    int64_t lengths[COMBOS];
    hs_windows w[COMBOS];
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, COMBOS, lengths, NULL);
    for (int c = 0; c < COMBOS; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    double *data = malloc(n_series * bars * sizeof *data);
    hs_series_ref *refs = malloc(n_series * sizeof *refs);
    hs_result *pooled = malloc(n_series * COMBOS * sizeof *pooled), *looped = malloc(n_series * COMBOS * sizeof *looped);
    double *t_pool = malloc((size_t)repeats * sizeof(double)), *t_loop = malloc((size_t)repeats * sizeof(double));
    if (!data || !refs || !pooled || !looped || !t_pool || !t_loop) return fputs("out of memory\n", stderr), 1;
    for (size_t s = 0; s < n_series; s++) {
        hs_make_close(7 + s, bars, HS_DEFAULT_VOL, HS_DEFAULT_START, data + s * bars, NULL);
        refs[s] = (hs_series_ref){NULL, data + s * bars, bars};
    }
    hs_error err;
    for (int r = 0; r < repeats; r++) {
        double t0 = now();
        if (hs_sweep_many(refs, n_series, w, COMBOS, pooled, NULL, NULL, NULL, &opt, &err) != HS_OK)
            return fprintf(stderr, "%s\n", err.msg), 1;
        double t1 = now();
        for (size_t s = 0; s < n_series; s++)
            if (hs_sweep(refs[s].close, bars, w, COMBOS, looped + s * COMBOS, &opt, &err) != HS_OK)
                return fprintf(stderr, "%s\n", err.msg), 1;
        double t2 = now();
        t_pool[r] = t1 - t0, t_loop[r] = t2 - t1;
    }
    int same = memcmp(pooled, looped, n_series * COMBOS * sizeof *pooled) == 0;
    qsort(t_pool, (size_t)repeats, sizeof(double), cmp);
    qsort(t_loop, (size_t)repeats, sizeof(double), cmp);
    printf("{\"series\": %zu, \"bars\": %zu, \"combos\": %d, \"variant\": \"%s\", \"threads\": %d, \"repeats\": %d, "
           "\"sweep_many_s\": [%.6f, %.6f, %.6f], \"loop_of_sweeps_s\": [%.6f, %.6f, %.6f], \"identical\": %s}\n",
           n_series, bars, COMBOS, opt.variant, opt.threads, repeats, t_pool[repeats / 2], t_pool[0],
           t_pool[repeats - 1], t_loop[repeats / 2], t_loop[0], t_loop[repeats - 1], same ? "true" : "false");
    free(data), free(refs), free(pooled), free(looped), free(t_pool), free(t_loop);
    return same ? 0 : 1;
}
