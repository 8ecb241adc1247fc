/* The tests' oracle for docs/spec.md §9.1-§9.3, written plainly from the spec, not from src/spec/equity.h:
 * every bar's e[i] from the combo's trade log (hs_trade_log_opt: the reference's own trades), §9.2's loop
 * over every bar, E sampled at the period ends.  It shares no code with the kernels' tracker, which
 * samples only period ends and skips bars (equity.c); the gate and test_equity compare the two bit for bit.
 *
 * From the log: a stop-and-reverse book is in the market from its first cross on, so the last trade is
 * the one the end closes (exit_bar = bars − 1, not counted in pnl_i); every other trade is booked at its
 * exit bar.  At bar i the open trade is the one with entry_bar <= i that has not been booked. */
#ifndef HS_EQUITY_ORACLE_H
#define HS_EQUITY_ORACLE_H
#include <stdlib.h>

#include "hmasweep.h"

/* e[0..n) of one combo at fee, and its mtm_max_drawdown; 0 when the trade log fails. */
static int oracle_equity(const double *close, size_t n, const hs_windows *w, double fee, double *e, double *mdd) {
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.fee = fee, opt.has_fee = 1;
    size_t nt = 0;
    if (hs_trade_log_opt(close, n, w, NULL, 0, &nt, &opt, NULL) != HS_OK) return 0;
    hs_trade *t = malloc((nt ? nt : 1) * sizeof *t);
    if (!t || hs_trade_log_opt(close, n, w, t, nt, &nt, &opt, NULL) != HS_OK) {
        free(t);
        return 0;
    }
    double keep = 1.0 - fee, pnl = 0.0, peak = 0.0, dd = 0.0;
    size_t booked = 0; /* trades [0, booked) are in pnl */
    for (size_t i = 0; i < n; i++) {
        while (booked + 1 < nt && (size_t)t[booked].exit_bar == i) pnl += t[booked++].pnl;
        double ei = pnl;
        if (booked < nt && (size_t)t[booked].entry_bar <= i) {
            double r = (double)t[booked].side * (close[i] / t[booked].entry_price - 1.0);
            ei = pnl + ((1.0 + r) * keep - 1.0) * 100.0;
        }
        e[i] = ei;
        if (ei > peak) peak = ei;
        double fall = peak - ei;
        if (fall > dd) dd = fall;
    }
    *mdd = dd;
    free(t);
    return 1;
}

/* The oracle for every combo: E[k·n_combos + c] at the ends, mdd[c]; 0 on failure. */
static int oracle_sweep(const double *close, size_t n, const hs_windows *w, size_t n_combos, double fee,
                        const int64_t *ends, size_t n_ends, double *E, double *mdd) {
    double *e = malloc(n * sizeof *e);
    int ok = e != NULL;
    for (size_t c = 0; ok && c < n_combos; c++) {
        ok = oracle_equity(close, n, &w[c], fee, e, &mdd[c]);
        for (size_t k = 0; ok && k < n_ends; k++) E[k * n_combos + c] = e[ends[k]];
    }
    free(e);
    return ok;
}
#endif
