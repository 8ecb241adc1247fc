/* The validation library (docs/spec.md §9.4-9.7, src/validate/):
 * 1. every bad input is HS_ERR_USAGE with a message that names the value, never a crash or silent output;
 * 2. hand-worked examples: §9.4's figures of R = (1, −1, 2, 0), a two-combo CSCV with S = 2 (one NaN
 *    out-of-sample metric, both splits overfit), and its walk-forward;
 * 3. the split counts and fold counts;
 * 4. the DSR's edge cases (no finite Sharpe, one, T = 1) and a hand-worked PSR; hs_cscv with every optional
 *    output NULL gives the same figures.
 * python/tests/test_validation_oracle.py checks the same calls against a numpy oracle on random matrices. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

/* status is HS_ERR_USAGE and the message holds every one of the given fragments. */
static void expect_usage(hs_status st, const hs_error *err, const char *what, const char *frag1, const char *frag2) {
    CHECK(st == HS_ERR_USAGE, "%s: status %d, want HS_ERR_USAGE (message: %s)", what, (int)st, err->msg);
    CHECK(strstr(err->msg, frag1) != NULL, "%s: message '%s' does not name '%s'", what, err->msg, frag1);
    if (frag2) CHECK(strstr(err->msg, frag2) != NULL, "%s: message '%s' does not name '%s'", what, err->msg, frag2);
}

/* combo 0's returns 1, 3, 2, 2 and combo 1's 0, 1, −1, 3, as the equity matrix (row-major, 4 x 2). */
static const double E42[8] = {1, 0, 4, 1, 6, 0, 8, 3};

