/* The golden gate for one registered variant on one ISA (registered per registry line by CMake):
 *
 * 1. the default run against tests/golden/default_run.json — made by the reference and checked against
 *    the independent numba peer (tests/golden/README.md): trades exactly equal; PnL bit-identical for a
 *    tier-0 variant, within 1e-6 for tier 1 (SPEC §5), printing the measured max |ΔPnL|;
 * 2. other data — several seeds, sizes and grids, including L = 2..5, odd L and windows at the series
 *    length — against the `unchecked` reference computed here, same criteria;
 * 3. six windows not derived from L (w0 > w1, w3 > w4 > w5, ...), against the numba peer's values and
 *    against `unchecked`;
 * 4. for OpenMP variants: 1, 2 and 3 threads give bit-identical results.
 *
 * usage: gate_variant VARIANT ISA      (exit 77 = skipped: this CPU cannot run ISA)
 */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "hmasweep.h"
#include "variant.h"

static const hs_variant *variant;
static hs_isa isa;
static double max_dpnl;

/* Compare results against expected ones under the variant's tier; label names the data set. */
static void gate(const char *label, const hs_result *got, const hs_result *want, const int64_t *lengths, size_t n) {
    for (size_t c = 0; c < n; c++) {
        double d = fabs(got[c].pnl - want[c].pnl);
        if (d > max_dpnl) max_dpnl = d;
        CHECK(got[c].trades == want[c].trades, "%s combo %zu (L=%lld): trades %lld, expected %lld", label, c,
              (long long)lengths[c], (long long)got[c].trades, (long long)want[c].trades);
        if (variant->tier == 0)
            CHECK(memcmp(&got[c].pnl, &want[c].pnl, sizeof(double)) == 0,
                  "%s combo %zu (L=%lld): tier-0 PnL %.17g is not bit-identical to %.17g", label, c,
                  (long long)lengths[c], got[c].pnl, want[c].pnl);
        else
            CHECK(d <= 1e-6, "%s combo %zu (L=%lld): |dPnL| = %.3g > 1e-6", label, c, (long long)lengths[c], d);
    }
}

static hs_status run(const hs_variant *v, hs_isa which, int threads, const double *close, size_t n_bars,
                     const hs_windows *w, size_t n, hs_result *out) {
    hs_error err = {{0}};
    hs_status st = hs_run_variant(v, which, threads, close, n_bars, w, n, out, &err);
    CHECK(st == HS_OK, "%s/%s failed: %s", v->name, hs_isa_name(which), err.msg);
    return st;
}

/* HS_GATE_STRIDE=k gates every k-th combo of the default run (k = 1 when unset).  Set only where the
 * default run is the CI's largest cost: the emulated aarch64 step (.ci/aarch64.sh without --full; a
 * port-family gate is 25-35 CPU-seconds under qemu) and the asan/tsan test presets (50-120 s a gate
 * under ASan).  Every lane, segment and ISA path is still reached by the k-th combos and by every other
 * data set below, which always run whole; the release suite gates all 80 combos. */
static void keep_every_kth_combo(golden_run *g) {
    const char *s = getenv("HS_GATE_STRIDE");
    long k = s && *s ? strtol(s, NULL, 10) : 1;
    if (k <= 1) return;
    size_t kept = 0;
    for (size_t c = 0; c < g->n; c += (size_t)k, kept++) {
        g->lengths[kept] = g->lengths[c];
        g->windows[kept] = g->windows[c];
        g->results[kept] = g->results[c];
    }
    printf("gate: HS_GATE_STRIDE=%ld, default run gated on %zu of %zu combos\n", k, kept, g->n);
    g->n = kept;
}

static void check_default_run(void) {
    golden_run g;
    if (!golden_load(HS_SOURCE_DIR "/tests/golden/default_run.json", &g)) {
        CHECK(0, "cannot read the golden file");
        return;
    }
    keep_every_kth_combo(&g);
    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    hs_result *out = calloc(g.n, sizeof *out);
    hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    if (run(variant, isa, 2, close, HS_DEFAULT_BARS, g.windows, g.n, out) == HS_OK)
        gate("default run", out, g.results, g.lengths, g.n);
    free(out);
    free(close);
    golden_free(&g);
}

typedef struct {
    uint64_t seed;
    size_t bars;
    int64_t lengths[16];
    size_t n;
} data_case;

/* Small and odd shapes the default run never visits.  bars = 60 with L = 60 puts w1 at the series length
 * (no HMA value at all, so zero trades); L = 2..5 gives windows of 1. */
static const data_case cases[] = {
    {7, 5000, {2, 3, 4, 5, 6, 7, 9, 11, 13, 17, 31, 33, 64, 101, 199, 257}, 16},
    {(1ULL << 40) + 3, 20000, {2, 5, 8, 21, 55, 144, 200, 233}, 8},
    {0, 60, {2, 3, 30, 45, 50, 59, 60}, 7},
    {123456789, 150, {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 40, 80, 120, 149, 150}, 15},
    {42, 1, {2}, 0},
};

