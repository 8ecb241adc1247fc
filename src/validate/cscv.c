/* §9.5 CSCV and the probability of backtest overfitting (hs_cscv).
 *
 * The splits J (|J| = S/2, lexicographic order) are walked depth first over the groups 0..S−1, deciding at
 * depth g whether group g joins J or its complement J̄.  Each level keeps one partial (m1, m2) per side and
 * combo; going one level deeper adds group g's (s1_g, s2_g) to the parent partial of the side it joins, so
 * every m1 and m2 is the spec's left-to-right sum over its groups in ascending order (tier 0), and the
 * memory is (S + 2) partial arrays of N, whatever the number of splits.  Taking "g in J" first visits the
 * J in lexicographic order.  Only the J that contain group 0 are walked: their complements are the other
 * half of the splits, in reverse order (the complement reverses lexicographic order when |J| = S/2, so J̄
 * is split number splits − 1 − (J's number)), and both sides' metrics serve both splits: J as in-sample
 * with J̄ out, and J̄ in with J out. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cscv.h"
#include "error.h"
#include "isa.h"
#include "validate.h"

#define CSCV_LANES_DECLARE(k, isa, ...) extern const cscv_lanes hs_cscv_lanes__##isa;
HS_ISA_LIST(CSCV_LANES_DECLARE, ~)

/* The passes of the ISA a sweep would pick (hs_isa_default: the widest built and supported, or $HMASWEEP_ISA). */
static const cscv_lanes *lanes_of(hs_isa isa) {
    static const cscv_lanes *const built[HS_ISA_COUNT] = {
#define CSCV_LANES_IF_BUILT(k, isa, ISA, ...) HS_IF_BUILT(ISA, &hs_cscv_lanes__##isa),
        HS_ISA_LIST(CSCV_LANES_IF_BUILT, ~)
    };
    if ((unsigned)isa >= HS_ISA_COUNT || !built[isa]) isa = HS_ISA_SCALAR;
    return built[isa];
}

size_t hs_cscv_splits(size_t groups) {
    if (groups < 2 || groups % 2 != 0 || groups > HS_CSCV_MAX_GROUPS) return 0;
    size_t half = groups / 2, r = 1;
    for (size_t i = 1; i <= half; i++) r = r * (groups - half + i) / i; /* C(half + i, i), exact at each step */
    return r;
}

/* Group g's rows, 0-based: [floor(g·P/S), floor((g+1)·P/S)). */
static size_t group_start(size_t g, size_t n_periods, size_t groups) { return g * n_periods / groups; }

/* s1[g][c] = Σ R_k and s2[g][c] = Σ R_k·R_k over group g's periods, in period order. */
static void group_sums(const double *equity, size_t n_periods, size_t n_combos, size_t groups, double *s1, double *s2,
                       size_t *sizes) {
    for (size_t g = 0; g < groups; g++) {
        size_t from = group_start(g, n_periods, groups), to = group_start(g + 1, n_periods, groups);
        double *a = s1 + g * n_combos, *b = s2 + g * n_combos;
        memset(a, 0, n_combos * sizeof *a);
        memset(b, 0, n_combos * sizeof *b);
        for (size_t k = from; k < to; k++)
            for (size_t c = 0; c < n_combos; c++) {
                double r = hs_period_return(equity, n_combos, k, c);
                a[c] += r;
                b[c] += r * r;
            }
        sizes[g] = to - from;
    }
}

typedef struct {
    size_t n_combos, groups, half, splits;
    const double *s1, *s2; /* [groups][n_combos] */
    const size_t *sizes;   /* [groups] */
    /* The partials: level k of a side holds its first k groups' sums (level 0: zeros). */
    double **j1, **j2, **c1, **c2;
    size_t *jn, *cn;
    size_t walked; /* J containing group 0 visited so far */
    cscv_scratch scratch;
    cscv_tally tally;
} cscv_walk;

static void add_group(double *dst1, double *dst2, const double *src1, const double *src2, const double *g1,
                      const double *g2, size_t n) {
    for (size_t c = 0; c < n; c++) {
        dst1[c] = src1[c] + g1[c];
        dst2[c] = src2[c] + g2[c];
    }
}

