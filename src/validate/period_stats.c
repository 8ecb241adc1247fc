/* §9.4 period statistics of every column of E (hs_period_stats_of).
 *
 * Row by row, with one accumulator per combo, so each combo's sums run in period order (tier 0) while the
 * matrix is read in its row-major order: the inner loops run across combos, which the compiler vectorises
 * without reordering any one combo's sum. */
#include <math.h>
#include <stdlib.h>

#include "error.h"
#include "validate.h"

/* Σ R_k over the periods, into sum[c]. */
static void sum_returns(const double *equity, size_t n_periods, size_t n_combos, double *sum) {
    for (size_t c = 0; c < n_combos; c++) sum[c] = 0.0;
    for (size_t k = 0; k < n_periods; k++)
        for (size_t c = 0; c < n_combos; c++) sum[c] += hs_period_return(equity, n_combos, k, c);
}

/* The central sums Σδ², Σδ³ ((δ·δ)·δ), Σδ⁴ ((δ·δ)·(δ·δ)) with δ = R_k − mean, and Σ min(R_k, 0)². */
typedef struct { double *d2, *d3, *d4, *neg2; } central_sums;

static void sum_central(const double *equity, size_t n_periods, size_t n_combos, const double *mean, central_sums s) {
    for (size_t c = 0; c < n_combos; c++) s.d2[c] = s.d3[c] = s.d4[c] = s.neg2[c] = 0.0;
    for (size_t k = 0; k < n_periods; k++)
        for (size_t c = 0; c < n_combos; c++) {
            double r = hs_period_return(equity, n_combos, k, c);
            double d = r - mean[c];
            double dd = d * d;
            double m = r < 0.0 ? r : 0.0;
            s.d2[c] += dd;
            s.d3[c] += dd * d;
            s.d4[c] += dd * dd;
            s.neg2[c] += m * m;
        }
}

static hs_period_stats stats_of(size_t n, double mean, double d2, double d3, double d4, double neg2) {
    hs_period_stats st;
    double p = (double)n;
    st.mean = mean;
    st.sd = n < 2 ? NAN : sqrt(d2 / (double)(n - 1));
    st.period_sharpe = st.sd > 0.0 ? mean / st.sd : NAN; /* NaN when sd is 0 or NaN */
    double downside = sqrt(neg2 / p);
    st.sortino = downside != 0.0 ? mean / downside : NAN;
    double m2 = d2 / p, m3 = d3 / p, m4 = d4 / p;
    st.skew = m3 / (m2 * sqrt(m2));
    st.kurtosis = m4 / (m2 * m2);
    return st;
}

hs_status hs_period_stats_of(const double *equity, size_t n_periods, size_t n_combos, hs_period_stats *out,
                             hs_error *err) {
    hs_status st = hs_check_equity("hs_period_stats_of", equity, n_periods, n_combos, err);
    if (st != HS_OK) return st;
    if (!out) return hs_fail(err, HS_ERR_USAGE, "hs_period_stats_of: out is NULL (give room for n_combos = %zu)", n_combos);
    double *buf = malloc(5 * n_combos * sizeof *buf);
    if (!buf) return hs_fail(err, HS_ERR_NOMEM, "hs_period_stats_of: no memory for %zu combos", n_combos);
    double *mean = buf;
    central_sums s = {buf + n_combos, buf + 2 * n_combos, buf + 3 * n_combos, buf + 4 * n_combos};
    sum_returns(equity, n_periods, n_combos, mean);
    for (size_t c = 0; c < n_combos; c++) mean[c] = mean[c] / (double)n_periods;
    sum_central(equity, n_periods, n_combos, mean, s);
    for (size_t c = 0; c < n_combos; c++) out[c] = stats_of(n_periods, mean[c], s.d2[c], s.d3[c], s.d4[c], s.neg2[c]);
    free(buf);
    return HS_OK;
}
