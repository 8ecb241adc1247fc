/* CSCV's splits (§9.5): the in-sample best, its out-of-sample rank, λ and the tallies.
 *
 * The decisions are comparisons of §9.5's metric, mean/sqrt(var) with mean = m1/n and var = (m2 −
 * m1·mean)/(n − 1), each operation rounded as written (hs_sharpe_metric).  Computing it for every combo
 * and split costs three divisions and a square root each (S = 16, 6,400 combos: 82 million metrics, about
 * 1 s here).  Instead the lanes (cscv_lanes.c) bound key(metric) = metric·|metric|, which orders as the
 * metric, for every combo with one division, and only the combos whose bounds cannot decide a comparison
 * get their exact metric: the in-sample candidates within the bounds of the best, and the out-of-sample
 * combos whose interval holds n*'s value (ties, near-ties, NaN-or-not cases).  Same decisions, same bits.
 *
 * The bound (u = 2^-53; primes are the lanes' values, plain names the exact path's):
 *   mean' = m1·fl(1/n) = mean·(1 + c), |c| <= 3.02u;  p' = m1·mean', |p' − p| <= 5.2u·|p'|;
 *   d' = m2 − p', |d' − d| <= 8u·(|p'| + m2) = bd/4 with bd = 32u·(|p'| + m2).
 *   d' < −bd: d < 0, var < 0, NaN for sure.  m2 = 0: d = −m1·mean <= 0, NaN.  m1 = 0: mean = ±0, d = m2
 *   exactly, metric ±0 when m2 > 1e-290 (no underflow in var).
 *   Otherwise with rho = bd/d' <= 1/4 (so d > 0 and |d'/d − 1| <= 0.27·rho), d' > 1e-290 and every value
 *   normal (|mean'| > 1e-140, 1e-280 < |key'| < 1e280), key' = mean'·|mean'|·((n − 1)/d') satisfies
 *   key(metric) = key'·(1 + t), |t| <= 16.1u + 0.27·rho (the metric's own sqrt and division: 4.02u, var's
 *   division u, mean'² 6.04u, key's roundings 5u), so [key' − err, key' + err] with err = |key'|·(64u + rho)
 *   holds it with room for the interval's own rounding.  Anything else is undecided: [−inf, +inf]. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "cscv.h"
#include "validate.h"

static double exact(const cscv_side *s, size_t c) {
    double m1, m2;
    cscv_side_sums(s, c, &m1, &m2);
    return hs_sharpe_metric(m1, m2, s->n);
}

/* The in-sample best (largest exact metric, NaN below every number, ties the lowest index), SIZE_MAX when
 * all are NaN: only the combos whose hi reaches the largest lo can be it. */
static size_t in_sample_best(const cscv_lanes *lanes, const cscv_side *in, const double *hi, double top,
                             size_t n_combos, size_t *cand) {
    if (in->n < 2) return SIZE_MAX; /* every metric NaN */
    double floor = top; /* the largest lo */
    /* No decided lower bound: the candidates are every combo not surely NaN (hi > −inf). */
    if (floor == -INFINITY) floor = -DBL_MAX;
    size_t k = lanes->at_least(hi, n_combos, floor, cand);
    size_t best = SIZE_MAX;
    double best_value = NAN;
    for (size_t i = 0; i < k; i++) {
        double v = exact(in, cand[i]);
        if (!isnan(v) && (best == SIZE_MAX || v > best_value)) {
            best = cand[i];
            best_value = v;
        }
    }
    return best;
}

/* #{c: OOS_c < v} and #{c: OOS_c = v} over exact metrics (NaN below every number, equal to NaN). */
static void rank_counts(const cscv_lanes *lanes, const cscv_side *out, const double *lo, const double *hi,
                        size_t n_combos, double v, size_t *less, size_t *equal, size_t *cand) {
    size_t l = 0, g = 0;
    if (out->n < 2) { /* every metric NaN, v too */
        *less = 0;
        *equal = n_combos;
        return;
    }
    double key = v * fabs(v);
    if (isnan(v) || !(fabs(key) < 1e300)) { /* rare: count exactly */
        size_t e = 0;
        for (size_t c = 0; c < n_combos; c++) {
            if (hi[c] == -INFINITY) { /* surely NaN */
                e += isnan(v);
                l += !isnan(v);
                continue;
            }
            double m = exact(out, c);
            if (isnan(v)) e += isnan(m);
            else if (isnan(m) || m < v) l++;
            else e += m == v;
        }
        *less = l;
        *equal = e;
        return;
    }
    /* key(v) within a relative u of the rounded product: widen by 2^-50 each way. */
    double slack = fabs(key) * 0x1p-50;
    size_t k = lanes->classify(lo, hi, n_combos, key - slack, key + slack, &l, &g, cand);
    for (size_t i = 0; i < k; i++) {
        double m = exact(out, cand[i]);
        if (isnan(m) || m < v) l++;
        else if (m > v) g++;
    }
    *less = l;
    *equal = n_combos - l - g;
}

static void record(cscv_tally *t, size_t number, size_t best, double is_value, double oos_value, double oos_m1,
                   size_t less, size_t equal, size_t n_combos) {
    double rank = 1.0 + (double)less + ((double)equal - 1.0) / 2.0;
    double omega = rank / ((double)n_combos + 1.0);
    if (t->lambdas) t->lambdas[number] = log(omega / (1.0 - omega));
    if (t->chosen) t->chosen[number] = best;
    t->is_m[number] = is_value;
    t->oos_m[number] = oos_value;
    t->kept++;
    t->overfit += 2 * less + equal <= n_combos ? 1 : 0; /* 2·rank <= N + 1, on the integers */
    t->oos_loss += oos_m1 < 0.0 ? 1 : 0;
}

static void drop(cscv_tally *t, size_t number) {
    if (t->lambdas) t->lambdas[number] = NAN;
    if (t->chosen) t->chosen[number] = SIZE_MAX;
    t->is_m[number] = t->oos_m[number] = NAN;
}

typedef struct {
    const cscv_side *side;
    const double *lo, *hi;
    double top; /* the largest lo */
} bounded_side;

static void split(const cscv_lanes *lanes, bounded_side in, bounded_side out, size_t n_combos, size_t number,
                  size_t *cand, cscv_tally *t) {
    size_t best = in_sample_best(lanes, in.side, in.hi, in.top, n_combos, cand);
    if (best == SIZE_MAX) {
        drop(t, number);
        return;
    }
    double v = exact(out.side, best), oos_m1, oos_m2;
    size_t less, equal;
    rank_counts(lanes, out.side, out.lo, out.hi, n_combos, v, &less, &equal, cand);
    cscv_side_sums(out.side, best, &oos_m1, &oos_m2);
    record(t, number, best, exact(in.side, best), v, oos_m1, less, equal, n_combos);
}

void hs_cscv_pair(const cscv_side *a, const cscv_side *b, size_t first, size_t second, cscv_scratch *scratch,
                  cscv_tally *tally) {
    size_t n = a->n_combos, stride = scratch->stride;
    double *buf = scratch->buf;
    bounded_side sa = {a, buf, buf + stride, scratch->top_a};
    bounded_side sb = {b, buf + 2 * stride, buf + 3 * stride, scratch->top_b};
    split(scratch->lanes, sa, sb, n, first, scratch->cand, tally);
    split(scratch->lanes, sb, sa, n, second, scratch->cand, tally);
}
