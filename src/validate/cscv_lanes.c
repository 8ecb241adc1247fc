/* CSCV's per-combo passes (cscv_lanes.h), lane-wise over the vector vocabulary (src/simd/vec.h); CMake
 * compiles this file once per ISA.  The passes only bound and compare; every decision they cannot make is
 * left to the exact metric (cscv_split.c), so their rounding never reaches a result. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cscv_lanes.h"
#include "vec.h"

/* The bound's constants (cscv_split.c derives them): U = 2^-53. */
#define U_ROUND 0x1p-53
#define D_SLACK (32.0 * U_ROUND) /* |d − d_exact| <= D_SLACK·(|p| + m2) / 4 */
#define KEY_SLACK (64.0 * U_ROUND)
#define TINY 1e-290 /* d above it: var = d/(n−1) stays normal */

/* One vector of combos: [lo, hi] around key(metric), or the NaN / undecided markers. */
static inline void bounds_v(hs_vd m1, hs_vd m2, hs_vd rn, hs_vd nm1, hs_vd *lo_out, hs_vd *hi_out) {
    const hs_vd zero = vd_zero(), inf = vd_set1(INFINITY), ninf = vd_set1(-INFINITY);
    hs_vd mu = vd_mul(m1, rn);
    hs_vd p = vd_mul(m1, mu);
    hs_vd d = vd_sub(m2, p);
    hs_vd bd = vd_mul(vd_add(vd_abs(p), m2), vd_set1(D_SLACK));
    hs_vd inv = vd_div(vd_set1(1.0), d); /* an estimate would do, but vrcp14pd measured no faster */
    hs_vd rho = vd_mul(bd, inv);
    hs_vd amu = vd_abs(mu);
    hs_vd key = vd_mul(vd_mul(mu, amu), vd_mul(nm1, inv));
    hs_vd akey = vd_abs(key);
    hs_vd err = vd_mul(akey, vd_add(vd_set1(KEY_SLACK), rho));
    hs_vd lo_ok = vd_sub(key, err), hi_ok = vd_add(key, err);

    /* Undecided, unless one of the cases below decides it. */
    hs_vd lo = ninf, hi = inf;
    /* Surely NaN: d < −bd (so var < 0), or m2 = 0 (then d = −m1·mean <= 0). */
    hs_vmask neg = vd_cmpgt_mask(vd_sub(zero, bd), d);
    lo = vd_blend(neg, lo, ninf);
    hi = vd_blend(neg, hi, ninf);
    hs_vmask m2_pos = vd_cmpgt_mask(m2, zero);
    lo = vd_blend(m2_pos, ninf, lo);
    hi = vd_blend(m2_pos, ninf, hi);
    /* m1 = 0 exactly: mean = ±0, d = m2 exactly; with m2 > TINY the metric is ±0: key 0, exact. */
    hs_vmask m2_big = vd_cmpgt_mask(m2, vd_set1(TINY));
    hs_vd zlo = vd_blend(m2_big, lo, zero), zhi = vd_blend(m2_big, hi, zero);
    hs_vmask m1_nonzero = vd_cmpgt_mask(vd_abs(m1), zero);
    lo = vd_blend(m1_nonzero, zlo, lo);
    hi = vd_blend(m1_nonzero, zhi, hi);
    /* The bound holds when d > 4·bd (rho < 1/4), d > TINY, |mean| > 1e-140 and 1e-280 < |key| < 1e280
     * (every quantity normal); each failed condition (NaN included) leaves the lane as above. */
    hs_vd okl = lo_ok, okh = hi_ok;
#define CSCV_REQUIRE(mask) \
    do {                   \
        hs_vmask m_ = (mask); \
        okl = vd_blend(m_, lo, okl); \
        okh = vd_blend(m_, hi, okh); \
    } while (0)
    CSCV_REQUIRE(vd_cmpgt_mask(vd_set1(0.25), rho));
    CSCV_REQUIRE(vd_cmpgt_mask(d, vd_set1(TINY)));
    CSCV_REQUIRE(vd_cmpgt_mask(amu, vd_set1(1e-140)));
    CSCV_REQUIRE(vd_cmpgt_mask(akey, vd_set1(1e-280)));
    CSCV_REQUIRE(vd_cmpgt_mask(vd_set1(1e280), akey));
#undef CSCV_REQUIRE
    *lo_out = okl;
    *hi_out = okh;
}

