/* seg_profile: the segments kernel with its per-part clocks compiled in (its SEG_TIMED hook, src/variants/segments.c),
 * one thread, interleaved with the library's own `segments` (no clocks) on the same series, so that the
 * d pass's time is measured directly in a real sweep and the clocks' cost is visible beside it.
 *
 *   seg_profile [--rounds R] [--bars N] [--grid LO:HI:COUNT]      (default 9, 150000, 6:200:80: the default sweep)
 *
 * Built once per ISA by study/CMakeLists.txt (seg_profile_<isa>, this file compiled with that ISA's flags
 * and HS_ISA_NAME=<isa>; its kernel's symbols end in prof_<isa> (HS_ISA_SUFFIX), never clashing with the
 * library's).  Each round runs one profiled
 * sweep and one library sweep (hs_sweep, variant segments, the same ISA, 1 thread), checks that both give
 * the same trades and bit-identical PnL, and prints one JSON line per round: wall seconds of both, and the
 * profiled sweep's seconds in the d pass (fused pass less anchors), anchors, books (with the recomputes), and
 * the rest (layout, allocation), and the bars it recomputed in tier-0 order.  study/segments/bench_vs_numba.py runs it and divides the d pass's executed operations
 * (scaling.dpass_ops) by the d pass's time. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

/* The kernel's hook (SEG_TIMED, src/variants/segments.c), defined here before the kernel is included:
 * CLOCK_MONOTONIC around each block's anchors, each combo's fused pass and its books.  The d pass is the
 * fused pass less its anchors (the clock calls themselves fall inside the anchors' part). */
enum { SEG_PART_FUSED, SEG_PART_ANCHORS, SEG_PART_BOOKS, SEG_PARTS };
static double seg_profile_seconds[SEG_PARTS];
static inline double seg_profile_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#define SEG_TIMED(part, ...)                                                                                \
    do {                                                                                                     \
        double seg_t0_ = seg_profile_now();                                                                  \
        __VA_ARGS__;                                                                                         \
        seg_profile_seconds[part] += seg_profile_now() - seg_t0_;                                            \
    } while (0)

#define HS_ISA_SUFFIX HS_CAT3(prof_, HS_ISA_NAME, )
#include "segments.c"

#include <stdio.h>

#include "hmasweep.h"
#include "options.h" /* the CLI's parsers (cli/options.c: the hmasweep_cli_options target) */

#define HS_STR_(x) #x
#define HS_STR(x) HS_STR_(x)

/* The options, read with the CLI's own parsers; cli_fail has already printed what was wrong. */
static int parse_args(int argc, char **argv, long long *rounds, long long *bars, int64_t **len, size_t *count) {
    for (int i = 1; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) return cli_fail(EXIT_USAGE, "seg_profile: %s needs a value", name);
        if (!strcmp(name, "--rounds")) {
            if (!cli_parse_i64(value, rounds) || *rounds < 1)
                return cli_fail(EXIT_USAGE, "seg_profile: --rounds '%s': a positive integer", value);
        } else if (!strcmp(name, "--bars")) {
            if (!cli_parse_i64(value, bars) || *bars < 1)
                return cli_fail(EXIT_USAGE, "seg_profile: --bars '%s': a positive integer", value);
        } else if (!strcmp(name, "--grid")) {
            free(*len);
            *len = NULL;
            int rc = cli_parse_combo_lengths(NULL, value, len, count);
            if (rc) return rc;
        } else {
            return cli_fail(EXIT_USAGE, "seg_profile: unknown option %s", name);
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    long long rounds = 9, n_bars = HS_DEFAULT_BARS;
    int64_t *len = NULL;
    size_t count = 0;
    int rc = parse_args(argc, argv, &rounds, &n_bars, &len, &count);
    if (rc) return rc;
    hs_error err = {0};
    if (!len) { /* the default grid */
        count = HS_DEFAULT_GRID_COUNT;
        len = malloc(count * sizeof *len);
        if (!len || hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, count, len, &err) != HS_OK) {
            fprintf(stderr, "seg_profile: %s\n", len ? err.msg : "out of memory");
            return 1;
        }
    }
    size_t bars = (size_t)n_bars;
    double *close = malloc(bars * sizeof *close);
    hs_windows *win = malloc(count * sizeof *win);
    hs_result *a = malloc(count * sizeof *a), *b = malloc(count * sizeof *b);
    if (!close || !win || !a || !b) {
        fprintf(stderr, "seg_profile: out of memory\n");
        return 1;
    }
    if (hs_make_close(HS_DEFAULT_SEED, bars, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK) {
        fprintf(stderr, "seg_profile: %s\n", err.msg);
        return 1;
    }
    for (size_t c = 0; c < count; c++)
        if (hs_windows_from_length(len[c], &win[c], &err) != HS_OK) {
            fprintf(stderr, "seg_profile: %s\n", err.msg);
            return 1;
        }
    const char *isa = HS_STR(HS_ISA_NAME);
    hs_sweep_report rep = {0};
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "segments";
    opt.isa = isa;
    opt.threads = 1;
    opt.report = &rep;
    for (long long r = 0; r < rounds; r++) {
        memset(seg_profile_seconds, 0, sizeof seg_profile_seconds);
        long long recomputed = hs_kernel_recomputed_total();
        double t0 = seg_profile_now();
        hs_status st = HS_SWEEP(segments)(close, bars, win, count, hs_keep(HS_DEFAULT_FEE), a, NULL, 1, NULL, NULL, &err);
        double t_prof = seg_profile_now() - t0;
        recomputed = hs_kernel_recomputed_total() - recomputed;
        t0 = seg_profile_now();
        hs_status st2 = hs_sweep(close, bars, win, count, b, &opt, &err);
        double t_lib = seg_profile_now() - t0;
        if (st != HS_OK || st2 != HS_OK) {
            fprintf(stderr, "seg_profile: %s\n", err.msg);
            return 1;
        }
        long long trades = 0;
        for (size_t c = 0; c < count; c++) {
            if (a[c].trades != b[c].trades || memcmp(&a[c].pnl, &b[c].pnl, sizeof a[c].pnl)) {
                fprintf(stderr, "seg_profile: combo %zu differs from the library's segments (%s)\n", c, rep.isa);
                return 1;
            }
            trades += a[c].trades;
        }
        double fused = seg_profile_seconds[SEG_PART_FUSED], anchors = seg_profile_seconds[SEG_PART_ANCHORS];
        double books = seg_profile_seconds[SEG_PART_BOOKS];
        printf("{\"isa\": \"%s\", \"library_isa\": \"%s\", \"bars\": %zu, \"combos\": %zu, \"trades\": %lld, "
               "\"library_s\": %.6f, \"profiled_s\": %.6f, \"dpass_s\": %.6f, \"anchors_s\": %.6f, \"books_s\": %.6f, "
               "\"rest_s\": %.6f, \"recomputed_bars\": %lld}\n",
               isa, rep.isa, bars, count, trades, t_lib, t_prof, fused - anchors, anchors, books,
               t_prof - fused - books, recomputed);
    }
    free(close), free(len), free(win), free(a), free(b);
    return 0;
}
