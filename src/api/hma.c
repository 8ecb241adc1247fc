/* hs_hma: HMA = WMA(2·WMA(x, w0) − WMA(x, w1), w2) (docs/spec.md §3) as an array, NaN over its look-back
 * (src/api/indicator.c). */
#include "indicator.h"

int64_t hs_hma_lookback(int64_t w0, int64_t w1, int64_t w2) {
    hs_windows win = {{w0, w1, w2, 1, 1, 1}};
    return hs_indicator_lookback(HS_INDICATOR_HMA, &win);
}

hs_status hs_hma(const double *x, size_t n, int64_t w0, int64_t w1, int64_t w2, double *out, hs_error *err) {
    static const char *const names[] = {"w0", "w1", "w2"};
    hs_windows win = {{w0, w1, w2, 1, 1, 1}};
    return hs_indicator_run("hs_hma", names, HS_INDICATOR_HMA, x, n, &win, out, err);
}