static void bad_inputs(void) {
    hs_error err;
    hs_period_stats ps[2];
    double nan_e[8], inf_e[8];
    memcpy(nan_e, E42, sizeof nan_e);
    memcpy(inf_e, E42, sizeof inf_e);
    nan_e[2 * 2 + 1] = NAN;
    inf_e[3 * 2 + 0] = INFINITY;
    expect_usage(hs_period_stats_of(NULL, 4, 2, ps, &err), &err, "stats NULL equity", "equity is NULL", NULL);
    expect_usage(hs_period_stats_of(E42, 0, 2, ps, &err), &err, "stats P = 0", "n_periods (P) is 0", NULL);
    expect_usage(hs_period_stats_of(E42, 4, 0, ps, &err), &err, "stats N = 0", "n_combos (N) is 0", NULL);
    expect_usage(hs_period_stats_of(nan_e, 4, 2, ps, &err), &err, "stats NaN", "equity[2][1]", "nan");
    expect_usage(hs_period_stats_of(E42, 4, 2, NULL, &err), &err, "stats out NULL", "out is NULL", NULL);
    CHECK(hs_period_stats_of(nan_e, 4, 2, ps, NULL) == HS_ERR_USAGE, "a NULL err is allowed");

    hs_cscv_result r;
    expect_usage(hs_cscv(E42, 4, 2, 3, &r, NULL, NULL, NULL, NULL, &err), &err, "odd S", "S = 3", "odd");
    expect_usage(hs_cscv(E42, 4, 2, 0, &r, NULL, NULL, NULL, NULL, &err), &err, "S = 0", "S = 0", NULL);
    expect_usage(hs_cscv(E42, 4, 2, 6, &r, NULL, NULL, NULL, NULL, &err), &err, "S > P", "S = 6", "P = 4");
    expect_usage(hs_cscv(E42, 4, 2, 22, &r, NULL, NULL, NULL, NULL, &err), &err, "S > cap", "S = 22",
                 "HS_CSCV_MAX_GROUPS = 20");
    expect_usage(hs_cscv(inf_e, 4, 2, 2, &r, NULL, NULL, NULL, NULL, &err), &err, "inf", "equity[3][0]", "inf");
    expect_usage(hs_cscv(E42, 0, 2, 2, &r, NULL, NULL, NULL, NULL, &err), &err, "cscv P = 0", "n_periods (P) is 0", NULL);
    expect_usage(hs_cscv(E42, 4, 2, 2, NULL, NULL, NULL, NULL, NULL, &err), &err, "cscv out NULL", "out is NULL", NULL);

    hs_walk_forward_result w;
    size_t ch[4];
    double curve[4];
    expect_usage(hs_walk_forward(E42, 4, 2, 0, 1, 0, ch, curve, &w, &err), &err, "train 0", "train is 0", NULL);
    expect_usage(hs_walk_forward(E42, 4, 2, 2, 0, 0, ch, curve, &w, &err), &err, "test 0", "test is 0", NULL);
    expect_usage(hs_walk_forward(E42, 4, 2, 5, 1, 0, ch, curve, &w, &err), &err, "train > P", "train 5", "4 periods");
    expect_usage(hs_walk_forward(E42, 4, 2, 1, 9, 1, ch, curve, &w, &err), &err, "test > P", "test 9", "4 periods");
    expect_usage(hs_walk_forward(E42, 4, 2, 3, 2, 0, ch, curve, &w, &err), &err, "no fold", "= 5 periods", "P = 4");
    expect_usage(hs_walk_forward(nan_e, 4, 2, 2, 1, 0, ch, curve, &w, &err), &err, "wf NaN", "equity[2][1]", NULL);
    expect_usage(hs_walk_forward(E42, 4, 2, 2, 1, 0, ch, curve, NULL, &err), &err, "wf out NULL", "out is NULL", NULL);

    hs_dsr_result d;
    CHECK(hs_period_stats_of(E42, 4, 2, ps, &err) == HS_OK, "%s", err.msg);
    expect_usage(hs_deflated_sharpe(NULL, 2, 4, 0, SIZE_MAX, &d, &err), &err, "dsr NULL", "stats is NULL", NULL);
    expect_usage(hs_deflated_sharpe(ps, 2, 4, NAN, SIZE_MAX, &d, &err), &err, "dsr NaN trials", "n_trials nan", NULL);
    expect_usage(hs_deflated_sharpe(ps, 2, 4, INFINITY, SIZE_MAX, &d, &err), &err, "dsr inf trials", "n_trials inf", NULL);
    expect_usage(hs_deflated_sharpe(ps, 2, 4, 0, 2, &d, &err), &err, "dsr chosen", "chosen combo 2", "n_combos = 2");
    expect_usage(hs_deflated_sharpe(ps, 0, 4, 0, SIZE_MAX, &d, &err), &err, "dsr N = 0", "n_combos (N) is 0", NULL);
    expect_usage(hs_deflated_sharpe(ps, 2, 0, 0, SIZE_MAX, &d, &err), &err, "dsr T = 0", "n_periods (T) is 0", NULL);
    expect_usage(hs_deflated_sharpe(ps, 2, 4, 0, SIZE_MAX, NULL, &err), &err, "dsr out NULL", "out is NULL", NULL);
}

static void counts(void) {
    CHECK_EQ_I(hs_cscv_splits(2), 2);
    CHECK_EQ_I(hs_cscv_splits(4), 6);
    CHECK_EQ_I(hs_cscv_splits(16), 12870);
    CHECK_EQ_I(hs_cscv_splits(20), 184756);
    CHECK_EQ_I(hs_cscv_splits(22), 0);
    CHECK_EQ_I(hs_cscv_splits(7), 0);
    CHECK_EQ_I(hs_cscv_splits(0), 0);
    CHECK_EQ_I(hs_walk_forward_folds(10, 3, 2), 3);
    CHECK_EQ_I(hs_walk_forward_folds(10, 9, 1), 1);
    CHECK_EQ_I(hs_walk_forward_folds(10, 10, 1), 0);
    CHECK_EQ_I(hs_walk_forward_folds(10, 0, 1), 0);
    CHECK_EQ_I(hs_walk_forward_folds(10, 2, 0), 0);
}

