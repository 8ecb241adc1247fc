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
 *   vi_sub vi_and vi_srl(a, n) vi_srlv vi_sllv   lane integers (shifts logical; n, the lanes' counts < 64)
 *   vi_cmpgt_mask / vi_blend                    signed compare and select (the same hs_vmask as doubles)
 *   vi_gather(base, idx)  vi_gather_u32(base, idx)   int64 / zero-extended uint32 loads, one per lane
 *   vi_log2(x)            floor(log2 x) per lane, 1 <= x < 2^52
 *   vm_and(a, b)          vm_andnot(a, b) (a and not b)    vm_bits(m): lane k -> bit k
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
HS_VI_LANEWISE(vi_sub, a[l] - b[l])
HS_VI_LANEWISE(vi_and, a[l] & b[l])
HS_VI_LANEWISE(vi_srlv, (int64_t)((uint64_t)a[l] >> b[l]))
HS_VI_LANEWISE(vi_sllv, (int64_t)((uint64_t)a[l] << b[l]))
#undef HS_VI_LANEWISE
static inline hs_vi vi_srl(hs_vi a, unsigned n) { return vi_srlv(a, vi_set1((int64_t)n)); }
static inline hs_vmask vm_of_bits(unsigned bits) { /* lane k set where bit k is */
    double t[HS_VN];
    for (int l = 0; l < HS_VN; l++) t[l] = bits >> l & 1 ? 1.0 : 0.0;
    return vd_cmpgt_mask(vd_loadu(t), vd_zero());
}
static inline unsigned vm_bits(hs_vmask m) { return vd_signbits(vd_blend(m, vd_set1(1.0), vd_set1(-1.0))); }
static inline hs_vmask vm_and(hs_vmask a, hs_vmask b) { return vm_of_bits(vm_bits(a) & vm_bits(b)); }
static inline hs_vmask vm_andnot(hs_vmask a, hs_vmask b) { return vm_of_bits(vm_bits(a) & ~vm_bits(b)); }
static inline hs_vmask vi_cmpgt_mask(hs_vi va, hs_vi vb) {
    int64_t a[HS_VN], b[HS_VN];
    vi_storeu(a, va), vi_storeu(b, vb);
    unsigned bits = 0;
    for (int l = 0; l < HS_VN; l++) bits |= (unsigned)(a[l] > b[l]) << l;
    return vm_of_bits(bits);
}
static inline hs_vi vi_blend(hs_vmask m, hs_vi vf, hs_vi vt) {
    int64_t f[HS_VN], t[HS_VN];
    vi_storeu(f, vf), vi_storeu(t, vt);
    unsigned bits = vm_bits(m);
    for (int l = 0; l < HS_VN; l++) f[l] = bits >> l & 1 ? t[l] : f[l];
    return vi_loadu(f);
}
/* HS_VN floats widened to doubles, and HS_VN unsigned 32-bit words to lane integers, through memory. */
static inline hs_vd vd_load_f32(const float *p) {
    double x[HS_VN];
    for (int l = 0; l < HS_VN; l++) x[l] = p[l];
    return vd_loadu(x);
}
static inline hs_vi vi_load_u32(const uint32_t *p) {
    int64_t x[HS_VN];
    for (int l = 0; l < HS_VN; l++) x[l] = p[l];
    return vi_loadu(x);
}
static inline hs_vi vi_gather(const int64_t *base, hs_vi vidx) {
    int64_t i[HS_VN];
    vi_storeu(i, vidx);
    for (int l = 0; l < HS_VN; l++) i[l] = base[i[l]];
    return vi_loadu(i);
}
static inline hs_vi vi_gather_u32(const uint32_t *base, hs_vi vidx) {
    int64_t i[HS_VN];
    vi_storeu(i, vidx);
    for (int l = 0; l < HS_VN; l++) i[l] = (int64_t)base[i[l]];
    return vi_loadu(i);
}
static inline hs_vi vi_log2(hs_vi vx) {
    int64_t x[HS_VN];
    vi_storeu(x, vx);
    for (int l = 0; l < HS_VN; l++) x[l] = 63 - __builtin_clzll((unsigned long long)x[l]);
    return vi_loadu(x);
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
