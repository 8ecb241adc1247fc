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
 *   hs_vi, vi_set1, vi_add, vi_loadu            int64 index vectors, one per double lane
 *   vd_gather(base, idx)  base[idx[k]] per lane (a hardware gather on AVX2/AVX-512, loads elsewhere)
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