static void bounds(const double *m1, const double *m2, size_t n, size_t n_combos, double *lo, double *hi) {
    const hs_vd rn = vd_set1(1.0 / (double)n), nm1 = vd_set1((double)(n - 1));
    size_t c = 0;
    for (; c + HS_VN <= n_combos; c += HS_VN) {
        hs_vd l, h;
        bounds_v(vd_loadu(m1 + c), vd_loadu(m2 + c), rn, nm1, &l, &h);
        vd_storeu(lo + c, l);
        vd_storeu(hi + c, h);
    }
    if (c < n_combos) { /* the tail through a padded vector */
        double a[HS_VN] = {0}, b[HS_VN] = {0}, l[HS_VN], h[HS_VN];
        size_t k = n_combos - c;
        memcpy(a, m1 + c, k * sizeof *a);
        memcpy(b, m2 + c, k * sizeof *b);
        hs_vd lv, hv;
        bounds_v(vd_loadu(a), vd_loadu(b), rn, nm1, &lv, &hv);
        vd_storeu(l, lv);
        vd_storeu(h, hv);
        memcpy(lo + c, l, k * sizeof *l);
        memcpy(hi + c, h, k * sizeof *h);
    }
}

static double max_lo(const double *lo, size_t n_combos) {
    hs_vd m = vd_set1(-INFINITY);
    size_t c = 0;
    for (; c + HS_VN <= n_combos; c += HS_VN) m = vd_max(m, vd_loadu(lo + c));
    double lanes[HS_VN], best = -INFINITY;
    vd_storeu(lanes, m);
    for (int l = 0; l < HS_VN; l++) best = lanes[l] > best ? lanes[l] : best;
    for (; c < n_combos; c++) best = lo[c] > best ? lo[c] : best;
    return best;
}

static inline size_t push_bits(unsigned bits, size_t base, size_t *out, size_t k) {
    while (bits) {
        int l = __builtin_ctz(bits);
        out[k++] = base + (size_t)l;
        bits &= bits - 1;
    }
    return k;
}

static size_t at_least(const double *hi, size_t n_combos, double floor, size_t *out) {
    const hs_vd f = vd_set1(floor);
    const unsigned all = (1u << HS_VN) - 1u;
    size_t k = 0, c = 0;
    for (; c + HS_VN <= n_combos; c += HS_VN) {
        unsigned below = vd_signbits(vd_sub(vd_loadu(hi + c), f)); /* hi − floor < 0: hi < floor (hi never NaN) */
        if (below != all) k = push_bits(~below & all, c, out, k);
    }
    for (; c < n_combos; c++)
        if (hi[c] >= floor) out[k++] = c;
    return k;
}

static size_t classify(const double *lo, const double *hi, size_t n_combos, double v_lo, double v_hi, size_t *below,
                       size_t *above, size_t *out) {
    const hs_vd vl = vd_set1(v_lo), vh = vd_set1(v_hi);
    const unsigned all = (1u << HS_VN) - 1u;
    size_t b = 0, a = 0, k = 0, c = 0;
    for (; c + HS_VN <= n_combos; c += HS_VN) {
        unsigned lt = vd_signbits(vd_sub(vd_loadu(hi + c), vl)); /* hi < v_lo */
        unsigned gt = vd_signbits(vd_sub(vh, vd_loadu(lo + c))); /* lo > v_hi */
        b += (size_t)__builtin_popcount(lt);
        a += (size_t)__builtin_popcount(gt);
        unsigned open = ~(lt | gt) & all;
        if (open) k = push_bits(open, c, out, k);
    }
    for (; c < n_combos; c++) {
        if (hi[c] < v_lo) b++;
        else if (lo[c] > v_hi) a++;
        else out[k++] = c;
    }
    *below = b;
    *above = a;
    return k;
}

#ifndef HS_ISA_NAME
#error "cscv_lanes.c is compiled once per ISA (CMakeLists.txt: HS_MULTI_ISA_SOURCES), with HS_ISA_NAME set"
#endif
const cscv_lanes CSCV_LANES_NAME(HS_ISA_NAME) = {bounds, max_lo, at_least, classify, HS_VN};
