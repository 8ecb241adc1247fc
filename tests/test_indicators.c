/* The indicators as arrays (hs_wma, hs_hma, hs_hma3, hs_signal): NaN exactly over the look-back, the
 * values of a hand-worked WMA, and the kernel's own decisions — walking hs_signal's sign flips by
 * docs/spec.md §4 (a loop written here, not the library's books) must give hs_trade_log's entries, sides
 * and exits, and the §4 PnL of those trades summed in order must equal hs_sweep's PnL bit for bit, on the
 * default series and on windows no length gives.  python/tests/test_indicators.py checks the arrays bit
 * for bit against the numba peer and the WMA against TA-Lib. */
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"

/* The leading NaNs of out[0..n) must be exactly `lookback` long, and everything after finite. */
static void check_lookback(const double *out, size_t n, int64_t lookback, const char *what) {
    size_t k = 0;
    while (k < n && isnan(out[k])) k++;
    CHECK_EQ_I(k, lookback < (int64_t)n ? lookback : (int64_t)n);
    size_t bad = 0;
    for (size_t i = k; i < n; i++) bad += !isfinite(out[i]);
    CHECK(bad == 0, "%s: %zu non-finite values after the look-back", what, bad);
}

/* docs/spec.md §4, written out once more from the text: a cross is a strict sign change of d against the
 * last non-zero d; NaN bars are skipped.  Fills entries (bar, side) and returns their count. */
static size_t walk_flips(const double *d, size_t n, int64_t *bar, int *side) {
    double prev = 0.0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(d[i])) continue;
        if ((prev > 0.0 && d[i] < 0.0) || (prev < 0.0 && d[i] > 0.0)) {
            bar[count] = (int64_t)i;
            side[count++] = d[i] > 0.0 ? 1 : -1;
        }
        if (d[i] != 0.0) prev = d[i];
    }
    return count;
}

/* One combo: hs_signal == hs_hma3 − hs_hma bit for bit, its look-back, and its flips == the trade log. */
static void check_combo(const double *close, size_t n, const hs_windows *w, const char *what) {
    hs_error err;
    double *d = malloc(n * sizeof *d), *h = malloc(n * sizeof *h), *h3 = malloc(n * sizeof *h3);
    int64_t *bar = malloc((n + 1) * sizeof *bar);
    int *side = malloc((n + 1) * sizeof *side);
    hs_trade *log = malloc((n + 1) * sizeof *log);
    CHECK(hs_signal(close, n, w, d, &err) == HS_OK, "%s: %s", what, err.msg);
    CHECK(hs_hma(close, n, w->w[0], w->w[1], w->w[2], h, &err) == HS_OK, "%s: %s", what, err.msg);
    CHECK(hs_hma3(close, n, w->w[3], w->w[4], w->w[5], h3, &err) == HS_OK, "%s: %s", what, err.msg);
    check_lookback(d, n, hs_signal_lookback(w), what);
    check_lookback(h, n, hs_hma_lookback(w->w[0], w->w[1], w->w[2]), what);
    check_lookback(h3, n, hs_hma3_lookback(w->w[3], w->w[4], w->w[5]), what);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
        double e = h3[i] - h[i];
        differ += memcmp(&e, &d[i], sizeof e) != 0;
    }
    CHECK(differ == 0, "%s: hs_signal differs from hs_hma3 - hs_hma at %zu bars", what, differ);

    size_t entries = walk_flips(d, n, bar, side), logged = 0;
    CHECK(hs_trade_log(close, n, w, log, n + 1, &logged, &err) == HS_OK, "%s: %s", what, err.msg);
    /* every entry but the first closes the one before it; the last is closed after the last bar */
    CHECK(logged == entries, "%s: %zu sign flips, %zu logged trades", what, entries, logged);
    size_t mismatched = 0;
    double pnl = 0.0;
    for (size_t k = 0; k < entries && k < logged; k++) {
        int64_t exit_bar = k + 1 < entries ? bar[k + 1] : (int64_t)n - 1;
        mismatched += log[k].entry_bar != bar[k] || log[k].side != side[k] || log[k].exit_bar != exit_bar;
        double r = (double)side[k] * (close[exit_bar] / close[bar[k]] - 1.0);
        pnl += ((1.0 + r) * (1.0 - 0.0009) - 1.0) * 100.0; /* docs/spec.md §4 */
    }
    CHECK(mismatched == 0, "%s: %zu trades differ from the sign flips", what, mismatched);
    hs_result res;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "unchecked";
    CHECK(hs_sweep(close, n, w, 1, &res, &opt, &err) == HS_OK, "%s: %s", what, err.msg);
    CHECK_EQ_I(res.trades, entries);
    CHECK_BITS(pnl, res.pnl);
    free(d), free(h), free(h3), free(bar), free(side), free(log);
}

