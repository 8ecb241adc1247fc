/* The vector vocabulary: one tiny set of operations every SIMD kernel is written against, mapped to
 * intrinsics by one thin header per ISA.  The translation unit's ISA (HS_TU_<ISA>, set by CMake along
 * with that ISA's compiler flags) picks the header.
 *
 *   hs_vd                 a vector of HS_VN doubles
 *   vd_loadu(p)           vd_storeu(p, v)      unaligned load / store of HS_VN doubles
 *   vd_set1(x)            vd_zero()            broadcast / all zero
 *   vd_add vd_sub vd_mul vd_div                 lane-wise, each rounded (IEEE), never fused
 *   vd_fma(a, b, c)       a*b + c with ONE rounding — only where a variant states it is tier 1
 *   vd_abs(v)             vd_max(a, b)         |v| (exact); lane-wise maximum (operands never NaN)
 *   vd_hsum(v)            horizontal sum, lanes added pairwise (tier 1: reassociates)
 *   vd_cmpgt_mask / vd_blend                    compare and select (mask type hs_vmask)
 *   hs_vi, vi_set1, vi_add, vi_loadu            int64 index vectors, one per double lane
 *   vd_gather(base, idx)  base[idx[k]] per lane (a hardware gather on AVX2/AVX-512, loads elsewhere)
 *   vd_signbits(v)        vd_absgt_bits(v, t)   lane bitmasks: sign bits; |v| > t (false for NaN)
 *
 * A kernel that uses only add/sub/mul/div keeps each lane's operation order identical to the scalar
 * reference, so it is tier 0 on every ISA.
 */
#ifndef HS_VEC_H
#define HS_VEC_H

#if defined(HS_TU_AVX512)
#include "vec_avx512.h"
#elif defined(HS_TU_AVX2)
#include "vec_avx2.h"
#elif defined(HS_TU_SSE2)
#include "vec_sse2.h"
#elif defined(HS_TU_NEON)
#include "vec_neon.h"
#else
#include "vec_scalar.h"
#endif

#endif
