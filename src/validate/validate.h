/* The validation layer (docs/spec.md §9.4-9.7): what hs_period_stats_of, hs_cscv, hs_deflated_sharpe and
 * hs_walk_forward share.  It reads E, a P x N row-major matrix of doubles, and nothing of the kernels. */
#ifndef HS_VALIDATE_H
#define HS_VALIDATE_H

#include <math.h>
#include <stddef.h>

#include "hmasweep.h"

/* equity non-NULL, P >= 1, N >= 1, P·N representable, every E[k][c] finite; else HS_ERR_USAGE naming the
 * call, the value, and for a non-finite E its row and column. */
hs_status hs_check_equity(const char *call, const double *equity, size_t n_periods, size_t n_combos, hs_error *err);

/* §9.3: R[k][c] = E[k][c] − E[k−1][c], E[−1][c] = 0.0 (k counts rows from 0 here). */
static inline double hs_period_return(const double *equity, size_t n_combos, size_t k, size_t c) {
    double prev = k == 0 ? 0.0 : equity[(k - 1) * n_combos + c];
    return equity[k * n_combos + c] - prev;
}

/* §9.5's metric of n periods with m1 = Σ R, m2 = Σ R·R: mean / sqrt(var), or NaN unless n >= 2 and var > 0.
 * Every operation rounded as written (the library is built with -ffp-contract=off). */
static inline double hs_sharpe_metric(double m1, double m2, size_t n) {
    if (n < 2) return NAN;
    double mean = m1 / (double)n;
    double var = (m2 - m1 * mean) / (double)(n - 1);
    if (!(var > 0.0)) return NAN;
    return mean / sqrt(var);
}

/* The standard normal: Φ(x) and Φ⁻¹(p) (0 < p < 1; 0 and 1 give ∓inf, anything else NaN), both within a
 * few ulps (normal.c). */
double hs_normal_cdf(double x);
double hs_normal_ppf(double p);

#endif
