/* The golden gate for one registered variant on one ISA (registered per registry line by CMake):
 *
 * 1. the default run against tests/golden/default_run.json — made by the reference and checked against
 *    the independent numba peer (tests/golden/README.md): trades exactly equal; PnL bit-identical for a
 *    tier-0 variant, within 1e-6 for tier 1 (docs/spec.md §5), printing the measured max |ΔPnL|;
 * 2. other data — several seeds, sizes and grids, including L = 2..5, odd L and windows at the series
 *    length; series shaped to put d at or near zero; twelve windows not derived from L (w0 > w1,
 *    w3 > w4 > w5, ...) — against the numba peer's values (tests/golden/gate_numba.h), same criteria;
 * 3. for OpenMP variants: 1, 2 and 3 threads give bit-identical results;
 * 4. spec v2 (docs/spec.md §8): on every data set of 2, at the default fee, at fee 0 and at fee 0.01, the
 *    results and all six statistics bit for bit against the numba peer's (tests/golden/gate_numba.h,
 *    gate_numba_stats_K) and against the reference's (unchecked, scalar); on the default run, the six
 *    statistics at the default fee against the numba peer's (gate_numba_default_stats);
 * 5. spec v3 (docs/spec.md §9.1-§9.3): E at P = 16 periods (or every bar of a set up to 5,000 bars) and
 *    mtm_max_drawdown bit for bit against the per-bar oracle (tests/equity_oracle.h: every bar's e from
 *    the trade log), on every data set of 2 at every fee of 4, at 1, 2 and 3 threads (OpenMP variants),
 *    through hs_sweep_many's series-major rows too, and on every 8th combo of the default run.
 *
 * usage: gate_variant VARIANT ISA      (exit 77 = skipped: this CPU cannot run ISA; skip() below)
 *        gate_variant --dump DIR       (the data sets' series and windows, for tests/golden/gate_numba.py)
 */
#include <stdlib.h>

#include "check.h"
#include "equity_oracle.h"
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

static const double gate_fees[] = {HS_DEFAULT_FEE, 0.0, 0.01};

/* run() at a fee, with the statistics, and with E and mtm_max_drawdown where eq is non-NULL. */
static hs_status run_stats_eq(const hs_variant *v, hs_isa which, int threads, const double *close, size_t n_bars,
                              const hs_windows *w, size_t n, double fee, hs_result *out, hs_stats *stats,
                              const hs_equity_terms *eq) {
    hs_error err = {{0}};
    hs_run_terms terms = {hs_keep(fee), stats, NULL, eq};
    hs_status st = hs_run_variant_terms(v, which, threads, close, n_bars, w, n, out, &terms, &err);
    CHECK(st == HS_OK, "%s/%s at fee %g failed: %s", v->name, hs_isa_name(which), fee, err.msg);
    return st;
}

static hs_status run_stats(const hs_variant *v, hs_isa which, int threads, const double *close, size_t n_bars,
                           const hs_windows *w, size_t n, double fee, hs_result *out, hs_stats *stats) {
    return run_stats_eq(v, which, threads, close, n_bars, w, n, fee, out, stats, NULL);
}

/* ---- item 5: E and mtm_max_drawdown against the per-bar oracle -------------------------------------- */
typedef struct {
    size_t P;
    int64_t *ends;
    double *E, *mdd, *wE, *wmdd; /* the variant's, the oracle's */
    hs_equity_terms terms;
    double *table; /* the range table (hs_mtm_ranges_make) */
} eq_run;

