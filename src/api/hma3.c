/* hs_hma3: HMA3 = WMA((3·WMA(x, w3) − WMA(x, w4)) − WMA(x, w5), w5) (docs/spec.md §3) as an array, NaN over
 * its look-back (src/api/indicator.c). */
#include "indicator.h"

int64_t hs_hma3_lookback(int64_t w3, int64_t w4, int64_t w5) {
    hs_windows win = {{1, 1, 1, w3, w4, w5}};
    return hs_indicator_lookback(HS_INDICATOR_HMA3, &win);
}

hs_status hs_hma3(const double *x, size_t n, int64_t w3, int64_t w4, int64_t w5, double *out, hs_error *err) {
    static const char *const names[] = {"w3", "w4", "w5"};
    hs_windows win = {{1, 1, 1, w3, w4, w5}};
    return hs_indicator_run("hs_hma3", names, HS_INDICATOR_HMA3, x, n, &win, out, err);
}
