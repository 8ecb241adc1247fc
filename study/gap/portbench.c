/* portbench — the C port's combo kernels (src/variants/port.h instantiations) timed outside the registry, so
 * that study/gap/arms.py (target gap_portbench) can rebuild just these translation units with any compiler and flags (gcc vs
 * clang 14/19, -march, -ffp-contract, -mtune-ctrl, -falign-loops) in a couple of seconds.  It links the
 * variant files themselves; no kernel code lives here.
 *
 *   portbench KERNEL SERIES.f64 [REPEAT]      KERNEL: naive unchecked prealloc x_wfloat x_wu64 x_unroll8
 *                                                     x_checked_unroll8 x_prefixnan x_recip
 *   portbench --gen FILE.f64 [BARS]           write the spec's canonical series (seed 42; default 150000 bars)
 * Prints one JSON object: {"kernel", "bars", "seconds" (median), "seconds_all", "combos": [...]}, the
 * spec's default grid (80 lengths over [6, 200]).  Exit 1 on bad data, 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "variant.h"

#ifdef HS_GAP_GENERATED
/* Built by CMake (target gap_portbench): the kernel list is generated from the registry (every COMBO
 * kernel whose role is REFERENCE, PORT or EXPERIMENT), so it cannot drift from registry.def. */
#include "gap_kernels.h"
#define KERNELS HS_GAP_KERNELS
#else
#define KERNELS(X) X(naive) X(unchecked) X(prealloc) X(x_wfloat) X(x_wu64) X(x_unroll8) X(x_checked_unroll8) \
    X(x_prefixnan) X(x_recip)
#endif
#define DECLARE(k) hs_outcome HS_COMBO_ISA(k, scalar)(const double *, size_t, const hs_windows *, double, double *, hs_mtm *);
KERNELS(DECLARE)

static const struct {
    const char *name;
    hs_combo_fn fn;
} kernels[] = {
#define ENTRY(k) {#k, HS_COMBO_ISA(k, scalar)},
    KERNELS(ENTRY)
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int gen(int argc, char **argv) {
    size_t bars = argc == 4 ? (size_t)strtoull(argv[3], NULL, 10) : HS_DEFAULT_BARS;
    double *x = malloc((bars ? bars : 1) * sizeof *x);
    hs_error err;
    if (!bars || hs_make_close(HS_DEFAULT_SEED, bars, HS_DEFAULT_VOL, HS_DEFAULT_START, x, &err) != HS_OK) {
        fprintf(stderr, "portbench: cannot make the series\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(x, 8, bars, f) != bars || fclose(f)) {
        perror(argv[2]);
        return 1;
    }
    free(x);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "--gen") == 0) return gen(argc, argv);
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: portbench KERNEL SERIES.f64 [REPEAT]\n");
        return 2;
    }
    hs_combo_fn fn = NULL;
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        if (strcmp(kernels[k].name, argv[1]) == 0) fn = kernels[k].fn;
    if (!fn) {
        fprintf(stderr, "portbench: unknown kernel '%s'\n", argv[1]);
        return 2;
    }
    int repeat = argc == 4 ? atoi(argv[3]) : 1;
    if (repeat < 1) {
        fprintf(stderr, "portbench: REPEAT must be >= 1\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t n = bytes > 0 ? (size_t)bytes / 8 : 0;
    double *close = malloc((n ? n : 1) * sizeof *close);
    if (!n || bytes % 8 || fread(close, 8, n, f) != n) {
        fprintf(stderr, "portbench: %s is not a raw f64 series\n", argv[2]);
        return 1;
    }
    fclose(f);

    int64_t lengths[HS_DEFAULT_GRID_COUNT];
    hs_windows win[HS_DEFAULT_GRID_COUNT];
    hs_error err;
    if (hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, lengths, &err) != HS_OK) return 2;
    for (int c = 0; c < HS_DEFAULT_GRID_COUNT; c++)
        if (hs_windows_from_length(lengths[c], &win[c], &err) != HS_OK || hs_check_windows(&win[c], 1, n, &err) != HS_OK) {
            fprintf(stderr, "portbench: %s\n", err.msg);
            return 2;
        }
    /* Nine buffers are the most any port kernel asks for (prealloc, x_prefixnan). */
    double *scratch = aligned_alloc(64, 9 * hs_scratch_stride(n) * sizeof(double));
    hs_result out[HS_DEFAULT_GRID_COUNT];
    double *t = malloc((size_t)repeat * sizeof *t);
    for (int r = 0; r < repeat; r++) {
        double t0 = now();
        for (int c = 0; c < HS_DEFAULT_GRID_COUNT; c++) out[c] = fn(close, n, &win[c], hs_keep(HS_DEFAULT_FEE), scratch, NULL).r;
        t[r] = now() - t0;
    }
    double *sorted = malloc((size_t)repeat * sizeof *sorted);
    memcpy(sorted, t, (size_t)repeat * sizeof *t);
    qsort(sorted, (size_t)repeat, sizeof *sorted, cmp_double);
    double med = repeat % 2 ? sorted[repeat / 2] : 0.5 * (sorted[repeat / 2 - 1] + sorted[repeat / 2]);
    printf("{\"kernel\": \"%s\", \"bars\": %zu, \"seconds\": %.9f, \"seconds_all\": [", argv[1], n, med);
    for (int r = 0; r < repeat; r++) printf("%s%.9f", r ? ", " : "", t[r]);
    printf("], \"combos\": [\n");
    for (int c = 0; c < HS_DEFAULT_GRID_COUNT; c++)
        printf("  {\"length\": %lld, \"trades\": %lld, \"pnl\": %.17g}%s\n", (long long)lengths[c],
               (long long)out[c].trades, out[c].pnl, c + 1 < HS_DEFAULT_GRID_COUNT ? "," : "");
    printf("]}\n");
    free(sorted);
    free(t);
    free(scratch);
    free(close);
    return 0;
}
