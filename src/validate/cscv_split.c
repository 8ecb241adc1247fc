/* CSCV's splits (§9.5): the in-sample best, its out-of-sample rank, λ and the tallies. */
#include <math.h>
#include <stdint.h>

#include "cscv.h"
#include "validate.h"

static void metrics_of(const cscv_side *s, size_t n_combos, double *out) {
    for (size_t c = 0; c < n_combos; c++) out[c] = hs_sharpe_metric(s->m1[c], s->m2[c], s->n);
}

/* The largest (NaN below every number, ties the lowest index); SIZE_MAX when all are NaN. */
static size_t argmax(const double *m, size_t n_combos) {
    size_t best = SIZE_MAX;
    for (size_t c = 0; c < n_combos; c++)
        if (!isnan(m[c]) && (best == SIZE_MAX || m[c] > m[best])) best = c;
    return best;
}

/* #{c: m[c] < v} and #{c: m[c] = v}, NaN below every number and equal to NaN. */
static void rank_counts(const double *m, size_t n_combos, double v, size_t *less, size_t *equal) {
    size_t l = 0, e = 0;
    for (size_t c = 0; c < n_combos; c++) {
        if (isnan(v))
            e += isnan(m[c]) ? 1 : 0;
        else if (isnan(m[c]) || m[c] < v)
            l++;
        else if (m[c] == v)
            e++;
    }
    *less = l;
    *equal = e;
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

static void split(const cscv_side *in, const double *in_m, const cscv_side *out, const double *out_m,
                  size_t n_combos, size_t number, cscv_tally *t) {
    (void)in;
    size_t best = argmax(in_m, n_combos);
    if (best == SIZE_MAX) {
        drop(t, number);
        return;
    }
    size_t less, equal;
    rank_counts(out_m, n_combos, out_m[best], &less, &equal);
    record(t, number, best, in_m[best], out_m[best], out->m1[best], less, equal, n_combos);
}

void hs_cscv_pair(const cscv_side *a, const cscv_side *b, size_t n_combos, size_t first, size_t second,
                  cscv_scratch *scratch, cscv_tally *tally) {
    double *ma = scratch->buf, *mb = scratch->buf + n_combos;
    metrics_of(a, n_combos, ma);
    metrics_of(b, n_combos, mb);
    split(a, ma, b, mb, n_combos, first, tally);
    split(b, mb, a, ma, n_combos, second, tally);
}