static void leaf(cscv_walk *w) {
    size_t h = w->half, number = w->walked++;
    cscv_side in = {w->j1[h], w->j2[h], w->jn[h]}, out = {w->c1[h], w->c2[h], w->cn[h]};
    hs_cscv_pair(&in, &out, w->n_combos, number, w->splits - 1 - number, &w->scratch, &w->tally);
}

/* Groups g..S−1 all join one side (the other is full): dst = src + s_g + ... + s_{S−1}, each combo's sum left to
 * right as the level-by-level walk would make it, but in one pass per block of combos that stays in L1 (a
 * level per group cost a store and a reload of both arrays: 11,440 of the 24,308 levels at S = 16 are such
 * chains; measured 0.22-0.23 s against 0.23-0.24 s CPU for the whole hs_cscv, 6,400 x 600, S = 16, AVX-512
 * Xeon, 3 interleaved pairs). */
#define CHAIN_BLOCK 512
static void add_chain(cscv_walk *w, double *dst1, double *dst2, const double *src1, const double *src2, size_t g) {
    size_t n = w->n_combos;
    for (size_t from = 0; from < n; from += CHAIN_BLOCK) {
        size_t len = n - from < CHAIN_BLOCK ? n - from : CHAIN_BLOCK;
        add_group(dst1 + from, dst2 + from, src1 + from, src2 + from, w->s1 + g * n + from, w->s2 + g * n + from, len);
        for (size_t k = g + 1; k < w->groups; k++)
            add_group(dst1 + from, dst2 + from, dst1 + from, dst2 + from, w->s1 + k * n + from, w->s2 + k * n + from, len);
    }
}

static void walk(cscv_walk *w, size_t g, size_t kj, size_t kc) {
    size_t h = w->half;
    if (g == w->groups) {
        leaf(w);
        return;
    }
    if (kj == h || kc == h) { /* the rest is forced */
        size_t rest = 0;
        for (size_t k = g; k < w->groups; k++) rest += w->sizes[k];
        if (kj == h) {
            add_chain(w, w->c1[h], w->c2[h], w->c1[kc], w->c2[kc], g);
            w->cn[h] = w->cn[kc] + rest;
        } else {
            add_chain(w, w->j1[h], w->j2[h], w->j1[kj], w->j2[kj], g);
            w->jn[h] = w->jn[kj] + rest;
        }
        leaf(w);
        return;
    }
    const double *g1 = w->s1 + g * w->n_combos, *g2 = w->s2 + g * w->n_combos;
    add_group(w->j1[kj + 1], w->j2[kj + 1], w->j1[kj], w->j2[kj], g1, g2, w->n_combos);
    w->jn[kj + 1] = w->jn[kj] + w->sizes[g];
    walk(w, g + 1, kj + 1, kc);
    add_group(w->c1[kc + 1], w->c2[kc + 1], w->c1[kc], w->c2[kc], g1, g2, w->n_combos);
    w->cn[kc + 1] = w->cn[kc] + w->sizes[g];
    walk(w, g + 1, kj, kc + 1);
}

/* numpy's polyfit(x, y, 1) over the pairs with both finite: the least-squares line, from centred sums. */
static void degradation_line(const double *x, const double *y, size_t n, double *slope, double *intercept) {
    size_t m = 0;
    double sx = 0.0, sy = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            sx += x[i];
            sy += y[i];
            m++;
        }
    *slope = *intercept = NAN;
    if (m < 2) return;
    double mx = sx / (double)m, my = sy / (double)m, sxx = 0.0, sxy = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            double dx = x[i] - mx;
            sxx += dx * dx;
            sxy += dx * (y[i] - my);
        }
    if (!(sxx > 0.0)) return;
    *slope = sxy / sxx;
    *intercept = my - *slope * mx;
}

