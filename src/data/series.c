/* The canonical close series (docs/spec.md §1) and the check every series goes through before a sweep. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"
#include "exp.h"
#include "hmasweep.h"

/* Why x is not a usable price, or NULL when it is. */
static const char *price_problem(double x) {
    if (isnan(x))
        return "is NaN";
    if (isinf(x))
        return x > 0 ? "is inf" : "is -inf";
    if (!(x > 0))
        return "is not positive";
    return NULL;
}

hs_status hs_check_series(const double *x, size_t n, hs_error *err) {
    if (n == 0)
        return hs_fail(err, HS_ERR_DATA, "the series is empty (0 bars; at least 1 is needed)");
    if (!x)
        return hs_fail(err, HS_ERR_USAGE, "the series pointer is NULL (n = %zu)", n);
    for (size_t i = 0; i < n; i++) {
        const char *problem = price_problem(x[i]);
        if (!problem)
            continue;
        if (isfinite(x[i])) /* name the value too: zero and negatives are easier to find that way */
            return hs_fail(err, HS_ERR_DATA, "close[%zu] = %.17g %s", i, x[i], problem);
        return hs_fail(err, HS_ERR_DATA, "close[%zu] %s", i, problem);
    }
    return HS_OK;
}

static hs_status check_close_arguments(size_t bars, double vol, double start, const double *out,
                                       hs_error *err) {
    if (bars == 0)
        return hs_fail(err, HS_ERR_USAGE, "bars must be at least 1 (got 0)");
    if (!isfinite(vol))
        return hs_fail(err, HS_ERR_USAGE, "vol must be finite (got %g)", vol);
    if (!isfinite(start))
        return hs_fail(err, HS_ERR_USAGE, "start must be finite (got %g)", start);
    if (!(start > 0))
        return hs_fail(err, HS_ERR_USAGE, "start must be positive (got %.17g)", start);
    if (!out)
        return hs_fail(err, HS_ERR_USAGE, "the output pointer is NULL");
    return HS_OK;
}

hs_status hs_make_close(uint64_t seed, size_t bars, double vol, double start, double *out, hs_error *err) {
    hs_status status = check_close_arguments(bars, vol, start, out, err);
    if (status != HS_OK)
        return status;
    if ((status = hs_exp_check(err)) != HS_OK)
        return status;

    /* The normals are drawn straight into `out` and turned into prices in place: no scratch buffer. */
    hs_standard_normal(seed, bars, out);
    double c = 0.0; /* a plain left-to-right running sum, as the spec (and np.cumsum) has it */
    for (size_t i = 0; i < bars; i++) {
        c = c + vol * out[i];
        out[i] = start * Sleef_expd1_u10purecfma(c);
    }

    /* A huge vol (or start) can overflow exp to inf or underflow the price to 0: that is a bad request,
     * not bad data, so report it as such. */
    for (size_t i = 0; i < bars; i++)
        if (price_problem(out[i]))
            return hs_fail(err, HS_ERR_USAGE,
                               "vol = %g and start = %g give close[%zu] = %g: choose a smaller vol or another start",
                               vol, start, i, out[i]);
    return HS_OK;
}
