/* The validation calls' shared input check (validate.h). */
#include <math.h>
#include <stdint.h>

#include "error.h"
#include "validate.h"

hs_status hs_check_equity(const char *call, const double *equity, size_t n_periods, size_t n_combos, hs_error *err) {
    if (!equity) return hs_fail(err, HS_ERR_USAGE, "%s: equity is NULL (give the P x N equity matrix)", call);
    if (n_periods == 0)
        return hs_fail(err, HS_ERR_USAGE, "%s: n_periods (P) is 0: the equity matrix needs at least one period", call);
    if (n_combos == 0)
        return hs_fail(err, HS_ERR_USAGE, "%s: n_combos (N) is 0: the equity matrix needs at least one combo", call);
    if (n_periods > SIZE_MAX / sizeof(double) / n_combos)
        return hs_fail(err, HS_ERR_USAGE, "%s: P = %zu x N = %zu doubles do not fit in memory", call, n_periods,
                       n_combos);
    for (size_t k = 0; k < n_periods; k++)
        for (size_t c = 0; c < n_combos; c++)
            if (!isfinite(equity[k * n_combos + c]))
                return hs_fail(err, HS_ERR_USAGE,
                               "%s: equity[%zu][%zu] (period %zu, combo %zu) is %g: the equity matrix must be finite",
                               call, k, c, k + 1, c, equity[k * n_combos + c]);
    return HS_OK;
}
