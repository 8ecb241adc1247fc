/* hs_sweep_options and struct_size (issue 29 item 4; docs/library.md "Extending the options"), against
 * libhmasweep.so:
 *   - `= {0}` (struct_size 0) then has_fee/fee/stats set: refused naming has_fee, not run with the
 *     default fee (before 1.3: HS_OK, the default fee's PnL, no statistics);
 *   - a set field that a non-zero struct_size leaves out (progress past `report`): refused by name;
 *   - the same for spec v3's fields (n_periods, mtm_max_drawdown: before the merge of spec v3 and issue 29,
 *     `= {0}` then `.n_periods = 3` ran without periods and left mtm_max_drawdown unwritten);
 *   - the three-field initializer (README) still runs; hs_sweep_options_init and HS_SWEEP_OPTIONS_INIT
 *     give a struct whose fee 0 is fee 0 (its PnL is not the default fee's, its statistics written);
 *   - a binary linked before 1.3 (unversioned references bind to HMASWEEP_1.0, fetched here with
 *     dlvsym): its 40-byte 1.0 struct, allocated exactly that long so that ASan sees any read past it,
 *     keeps the old rule (report past struct_size 0 not written, HS_OK). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

#define BARS 600
static double close_[BARS];

static int never_called(void *user, size_t done, size_t total) {
    (void)done, (void)total;
    *(int *)user = 1;
    return 1;
}

typedef hs_status (*sweep_fn)(const double *, size_t, const hs_windows *, size_t, hs_result *,
                              const hs_sweep_options *, hs_error *);

int main(void) {
    hs_error err = {{0}};
    CHECK(hs_make_close(11, BARS, 0.01, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    hs_windows w;
    CHECK(hs_windows_from_length(6, &w, &err) == HS_OK, "%s", err.msg);
    hs_result def, r;
    hs_stats stats = {.bars_held = -1};
    CHECK(hs_sweep(close_, BARS, &w, 1, &def, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(def.trades > 10, "the series crosses: %lld trades", (long long)def.trades);

    /* the reproducer: = {0}, then the fee and the statistics */
    hs_sweep_options zero = {0};
    zero.has_fee = 1, zero.fee = 0.0, zero.stats = &stats;
    hs_status st = hs_sweep(close_, BARS, &w, 1, &r, &zero, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.stats") && strstr(err.msg, "struct_size = 0"),
          "= {0} with stats/has_fee: status %d, '%s'", (int)st, err.msg);
    zero.stats = NULL;
    st = hs_sweep(close_, BARS, &w, 1, &r, &zero, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.has_fee") && strstr(err.msg, "HS_SWEEP_OPTIONS_INIT"),
          "= {0} with has_fee: status %d, '%s'", (int)st, err.msg);
    /* a field set past a non-zero struct_size */
    int called = 0;
    hs_sweep_options short_ = HS_SWEEP_OPTIONS_INIT;
    short_.struct_size = offsetof(hs_sweep_options, progress);
    short_.progress = never_called, short_.progress_user = &called;
    st = hs_sweep(close_, BARS, &w, 1, &r, &short_, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.progress ") && !called,
          "progress past struct_size: status %d, '%s'", (int)st, err.msg);
    /* spec v3's fields (API 1.3) are under the same rule */
    double mtm = -7.0;
    hs_sweep_options zero_p = {0};
    zero_p.n_periods = 3, zero_p.mtm_max_drawdown = &mtm;
    st = hs_sweep(close_, BARS, &w, 1, &r, &zero_p, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.n_periods ") && mtm == -7.0,
          "= {0} with n_periods: status %d, '%s', mtm %g", (int)st, err.msg, mtm);
    hs_sweep_options v12 = HS_SWEEP_OPTIONS_INIT;
    v12.struct_size = offsetof(hs_sweep_options, n_periods); /* a 1.2 struct_size */
    v12.mtm_max_drawdown = &mtm;
    st = hs_sweep(close_, BARS, &w, 1, &r, &v12, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.mtm_max_drawdown ") && mtm == -7.0,
          "mtm_max_drawdown past a 1.2 struct_size: status %d, '%s'", (int)st, err.msg);
    size_t n_p = 0;
    hs_trade one[1];
    st = hs_trade_log_opt(close_, BARS, &w, one, 1, &n_p, &zero_p, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "n_periods"), "hs_trade_log_opt, n_periods: status %d, '%s'", (int)st,
          err.msg);
    hs_sweep_options with_p = HS_SWEEP_OPTIONS_INIT; /* covered: runs, and writes the drawdown */
    with_p.n_periods = 3, with_p.mtm_max_drawdown = &mtm;
    CHECK(hs_sweep(close_, BARS, &w, 1, &r, &with_p, &err) == HS_OK && mtm != -7.0 && mtm >= 0.0,
          "n_periods covered: %s, mtm %g", err.msg, mtm);
    /* the same rule in the other entry points that read the options */
    hs_trade log[4096];
    size_t n_log = 0;
    st = hs_trade_log_opt(close_, BARS, &w, log, 4096, &n_log, &zero, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "has_fee"), "hs_trade_log_opt: status %d, '%s'", (int)st, err.msg);
    hs_live *live = NULL;
    st = hs_live_open_opt(close_, BARS, &w, 1, &zero, &live, &err);
    CHECK(st == HS_ERR_USAGE && !live && strstr(err.msg, "has_fee"), "hs_live_open_opt: status %d, '%s'", (int)st,
          err.msg);

    /* the README's three-field form still runs, with the default fee */
    hs_sweep_options three = {.variant = "unchecked", .isa = NULL, .threads = 0};
    CHECK(hs_sweep(close_, BARS, &w, 1, &r, &three, &err) == HS_OK, "%s", err.msg);
    CHECK(r.pnl == def.pnl && r.trades == def.trades, "three-field form: %.9f vs %.9f", r.pnl, def.pnl);

    /* the ways that cannot be wrong: fee 0 is fee 0 */
    hs_sweep_options made;
    memset(&made, 0xA5, sizeof made);
    hs_sweep_options_init(&made);
    CHECK(made.struct_size == sizeof made && made.has_fee == 0 && !made.stats && !made.report && !made.progress &&
              made.n_periods == 0 && !made.period_ends && !made.equity && !made.mtm_max_drawdown,
          "hs_sweep_options_init left a field set");
    made.has_fee = 1, made.fee = 0.0, made.stats = &stats;
    CHECK(hs_sweep(close_, BARS, &w, 1, &r, &made, &err) == HS_OK, "%s", err.msg);
    CHECK(r.trades == def.trades && r.pnl > def.pnl && stats.bars_held > 0,
          "fee 0: %.9f (default fee %.9f), stats bars_held %lld", r.pnl, def.pnl, (long long)stats.bars_held);
    /* fee 0 adds back each trade's cost: with the default fee, pnl_fee0 - pnl_default is about
     * trades x 0.0009 x 100 pp (each trade's ((1+r)(1-f)-1)*100 differs by f(1+r)*100, r small) */
    double per_trade = (r.pnl - def.pnl) / (double)r.trades;
    CHECK(per_trade > 0.08 && per_trade < 0.10, "per-trade cost %.6f pp, expected about 0.09", per_trade);
    hs_sweep_options lit = HS_SWEEP_OPTIONS_INIT;
    lit.has_fee = 1, lit.fee = 0.0;
    hs_result r2;
    CHECK(hs_sweep(close_, BARS, &w, 1, &r2, &lit, &err) == HS_OK && r2.pnl == r.pnl, "HS_SWEEP_OPTIONS_INIT");