static void check_other_data(void) {
    const hs_variant *ref = hs_variant_find("unchecked");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const data_case *dc = &cases[k];
        double *close = malloc(dc->bars * sizeof *close);
        hs_windows w[16];
        hs_result want[16], got[16];
        hs_make_close(dc->seed, dc->bars, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, close, NULL);
        for (size_t c = 0; c < dc->n; c++) hs_windows_from_length(dc->lengths[c], &w[c], NULL);
        char label[64];
        snprintf(label, sizeof label, "seed %llu bars %zu", (unsigned long long)dc->seed, dc->bars);
        if (run(ref, HS_ISA_SCALAR, 1, close, dc->bars, w, dc->n, want) == HS_OK &&
            run(variant, isa, 2, close, dc->bars, w, dc->n, got) == HS_OK)
            gate(label, got, want, dc->lengths, dc->n);
        free(close);
    }
}

/* Series built to put d at or near zero, where only exact tier-0 arithmetic decides the sign: a flat
 * series (d exactly 0: no trades), a two-level zigzag, a flat series with 1e-12 ripples (d at the level
 * of the rounding noise), prices so large that the long windows' sums overflow (d NaN there, skipped as
 * the reference skips it), a staircase with long flat treads, and quotes as real feeds give them: prices
 * with few decimals (1e-5 and 1e-4 ticks, FX-like levels near 1.1) that stay flat for stretches, so d sits
 * at rounding level (the reference's d is ±2.2e-16 where a reordered sum gives exactly 0: issue 9, seen
 * on a real FX series).  A variant that approximates d must recompute these bars exactly to stay tier 0,
 * and no variant is exempt: a variant the CLI offers passes every series. */
enum { SHAPE_N = 700, SHAPES = 8 };

static double round_to(double x, double tick) { return round(x / tick) * tick; }

static void shaped_series(int shape, double *x, size_t n) {
    static double walk[SHAPE_N];
    hs_make_close(11, n, 0.0004, 1.1, walk, NULL); /* an FX-like level, then rounded to ticks */
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0: x[i] = 100.0; break;
        case 1: x[i] = (i & 1) ? 101.0 : 100.0; break;
        case 2: x[i] = 100.0 + (double)(i % 7) * 1e-12; break; /* d of the order of the rounding noise */
        case 3: x[i] = (i % 3 ? 5e305 : 5.05e305); break;         /* long windows overflow to inf, d NaN */
        case 4: x[i] = 100.0 + (double)((i / 37) % 5) * 0.25; break; /* staircase */
        case 5: x[i] = i < 150 ? 1.10000 : round_to(walk[i], 1e-5); break; /* flat open, then 5-decimal quotes */
        case 6: x[i] = round_to(walk[i / 9], 1e-4); break;           /* 4-decimal quotes held 9 bars each */
        default: x[i] = (i / 60) % 2 ? round_to(walk[i], 1e-5) : round_to(walk[i - i % 60], 1e-5); break;
                 /* alternating 60-bar flat stretches and 5-decimal moves */
        }
    }
}

