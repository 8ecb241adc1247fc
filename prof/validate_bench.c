/* validate_bench — the validation library's time on a P x N equity matrix (reports/validation.md, "Speed").
 *
 *   validate_bench [--combos 6400] [--periods 600] [--groups 8,12,16,18] [--reps 5] [--seed 42]
 *                  [--train 120 --test 30]
 *
 * E is N independent random walks of P standard normal returns (hs_standard_normal, seed). Each call is
 * timed REPS times, alternating the calls within a rep so that load drifts hit all alike; it prints
 * median [min-max] in seconds per call, wall and this thread's CPU time (on a shared machine the wall time
 * also counts the time other work held the core), and the CSCV's splits and pbo (a check that it ran).  Run it pinned
 * (taskset -c 1): the library is single-threaded.  Its ctest checks that it runs, not its times. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* This thread's CPU time: on a shared machine, wall time also counts the time other work held the core. */
static double cpu_s(void) { return clock_s(CLOCK_THREAD_CPUTIME_ID); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_times(const char *what, double *wall, double *cpu, int reps) {
    qsort(wall, (size_t)reps, sizeof *wall, cmp_double);
    qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
    printf("%-28s wall %.4f s [%.4f-%.4f]  cpu %.4f s [%.4f-%.4f]  (%d reps)\n", what, wall[reps / 2], wall[0],
           wall[reps - 1], cpu[reps / 2], cpu[0], cpu[reps - 1], reps);
}

#define MAX_GROUP_SETS 16
#define MAX_REPS 101

int main(int argc, char **argv) {
    size_t n = 6400, p = 600, train = 120, test = 30, groups[MAX_GROUP_SETS] = {8, 12, 16, 18}, n_groups = 4;
    int reps = 5;
    uint64_t seed = 42;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "validate_bench: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--combos")) n = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--periods")) p = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--reps")) reps = atoi(v);
        else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--train")) train = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--test")) test = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--groups")) {
            n_groups = 0;
            for (char *s = (char *)v, *end; *s && n_groups < MAX_GROUP_SETS; s = *end ? end + 1 : end) {
                groups[n_groups++] = strtoull(s, &end, 10);
                if (end == s) break;
            }
        } else {
            fprintf(stderr, "validate_bench: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (reps < 1 || reps > MAX_REPS || n == 0 || p == 0) {
        fprintf(stderr, "validate_bench: need 1 <= reps <= %d, combos and periods >= 1\n", MAX_REPS);
        return 2;
    }
    double *e = malloc(n * p * sizeof *e);
    hs_period_stats *stats = malloc(n * sizeof *stats);
    size_t folds = hs_walk_forward_folds(p, train, test);
    size_t *choices = malloc((folds ? folds : 1) * sizeof *choices);
    double *curve = malloc((folds ? folds * test : 1) * sizeof *curve);
    if (!e || !stats || !choices || !curve) return 3;
    hs_standard_normal(seed, n * p, e);
    for (size_t k = 1; k < p; k++) /* running sums down each column: random walks */
        for (size_t c = 0; c < n; c++) e[k * n + c] += e[(k - 1) * n + c];

    printf("validate_bench: %zu combos x %zu periods, seed %llu\n", n, p, (unsigned long long)seed);
    static double t_cscv[MAX_GROUP_SETS][MAX_REPS], t_stats[MAX_REPS], t_wf[MAX_REPS], t_dsr[MAX_REPS];
    static double c_cscv[MAX_GROUP_SETS][MAX_REPS], c_stats[MAX_REPS], c_wf[MAX_REPS], c_dsr[MAX_REPS];
    hs_cscv_result r[MAX_GROUP_SETS];
    hs_error err;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now_s(), u0 = cpu_s();
        if (hs_period_stats_of(e, p, n, stats, &err) != HS_OK) goto fail;
        double t1 = now_s(), u1 = cpu_s();
        hs_dsr_result d;
        if (hs_deflated_sharpe(stats, n, p, 0.0, SIZE_MAX, &d, &err) != HS_OK) goto fail;
        double t2 = now_s(), u2 = cpu_s();
        hs_walk_forward_result w;
        if (folds && hs_walk_forward(e, p, n, train, test, 0, choices, curve, &w, &err) != HS_OK) goto fail;
        double t3 = now_s(), u3 = cpu_s();
        t_stats[rep] = t1 - t0, c_stats[rep] = u1 - u0;
        t_dsr[rep] = t2 - t1, c_dsr[rep] = u2 - u1;
        t_wf[rep] = t3 - t2, c_wf[rep] = u3 - u2;
        for (size_t g = 0; g < n_groups; g++) {
            double s0 = now_s(), v0 = cpu_s();
            if (hs_cscv(e, p, n, groups[g], &r[g], NULL, NULL, NULL, NULL, &err) != HS_OK) goto fail;
            t_cscv[g][rep] = now_s() - s0;
            c_cscv[g][rep] = cpu_s() - v0;
        }
    }
    print_times("hs_period_stats_of", t_stats, c_stats, reps);
    print_times("hs_deflated_sharpe", t_dsr, c_dsr, reps);
    if (folds) {
        char what[64];
        snprintf(what, sizeof what, "hs_walk_forward %zu:%zu", train, test);
        print_times(what, t_wf, c_wf, reps);
    }
    for (size_t g = 0; g < n_groups; g++) {
        char what[64];
        snprintf(what, sizeof what, "hs_cscv S=%zu (%zu splits)", groups[g], r[g].splits);
        print_times(what, t_cscv[g], c_cscv[g], reps);
        printf("  pbo %.4f, prob_oos_loss %.4f, kept %zu\n", r[g].pbo, r[g].prob_oos_loss, r[g].kept);
    }
    free(e);
    free(stats);
    free(choices);
    free(curve);
    return 0;
fail:
    fprintf(stderr, "validate_bench: %s\n", err.msg);
    return 1;
}