static void hand_examples(void) {
    hs_error err;
    /* R = 1, −1, 2, 0: mean 0.5, δ = .5 −1.5 1.5 −.5, Σδ² = 5, Σδ³ = 0, Σδ⁴ = 10.25, Σ min(R,0)² = 1. */
    const double e1[4] = {1, 0, 2, 2};
    hs_period_stats s;
    CHECK(hs_period_stats_of(e1, 4, 1, &s, &err) == HS_OK, "%s", err.msg);
    CHECK_BITS(s.mean, 0.5);
    CHECK_BITS(s.sd, sqrt(5.0 / 3.0));
    CHECK_BITS(s.period_sharpe, 0.5 / sqrt(5.0 / 3.0));
    CHECK_BITS(s.sortino, 1.0);
    CHECK_BITS(s.skew, 0.0);
    CHECK_BITS(s.kurtosis, 2.5625 / (1.25 * 1.25));
    /* one period: sd NaN, so Sharpe NaN */
    CHECK(hs_period_stats_of(e1, 1, 1, &s, &err) == HS_OK && isnan(s.sd) && isnan(s.period_sharpe), "P = 1");

    /* S = 2 on E42: groups rows {0,1} and {2,3}.  combo 0: g0 (1,3) metric 2/sqrt(2), g1 (2,2) var 0: NaN;
     * combo 1: g0 (0,1) 0.5/sqrt(0.5), g1 (−1,3) 1/sqrt(8).  Split 0 (J = {0}): n* = 0, whose OOS metric is
     * NaN: rank 1 of 2 (it ties with itself only), λ = ln(1/2), overfit.  Split 1 (J = {1}): n* = 1 (combo
     * 0 is NaN in-sample), OOS 0.5/sqrt(0.5) below combo 0's 2/sqrt(2): rank 1, overfit.  OOS m1 4 and 1. */
    hs_cscv_result r;
    double lam[2], ism[2], oosm[2];
    size_t chosen[2];
    CHECK(hs_cscv(E42, 4, 2, 2, &r, lam, ism, oosm, chosen, &err) == HS_OK, "%s", err.msg);
    CHECK_EQ_I(r.splits, 2);
    CHECK_EQ_I(r.kept, 2);
    CHECK_EQ_I(chosen[0], 0);
    CHECK_EQ_I(chosen[1], 1);
    CHECK_BITS(ism[0], 2.0 / sqrt(2.0));
    CHECK(isnan(oosm[0]), "split 0's OOS metric is NaN: %g", oosm[0]);
    CHECK_BITS(ism[1], 1.0 / sqrt(8.0));
    CHECK_BITS(oosm[1], 0.5 / sqrt(0.5));
    CHECK_NEAR(lam[0], log(0.5), 1e-15);
    CHECK_NEAR(lam[1], log(0.5), 1e-15);
    CHECK_BITS(r.pbo, 1.0);
    CHECK_BITS(r.prob_oos_loss, 0.0);
    CHECK(isnan(r.slope) && isnan(r.intercept), "one finite pair: no line (%g, %g)", r.slope, r.intercept);

    /* walk-forward train 2, test 1: fold 0 trains rows 0-1 (combo 0 wins), tests row 2 (R = 2); fold 1 trains
     * rows 1-2 (combo 0: 3, 2 → 2.5/sqrt(0.5); combo 1: 1, −1 → 0), tests row 3 (R = 2).  Returns 2, 2: sd 0. */
    for (int anchored = 0; anchored <= 1; anchored++) {
        hs_walk_forward_result w;
        size_t ch[2];
        double curve[2];
        CHECK(hs_walk_forward(E42, 4, 2, 2, 1, anchored, ch, curve, &w, &err) == HS_OK, "%s", err.msg);
        CHECK_EQ_I(w.folds, 2);
        CHECK_EQ_I(ch[0], 0);
        CHECK_EQ_I(ch[1], 0);
        CHECK_BITS(curve[0], 2.0);
        CHECK_BITS(curve[1], 4.0);
        CHECK(isnan(w.oos_sharpe), "constant OOS returns: Sharpe NaN, got %g", w.oos_sharpe);
        CHECK_EQ_I(w.anchored, anchored);
    }
}