static void check_shaped_data(void) {
    const hs_variant *ref = hs_variant_find("unchecked");
    const int64_t lengths[] = {2, 3, 4, 5, 6, 7, 8, 10, 16, 25, 40, 64};
    enum { NL = sizeof lengths / sizeof lengths[0] };
    static double x[SHAPE_N];
    hs_windows w[NL];
    hs_result want[NL], got[NL];
    for (size_t c = 0; c < NL; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    const char *names[SHAPES] = {"flat series", "zigzag series", "near-flat series", "overflowing series",
                                 "staircase series", "flat-open 1e-5 quotes", "held 1e-4 quotes",
                                 "flat-stretch 1e-5 quotes"};
    for (int shape = 0; shape < SHAPES; shape++) {
        shaped_series(shape, x, SHAPE_N);
        if (run(ref, HS_ISA_SCALAR, 1, x, SHAPE_N, w, NL, want) != HS_OK ||
            run(variant, isa, 2, x, SHAPE_N, w, NL, got) != HS_OK)
            continue;
        gate(names[shape], got, want, lengths, NL);
    }
}

/* Six windows NOT derived from L (the wire and hs_sweep take any six windows >= 1): w0 > w1, w3 > w4 > w5,
 * all ones, windows at the series length.  Expected values on the 3000-bar series are the numba peer's
 * (peers/numba/hma_numba.py: backtest(series, *w, FEE) on the series `hmasweep gen --seed 7 --bars 3000
 * --vol 0.0024000000000000002` writes, i.e. HS_DEFAULT_VOL * 3), an independent source; every variant must equal them (tier 0 bit for bit), and `unchecked` on the other series. */
enum { FREE_N = 12, FREE_NOISE = 5 };
static const hs_windows free_windows[FREE_N] = {
    {{3, 6, 2, 9, 2, 3}},  {{10, 3, 7, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}},    {{40, 1, 1, 1, 1, 40}},
    {{1, 40, 3, 30, 20, 1}}, {{7, 7, 7, 7, 7, 7}}, {{2, 9, 5, 12, 1, 6}},   {{25, 4, 9, 3, 18, 11}},
    {{60, 1, 1, 1, 1, 1}}, {{1, 1, 60, 1, 1, 1}}, {{1, 1, 1, 60, 30, 1}}, {{31, 2, 30, 1, 1, 30}},
};
static const hs_result free_numba[8] = {
    {-0x1.a9e0092733bedp+5, 382}, {-0x1.296c30026b64fp+3, 298}, {-0x1.25d0947221b46p+6, 805},
    {-0x1.15db5090c4e02p+3, 192}, {-0x1.08ad99e4082a4p+5, 220}, {-0x1.026fffd255d2ep+6, 358},
    {-0x1.48255c283b098p+5, 258}, {-0x1.bc82641704860p+3, 162},
};

static void check_free_windows(void) {
    const hs_variant *ref = hs_variant_find("unchecked");
    static double x[3000];
    hs_result want[FREE_N], got[FREE_N];
    int64_t index[FREE_N];
    for (size_t c = 0; c < FREE_N; c++) index[c] = (int64_t)c; /* labels: "L=" is the combo's index here */
    struct { uint64_t seed; size_t bars; int shape; } sets[] = {{7, 3000, -1}, {11, 200, -1}, {0, 60, -1},
                                                                {0, 700, 0}, {0, 700, 3}, {0, 700, 4}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        size_t bars = sets[k].bars, n = bars >= 60 ? FREE_N : 8;
        if (sets[k].shape < 0) hs_make_close(sets[k].seed, bars, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, x, NULL);
        else shaped_series(sets[k].shape, x, bars);
        if (run(ref, HS_ISA_SCALAR, 1, x, bars, free_windows, n, want) != HS_OK ||
            run(variant, isa, 2, x, bars, free_windows, n, got) != HS_OK)
            continue;
        /* (7,7,7,7,7,7): HMA and HMA3 are the same WMA in exact arithmetic, so d is pure rounding noise
         * and only tier 0 promises its signs (as on the near-flat series).  Report it, do not gate it. */
        if (variant->tier == 1) {
            if (got[FREE_NOISE].trades != want[FREE_NOISE].trades)
                printf("tier 1, free windows (7,7,7,7,7,7) on series %d (d is rounding noise, not gated): %lld "
                       "trades, reference %lld\n", (int)k, (long long)got[FREE_NOISE].trades,
                       (long long)want[FREE_NOISE].trades);
            got[FREE_NOISE] = want[FREE_NOISE];
        }
        char label[64];
        snprintf(label, sizeof label, "free windows, %zu bars, series %d", bars, (int)k);
        if (k == 0) gate("free windows vs the numba peer", got, free_numba, index, 8);
        gate(label, got, want, index, n);
    }
}

static void check_thread_independence(void) {
    if (variant->driver != HS_DRIVER_OPENMP) return;
    const data_case *dc = &cases[0];
    double *close = malloc(dc->bars * sizeof *close);
    hs_windows w[16];
    hs_result r1[16], rt[16];
    hs_make_close(dc->seed, dc->bars, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    for (size_t c = 0; c < dc->n; c++) hs_windows_from_length(dc->lengths[c], &w[c], NULL);
    run(variant, isa, 1, close, dc->bars, w, dc->n, r1);
    for (int threads = 2; threads <= 3; threads++) {
        run(variant, isa, threads, close, dc->bars, w, dc->n, rt);
        for (size_t c = 0; c < dc->n; c++)
            CHECK(rt[c].trades == r1[c].trades && memcmp(&rt[c].pnl, &r1[c].pnl, sizeof(double)) == 0,
                  "%d threads: combo %zu differs from 1 thread", threads, c);
    }
    free(close);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gate_variant VARIANT ISA\n");
        return 2;
    }
    variant = hs_variant_find(argv[1]);
    if (!variant || hs_isa_parse(argv[2], &isa, NULL) != HS_OK || !variant->fn[isa]) {
        fprintf(stderr, "gate_variant: %s/%s is not registered and built\n", argv[1], argv[2]);
        return 2;
    }
    if (!hs_isa_supported(isa)) {
        printf("gate_variant %s/%s: skipped, this CPU cannot run %s\n", argv[1], argv[2], argv[2]);
        return 77;
    }
    check_default_run();
    check_other_data();
    check_shaped_data();
    check_free_windows();
    check_thread_independence();
    printf("gate %s/%s (tier %d): max |dPnL| vs reference = %.3g\n", variant->name, argv[2], variant->tier, max_dpnl);
    char name[96];
    snprintf(name, sizeof name, "gate_variant %s/%s", argv[1], argv[2]);
    return hs_check_summary(name);
}
