/* hs_trade_log: one combo's trades.  The PnLs summed in order equal the sweep's PnL bit for bit and the
 * count equals its trades — against the golden file (an independent record, tests/golden/) for combos of
 * the default run, and against hs_sweep of several variants for windows that no length gives.  Each trade
 * is also checked on its own: stop-and-reverse chaining, alternating sides, prices from the series, and
 * its PnL by docs/spec.md §4's formula. */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "hmasweep.h"

/* The trades of one combo must chain: every reversal closes one trade and opens the next at the same bar. */
static void check_chain(const double *close, size_t n, const hs_trade *t, size_t count, const char *what) {
    for (size_t k = 0; k < count; k++) {
        CHECK(t[k].side == 1 || t[k].side == -1, "%s trade %zu: side %d", what, k, t[k].side);
        CHECK(t[k].entry_bar >= 0 && t[k].entry_bar <= t[k].exit_bar && t[k].exit_bar < (int64_t)n,
              "%s trade %zu: bars %lld..%lld", what, k, (long long)t[k].entry_bar, (long long)t[k].exit_bar);
        CHECK_BITS(t[k].entry_price, close[t[k].entry_bar]);
        CHECK_BITS(t[k].exit_price, close[t[k].exit_bar]);
        /* docs/spec.md §4: r = side * (exit/entry - 1); pnl = ((1 + r)(1 - 0.0009) - 1) * 100 */
        double r = (double)t[k].side * (t[k].exit_price / t[k].entry_price - 1.0);
        CHECK_BITS(t[k].pnl, ((1.0 + r) * (1.0 - 0.0009) - 1.0) * 100.0);
        if (k + 1 < count) {
            CHECK_EQ_I(t[k + 1].entry_bar, t[k].exit_bar);
            CHECK_EQ_I(t[k + 1].side, -t[k].side);
        }
    }
    if (count) CHECK_EQ_I(t[count - 1].exit_bar, (int64_t)n - 1);
}

/* Log one combo (sizing call first) and compare with (trades, pnl). */
static void check_log(const double *close, size_t n, const hs_windows *w, int64_t trades, double pnl,
                      const char *what) {
    hs_error err;
    size_t count = 12345;
    CHECK(hs_trade_log(close, n, w, NULL, 0, &count, &err) == HS_OK, "%s: %s", what, err.msg);
    CHECK_EQ_I(count, trades);
    hs_trade *t = malloc((count ? count : 1) * sizeof *t);
    size_t again = 0;
    CHECK(hs_trade_log(close, n, w, t, count, &again, &err) == HS_OK, "%s: %s", what, err.msg);
    CHECK_EQ_I(again, count);
    double sum = 0.0;
    for (size_t k = 0; k < count; k++) sum += t[k].pnl;
    CHECK_BITS(sum, pnl);
    check_chain(close, n, t, count, what);
    free(t);
}

static void golden_combos(void) {
    golden_run g;
    if (!golden_load(HS_SOURCE_DIR "/tests/golden/default_run.json", &g)) {
        CHECK(0, "cannot read the golden file");
        return;
    }
    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    hs_error err;
    CHECK(hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) == HS_OK,
          "%s", err.msg);
    /* combo 0 (the study's fingerprint, 57,029 trades), a middle one and the last (L = 200) */
    size_t picks[] = {0, 1, g.n / 2, g.n - 1};
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; k++) {
        size_t c = picks[k];
        char what[64];
        snprintf(what, sizeof what, "golden combo %zu (L=%lld)", c, (long long)g.lengths[c]);
        check_log(close, HS_DEFAULT_BARS, &g.windows[c], g.results[c].trades, g.results[c].pnl, what);
    }
    CHECK_EQ_I(g.results[0].trades, HS_STUDY_TRADES);
    free(close);
    golden_free(&g);
}

/* Windows no length produces (the wire carries any six), including all-ones and one as long as the
 * series, against hs_sweep of the reference and of differently built variants. */