/* Terms for P equal periods of n bars over n_combos; 0 when out of memory. */
static int eq_run_make(eq_run *q, const double *close, size_t n, size_t P, size_t n_combos) {
    memset(q, 0, sizeof *q);
    q->P = P;
    q->ends = malloc(P * sizeof *q->ends);
    q->E = malloc(P * n_combos * sizeof *q->E), q->wE = malloc(P * n_combos * sizeof *q->wE);
    q->mdd = malloc((n_combos + 1) * sizeof *q->mdd), q->wmdd = malloc((n_combos + 1) * sizeof *q->wmdd);
    q->table = malloc(hs_mtm_ranges_doubles(n, 1) * sizeof *q->table);
    if (!q->ends || !q->E || !q->wE || !q->mdd || !q->wmdd || !q->table) return 0;
    hs_period_ends(n, P, q->ends, NULL);
    q->terms = (hs_equity_terms){q->ends, P, q->E, n_combos, q->mdd, hs_mtm_ranges_make(close, n, q->table, 1)};
    return 1;
}

static void eq_run_free(eq_run *q) {
    free(q->ends), free(q->E), free(q->wE), free(q->mdd), free(q->wmdd), free(q->table);
}

/* Combos `pick` (every `step`-th from 0) of the variant's E and mdd against the oracle's (wE, wmdd: the
 * oracle's rows for those combos only, n_pick columns). */
static void gate_equity(const char *label, double fee, int threads, const eq_run *q, size_t n_combos, size_t step,
                        const hs_result *out) {
    size_t n_pick = (n_combos + step - 1) / step, bad = 0;
    for (size_t j = 0; j < n_pick; j++) {
        size_t c = j * step;
        for (size_t k = 0; k < q->P; k++)
            if (memcmp(&q->E[k * n_combos + c], &q->wE[k * n_pick + j], sizeof(double)) != 0 && bad++ < 3)
                CHECK(0, "%s fee %g x%d: E[%zu] of combo %zu (P = %zu) is %.17g, the per-bar oracle %.17g", label, fee,
                      threads, k, c, q->P, q->E[k * n_combos + c], q->wE[k * n_pick + j]);
        CHECK(memcmp(&q->mdd[c], &q->wmdd[j], sizeof(double)) == 0,
              "%s fee %g x%d combo %zu: mtm_max_drawdown %.17g, the per-bar oracle %.17g", label, fee, threads, c,
              q->mdd[c], q->wmdd[j]);
        CHECK(memcmp(&q->E[(q->P - 1) * n_combos + c], &out[c].pnl, sizeof(double)) == 0,
              "%s fee %g x%d combo %zu: E[P] %.17g is not the pnl %.17g", label, fee, threads, c,
              q->E[(q->P - 1) * n_combos + c], out[c].pnl);
    }
    CHECK(bad == 0, "%s fee %g x%d: %zu E cells differ from the per-bar oracle", label, fee, threads, bad);
}

/* The oracle's E and mdd for every step-th combo; 0 when its trade logs failed. */
static int oracle_pick(eq_run *q, const double *close, size_t n, const hs_windows *w, size_t n_combos, size_t step,
                       double fee) {
    size_t n_pick = (n_combos + step - 1) / step;
    hs_windows *picked = malloc((n_pick ? n_pick : 1) * sizeof *picked);
    if (!picked) return 0;
    for (size_t j = 0; j < n_pick; j++) picked[j] = w[j * step];
    int ok = oracle_sweep(close, n, picked, n_pick, fee, q->ends, q->P, q->wE, q->wmdd);
    free(picked);
    CHECK(ok, "the per-bar oracle's trade logs failed");
    return ok;
}

/* Item 5 on one data set: every fee, P = 16 (or the bars) and, up to 5,000 bars, P = bars; 1..3 threads.
 * The oracle's per-bar curve is made once per fee and combo and sampled for both P. */
