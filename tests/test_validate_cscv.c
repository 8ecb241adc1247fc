/* hs_cscv's decisions against a brute-force CSCV written here from docs/spec.md §9.5 (every split's metrics
 * computed exactly, no bounds), bit for bit: chosen combos, λ, the chosen metrics, pbo and prob_oos_loss.
 * The matrices are the hard cases for hs_cscv's bounded passes (src/validate/cscv_split.c): near-ties one
 * ulp apart, duplicated columns, enormous Sharpes (variance lost to cancellation), constant and zero
 * returns (var 0, NaN), zero means, returns near 1e150 (m2 overflows) and 1e-160 (R·R underflows), and
 * random walks with odd P.  ctest runs it once per ISA built (HMASWEEP_ISA): the passes are per ISA. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static double uniform(void) { /* xorshift64*: [0, 1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-53;
}
static double normal(void) { return sqrt(-2.0 * log(1.0 - uniform())) * cos(6.283185307179586 * uniform()); }

/* ---- the reference: §9.5 as written ---------------------------------------------------------------- */
typedef struct {
    size_t kept, overfit, loss;
    double *lambdas, *is_m, *oos_m;
    size_t *chosen;
} reference;

static double metric(double m1, double m2, size_t n) {
    if (n < 2) return NAN;
    double mean = m1 / (double)n;
    double var = (m2 - m1 * mean) / (double)(n - 1);
    return var > 0.0 ? mean / sqrt(var) : NAN;
}

static void reference_cscv(const double *e, size_t p, size_t n, size_t s, reference *ref) {
    double *s1 = calloc(s * n, sizeof *s1), *s2 = calloc(s * n, sizeof *s2);
    size_t *sizes = calloc(s, sizeof *sizes);
    for (size_t g = 0; g < s; g++)
        for (size_t k = g * p / s; k < (g + 1) * p / s; k++) {
            sizes[g]++;
            for (size_t c = 0; c < n; c++) {
                double r = e[k * n + c] - (k ? e[(k - 1) * n + c] : 0.0);
                s1[g * n + c] += r;
                s2[g * n + c] += r * r;
            }
        }
    double *mi = malloc(n * sizeof *mi), *mo = malloc(n * sizeof *mo), *m1o = malloc(n * sizeof *m1o);
    size_t h = s / 2, idx[32], number = 0;
    for (size_t i = 0; i < h; i++) idx[i] = i;
    ref->kept = ref->overfit = ref->loss = 0;
    for (;;) { /* J = idx[0..h) in lexicographic order */
        int in_j[32] = {0};
        for (size_t i = 0; i < h; i++) in_j[idx[i]] = 1;
        size_t ni = 0, no = 0;
        for (size_t g = 0; g < s; g++) *(in_j[g] ? &ni : &no) += sizes[g];
        for (size_t c = 0; c < n; c++) {
            double a1 = 0.0, a2 = 0.0, b1 = 0.0, b2 = 0.0;
            for (size_t g = 0; g < s; g++) {
                if (in_j[g]) a1 += s1[g * n + c], a2 += s2[g * n + c];
                else b1 += s1[g * n + c], b2 += s2[g * n + c];
            }
            mi[c] = metric(a1, a2, ni);
            mo[c] = metric(b1, b2, no);
            m1o[c] = b1;
        }
        size_t best = SIZE_MAX;
        for (size_t c = 0; c < n; c++)
            if (!isnan(mi[c]) && (best == SIZE_MAX || mi[c] > mi[best])) best = c;
        if (best == SIZE_MAX) {
            ref->lambdas[number] = ref->is_m[number] = ref->oos_m[number] = NAN;
            ref->chosen[number] = SIZE_MAX;
        } else {
            double v = mo[best];
            size_t less = 0, equal = 0;
            for (size_t c = 0; c < n; c++) {
                if (isnan(v)) equal += isnan(mo[c]);
                else if (isnan(mo[c]) || mo[c] < v) less++;
                else equal += mo[c] == v;
            }
            double rank = 1.0 + (double)less + ((double)equal - 1.0) / 2.0, omega = rank / ((double)n + 1.0);
            ref->lambdas[number] = log(omega / (1.0 - omega));
            ref->is_m[number] = mi[best];
            ref->oos_m[number] = v;
            ref->chosen[number] = best;
            ref->kept++;
            ref->overfit += 2.0 * rank <= (double)n + 1.0;
            ref->loss += m1o[best] < 0.0;
        }
        number++;
        size_t i = h; /* next combination */
        while (i > 0 && idx[i - 1] == s - h + i - 1) i--;
        if (i == 0) break;
        idx[i - 1]++;
        for (size_t j = i; j < h; j++) idx[j] = idx[j - 1] + 1;
    }
    free(s1), free(s2), free(sizes), free(mi), free(mo), free(m1o);
}

/* ---- the matrices ------------------------------------------------------------------------------------ */
enum { WALK, NEAR_TIE, DUPLICATE, HUGE_SHARPE, CONSTANT, ZERO, ZERO_MEAN, BIG, TINY_R, KINDS };
static const char *kind_name[KINDS] = {"walk", "near-tie", "duplicate", "huge-sharpe", "constant",
                                       "zero", "zero-mean", "1e150", "1e-160"};

