/* §9.6 deflated Sharpe ratio and PSR of the chosen combo (hs_deflated_sharpe), from §9.4's statistics. */
#include <math.h>
#include <stdint.h>

#include "error.h"
#include "validate.h"

#define EULER_GAMMA 0.5772156649015329
#define EULER_E 2.718281828459045

/* The default c*: the largest finite period_sharpe, ties the lowest index; SIZE_MAX when none is finite. */
static size_t best_sharpe(const hs_period_stats *stats, size_t n_combos) {
    size_t best = SIZE_MAX;
    for (size_t c = 0; c < n_combos; c++)
        if (isfinite(stats[c].period_sharpe) && (best == SIZE_MAX || stats[c].period_sharpe > stats[best].period_sharpe))
            best = c;
    return best;
}

/* The number of finite Sharpes and their sample variance (Σ(SR − mean)² / (K − 1), combo order). */
static double sharpe_variance(const hs_period_stats *stats, size_t n_combos, size_t *n_finite) {
    size_t k = 0;
    double sum = 0.0;
    for (size_t c = 0; c < n_combos; c++)
        if (isfinite(stats[c].period_sharpe)) {
            sum += stats[c].period_sharpe;
            k++;
        }
    *n_finite = k;
    if (k < 2) return NAN;
    double mean = sum / (double)k, ss = 0.0;
    for (size_t c = 0; c < n_combos; c++)
        if (isfinite(stats[c].period_sharpe)) {
            double d = stats[c].period_sharpe - mean;
            ss += d * d;
        }
    return ss / (double)(k - 1);
}

/* Φ((sr − sr0)·sqrt(T − 1) / sqrt(1 − γ3·sr + (γ4 − 1)/4·sr·sr)); NaN when T < 2 or the root's argument is
 * not positive. */
static double probabilistic_sharpe(double sr, double sr0, size_t n_periods, double skew, double kurtosis) {
    double arg = 1.0 - skew * sr + (kurtosis - 1.0) / 4.0 * sr * sr;
    if (n_periods < 2 || !(arg > 0.0)) return NAN;
    return hs_normal_cdf((sr - sr0) * sqrt((double)(n_periods - 1)) / sqrt(arg));
}

hs_status hs_deflated_sharpe(const hs_period_stats *stats, size_t n_combos, size_t n_periods, double n_trials,
                             size_t chosen, hs_dsr_result *out, hs_error *err) {
    if (!stats) return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: stats is NULL (give hs_period_stats_of's output)");
    if (!out) return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: out is NULL");
    if (n_combos == 0) return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: n_combos (N) is 0: no combo to judge");
    if (n_periods == 0) return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: n_periods (T) is 0");
    if (!isfinite(n_trials))
        return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: n_trials %g is not finite (give <= 0 for the default)",
                       n_trials);
    if (chosen != SIZE_MAX && chosen >= n_combos)
        return hs_fail(err, HS_ERR_USAGE, "hs_deflated_sharpe: chosen combo %zu is out of range (n_combos = %zu)", chosen,
                       n_combos);
    size_t n_finite;
    out->var_sr = sharpe_variance(stats, n_combos, &n_finite);
    out->trials = n_trials > 0.0 ? n_trials : (double)n_finite;
    out->chosen = chosen == SIZE_MAX ? best_sharpe(stats, n_combos) : chosen;
    out->sr = out->sr0 = out->dsr = out->psr0 = NAN;
    if (out->chosen == SIZE_MAX) return HS_OK; /* no finite Sharpe: nothing to judge, every figure NaN */
    const hs_period_stats *s = &stats[out->chosen];
    out->sr = s->period_sharpe;
    double n = out->trials;
    if (n >= 2.0)
        out->sr0 = sqrt(out->var_sr) * ((1.0 - EULER_GAMMA) * hs_normal_ppf(1.0 - 1.0 / n) +
                                        EULER_GAMMA * hs_normal_ppf(1.0 - 1.0 / (n * EULER_E)));
    out->dsr = n >= 2.0 ? probabilistic_sharpe(out->sr, out->sr0, n_periods, s->skew, s->kurtosis) : NAN;
    out->psr0 = probabilistic_sharpe(out->sr, 0.0, n_periods, s->skew, s->kurtosis);
    return HS_OK;
}
