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

/* The lanes the interval cannot serve (cscv_split.c's cases): surely NaN, an exact ±0, or undecided; the
 * others keep [lo_ok, hi_ok] when rho < 1/4 (bounds_v's bit tests take rho <= 1/4, also proven), d > TINY,
 * |mean| > 1e-140 and 1e-280 < |key| < 1e280 (every quantity normal).  Each failed condition (NaN included)
 * leaves the lane undecided. */
static inline void bounds_cases(hs_vd m1, hs_vd m2, hs_vd d, hs_vd bd, hs_vd rho, hs_vd amu, hs_vd akey, hs_vd *lo_io,
                                hs_vd *hi_io) {
    const hs_vd zero = vd_zero(), inf = vd_set1(INFINITY), ninf = vd_set1(-INFINITY);
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
    hs_vd okl = *lo_io, okh = *hi_io;
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
    *lo_io = okl;
    *hi_io = okh;
}

/* One vector of combos: [lo, hi] around key(metric), or the NaN / undecided markers.  The lane tests of the
 * common case (every lane served by its interval) are NaN-proof bit tests (|v| > t is false for NaN); only a
 * vector with another lane goes through bounds_cases' blends (they were most of this pass's instructions). */
static inline void bounds_v(hs_vd m1, hs_vd m2, hs_vd rn, hs_vd nm1, hs_vd *lo_out, hs_vd *hi_out) {
    const unsigned all = (1u << HS_VN) - 1u;
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
    *lo_out = vd_sub(key, err);
    *hi_out = vd_add(key, err);
    /* d > TINY (finite or +inf); rho <= 1/4 or NaN (NaN only with d = +inf, where key is 0 or NaN and fails
     * next); |mean| > 1e-140; 1e-280 < |key| < 1e280 (not NaN). */
    unsigned ok = vd_absgt_bits(d, vd_set1(TINY)) & ~vd_signbits(d) & ~vd_absgt_bits(rho, vd_set1(0.25)) &
                  vd_absgt_bits(mu, vd_set1(1e-140)) & vd_absgt_bits(key, vd_set1(1e-280)) &
                  ~vd_absgt_bits(key, vd_set1(1e280)) & all;
    if (ok != all) bounds_cases(m1, m2, d, bd, rho, amu, akey, lo_out, hi_out);
}

/* lo, hi of combos [0, n_combos) (cscv_lanes.h); returns the largest lo. */
static double bounds(const double *m1, const double *m2, size_t n, size_t n_combos, double *lo, double *hi) {
    const hs_vd rn = vd_set1(1.0 / (double)n), nm1 = vd_set1((double)(n - 1));
    hs_vd top = vd_set1(-INFINITY);
    size_t c = 0;
    for (; c + HS_VN <= n_combos; c += HS_VN) {
        hs_vd l, h;
        bounds_v(vd_loadu(m1 + c), vd_loadu(m2 + c), rn, nm1, &l, &h);
        vd_storeu(lo + c, l);
        vd_storeu(hi + c, h);
        top = vd_max(top, l); /* lo is never NaN */
    }
    double lanes[HS_VN], best = -INFINITY;
    vd_storeu(lanes, top);
    for (int l = 0; l < HS_VN; l++) best = lanes[l] > best ? lanes[l] : best;
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
        for (size_t i = 0; i < k; i++) best = l[i] > best ? l[i] : best;
    }
    return best;
}

static void add(double *d1, double *d2, const double *a1, const double *a2, const double *b1, const double *b2,
                size_t n) {
    size_t c = 0;
    for (; c + HS_VN <= n; c += HS_VN) {
        hs_vd x = vd_add(vd_loadu(a1 + c), vd_loadu(b1 + c)), y = vd_add(vd_loadu(a2 + c), vd_loadu(b2 + c));
        vd_storeu(d1 + c, x);
        vd_storeu(d2 + c, y);
    }
    for (; c < n; c++) {
        d1[c] = a1[c] + b1[c];
        d2[c] = a2[c] + b2[c];
    }
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
const cscv_lanes CSCV_LANES_NAME(HS_ISA_NAME) = {add, bounds, at_least, classify, HS_VN};
