/* Period ends (docs/spec.md §9.3): the partition of the bars that E is sampled at. */
#include "error.h"
#include "hmasweep.h"

static hs_status check_count(size_t n_bars, size_t n_periods, hs_error *err) {
    if (n_periods == 0 || n_periods > n_bars)
        return hs_fail(err, HS_ERR_USAGE, "periods = %zu: it must be between 1 and the number of bars, %zu", n_periods,
                       n_bars);
    return HS_OK;
}

hs_status hs_period_ends(size_t n_bars, size_t n_periods, int64_t *ends, hs_error *err) {
    hs_status st = check_count(n_bars, n_periods, err);
    if (st != HS_OK) return st;
    if (!ends) return hs_fail(err, HS_ERR_USAGE, "hs_period_ends: NULL ends");
    /* b_k = floor(k·bars/P) − 1, k = 1..P, in exact integers (k·bars can pass 2^64 only in 128 bits). */
    for (size_t k = 1; k <= n_periods; k++)
        ends[k - 1] = (int64_t)((unsigned __int128)k * n_bars / n_periods) - 1;
    return HS_OK;
}

hs_status hs_check_period_ends(const int64_t *ends, size_t n_periods, size_t n_bars, hs_error *err) {
    hs_status st = check_count(n_bars, n_periods, err);
    if (st != HS_OK) return st;
    if (!ends) return hs_fail(err, HS_ERR_USAGE, "hs_check_period_ends: NULL ends");
    for (size_t k = 0; k < n_periods; k++) {
        if (ends[k] < 0 || (uint64_t)ends[k] >= n_bars)
            return hs_fail(err, HS_ERR_USAGE, "period end %lld at index %zu is outside the bars 0..%zu",
                           (long long)ends[k], k, n_bars - 1);
        if (k > 0 && ends[k] <= ends[k - 1])
            return hs_fail(err, HS_ERR_USAGE,
                           "period end %lld at index %zu is not after the one before it (%lld): ends must be strictly "
                           "increasing", (long long)ends[k], k, (long long)ends[k - 1]);
    }
    if ((uint64_t)ends[n_periods - 1] != n_bars - 1)
        return hs_fail(err, HS_ERR_USAGE, "period end %lld at index %zu is the last: it must be the last bar, %zu",
                       (long long)ends[n_periods - 1], n_periods - 1, n_bars - 1);
    return HS_OK;
}
