/* §9.5 CSCV and the probability of backtest overfitting (hs_cscv).
 *
 * The splits J (|J| = S/2, lexicographic order) are walked depth first over the groups 0..S−1, deciding at
 * depth g whether group g joins J or its complement J̄.  Each level keeps one partial (m1, m2) per side and
 * combo; going one level deeper adds group g's (s1_g, s2_g) to the parent partial of the side it joins, so
 * every m1 and m2 is the spec's left-to-right sum over its groups in ascending order, from 0.0 (tier 0), and
 * the memory is S partial arrays of N (levels 0..S/2−1 of each side, m1 and m2), whatever the number of
 * splits.  Taking "g in J" first visits the J in lexicographic order.  Only the J that contain group 0 are
 * walked: their complements are the other half of the splits, in reverse order (the complement reverses
 * lexicographic order when |J| = S/2, so J̄ is split number splits − 1 − (J's number)), and both sides'
 * bounds serve both splits: J as in-sample with J̄ out, and J̄ in with J out (cscv_split.c).
 *
 * Cost: C(S, S/2)/2 leaves, each a pass over N combos for both sides, plus about as many inner levels (6,433
 * stored levels and 6,435 leaves at S = 16): about C(S, S/2)·N work, ~3.8x per +2 groups. */
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
static void group_sums(const double *equity, size_t n_periods, size_t n_combos, size_t stride, size_t groups, double *s1,
                       double *s2, size_t *sizes) {
    for (size_t g = 0; g < groups; g++) {
        size_t from = group_start(g, n_periods, groups), to = group_start(g + 1, n_periods, groups);
        double *a = s1 + g * stride, *b = s2 + g * stride;
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
    size_t n_combos, stride, groups, half, splits;
    const double *s1, *s2; /* [groups][stride] */
    const size_t *sizes;   /* [groups] */
    /* The partials: level k < S/2 of a side holds its first k groups' sums (level 0: zeros).  A side's last
     * group is added in the leaf, block by block, never stored. */
    double **j1, **j2, **c1, **c2;
    double *block; /* 4 x LEAF_BLOCK: the two sides' finished sums of one block */
    size_t walked; /* J containing group 0 visited so far */
    cscv_scratch scratch;
    cscv_tally tally;
} cscv_walk;

static void add_group(const cscv_walk *w, double *dst1, double *dst2, const double *src1, const double *src2,
                      const double *g1, const double *g2, size_t n) {
    w->scratch.lanes->add(dst1, dst2, src1, src2, g1, g2, n);
}

/* d = src + Σ s_g over the groups of `rest`, ascending, for combos [from, from + len): each combo's sum left to
 * right, as a level per group would make it (rest is never empty). */
static void finish_block(const cscv_walk *w, double *d1, double *d2, const double *src1, const double *src2, uint32_t rest,
                         size_t from, size_t len) {
    size_t n = w->stride;
    for (size_t g = 0; g < w->groups; g++)
        if (rest >> g & 1u) {
            add_group(w, d1, d2, src1, src2, w->s1 + g * n + from, w->s2 + g * n + from, len);
            src1 = d1, src2 = d2;
        }
}

static size_t periods_of(const cscv_walk *w, uint32_t mask) {
    size_t n = 0;
    for (size_t g = 0; g < w->groups; g++) n += (mask >> g & 1u) ? w->sizes[g] : 0;
    return n;
}

/* One walked J (jmask): J's sums are j + the groups of j_rest, its complement's c + those of c_rest.  Both are
 * finished and bounded block by block (LEAF_BLOCK combos stay in L1), so the last level of each side is
 * never stored nor read back (a store and a reload of four N-arrays per leaf before; the CPU time did not
 * change measurably on this shared 2-vCPU machine: the stores of the walk's inner levels dominate). */
#define LEAF_BLOCK 512
static void leaf(cscv_walk *w, const double *j1, const double *j2, uint32_t j_rest, const double *c1, const double *c2,
                 uint32_t c_rest, uint32_t jmask) {
    size_t n = w->n_combos, stride = w->stride, all = ((size_t)1 << w->groups) - 1;
    uint32_t cmask = (uint32_t)(all & ~(size_t)jmask);
    cscv_side a = {w->s1, w->s2, n, stride, w->groups, jmask, periods_of(w, jmask)};
    cscv_side b = {w->s1, w->s2, n, stride, w->groups, cmask, periods_of(w, cmask)};
    double *buf = w->scratch.buf, *t = w->block, top_a = -INFINITY, top_b = -INFINITY;
    for (size_t from = 0; from < n; from += LEAF_BLOCK) {
        size_t len = n - from < LEAF_BLOCK ? n - from : LEAF_BLOCK;
        finish_block(w, t, t + LEAF_BLOCK, j1 + from, j2 + from, j_rest, from, len);
        finish_block(w, t + 2 * LEAF_BLOCK, t + 3 * LEAF_BLOCK, c1 + from, c2 + from, c_rest, from, len);
        if (a.n >= 2)
            top_a = fmax(top_a, w->scratch.lanes->bounds(t, t + LEAF_BLOCK, a.n, len, buf + from, buf + stride + from));
        if (b.n >= 2)
            top_b = fmax(top_b, w->scratch.lanes->bounds(t + 2 * LEAF_BLOCK, t + 3 * LEAF_BLOCK, b.n, len,
                                                         buf + 2 * stride + from, buf + 3 * stride + from));
    }
    w->scratch.top_a = top_a;
    w->scratch.top_b = top_b;
    size_t number = w->walked++;
    hs_cscv_pair(&a, &b, number, w->splits - 1 - number, &w->scratch, &w->tally);
}

/* Groups < g are placed: kj of them in J (jmask), kc in the complement, both below S/2.  Group g joins J first
 * (lexicographic order); the join that fills a side makes the leaf, with every later group in the other. */
static void walk(cscv_walk *w, size_t g, size_t kj, size_t kc, uint32_t jmask) {
    size_t h = w->half, n = w->n_combos;
    uint32_t bit = (uint32_t)1 << g, later = (uint32_t)(((size_t)1 << w->groups) - ((size_t)2 << g));
    const double *g1 = w->s1 + g * w->stride, *g2 = w->s2 + g * w->stride;
    if (kj + 1 == h) {
        leaf(w, w->j1[kj], w->j2[kj], bit, w->c1[kc], w->c2[kc], later, jmask | bit);
    } else {
        add_group(w, w->j1[kj + 1], w->j2[kj + 1], w->j1[kj], w->j2[kj], g1, g2, n);
        walk(w, g + 1, kj + 1, kc, jmask | bit);
    }
    if (kc + 1 == h) {
        leaf(w, w->j1[kj], w->j2[kj], later, w->c1[kc], w->c2[kc], bit, jmask | later);
    } else {
        add_group(w, w->c1[kc + 1], w->c2[kc + 1], w->c1[kc], w->c2[kc], g1, g2, n);
        walk(w, g + 1, kj, kc + 1, jmask);
    }
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
    size_t half = groups / 2, splits = hs_cscv_splits(groups), levels = half;
    size_t n = n_combos, stride = (n + 7) / 8 * 8;
    size_t arrays = 2 * groups + 4 * levels + CSCV_SCRATCH_DOUBLES;
    if (stride > (SIZE_MAX / sizeof(double) - 4 * LEAF_BLOCK - 2 * splits - 64) / arrays)
        return hs_fail(err, HS_ERR_NOMEM, "hs_cscv: %zu arrays of %zu combos do not fit in memory", arrays, n_combos);
    /* One 64-byte aligned block: group sums 2·S, partials 4·(S/2) and the scratch's 4 arrays of `stride`
     * doubles (N rounded up to 8, so each array starts a cache line: the walk's stores are its bottleneck),
     * a leaf block, and the per-split metrics the degradation line needs when the caller does not want them. */
    size_t doubles = arrays * stride + 4 * LEAF_BLOCK +
                     (is_metric ? 0 : splits) + (oos_metric ? 0 : splits);
    size_t bytes = (doubles * sizeof(double) + 63) / 64 * 64;
    double *block = aligned_alloc(64, bytes);
    double **levels_p = malloc(4 * levels * sizeof *levels_p);
    size_t *sizes = calloc(groups, sizeof *sizes);
    size_t *cand = malloc(n * sizeof *cand);
    if (!block || !levels_p || !sizes || !cand) {
        free(block);
        free(levels_p);
        free(sizes);
        free(cand);
        return hs_fail(err, HS_ERR_NOMEM, "hs_cscv: no memory for S = %zu groups x %zu combos", groups, n_combos);
    }
    memset(block, 0, bytes); /* level 0 of each side is zeros; the padding stays zero */
    double *p = block;
    double *s1 = p, *s2 = p + groups * stride;
    p += 2 * groups * stride;
    for (size_t i = 0; i < 4 * levels; i++, p += stride) levels_p[i] = p;
    cscv_scratch scratch = {p, stride, -INFINITY, -INFINITY, cand, lanes_of(isa)};
    p += CSCV_SCRATCH_DOUBLES * stride;
    double *leaf_block = p;
    p += 4 * LEAF_BLOCK;
    double *is_m = is_metric ? is_metric : p;
    p += is_metric ? 0 : splits;
    double *oos_m = oos_metric ? oos_metric : p;
    group_sums(equity, n_periods, n_combos, stride, groups, s1, s2, sizes);

    cscv_walk w = {n, stride, groups, half, splits, s1, s2, sizes, levels_p, levels_p + levels, levels_p + 2 * levels,
                   levels_p + 3 * levels, leaf_block, 0, scratch, {lambdas, is_m, oos_m, chosen, 0, 0, 0}};
    /* Group 0 is in every J walked; level 0 is zeros, so each sum starts at 0.0. */
    uint32_t after0 = (uint32_t)(((size_t)1 << groups) - 2);
    if (half == 1) {
        leaf(&w, w.j1[0], w.j2[0], 1u, w.c1[0], w.c2[0], after0, 1u);
    } else {
        add_group(&w, w.j1[1], w.j2[1], w.j1[0], w.j2[0], s1, s2, n);
        walk(&w, 1, 1, 0, 1u);
    }

    out->groups = groups;
    out->splits = splits;
    out->kept = w.tally.kept;
    out->pbo = w.tally.kept ? (double)w.tally.overfit / (double)w.tally.kept : NAN;
    out->prob_oos_loss = w.tally.kept ? (double)w.tally.oos_loss / (double)w.tally.kept : NAN;
    degradation_line(is_m, oos_m, splits, &out->slope, &out->intercept);
    free(block);
    free(levels_p);
    free(sizes);
    free(cand);
    return HS_OK;
}