static void default_series(void) {
    size_t n = HS_DEFAULT_BARS;
    double *close = malloc(n * sizeof *close);
    int64_t lengths[HS_DEFAULT_GRID_COUNT];
    hs_error err;
    CHECK(hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, lengths, &err) == HS_OK, "%s", err.msg);
    size_t picks[] = {0, 1, 40, HS_DEFAULT_GRID_COUNT - 1}; /* L = 6 (57,029 trades), 8, 104, 200 */
    for (size_t p = 0; p < sizeof picks / sizeof *picks; p++) {
        hs_windows w;
        CHECK(hs_windows_from_length(lengths[picks[p]], &w, &err) == HS_OK, "%s", err.msg);
        char what[64];
        snprintf(what, sizeof what, "default series, L = %lld", (long long)lengths[picks[p]]);
        check_combo(close, n, &w, what);
    }
    /* windows no length gives: w0 > w1, w3 > w5, w4 > w5 (issue 10's shapes) */
    hs_windows free_windows[] = {{{3, 6, 2, 9, 2, 3}}, {{12, 5, 1, 2, 17, 4}}, {{1, 1, 1, 1, 1, 1}}};
    for (size_t k = 0; k < sizeof free_windows / sizeof *free_windows; k++) {
        char what[64];
        snprintf(what, sizeof what, "free windows #%zu", k);
        check_combo(close, 20000, &free_windows[k], what);
    }
    free(close);
}

/* WMA by hand: x = 1, 2, 3, 4, 5; w = 2 gives (1·x[i−1] + 2·x[i]) / 3; w = 1 is x itself; w = n is one value. */
static void wma_by_hand(void) {
    double x[] = {1, 2, 3, 4, 5}, out[5];
    hs_error err;
    CHECK(hs_wma(x, 5, 2, out, &err) == HS_OK, "%s", err.msg);
    CHECK(isnan(out[0]), "out[0] = %g", out[0]);
    CHECK_BITS(out[1], 5.0 / 3.0);
    CHECK_BITS(out[2], 8.0 / 3.0);
    CHECK_BITS(out[4], 14.0 / 3.0);
    CHECK(hs_wma(x, 5, 1, out, &err) == HS_OK, "%s", err.msg);
    CHECK(memcmp(out, x, sizeof x) == 0, "WMA(x, 1) != x");
    CHECK(hs_wma(x, 5, 5, out, &err) == HS_OK, "%s", err.msg);
    CHECK_BITS(out[4], 55.0 / 15.0);
    check_lookback(out, 5, hs_wma_lookback(5), "wma w = n");
    double neg[] = {-1.0, 0.0, 2.5}; /* finite values need not be prices */
    CHECK(hs_wma(neg, 3, 2, out, &err) == HS_OK, "%s", err.msg);
    CHECK_BITS(out[2], 5.0 / 3.0);
    CHECK_EQ_I(hs_wma_lookback(7), 6);
    CHECK_EQ_I(hs_hma_lookback(3, 6, 2), 6);     /* max(3, 6) − 1 + 2 − 1 */
    CHECK_EQ_I(hs_hma3_lookback(1, 2, 3), 4);    /* max(1, 2, 3) − 1 + 3 − 1 */
    hs_windows w6 = {{3, 6, 2, 1, 2, 3}};
    CHECK_EQ_I(hs_signal_lookback(&w6), 6);
    CHECK_EQ_I(hs_wma_lookback(0), -1);
    CHECK_EQ_I(hs_hma3_lookback(1, -2, 3), -1);
    CHECK_EQ_I(hs_signal_lookback(NULL), -1);
}

/* Bad input: a clear error naming the problem, nothing written past out. */
static void expect_error(hs_status got, hs_status want, const hs_error *err, const char *needle) {
    CHECK(got == want, "status %d, want %d (%s)", (int)got, (int)want, err->msg);
    CHECK(strstr(err->msg, needle) != NULL, "message '%s' lacks '%s'", err->msg, needle);
}

static void bad_input(void) {
    double x[] = {1, 2, NAN, 4}, y[] = {1, 2, 3, 4}, out[4];
    hs_error err;
    expect_error(hs_wma(x, 4, 2, out, &err), HS_ERR_DATA, &err, "hs_wma: x[2] = nan is not a finite number");
    x[2] = INFINITY;
    expect_error(hs_hma(x, 4, 2, 2, 1, out, &err), HS_ERR_DATA, &err, "x[2] = inf");
    expect_error(hs_wma(y, 4, 0, out, &err), HS_ERR_USAGE, &err, "hs_wma: window w = 0 does not fit a series of 4 bars");
    expect_error(hs_wma(y, 4, 5, out, &err), HS_ERR_USAGE, &err, "window w = 5");
    expect_error(hs_hma(y, 4, 2, 9, 1, out, &err), HS_ERR_USAGE, &err, "hs_hma: window w1 = 9");
    expect_error(hs_hma3(y, 4, 1, 2, -3, out, &err), HS_ERR_USAGE, &err, "hs_hma3: window w5 = -3");
    hs_windows w = {{2, 2, 2, 2, 2, 7}};
    expect_error(hs_signal(y, 4, &w, out, &err), HS_ERR_USAGE, &err, "hs_signal: window w5 = 7");
    expect_error(hs_signal(y, 4, NULL, out, &err), HS_ERR_USAGE, &err, "NULL windows");
    expect_error(hs_wma(y, 0, 1, out, &err), HS_ERR_DATA, &err, "empty");
    expect_error(hs_wma(NULL, 4, 1, out, &err), HS_ERR_USAGE, &err, "NULL x");
    expect_error(hs_wma(y, 4, 1, NULL, &err), HS_ERR_USAGE, &err, "NULL out");
    CHECK(hs_wma(y, 4, 0, out, NULL) == HS_ERR_USAGE, "a NULL err is allowed");
}

int main(void) {
    wma_by_hand();
    bad_input();
    default_series();
    return hs_check_summary("test_indicators");
}
