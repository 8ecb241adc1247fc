/* The adversarial series (issue 21, item 1): inputs that once made the certified kernels recompute
 * almost every bar in tier-0 order, quadratic in the windows.  One definition of their prices, for the
 * worst-case test (tests/test_worst_case.c, which asserts the ratios; study/segments/adversarial.py runs
 * it at the sizes) and for bench_variants' `adversarial` series.  Every series is positive and
 * finite: hs_sweep accepts all of them.
 *
 *   flat         every price 100.0: every d is exactly 0, none certified
 *   ulp          prices alternating between 100 and the next double: d at the rounding level
 *   out-of-range close[0] = 1e306 (positive, finite, accepted): outside the certification range
 *   spike        one 1e12 price in a walk near 1.0: a bound scaled by the series' maximum certifies
 *                nothing anywhere else
 *   vol-0.3      a walk at volatility 0.3 per bar: prices over many orders of magnitude */
#ifndef HS_ADVERSARIAL_H
#define HS_ADVERSARIAL_H

#include <math.h>
#include <stddef.h>

#include "hmasweep.h"

enum { ADV_FLAT, ADV_ULP, ADV_OUT_OF_RANGE, ADV_SPIKE, ADV_VOL03, ADV_COUNT };

/* The one-price events' prices. */
#define ADV_OUT_OF_RANGE_PRICE 1e306
#define ADV_SPIKE_PRICE 1e12

static const char *const adv_names[ADV_COUNT] = {"flat", "ulp", "out-of-range", "spike", "vol-0.3"};

/* close[0..n) of series `kind` (the walks: the study's generator, seed 7). */
static inline void adv_series(int kind, double *x, size_t n) {
    switch (kind) {
        case ADV_FLAT:
            for (size_t i = 0; i < n; i++) x[i] = 100.0;
            break;
        case ADV_ULP:
            for (size_t i = 0; i < n; i++) x[i] = (i & 1) ? nextafter(100.0, 200.0) : 100.0;
            break;
        case ADV_OUT_OF_RANGE:
            hs_make_close(7, n, HS_DEFAULT_VOL, HS_DEFAULT_START, x, NULL);
            x[0] = ADV_OUT_OF_RANGE_PRICE;
            break;
        case ADV_SPIKE:
            hs_make_close(7, n, HS_DEFAULT_VOL, 1.0, x, NULL);
            x[n / 2] = ADV_SPIKE_PRICE;
            break;
        default: /* ADV_VOL03: prices over hundreds of orders of magnitude */
            hs_make_close(7, n, 0.3, 1.0, x, NULL);
            break;
    }
}

/* The one-price events (out-of-range, spike) again at bars from, from + every, ...: live mode's bound is
 * local (the closes of the last few hundred bars), so one event poisons only the bars just after it, and a
 * live benchmark wants every timed append behind one (prof/live_bench --series).  Other kinds unchanged. */
static inline void adv_repeat_event(int kind, double *x, size_t n, size_t from, size_t every) {
    if (kind != ADV_OUT_OF_RANGE && kind != ADV_SPIKE) return;
    for (size_t i = from; i < n; i += every) x[i] = kind == ADV_OUT_OF_RANGE ? ADV_OUT_OF_RANGE_PRICE : ADV_SPIKE_PRICE;
}

#endif