static void check_equity_set(const char *label, const double *close, size_t bars, const hs_windows *w, size_t n) {
    if (variant->tier != 0 || n == 0) return;
    size_t Ps[2] = {bars < 16 ? bars : 16, bars <= 5000 && bars > 16 ? bars : 0};
    double *e = malloc(bars * sizeof *e);
    eq_run q[2];
    int ok = e && eq_run_make(&q[0], close, bars, Ps[0], n);
    ok = ok && (!Ps[1] || eq_run_make(&q[1], close, bars, Ps[1], n));
    for (size_t f = 0; ok && f < sizeof gate_fees / sizeof gate_fees[0]; f++) {
        for (size_t c = 0; ok && c < n; c++) {
            ok = oracle_equity(close, bars, &w[c], gate_fees[f], e, &q[0].wmdd[c]);
            CHECK(ok, "%s: the per-bar oracle's trade log failed", label);
            for (int p = 0; ok && p < 2 && Ps[p]; p++) {
                q[p].wmdd[c] = q[0].wmdd[c];
                for (size_t k = 0; k < Ps[p]; k++) q[p].wE[k * n + c] = e[q[p].ends[k]];
            }
        }
        hs_result out[16];
        int max_threads = variant->driver == HS_DRIVER_OPENMP ? 3 : 1;
        for (int p = 0; ok && p < 2 && Ps[p]; p++)
            for (int t = 1; t <= max_threads; t++) {
                memset(q[p].E, 0xff, Ps[p] * n * sizeof *q[p].E);
                if (run_stats_eq(variant, isa, t, close, bars, w, n, gate_fees[f], out, NULL, &q[p].terms) == HS_OK)
                    gate_equity(label, gate_fees[f], t, &q[p], n, 1, out);
            }
    }
    eq_run_free(&q[0]);
    if (Ps[1]) eq_run_free(&q[1]);
    free(e);
}

#define SAME_BITS(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

/* The six statistics (and, for tier 0, the result) bit for bit against the reference's. */
static void gate_stats(const char *label, double fee, const hs_result *got, const hs_stats *gs, const hs_result *want,
                       const hs_stats *ws, size_t n) {
    if (variant->tier != 0) return; /* a tier-1 variant's PnL differs, and so may its statistics */
    for (size_t c = 0; c < n; c++) {
        const hs_stats *a = &gs[c], *b = &ws[c];
        CHECK(got[c].trades == want[c].trades && SAME_BITS(got[c].pnl, want[c].pnl),
              "%s fee %g combo %zu: %lld trades %.17g, reference %lld %.17g", label, fee, c, (long long)got[c].trades,
              got[c].pnl, (long long)want[c].trades, want[c].pnl);
        CHECK(a->wins == b->wins && a->bars_held == b->bars_held && SAME_BITS(a->gross_profit, b->gross_profit) &&
                  SAME_BITS(a->gross_loss, b->gross_loss) && SAME_BITS(a->sum_sq, b->sum_sq) &&
                  SAME_BITS(a->max_drawdown, b->max_drawdown),
              "%s fee %g combo %zu: statistics (wins %lld, gp %.17g, gl %.17g, sq %.17g, dd %.17g, held %lld) are not "
              "the reference's (%lld, %.17g, %.17g, %.17g, %.17g, %lld)",
              label, fee, c, (long long)a->wins, a->gross_profit, a->gross_loss, a->sum_sq, a->max_drawdown,
              (long long)a->bars_held, (long long)b->wins, b->gross_profit, b->gross_loss, b->sum_sq, b->max_drawdown,
              (long long)b->bars_held);
    }
}

#include "golden/gate_numba.h" /* gate_numba[DATA_SETS]: the numba peer's results (and statistics) */

