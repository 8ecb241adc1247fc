/* §9.7 walk-forward, rolling or anchored (hs_walk_forward).
 *
 * Fold f trains on the periods f·test < k <= f·test + train (anchored: 0 < k <= f·test + train) and tests on
 * the next `test` periods; c*_f is the combo with the largest §9.5 metric over its training periods (ties the
 * lowest index, all NaN combo 0), and the stitched curve is the running sum of R[k][c*_f] over the test
 * periods.  The training sums run row by row with one accumulator per combo (each combo's sum in period
 * order: tier 0); an anchored fold continues the previous fold's sums, which is the same left-to-right sum. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"
#include "validate.h"

size_t hs_walk_forward_folds(size_t n_periods, size_t train, size_t test) {
    if (train == 0 || test == 0 || train > n_periods || test > n_periods - train) return 0;
    return (n_periods - train) / test;
}

/* m1[c] += Σ R_k, m2[c] += Σ R_k·R_k over rows [from, to). */
static void add_rows(const double *equity, size_t n_combos, size_t from, size_t to, double *m1, double *m2) {
    for (size_t k = from; k < to; k++)
        for (size_t c = 0; c < n_combos; c++) {
            double r = hs_period_return(equity, n_combos, k, c);
            m1[c] += r;
            m2[c] += r * r;
        }
}

/* The combo with the largest metric over n periods (NaN below every number; ties the lowest; all NaN: 0). */
static size_t best_metric(const double *m1, const double *m2, size_t n, size_t n_combos) {
    size_t best = 0;
    double best_value = NAN;
    for (size_t c = 0; c < n_combos; c++) {
        double v = hs_sharpe_metric(m1[c], m2[c], n);
        if (!isnan(v) && (isnan(best_value) || v > best_value)) {
            best = c;
            best_value = v;
        }
    }
    return best;
}

/* §9.4's period Sharpe of r[0..n). */
static double sharpe_of(const double *r, size_t n) {
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) sum += r[j];
    double mean = sum / (double)n, ss = 0.0;
    for (size_t j = 0; j < n; j++) {
        double d = r[j] - mean;
        ss += d * d;
    }
    double sd = n < 2 ? NAN : sqrt(ss / (double)(n - 1));
    return sd > 0.0 ? mean / sd : NAN;
}

static hs_status check_lengths(size_t n_periods, size_t train, size_t test, hs_error *err) {
    if (train == 0) return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: train is 0 periods (give 1 <= train <= P = %zu)", n_periods);
    if (test == 0) return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: test is 0 periods (give 1 <= test <= P = %zu)", n_periods);
    if (train > n_periods)
        return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: train %zu is longer than the %zu periods (P)", train, n_periods);
    if (test > n_periods)
        return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: test %zu is longer than the %zu periods (P)", test, n_periods);
    if (hs_walk_forward_folds(n_periods, train, test) == 0)
        return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: train %zu + test %zu = %zu periods is more than P = %zu: no fold fits",
                       train, test, train + test, n_periods);
    return HS_OK;
}

hs_status hs_walk_forward(const double *equity, size_t n_periods, size_t n_combos, size_t train, size_t test,
                          int anchored, size_t *choices, double *oos_curve, hs_walk_forward_result *out, hs_error *err) {
    hs_status st = hs_check_equity("hs_walk_forward", equity, n_periods, n_combos, err);
    if (st == HS_OK) st = check_lengths(n_periods, train, test, err);
    if (st != HS_OK) return st;
    if (!out) return hs_fail(err, HS_ERR_USAGE, "hs_walk_forward: out is NULL");
    size_t folds = hs_walk_forward_folds(n_periods, train, test);
    double *m1 = calloc(2 * n_combos, sizeof *m1);
    double *returns = malloc(folds * test * sizeof *returns);
    if (!m1 || !returns) {
        free(m1);
        free(returns);
        return hs_fail(err, HS_ERR_NOMEM, "hs_walk_forward: no memory for %zu combos", n_combos);
    }
    double *m2 = m1 + n_combos;
    double curve = 0.0;
    size_t summed_to = 0; /* anchored: the rows already in m1/m2 */
    for (size_t f = 0; f < folds; f++) {
        size_t from = anchored ? 0 : f * test, to = f * test + train;
        if (anchored) {
            add_rows(equity, n_combos, summed_to, to, m1, m2);
            summed_to = to;
        } else {
            for (size_t c = 0; c < 2 * n_combos; c++) m1[c] = 0.0;
            add_rows(equity, n_combos, from, to, m1, m2);
        }
        size_t best = best_metric(m1, m2, to - from, n_combos);
        if (choices) choices[f] = best;
        for (size_t j = 0; j < test; j++) {
            double r = hs_period_return(equity, n_combos, to + j, best);
            returns[f * test + j] = r;
            curve += r;
            if (oos_curve) oos_curve[f * test + j] = curve;
        }
    }
    *out = (hs_walk_forward_result){train, test, folds, anchored ? 1 : 0, sharpe_of(returns, folds * test)};
    free(m1);
    free(returns);
    return HS_OK;
}
