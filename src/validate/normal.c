/* The standard normal's cdf Φ and its inverse Φ⁻¹ in double precision, for the DSR and PSR (§9.6, tier 1:
 * within 1e-12 relative of scipy.stats.norm).
 *
 * Φ from libm's erf/erfc (correctly rounded or within an ulp in glibc), split so that neither tail cancels:
 * 0.5 + 0.5·erf(x/√2) near 0, 0.5·erfc(|x|/√2) in the tails (the upper one as 1 minus it).
 * Φ⁻¹ from P. J. Acklam's rational approximation (relative error below 1.15e-9), refined by Halley steps on
 * Φ(x) − q in the LOWER tail, where 0.5·erfc(−x/√2) keeps its relative precision down to q ≈ 1e-308; an
 * upper-tail p is mapped to q = 1 − p, exact for p >= 0.5 (Sterbenz), and x = −Φ⁻¹(q).  Two steps leave the
 * error at erfc's (measured against scipy.special.ndtri: python/tests/test_validation.py). */
#include <math.h>

#include "validate.h"

#define SQRT1_2 0.70710678118654752440
#define SQRT_2PI 2.50662827463100050242

double hs_normal_cdf(double x) {
    if (isnan(x)) return NAN;
    double t = x * SQRT1_2;
    double z = fabs(t);
    if (z < SQRT1_2) return 0.5 + 0.5 * erf(t);
    double tail = 0.5 * erfc(z);
    return t > 0.0 ? 1.0 - tail : tail;
}

/* Acklam's approximation of Φ⁻¹(q) for 0 < q <= 0.5. */
static double acklam_lower(double q) {
    static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01,  -1.328068155288572e+01};
    static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00};
    if (q < 0.02425) { /* the tail */
        double r = sqrt(-2.0 * log(q));
        return (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) /
               ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0);
    }
    double s = q - 0.5, r = s * s; /* the central region */
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * s /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

static double ppf_lower(double q) {
    double x = acklam_lower(q);
    for (int step = 0; step < 2; step++) {
        double density = exp(-0.5 * x * x) / SQRT_2PI;
        if (!(density > 0.0)) break;
        double u = (0.5 * erfc(-x * SQRT1_2) - q) / density; /* Newton's step; Halley's correction below */
        x = x - u / (1.0 + 0.5 * x * u);
    }
    return x;
}

double hs_normal_ppf(double p) {
    if (!(p >= 0.0 && p <= 1.0)) return NAN;
    if (p == 0.0) return -INFINITY;
    if (p == 1.0) return INFINITY;
    if (p > 0.5) return -ppf_lower(1.0 - p);
    return ppf_lower(p);
}
