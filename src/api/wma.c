/* hs_wma: the spec's WMA (docs/spec.md §3) as an array, NaN over its look-back (src/api/indicator.c). */
#include "indicator.h"

int64_t hs_wma_lookback(int64_t w) {
    hs_windows win = {{w, 1, 1, 1, 1, 1}};
    return hs_indicator_lookback(HS_INDICATOR_WMA, &win);
}

hs_status hs_wma(const double *x, size_t n, int64_t w, double *out, hs_error *err) {
    static const char *const names[] = {"w"};
    hs_windows win = {{w, 1, 1, 1, 1, 1}};
    return hs_indicator_run("hs_wma", names, HS_INDICATOR_WMA, x, n, &win, out, err);
}