static void dsr_cases(void) {
    hs_error err;
    hs_period_stats ps[3];
    hs_dsr_result d;
    /* E42's combo 0: R = 1, 3, 2, 2: mean 2, sd sqrt(2/3), skew 0, kurtosis 0.5/0.25 = 2;
     * psr0 = Φ(SR·sqrt(3)/sqrt(1 + (2 − 1)/4·SR²)). Combo 1: R = 0, 1, −1, 3. */
    CHECK(hs_period_stats_of(E42, 4, 2, ps, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_deflated_sharpe(ps, 2, 4, 0.0, SIZE_MAX, &d, &err) == HS_OK, "%s", err.msg);
    double sr = 2.0 / sqrt(2.0 / 3.0), z = sr * sqrt(3.0) / sqrt(1.0 + 0.25 * sr * sr);
    CHECK_EQ_I(d.chosen, 0);
    CHECK_BITS(d.sr, sr);
    CHECK_BITS(d.trials, 2.0);
    CHECK_NEAR(d.psr0, 0.5 * erfc(-z / sqrt(2.0)), 1e-15);
    CHECK(d.dsr < d.psr0 && d.sr0 > 0.0, "two trials deflate: sr0 %g, dsr %g < psr0 %g", d.sr0, d.dsr, d.psr0);
    /* one finite Sharpe (combo 2 constant: sd 0): N = 1, no deflation possible, dsr NaN, psr0 still there */
    const double e3[12] = {1, 0, 5, 4, 1, 10, 6, 0, 15, 8, 3, 20};
    CHECK(hs_period_stats_of(e3, 4, 3, ps, &err) == HS_OK, "%s", err.msg);
    CHECK(isnan(ps[2].period_sharpe), "constant column: Sharpe NaN, got %g", ps[2].period_sharpe);
    CHECK(hs_deflated_sharpe(ps + 1, 2, 4, 0.0, SIZE_MAX, &d, &err) == HS_OK, "%s", err.msg);
    CHECK(d.chosen == 0 && d.trials == 1.0 && isnan(d.dsr) && isnan(d.sr0) && !isnan(d.psr0),
          "N = 1: chosen %zu trials %g dsr %g psr0 %g", d.chosen, d.trials, d.dsr, d.psr0);
    /* no finite Sharpe at all: nothing to judge */
    CHECK(hs_deflated_sharpe(ps + 2, 1, 4, 0.0, SIZE_MAX, &d, &err) == HS_OK, "%s", err.msg);
    CHECK(d.chosen == SIZE_MAX && isnan(d.sr) && isnan(d.dsr) && isnan(d.psr0), "none finite: chosen %zu", d.chosen);
    /* T = 1: both NaN */
    CHECK(hs_deflated_sharpe(ps, 2, 1, 0.0, 0, &d, &err) == HS_OK && isnan(d.dsr) && isnan(d.psr0), "T = 1");

    /* every optional output NULL: the same figures */
    hs_cscv_result a, b;
    double lam[6];
    CHECK(hs_cscv(e3, 4, 3, 4, &a, lam, NULL, NULL, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_cscv(e3, 4, 3, 4, &b, NULL, NULL, NULL, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(a.kept == b.kept && memcmp(&a.pbo, &b.pbo, sizeof a.pbo) == 0 &&
              memcmp(&a.prob_oos_loss, &b.prob_oos_loss, sizeof a.pbo) == 0,
          "NULL outputs change the result");
}

int main(void) {
    bad_inputs();
    dsr_cases();
    counts();
    hand_examples();
    return hs_check_summary("test_validate");
}
