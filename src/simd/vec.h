/* The vector vocabulary: one tiny set of operations every SIMD kernel is written against, mapped to
 * intrinsics by one thin header per ISA, vec_<isa>.h.  The translation unit's ISA (HS_ISA_NAME, set by
 * CMake along with that ISA's flags from isa.def) picks the header; without one it is vec_scalar.h.
 *
 *   hs_vd                 a vector of HS_VN doubles
 *   vd_loadu(p)           vd_storeu(p, v)      unaligned load / store of HS_VN doubles
 *   vd_set1(x)            vd_zero()            broadcast / all zero
 *   vd_add vd_sub vd_mul vd_div                 lane-wise, each rounded (IEEE), never fused
 *   vd_fma(a, b, c)       a*b + c with ONE rounding — only where a variant states it is tier 1
 *   vd_abs(v)             vd_max(a, b)         |v| (exact); lane-wise maximum (operands never NaN)
 *   vd_min(a, b)                               lane-wise minimum (operands never NaN: which one a NaN
 *                                              gives differs by ISA)
 *   vd_hsum(v)            horizontal sum, lanes added pairwise (tier 1: reassociates)
 *   vd_cmpgt_mask / vd_blend                    compare and select (mask type hs_vmask)
 *   hs_vi, vi_set1, vi_add, vi_loadu, vi_storeu int64 index vectors, one per double lane
 *   vi_and                                      lane integers
 *   vi_cmpgt_mask                               signed compare (the same hs_vmask as doubles)
 *   vm_bits(m)            lane k -> bit k
 *   vd_gather(base, idx)  base[idx[k]] per lane (a hardware gather on AVX2/AVX-512, loads elsewhere)
 *   vd_transpose(v)       v[0..HS_VN-1] as an HS_VN x HS_VN matrix, transposed in place: lane l of v[i]
 *                                              becomes lane i of v[l] (exact: only moves)
 *   vd_signbits(v)        vd_absgt_bits(v, t)   lane bitmasks: sign bits; |v| > t (false for NaN)
 *   vb_lane_bits64(b, l)  bit l of each of the 64 bytes b[0..63], byte j -> bit j (integer: equal on every ISA)
 *
 * A kernel that uses only add/sub/mul/div keeps each lane's operation order identical to the scalar
 * reference, so it is tier 0 on every ISA.
 */
#ifndef HS_VEC_H
#define HS_VEC_H

#ifdef HS_ISA_NAME
#define HS_VEC_STR_(x) #x
#define HS_VEC_STR(x) HS_VEC_STR_(x)
#define HS_VEC_CAT_(a, b) a##b
#define HS_VEC_CAT(a, b) HS_VEC_CAT_(a, b)
#include HS_VEC_STR(HS_VEC_CAT(vec_, HS_ISA_NAME).h) /* vec_<isa>.h */
#else
#include "vec_scalar.h"
#endif

/* An approximate reciprocal where the header has none (scalar, SSE2, NEON): the division, exact. */
#ifndef HS_VD_RECIP_ERR
#define HS_VD_RECIP_ERR 0x1p-53
static inline hs_vd vd_recip_approx(hs_vd a) { return vd_div(vd_set1(1.0), a); }
#endif

/* The lane integers for the ISAs whose header has none native (scalar, SSE2, NEON): lane by lane through
 * memory.  Exact integer operations, so every ISA computes the same lanes; only AVX2 and AVX-512 carry the
 * cost targets that needed them native (mtm_defer.h). */
#ifndef HS_HAVE_VI_LANES
#include <stdint.h>
#include <string.h>
#define HS_VI_LANEWISE(name, expr)                                                                                    \
    static inline hs_vi name(hs_vi va, hs_vi vb) {                                                                    \
        int64_t a[HS_VN], b[HS_VN];                                                                                   \
        vi_storeu(a, va), vi_storeu(b, vb);                                                                           \
        for (int l = 0; l < HS_VN; l++) a[l] = (expr);                                                                \
        return vi_loadu(a);                                                                                           \
    }
HS_VI_LANEWISE(vi_and, a[l] & b[l])
#undef HS_VI_LANEWISE
static inline hs_vmask vm_of_bits(unsigned bits) { /* lane k set where bit k is */
    double t[HS_VN];
    for (int l = 0; l < HS_VN; l++) t[l] = bits >> l & 1 ? 1.0 : 0.0;
    return vd_cmpgt_mask(vd_loadu(t), vd_zero());
}
static inline unsigned vm_bits(hs_vmask m) { return vd_signbits(vd_blend(m, vd_set1(1.0), vd_set1(-1.0))); }
static inline hs_vmask vi_cmpgt_mask(hs_vi va, hs_vi vb) {
    int64_t a[HS_VN], b[HS_VN];
    vi_storeu(a, va), vi_storeu(b, vb);
    unsigned bits = 0;
    for (int l = 0; l < HS_VN; l++) bits |= (unsigned)(a[l] > b[l]) << l;
    return vm_of_bits(bits);
}
/* HS_VN floats widened to doubles, through memory. */
static inline hs_vd vd_load_f32(const float *p) {
    double x[HS_VN];
    for (int l = 0; l < HS_VN; l++) x[l] = p[l];
    return vd_loadu(x);
}
#endif

/* The portable vb_lane_bits64, for the ISAs whose header has no faster one (scalar, NEON). */
#ifndef HS_HAVE_VB_LANE_BITS64
#include <stdint.h>
#include <string.h>
static inline uint64_t vb_lane_bits64(const unsigned char *bytes, int lane) {
    uint64_t word = 0;
    for (int q = 0; q < 8; q++) {
        uint64_t x;
        memcpy(&x, bytes + 8 * q, 8);
        uint64_t t = (x >> lane) & 0x0101010101010101ULL;
        word |= ((t * 0x0102040810204080ULL) >> 56) << (8 * q); /* byte j's bit -> bit j (no carries) */
    }
    return word;
}
#endif

#endif