/* Item 4 on data set k: against the numba peer (oracle), then against the reference. */
static void check_stats(size_t k, const char *label, const double *close, size_t bars, const hs_windows *w, size_t n) {
    const hs_variant *ref = hs_variant_find("unchecked");
    CHECK(sizeof gate_numba_fees == sizeof gate_fees && !memcmp(gate_numba_fees, gate_fees, sizeof gate_fees),
          "tests/golden/gate_numba.h has other fees than gate_fees: regenerate it (tests/golden/gate_numba.py)");
    for (size_t f = 0; f < sizeof gate_fees / sizeof gate_fees[0]; f++) {
        hs_result got[16], want[16];
        hs_stats gs[16], ws[16];
        char what[96];
        if (run_stats(variant, isa, 2, close, bars, w, n, gate_fees[f], got, gs) != HS_OK) continue;
        if (k < sizeof gate_numba / sizeof gate_numba[0] && gate_numba[k].n == n) {
            snprintf(what, sizeof what, "%s (numba peer)", label);
            gate_stats(what, gate_fees[f], got, gs, gate_numba[k].v2 + f * n, gate_numba[k].stats + f * n, n);
        }
        if (run_stats(ref, HS_ISA_SCALAR, 1, close, bars, w, n, gate_fees[f], want, ws) == HS_OK)
            gate_stats(label, gate_fees[f], got, gs, want, ws, n);
    }
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
    hs_stats *stats = calloc(g.n, sizeof *stats);
    int64_t default_lengths[HS_DEFAULT_GRID_COUNT];
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, default_lengths, NULL);
    eq_run q;
    int eq = variant->tier == 0 && eq_run_make(&q, close, HS_DEFAULT_BARS, 16, g.n);
    if (run_stats_eq(variant, isa, 2, close, HS_DEFAULT_BARS, g.windows, g.n, HS_DEFAULT_FEE, out, stats,
                     eq ? &q.terms : NULL) == HS_OK) {
        gate("default run", out, g.results, g.lengths, g.n);
        if (eq && oracle_pick(&q, close, HS_DEFAULT_BARS, g.windows, g.n, 8, HS_DEFAULT_FEE))
            gate_equity("default run, every 8th combo", HS_DEFAULT_FEE, 2, &q, g.n, 8, out);
        /* the statistics against the numba peer's (HS_GATE_STRIDE keeps every k-th: their lengths say which) */
        for (size_t c = 0, k = 0; c < g.n; c++) {
            while (k < HS_DEFAULT_GRID_COUNT && default_lengths[k] != g.lengths[c]) k++;
            CHECK(k < HS_DEFAULT_GRID_COUNT, "default run combo %zu (L=%lld) is not in the grid", c, (long long)g.lengths[c]);
            if (k < HS_DEFAULT_GRID_COUNT) gate_stats("default run (numba peer)", HS_DEFAULT_FEE, &out[c], &stats[c],
                                                      &gate_numba_default_results[k], &gate_numba_default_stats[k], 1);
        }
    }
    if (variant->tier == 0) eq_run_free(&q);
    free(stats);
    free(out);
    free(close);
    golden_free(&g);
}

/* ---- the data sets beyond the default run -------------------------------------------------------------
 * Each is a series and a list of combos; the expected results are the numba peer's (peers/numba, written
 * from the spec and the study, not from the C code), committed in tests/golden/gate_numba.h with where
 * they came from.  `gate_variant --dump DIR` writes every set's series and windows for that generator
 * (tests/golden/gate_numba.py), so the reference is never its own oracle, least of all at d ~ 0. */
typedef struct {
    uint64_t seed;
    size_t bars;
    int64_t lengths[16];
    size_t n;
} data_case;

/* Small and odd shapes the default run never visits.  bars = 60 with L = 60 puts w1 at the series length
 * (no HMA value at all, so zero trades); L = 2..5 gives windows of 1.  Series: vol HS_DEFAULT_VOL * 3. */
static const data_case cases[] = {
    {7, 5000, {2, 3, 4, 5, 6, 7, 9, 11, 13, 17, 31, 33, 64, 101, 199, 257}, 16},
    {(1ULL << 40) + 3, 20000, {2, 5, 8, 21, 55, 144, 200, 233}, 8},
    {0, 60, {2, 3, 30, 45, 50, 59, 60}, 7},
    {123456789, 150, {2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 40, 80, 120, 149, 150}, 15},
    {42, 1, {2}, 0}, /* no combos: the call succeeds and writes nothing */
};
enum { CASES = sizeof cases / sizeof cases[0] };