static hs_status check_groups(size_t n_periods, size_t groups, hs_error *err) {
    if (groups < 2)
        return hs_fail(err, HS_ERR_USAGE, "hs_cscv: groups S = %zu: CSCV needs an even S >= 2 (the default is 16)", groups);
    if (groups % 2 != 0)
        return hs_fail(err, HS_ERR_USAGE, "hs_cscv: groups S = %zu is odd: CSCV splits the groups into two halves", groups);
    if (groups > HS_CSCV_MAX_GROUPS)
        return hs_fail(err, HS_ERR_USAGE,
                       "hs_cscv: groups S = %zu is above the cap HS_CSCV_MAX_GROUPS = %d (C(S, S/2) splits grow ~4x per +2 "
                       "groups; S = %d makes %zu)",
                       groups, HS_CSCV_MAX_GROUPS, HS_CSCV_MAX_GROUPS, hs_cscv_splits(HS_CSCV_MAX_GROUPS));
    if (groups > n_periods)
        return hs_fail(err, HS_ERR_USAGE, "hs_cscv: groups S = %zu is more than the P = %zu periods: each group needs one",
                       groups, n_periods);
    return HS_OK;
}

hs_status hs_cscv(const double *equity, size_t n_periods, size_t n_combos, size_t groups, hs_cscv_result *out,
                  double *lambdas, double *is_metric, double *oos_metric, size_t *chosen, hs_error *err) {
    hs_status st = hs_check_equity("hs_cscv", equity, n_periods, n_combos, err);
    if (st == HS_OK) st = check_groups(n_periods, groups, err);
    if (st != HS_OK) return st;
    if (!out) return hs_fail(err, HS_ERR_USAGE, "hs_cscv: out is NULL");
    hs_isa isa;
    st = hs_isa_default(&isa, err);
    if (st != HS_OK) return st;
    size_t half = groups / 2, splits = hs_cscv_splits(groups), levels = half + 1;
    size_t n = n_combos;
    /* One block: group sums 2·S·N, partials 4·levels·N, the scratch's arrays, and the per-split metrics the
     * degradation line needs when the caller does not want them. */
    size_t doubles = 2 * groups * n + 4 * levels * n + CSCV_SCRATCH_DOUBLES * n + (is_metric ? 0 : splits) +
                     (oos_metric ? 0 : splits);
    double *block = calloc(doubles, sizeof *block);
    double **levels_p = malloc(4 * levels * sizeof *levels_p);
    size_t *counts = calloc(2 * levels + groups, sizeof *counts);
    size_t *cand = malloc(n * sizeof *cand);
    if (!block || !levels_p || !counts || !cand) {
        free(block);
        free(levels_p);
        free(counts);
        free(cand);
        return hs_fail(err, HS_ERR_NOMEM, "hs_cscv: no memory for S = %zu groups x %zu combos", groups, n_combos);
    }
    double *p = block;
    double *s1 = p, *s2 = p + groups * n;
    p += 2 * groups * n;
    for (size_t i = 0; i < 4 * levels; i++, p += n) levels_p[i] = p;
    cscv_scratch scratch = {p, cand, lanes_of(isa)};
    p += CSCV_SCRATCH_DOUBLES * n;
    double *is_m = is_metric ? is_metric : p;
    p += is_metric ? 0 : splits;
    double *oos_m = oos_metric ? oos_metric : p;
    size_t *sizes = counts + 2 * levels;
    group_sums(equity, n_periods, n_combos, groups, s1, s2, sizes);

    cscv_walk w = {n, groups, half, splits, s1, s2, sizes, levels_p, levels_p + levels, levels_p + 2 * levels,
                   levels_p + 3 * levels, counts, counts + levels, 0, scratch,
                   {lambdas, is_m, oos_m, chosen, 0, 0, 0}};
    add_group(w.j1[1], w.j2[1], w.j1[0], w.j2[0], s1, s2, n); /* group 0 is in every J walked */
    w.jn[1] = sizes[0];
    walk(&w, 1, 1, 0);

    out->groups = groups;
    out->splits = splits;
    out->kept = w.tally.kept;
    out->pbo = w.tally.kept ? (double)w.tally.overfit / (double)w.tally.kept : NAN;
    out->prob_oos_loss = w.tally.kept ? (double)w.tally.oos_loss / (double)w.tally.kept : NAN;
    degradation_line(is_m, oos_m, splits, &out->slope, &out->intercept);
    free(block);
    free(levels_p);
    free(counts);
    free(cand);
    return HS_OK;
}
