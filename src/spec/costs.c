/* The fee's check and the figures a front end derives from the six statistics (docs/spec.md §8).
 * The statistics themselves are kept by the books (src/spec/tier0.h: hs_stats_book), once for every
 * variant. */
#include <math.h>

#include "error.h"
#include "hmasweep.h"

hs_status hs_check_fee(double fee, hs_error *err) {
    if (!isfinite(fee) || fee < 0.0 || fee >= 1.0)
        return hs_fail(err, HS_ERR_USAGE, "fee = %.17g: the round-trip cost must be a finite fraction with 0 <= fee < 1 "
                                          "(default %g = 0.09%%)", fee, HS_DEFAULT_FEE);
    return HS_OK;
}

/* §8's formulas as written, in IEEE double (this file is built with -ffp-contract=off like all of them). */
void hs_stats_derive(const hs_result *result, const hs_stats *stats, size_t n_bars, hs_derived *out) {
    double trades = (double)result->trades;
    double m = result->trades > 0 ? result->pnl / trades : NAN;
    out->win_rate = result->trades > 0 ? (double)stats->wins / trades : NAN;
    if (stats->gross_loss < 0.0)
        out->profit_factor = stats->gross_profit / -stats->gross_loss;
    else /* no losing trade: -gross_loss would be -0.0, and x / -0.0 the wrong infinity */
        out->profit_factor = stats->gross_profit > 0.0 ? INFINITY : NAN;
    out->mean_trade = m;
    out->std_trade = result->trades > 1 ? sqrt((stats->sum_sq - trades * (m * m)) / (trades - 1.0)) : NAN;
    out->sharpe = m / out->std_trade;
    out->exposure = n_bars > 0 ? (double)stats->bars_held / (double)n_bars : NAN;
}