/* Column c's returns of the given kind into r[k·n + c]; base is a random column. */
static void fill_column(double *r, size_t p, size_t n, size_t c, int kind, const double *base) {
    for (size_t k = 0; k < p; k++) {
        double x;
        switch (kind) {
        case NEAR_TIE: x = base[k] * (k == c % p ? 1.0 + 0x1p-52 * (double)(c % 3) : 1.0); break;
        case DUPLICATE: x = base[k]; break;
        case HUGE_SHARPE: x = 1.0 + 1e-9 * normal(); break;
        case CONSTANT: x = 0.1; break;
        case ZERO: x = 0.0; break;
        case ZERO_MEAN: x = (k % 2 ? 1.0 : -1.0) * (double)(1 + c % 3); break;
        case BIG: x = 1e150 * normal(); break;
        case TINY_R: x = 1e-160 * normal(); break;
        default: x = normal() + 0.02 * (double)(c % 5); break;
        }
        r[k * n + c] = x;
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void compare(const char *what, size_t p, size_t n, size_t s, const double *e) {
    size_t splits = hs_cscv_splits(s);
    double *lam = malloc(splits * sizeof *lam), *ism = malloc(splits * sizeof *ism), *oosm = malloc(splits * sizeof *oosm);
    size_t *ch = malloc(splits * sizeof *ch);
    reference ref = {0, 0, 0, malloc(splits * sizeof(double)), malloc(splits * sizeof(double)),
                     malloc(splits * sizeof(double)), malloc(splits * sizeof(size_t))};
    hs_cscv_result r;
    hs_error err;
    hs_status st = hs_cscv(e, p, n, s, &r, lam, ism, oosm, ch, &err);
    CHECK(st == HS_OK, "%s: %s", what, err.msg);
    if (st == HS_OK) {
        reference_cscv(e, p, n, s, &ref);
        size_t bad = 0;
        for (size_t i = 0; i < splits; i++)
            if (ch[i] != ref.chosen[i] || !same_bits(lam[i], ref.lambdas[i]) || !same_bits(ism[i], ref.is_m[i]) ||
                !same_bits(oosm[i], ref.oos_m[i])) {
                if (bad++ < 3)
                    fprintf(stderr, "  %s split %zu: chosen %zu/%zu lambda %.17g/%.17g is %.17g/%.17g oos %.17g/%.17g\n",
                            what, i, ch[i], ref.chosen[i], lam[i], ref.lambdas[i], ism[i], ref.is_m[i], oosm[i],
                            ref.oos_m[i]);
            }
        CHECK(bad == 0, "%s (P %zu, N %zu, S %zu): %zu of %zu splits differ from the reference", what, p, n, s, bad, splits);
        CHECK_EQ_I(r.kept, ref.kept);
        double pbo = ref.kept ? (double)ref.overfit / (double)ref.kept : NAN;
        double loss = ref.kept ? (double)ref.loss / (double)ref.kept : NAN;
        CHECK(same_bits(r.pbo, pbo), "%s: pbo %.17g, reference %.17g", what, r.pbo, pbo);
        CHECK(same_bits(r.prob_oos_loss, loss), "%s: prob_oos_loss %.17g, reference %.17g", what, r.prob_oos_loss, loss);
    }
    free(lam), free(ism), free(oosm), free(ch), free(ref.lambdas), free(ref.is_m), free(ref.oos_m), free(ref.chosen);
}

/* One matrix: a random kind per column (or one kind throughout), returns cumulated into E. */
static void run_case(size_t p, size_t n, size_t s, int only_kind) {
    double *r = malloc(p * n * sizeof *r), *base = malloc(p * sizeof *base), *e = malloc(p * n * sizeof *e);
    for (size_t k = 0; k < p; k++) base[k] = normal();
    for (size_t c = 0; c < n; c++)
        fill_column(r, p, n, c, only_kind >= 0 ? only_kind : (int)(uniform() * KINDS), base);
    for (size_t c = 0; c < n; c++) {
        double acc = 0.0;
        for (size_t k = 0; k < p; k++) {
            acc += r[k * n + c];
            e[k * n + c] = isfinite(acc) ? acc : 0.0; /* E must be finite */
        }
    }
    char what[64];
    snprintf(what, sizeof what, "%s", only_kind >= 0 ? kind_name[only_kind] : "mixed");
    compare(what, p, n, s, e);
    free(r), free(base), free(e);
}

int main(void) {
    /* hs_cscv picks its passes' ISA as a sweep does ($HMASWEEP_ISA, else the widest the CPU runs): one it
     * cannot run is HS_ERR_ISA, a skip here. */
    const double probe[4] = {1, 2, 3, 5};
    hs_cscv_result r;
    hs_error why;
    hs_status st = hs_cscv(probe, 4, 1, 2, &r, NULL, NULL, NULL, NULL, &why);
    if (st == HS_ERR_ISA) {
        printf("SKIPPED: cpu-isa: %s\n", why.msg);
        return 77;
    }
    CHECK(st == HS_OK, "probe: %s", why.msg);
    const char *isa = getenv("HMASWEEP_ISA");
    printf("test_validate_cscv: hs_cscv's passes on %s\n", isa ? isa : "the default ISA");
    for (int kind = 0; kind < KINDS; kind++) run_case(41, 19, 6, kind);
    for (int i = 0; i < 12; i++) run_case(30 + (size_t)i * 7, 5 + (size_t)i * 5, 2 + 2 * (size_t)(i % 5), -1);
    run_case(64, 23, 10, -1);
    return hs_check_summary("test_validate_cscv");
}