/* Series built to put d at or near zero, where only exact tier-0 arithmetic decides the sign: a flat
 * series (d exactly 0: no trades), a two-level zigzag, a flat series with 1e-12 ripples (d at the level
 * of the rounding noise), prices so large that the long windows' sums overflow (d NaN there, skipped as
 * the reference skips it), a staircase with long flat treads, and quotes as real feeds give them: prices
 * with few decimals (1e-5 and 1e-4 ticks, FX-like levels near 1.1) that stay flat for stretches, so d sits
 * at rounding level (the reference's d is ±2.2e-16 where a reordered sum gives exactly 0: issue 9, seen
 * on a real FX series).  A variant that approximates d must recompute these bars exactly to stay tier 0,
 * and no variant is exempt: a variant the CLI offers passes every series. */
enum { SHAPE_N = 700, SHAPES = 8 };
static const char *const shape_names[SHAPES] = {
    "flat series",      "zigzag series",         "near-flat series", "overflowing series",
    "staircase series", "flat-open 1e-5 quotes", "held 1e-4 quotes", "flat-stretch 1e-5 quotes"};
static const int64_t shape_lengths[] = {2, 3, 4, 5, 6, 7, 8, 10, 16, 25, 40, 64};
enum { SHAPE_L = sizeof shape_lengths / sizeof shape_lengths[0] };

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

/* Twelve windows NOT derived from L (the wire and hs_sweep take any six windows >= 1): w0 > w1,
 * w3 > w4 > w5, all ones, windows at the series length; on GBM series and on three shaped ones. */
enum { FREE_N = 12, FREE_NOISE = 5 };
static const hs_windows free_windows[FREE_N] = {
    {{3, 6, 2, 9, 2, 3}},  {{10, 3, 7, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}},    {{40, 1, 1, 1, 1, 40}},
    {{1, 40, 3, 30, 20, 1}}, {{7, 7, 7, 7, 7, 7}}, {{2, 9, 5, 12, 1, 6}},   {{25, 4, 9, 3, 18, 11}},
    {{60, 1, 1, 1, 1, 1}}, {{1, 1, 60, 1, 1, 1}}, {{1, 1, 1, 60, 30, 1}}, {{31, 2, 30, 1, 1, 30}},
};
static const struct { uint64_t seed; size_t bars; int shape; } free_sets[] = {
    {7, 3000, -1}, {11, 200, -1}, {0, 60, -1}, {0, 700, 0}, {0, 700, 3}, {0, 700, 4}};
enum { FREE_SETS = sizeof free_sets / sizeof free_sets[0], DATA_SETS = CASES + SHAPES + FREE_SETS };

typedef struct {
    char label[64];
    int free; /* free windows: (7,7,7,7,7,7) is rounding noise for tier 1 */
    size_t bars, n;
    double *close;
    hs_windows w[16];
    int64_t lengths[16]; /* for the messages: L, or the combo's index for free windows */
} data_set;

/* Data set k of DATA_SETS, in the order of tests/golden/gate_numba.h; free its close with free(). */
static void data_set_make(size_t k, data_set *d) {
    memset(d, 0, sizeof *d);
    if (k < CASES) {
        const data_case *dc = &cases[k];
        d->bars = dc->bars, d->n = dc->n;
        d->close = malloc(d->bars * sizeof *d->close);
        hs_make_close(dc->seed, dc->bars, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, d->close, NULL);
        for (size_t c = 0; c < d->n; c++) d->lengths[c] = dc->lengths[c];
        snprintf(d->label, sizeof d->label, "seed %llu bars %zu", (unsigned long long)dc->seed, dc->bars);
    } else if (k < CASES + SHAPES) {
        int shape = (int)(k - CASES);
        d->bars = SHAPE_N, d->n = SHAPE_L;
        d->close = malloc(d->bars * sizeof *d->close);
        shaped_series(shape, d->close, d->bars);
        for (size_t c = 0; c < d->n; c++) d->lengths[c] = shape_lengths[c];
        snprintf(d->label, sizeof d->label, "%s", shape_names[shape]);
    } else {
        size_t f = k - CASES - SHAPES;
        d->free = 1, d->bars = free_sets[f].bars, d->n = d->bars >= 60 ? FREE_N : 8;
        d->close = malloc(d->bars * sizeof *d->close);
        if (free_sets[f].shape < 0)
            hs_make_close(free_sets[f].seed, d->bars, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, d->close, NULL);
        else
            shaped_series(free_sets[f].shape, d->close, d->bars);
        for (size_t c = 0; c < d->n; c++) d->w[c] = free_windows[c], d->lengths[c] = (int64_t)c;
        snprintf(d->label, sizeof d->label, "free windows, %zu bars, series %zu", d->bars, f);
        return;
    }
    for (size_t c = 0; c < d->n; c++) hs_windows_from_length(d->lengths[c], &d->w[c], NULL);
}