#ifdef HS_SYMBOL_VERSIONS
    /* an old binary: the 1.0 symbol, a struct exactly as long as 1.0's (variant..report) */
    sweep_fn old_sweep = (sweep_fn)dlvsym(RTLD_DEFAULT, "hs_sweep", "HMASWEEP_1.0");
    sweep_fn new_sweep = (sweep_fn)dlvsym(RTLD_DEFAULT, "hs_sweep", "HMASWEEP_1.3");
    CHECK(old_sweep && new_sweep && old_sweep != new_sweep, "hs_sweep@HMASWEEP_1.0 %p, @@HMASWEEP_1.3 %p",
          (void *)old_sweep, (void *)new_sweep);
    /* the struct as the 1.0 header declared it */
    typedef struct {
        const char *variant, *isa;
        int threads;
        size_t struct_size;
        hs_sweep_report *report;
    } options_1_0;
    CHECK(sizeof(options_1_0) == offsetof(hs_sweep_options, progress), "the 1.0 layout");
    options_1_0 *old = calloc(1, sizeof *old);
    CHECK(old != NULL, "calloc");
    hs_sweep_report ran = {"untouched", "untouched", -7};
    old->variant = "unchecked", old->report = &ran;
    CHECK(old_sweep(close_, BARS, &w, 1, &r, (const hs_sweep_options *)old, &err) == HS_OK, "1.0 symbol: %s", err.msg);
    CHECK(r.pnl == def.pnl && !strcmp(ran.variant, "untouched"), "1.0 symbol: report written or fee changed");
    old->struct_size = sizeof *old; /* a 1.0 caller that says so: report is read */
    CHECK(old_sweep(close_, BARS, &w, 1, &r, (const hs_sweep_options *)old, &err) == HS_OK &&
              !strcmp(ran.variant, "unchecked"),
          "1.0 symbol, struct_size 40: report '%s'", ran.variant);
    free(old);
#endif
    return hs_check_summary("abi_options");
}
