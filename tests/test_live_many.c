/* The multi-symbol live session (hs_live_open_many / hs_live_append_many, docs/live.md).
 *
 * Seven symbols with their own series (different seeds, volatilities and history lengths, one of them
 * flat) and a grid of 12 combos: after every call, every symbol's four arrays must equal a one-symbol
 * session (hs_live_append) fed the same bars, bit for bit; at the end, every symbol against the batch
 * reference (`unchecked` over its whole series).  A bad price for one symbol refuses the whole call,
 * names the symbol, and changes no session (the sessions then still agree with the twins).  Bad opens:
 * each status and message. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

enum { SYMBOLS = 7, COMBOS = 12, APPENDS = 3000 };

int main(void) {
    static const size_t history[SYMBOLS] = {1, 50, 200, 201, 999, 2, 400};
    double *series[SYMBOLS];
    const double *hist[SYMBOLS];
    size_t n_bars[SYMBOLS];
    hs_windows w[COMBOS];
    int64_t lengths[COMBOS];
    hs_error err;
    hs_grid(6, 200, COMBOS, lengths, &err);
    for (size_t c = 0; c < COMBOS; c++) hs_windows_from_length(lengths[c], &w[c], &err);
    hs_live *twin[SYMBOLS];
    for (size_t s = 0; s < SYMBOLS; s++) {
        size_t n = history[s] + APPENDS;
        series[s] = malloc(n * sizeof(double));
        if (s == 5)
            for (size_t i = 0; i < n; i++) series[s][i] = 1.25; /* flat: no sign ever certified */
        else
            hs_make_close(100 + s, n, HS_DEFAULT_VOL * (double)(1 + s), HS_DEFAULT_START, series[s], &err);
        hist[s] = series[s];
        n_bars[s] = history[s];
        CHECK(hs_live_open(series[s], history[s], w, COMBOS, &twin[s], &err) == HS_OK, "twin %zu: %s", s, err.msg);
    }
    hs_live_many *m = NULL;
    CHECK(hs_live_open_many(hist, n_bars, SYMBOLS, w, COMBOS, &m, &err) == HS_OK, "open many: %s", err.msg);
    if (!m) return hs_check_summary("test_live_many");
    CHECK_EQ_I(hs_live_many_symbols(m), SYMBOLS);

    static double pnl[SYMBOLS * COMBOS], tpnl[COMBOS];
    static int64_t trades[SYMBOLS * COMBOS], ttrades[COMBOS];
    static int8_t pos[SYMBOLS * COMBOS], tpos[COMBOS];
    static uint8_t crossed[SYMBOLS * COMBOS], tcrossed[COMBOS];
    double bars[SYMBOLS];
    size_t mismatches = 0;
    for (size_t i = 0; i < APPENDS; i++) {
        for (size_t s = 0; s < SYMBOLS; s++) bars[s] = series[s][history[s] + i];
        if (i == APPENDS / 2) { /* a refused call: symbol 3's price is NaN, then 0 */
            double bad[SYMBOLS];
            memcpy(bad, bars, sizeof bad);
            bad[3] = NAN;
            CHECK(hs_live_append_many(m, bad, pnl, trades, pos, crossed, &err) == HS_ERR_DATA, "NaN price accepted");
            CHECK(strstr(err.msg, "close[3]") && strstr(err.msg, "no session changed"), "message: %s", err.msg);
            bad[3] = 0.0;
            CHECK(hs_live_append_many(m, bad, pnl, trades, pos, crossed, &err) == HS_ERR_DATA, "zero price accepted");
        }
        CHECK(hs_live_append_many(m, bars, pnl, trades, pos, crossed, &err) == HS_OK, "append %zu: %s", i, err.msg);
        for (size_t s = 0; s < SYMBOLS; s++) {
            hs_live_append(twin[s], &bars[s], 1, tpnl, ttrades, tpos, tcrossed, &err);
            size_t at = s * COMBOS;
            mismatches += memcmp(tpnl, pnl + at, sizeof tpnl) != 0 || memcmp(ttrades, trades + at, sizeof ttrades) != 0 ||
                          memcmp(tpos, pos + at, sizeof tpos) != 0 || memcmp(tcrossed, crossed + at, sizeof tcrossed) != 0;
        }
    }
    CHECK(mismatches == 0, "%zu (append, symbol) pairs differ from the one-symbol sessions", mismatches);

    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "unchecked";
    hs_result ref[COMBOS];
    long long all_trades = 0;
    for (size_t s = 0; s < SYMBOLS; s++) {
        CHECK(hs_sweep(series[s], history[s] + APPENDS, w, COMBOS, ref, &opt, &err) == HS_OK, "batch: %s", err.msg);
        for (size_t c = 0; c < COMBOS; c++) {
            CHECK(ref[c].trades == trades[s * COMBOS + c], "symbol %zu combo %zu: trades %lld, batch %lld", s, c,
                  (long long)trades[s * COMBOS + c], (long long)ref[c].trades);
            CHECK_BITS(pnl[s * COMBOS + c], ref[c].pnl);
            all_trades += ref[c].trades;
        }
    }
    CHECK(all_trades > 1000, "the series should trade (%lld trades)", all_trades);
    CHECK_EQ_I(trades[5 * COMBOS], 0); /* the flat symbol never trades */

    /* bad opens and appends */
    hs_live_many *bad = (hs_live_many *)1;
    CHECK(hs_live_open_many(hist, n_bars, 0, w, COMBOS, &bad, &err) == HS_ERR_USAGE && !bad, "0 symbols");
    CHECK(strstr(err.msg, "no symbols") != NULL, "message: %s", err.msg);
    CHECK(hs_live_open_many(NULL, n_bars, SYMBOLS, w, COMBOS, &bad, &err) == HS_ERR_USAGE, "NULL history");
    CHECK(strstr(err.msg, "history") != NULL, "message: %s", err.msg);
    double nan_hist[2] = {1.0, NAN};
    const double *bad_hist[SYMBOLS];
    memcpy(bad_hist, hist, sizeof bad_hist);
    bad_hist[4] = nan_hist;
    size_t bad_n[SYMBOLS];
    memcpy(bad_n, n_bars, sizeof bad_n);
    bad_n[4] = 2;
    CHECK(hs_live_open_many(bad_hist, bad_n, SYMBOLS, w, COMBOS, &bad, &err) == HS_ERR_DATA && !bad, "NaN history");
    CHECK(strstr(err.msg, "symbol 4") != NULL, "message: %s", err.msg);
    CHECK(hs_live_append_many(NULL, bars, pnl, NULL, NULL, NULL, &err) == HS_ERR_USAGE, "NULL session");
    CHECK(hs_live_append_many(m, NULL, pnl, NULL, NULL, NULL, &err) == HS_ERR_USAGE, "NULL bars");

    hs_live_free_many(m);
    hs_live_free_many(NULL);
    for (size_t s = 0; s < SYMBOLS; s++) {
        hs_live_free(twin[s]);
        free(series[s]);
    }
    return hs_check_summary("test_live_many");
}