static void check_data_sets(void) {
    CHECK(sizeof gate_numba / sizeof gate_numba[0] == DATA_SETS,
          "tests/golden/gate_numba.h has %zu data sets, the gate %d: regenerate it (tests/golden/gate_numba.py)",
          sizeof gate_numba / sizeof gate_numba[0], (int)DATA_SETS);
    for (size_t k = 0; k < DATA_SETS && k < sizeof gate_numba / sizeof gate_numba[0]; k++) {
        data_set d;
        data_set_make(k, &d);
        hs_result got[16], want[16];
        CHECK(gate_numba[k].n == d.n, "%s: %zu numba results for %zu combos: regenerate tests/golden/gate_numba.h",
              d.label, gate_numba[k].n, d.n);
        if (gate_numba[k].n == d.n && run(variant, isa, 2, d.close, d.bars, d.w, d.n, got) == HS_OK) {
            if (d.n) memcpy(want, gate_numba[k].r, d.n * sizeof *want);
            /* (7,7,7,7,7,7): HMA and HMA3 are the same WMA in exact arithmetic, so d is pure rounding noise
             * and only tier 0 promises its signs (as on the near-flat series).  Report it, do not gate it. */
            if (d.free && variant->tier == 1) {
                if (got[FREE_NOISE].trades != want[FREE_NOISE].trades)
                    printf("tier 1, free windows (7,7,7,7,7,7), %s (d is rounding noise, not gated): %lld "
                           "trades, numba %lld\n", d.label, (long long)got[FREE_NOISE].trades,
                           (long long)want[FREE_NOISE].trades);
                got[FREE_NOISE] = want[FREE_NOISE];
            }
            gate(d.label, got, want, d.lengths, d.n);
        }
        check_stats(k, d.label, d.close, d.bars, d.w, d.n);
        check_equity_set(d.label, d.close, d.bars, d.w, d.n);
        free(d.close);
    }
}

/* Write n doubles to path; 0 on success, else 1 after naming the file. */
static int write_f64(const char *path, const double *x, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(x, sizeof *x, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "gate_variant: cannot write %s\n", path);
    return !ok;
}

/* Windows as a JSON list of six-integer lists. */
static void print_windows_json(FILE *out, const hs_windows *w, size_t n) {
    fprintf(out, "[");
    for (size_t c = 0; c < n; c++)
        fprintf(out, "%s[%lld, %lld, %lld, %lld, %lld, %lld]", c ? ", " : "", (long long)w[c].w[0],
                (long long)w[c].w[1], (long long)w[c].w[2], (long long)w[c].w[3], (long long)w[c].w[4],
                (long long)w[c].w[5]);
    fprintf(out, "]");
}