static void free_windows(void) {
    enum { N = 6000 };
    double *close = malloc(N * sizeof *close);
    hs_error err;
    CHECK(hs_make_close(7, N, 0.002, 50.0, close, &err) == HS_OK, "%s", err.msg);
    const hs_windows combos[] = {{{5, 7, 3, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}}, {{40, 3, 17, 11, 2, 29}},
                                 {{2, 2, 2, 2, 2, 2}}, {{N / 2, N / 3, 2, 1, 5, N / 2}}, {{1, N, 1, 1, 1, 1}}};
    const size_t nc = sizeof combos / sizeof combos[0];
    const char *variants[] = {"unchecked", "naive", "sliding", "simd_wma"};
    hs_result ref[sizeof combos / sizeof combos[0]];
    hs_sweep_options opt = {.variant = "unchecked", .isa = NULL, .threads = 1};
    CHECK(hs_sweep(close, N, combos, nc, ref, &opt, &err) == HS_OK, "%s", err.msg);
    for (size_t v = 1; v < sizeof variants / sizeof variants[0]; v++) {
        hs_result r[sizeof combos / sizeof combos[0]];
        opt.variant = variants[v];
        CHECK(hs_sweep(close, N, combos, nc, r, &opt, &err) == HS_OK, "%s: %s", variants[v], err.msg);
        for (size_t c = 0; c < nc; c++) {
            CHECK_EQ_I(r[c].trades, ref[c].trades);
            CHECK_BITS(r[c].pnl, ref[c].pnl);
        }
    }
    for (size_t c = 0; c < nc; c++) {
        char what[64];
        snprintf(what, sizeof what, "free windows #%zu", c);
        check_log(close, N, &combos[c], ref[c].trades, ref[c].pnl, what);
    }
    CHECK(ref[0].trades > 100, "combo 0 should trade (%lld)", (long long)ref[0].trades);
    CHECK_EQ_I(ref[5].trades, 0); /* a window as long as the series: d is valid on the last bar only */

    /* A cap smaller than the log: the first `cap` trades are written, the count is still the total. */
    hs_trade few[3], all[3];
    size_t count = 0;
    CHECK(hs_trade_log(close, N, &combos[0], few, 3, &count, &err) == HS_OK, "%s", err.msg);
    CHECK_EQ_I(count, ref[0].trades);
    size_t count_all = 0;
    hs_trade *t = malloc(count * sizeof *t);
    CHECK(hs_trade_log(close, N, &combos[0], t, count, &count_all, &err) == HS_OK, "%s", err.msg);
    memcpy(all, t, sizeof all);
    for (int k = 0; k < 3; k++) { /* field by field: the struct has padding after side */
        CHECK_EQ_I(few[k].entry_bar, all[k].entry_bar);
        CHECK_EQ_I(few[k].exit_bar, all[k].exit_bar);
        CHECK_EQ_I(few[k].side, all[k].side);
        CHECK_BITS(few[k].pnl, all[k].pnl);
    }
    free(t);
    free(close);
}

static void bad_input(void) {
    double close[50];
    for (int i = 0; i < 50; i++) close[i] = 100.0 + (i % 7);
    hs_windows w = {{3, 6, 2, 1, 2, 3}}, too_long = {{3, 51, 2, 1, 2, 3}}, zero = {{3, 6, 0, 1, 2, 3}};
    hs_error err;
    size_t n = 0;
    hs_trade t[4];
    CHECK(hs_trade_log(close, 50, &too_long, t, 4, &n, &err) == HS_ERR_USAGE, "window longer than the series");
    CHECK(strstr(err.msg, "51") != NULL, "message should name the window: %s", err.msg);
    CHECK(hs_trade_log(close, 50, &zero, t, 4, &n, &err) == HS_ERR_USAGE, "window 0");
    CHECK(hs_trade_log(close, 50, &w, NULL, 4, &n, &err) == HS_ERR_USAGE, "NULL out with cap 4");
    CHECK(hs_trade_log(close, 50, &w, t, 4, NULL, &err) == HS_ERR_USAGE, "NULL n_trades");
    CHECK(hs_trade_log(close, 0, &w, t, 4, &n, &err) != HS_OK, "no bars");
    close[17] = 0.0 / 0.0;
    CHECK(hs_trade_log(close, 50, &w, t, 4, &n, &err) == HS_ERR_DATA, "NaN price");
    close[17] = -1.0;
    CHECK(hs_trade_log(close, 50, &w, t, 4, &n, NULL) == HS_ERR_DATA, "negative price, NULL err");
}

int main(void) {
    golden_combos();
    free_windows();
    bad_input();
    return hs_check_summary("test_trades");
}
