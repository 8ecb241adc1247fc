/* hs_signal: d = HMA3 − HMA (docs/spec.md §4), the series whose sign flips are the sweep's trades, as an
 * array, NaN over its look-back (src/api/indicator.c). */
#include "error.h"
#include "indicator.h"

int64_t hs_signal_lookback(const hs_windows *win) {
    return win ? hs_indicator_lookback(HS_INDICATOR_SIGNAL, win) : -1;
}

hs_status hs_signal(const double *x, size_t n, const hs_windows *win, double *out, hs_error *err) {
    static const char *const names[] = {"w0", "w1", "w2", "w3", "w4", "w5"};
    if (!win) return hs_fail(err, HS_ERR_USAGE, "hs_signal: NULL windows");
    return hs_indicator_run("hs_signal", names, HS_INDICATOR_SIGNAL, x, n, win, out, err);
}