/* The default run's series and windows as DIR/default.f64 and DIR/default.json. */
static int dump_default_run(const char *dir) {
    char path[4096];
    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    int64_t lengths[HS_DEFAULT_GRID_COUNT];
    hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, lengths, NULL);
    snprintf(path, sizeof path, "%s/default.f64", dir);
    int bad = write_f64(path, close, HS_DEFAULT_BARS);
    free(close);
    snprintf(path, sizeof path, "%s/default.json", dir);
    FILE *j = bad ? NULL : fopen(path, "w");
    if (!j) return bad ? 1 : (fprintf(stderr, "gate_variant: cannot write %s\n", path), 1);
    hs_windows w[HS_DEFAULT_GRID_COUNT];
    for (size_t c = 0; c < HS_DEFAULT_GRID_COUNT; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    fprintf(j, "{\"windows\": ");
    print_windows_json(j, w, HS_DEFAULT_GRID_COUNT);
    fprintf(j, "}\n");
    return fclose(j) == 0 ? 0 : 1;
}

/* gate_variant --dump DIR: every data set as DIR/setK.f64 (little-endian f64) and DIR/sets.json (labels
 * and windows), and the default run (dump_default_run): the input of tests/golden/gate_numba.py. */
static int dump_data_sets(const char *dir) {
    if (dump_default_run(dir)) return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/sets.json", dir);
    FILE *index = fopen(path, "w");
    if (!index) {
        fprintf(stderr, "gate_variant: cannot write %s\n", path);
        return 1;
    }
    fprintf(index, "[\n");
    for (size_t k = 0; k < DATA_SETS; k++) {
        data_set d;
        data_set_make(k, &d);
        snprintf(path, sizeof path, "%s/set%zu.f64", dir, k);
        if (write_f64(path, d.close, d.bars)) {
            fclose(index);
            free(d.close);
            return 1;
        }
        fprintf(index, "  {\"label\": \"%s\", \"series\": \"set%zu.f64\", \"bars\": %zu, \"windows\": ", d.label, k,
                d.bars);
        print_windows_json(index, d.w, d.n);
        fprintf(index, "}%s\n", k + 1 < DATA_SETS ? "," : "");
        free(d.close);
    }
    fprintf(index, "]\n");
    return fclose(index) == 0 ? 0 : 1;
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

/* Item 5 through hs_sweep_many: two series (the first two cases' seeds and lengths, the first case's combos),
 * E series-major, each series' block against the oracle. */
static void check_equity_many(void) {
    if (variant->tier != 0) return;
    enum { P = 16 };
    const data_case *dc = &cases[0];
    hs_windows w[16];
    for (size_t c = 0; c < dc->n; c++) hs_windows_from_length(dc->lengths[c], &w[c], NULL);
    hs_series_ref ref[2];
    double *x[2];
    for (int s = 0; s < 2; s++) {
        x[s] = malloc(cases[s].bars * sizeof *x[s]);
        hs_make_close(cases[s].seed, cases[s].bars, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, x[s], NULL);
        ref[s] = (hs_series_ref){"gate", x[s], cases[s].bars};
    }
    hs_result out[2 * 16];
    double E[2 * P * 16], mdd[2 * 16];
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.variant = variant->name, o.isa = hs_isa_name(isa), o.threads = 2;
    o.n_periods = P, o.equity = E, o.mtm_max_drawdown = mdd;
    hs_error err = {{0}};
    size_t failed = 0;
    hs_status st = hs_sweep_many(ref, 2, w, dc->n, out, NULL, NULL, &failed, &o, &err);
    CHECK(st == HS_OK && failed == 0, "hs_sweep_many with periods: %s (%zu failed)", err.msg, failed);
    for (int s = 0; st == HS_OK && s < 2; s++) {
        eq_run q;
        if (eq_run_make(&q, x[s], cases[s].bars, P, dc->n) && oracle_pick(&q, x[s], cases[s].bars, w, dc->n, 1, HS_DEFAULT_FEE)) {
            memcpy(q.E, E + (size_t)s * P * dc->n, P * dc->n * sizeof *E);
            memcpy(q.mdd, mdd + (size_t)s * dc->n, dc->n * sizeof *mdd);
            gate_equity(s ? "hs_sweep_many series 1" : "hs_sweep_many series 0", HS_DEFAULT_FEE, 2, &q, dc->n, 1,
                        out + (size_t)s * dc->n);
        }
        eq_run_free(&q);
    }
    free(x[0]), free(x[1]);
}

/* The skip policy (tests/skips.allow): "SKIPPED: TOOL: reason" and 77 (ctest: Skipped), except in CI (CI set,
 * not "false"/"0") when TOOL is not on the allow-list: then the gate fails. */
static int skip(const char *tool, const char *isa_name) {
    const char *ci = getenv("CI");
    if (ci && *ci && strcmp(ci, "false") != 0 && strcmp(ci, "0") != 0) {
        FILE *f = fopen(HS_SOURCE_DIR "/tests/skips.allow", "r");
        char line[256];
        int allowed = 0;
        size_t k = strlen(tool);
        while (f && !allowed && fgets(line, sizeof line, f))
            allowed = strncmp(line, tool, k) == 0 && (line[k] == ' ' || line[k] == '\t');
        if (f) fclose(f);
        if (!allowed) {
            printf("FAIL: unexpected skip in CI (CI=%s): %s: this CPU cannot run %s ('%s' is not on "
                   "tests/skips.allow)\n", ci, tool, isa_name, tool);
            return 1;
        }
    }
    printf("SKIPPED: %s: this CPU cannot run %s\n", tool, isa_name);
    return 77;
}

/* The kernel's own scratch layout (HS_SCRATCH) fits what the drivers allocate from the registry line, for
 * short, odd, chunk-boundary and long series; and a registry line that gave it less is refused by the
 * driver with a message, not run. */
static void check_scratch_layout(void) {
    static const size_t more[] = {511, 512, 513, 1000, 4095, 4096, 4097, 20000, 150000, 1u << 20};
    int bad = 0;
    for (size_t n = 1; n <= 300; n++) bad += !hs_scratch_fits(variant, isa, n);
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) bad += !hs_scratch_fits(variant, isa, more[k]);
    CHECK(bad == 0, "%s/%s: the kernel's scratch layout outgrows the registry's %d buffers for %d series lengths",
          variant->name, hs_isa_name(isa), variant->scratch_buffers, bad);
    size_t n = 3000;
    if (variant->scratch_doubles[isa](n) == 0) return; /* no driver scratch: nothing to under-allocate */
    hs_variant short_of = *variant;
    short_of.scratch_buffers = 0;
    double *close = malloc(n * sizeof *close);
    hs_windows w;
    hs_result r;
    hs_error err = {{0}};
    hs_make_close(5, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_windows_from_length(6, &w, NULL);
    hs_status st = hs_run_variant(&short_of, isa, 1, close, n, &w, 1, &r, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "scratch layout"), "a registry line short of scratch ran: %d '%s'", st,
          err.msg);
    free(close);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--dump") == 0) return dump_data_sets(argv[2]);
    if (argc != 3) {
        fprintf(stderr, "usage: gate_variant VARIANT ISA | --dump DIR\n");
        return 2;
    }
    variant = hs_variant_find(argv[1]);
    if (!variant || hs_isa_parse(argv[2], &isa, NULL) != HS_OK || !variant->fn[isa]) {
        fprintf(stderr, "gate_variant: %s/%s is not registered and built\n", argv[1], argv[2]);
        return 2;
    }
    if (!hs_isa_supported(isa)) return skip("cpu-isa", argv[2]);
    check_scratch_layout();
    check_default_run();
    check_data_sets();
    check_thread_independence();
    check_equity_many();
    printf("gate %s/%s (tier %d): max |dPnL| vs reference = %.3g\n", variant->name, argv[2], variant->tier, max_dpnl);
    char name[96];
    snprintf(name, sizeof name, "gate_variant %s/%s", argv[1], argv[2]);
    return hs_check_summary(name);
}
