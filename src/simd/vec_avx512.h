/* AVX-512 (F + DQ + VL): eight doubles. */
#if !(defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__))
#error "vec_avx512.h: compiled without avx512's flags (isa.def); include vec.h in a translation unit CMake builds for avx512"
#endif
#include <immintrin.h>
#define HS_VN 8
typedef __m512d hs_vd;
typedef __mmask8 hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return _mm512_loadu_pd(p); }
static inline void vd_storeu(double *p, hs_vd v) { _mm512_storeu_pd(p, v); }
static inline hs_vd vd_set1(double x) { return _mm512_set1_pd(x); }
static inline hs_vd vd_zero(void) { return _mm512_setzero_pd(); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return _mm512_add_pd(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return _mm512_sub_pd(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return _mm512_mul_pd(a, b); }
static inline hs_vd vd_abs(hs_vd a) { return _mm512_abs_pd(a); }
static inline hs_vd vd_max(hs_vd a, hs_vd b) { return _mm512_max_pd(a, b); } /* not for NaN */
static inline hs_vd vd_min(hs_vd a, hs_vd b) { return _mm512_min_pd(a, b); } /* not for NaN */
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return _mm512_div_pd(a, b); }
#define HS_VD_FMA_FUSED 1 /* vd_fma is one instruction */
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) { return _mm512_fmadd_pd(a, b, c); }
static inline double vd_hsum(hs_vd v) {
    __m256d lo = _mm512_castpd512_pd256(v), hi = _mm512_extractf64x4_pd(v, 1);
    __m256d s4 = _mm256_add_pd(lo, hi);
    __m128d s2 = _mm_add_pd(_mm256_castpd256_pd128(s4), _mm256_extractf128_pd(s4, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s2, _mm_unpackhi_pd(s2, s2)));
}
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return _mm512_mask_blend_pd(m, f, t); }

/* Index vectors (one int64 per double lane) and the gather, for kernels that read a different offset in
 * each lane. */
#include <stdint.h>
typedef __m512i hs_vi;
static inline hs_vi vi_set1(int64_t x) { return _mm512_set1_epi64(x); }
static inline hs_vi vi_add(hs_vi a, hs_vi b) { return _mm512_add_epi64(a, b); }
static inline hs_vi vi_loadu(const int64_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline hs_vd vd_gather(const double *base, hs_vi idx) { return _mm512_i64gather_pd(idx, base, 8); }
/* 8 x 8: pairs of rows interleaved, then 128-bit blocks gathered in two rounds (24 shuffles). */
static inline void vd_transpose(hs_vd *v) {
    enum { EVEN = 0 | 2 << 2 | 0 << 4 | 2 << 6, ODD = 1 | 3 << 2 | 1 << 4 | 3 << 6 };
    hs_vd t[4], u[4];
    for (int i = 0; i < 4; i++) t[i] = _mm512_unpacklo_pd(v[2 * i], v[2 * i + 1]), u[i] = _mm512_unpackhi_pd(v[2 * i], v[2 * i + 1]);
    hs_vd tl01 = _mm512_shuffle_f64x2(t[0], t[1], EVEN), th01 = _mm512_shuffle_f64x2(t[0], t[1], ODD);
    hs_vd tl23 = _mm512_shuffle_f64x2(t[2], t[3], EVEN), th23 = _mm512_shuffle_f64x2(t[2], t[3], ODD);
    hs_vd ul01 = _mm512_shuffle_f64x2(u[0], u[1], EVEN), uh01 = _mm512_shuffle_f64x2(u[0], u[1], ODD);
    hs_vd ul23 = _mm512_shuffle_f64x2(u[2], u[3], EVEN), uh23 = _mm512_shuffle_f64x2(u[2], u[3], ODD);
    v[0] = _mm512_shuffle_f64x2(tl01, tl23, EVEN), v[4] = _mm512_shuffle_f64x2(tl01, tl23, ODD);
    v[2] = _mm512_shuffle_f64x2(th01, th23, EVEN), v[6] = _mm512_shuffle_f64x2(th01, th23, ODD);
    v[1] = _mm512_shuffle_f64x2(ul01, ul23, EVEN), v[5] = _mm512_shuffle_f64x2(ul01, ul23, ODD);
    v[3] = _mm512_shuffle_f64x2(uh01, uh23, EVEN), v[7] = _mm512_shuffle_f64x2(uh01, uh23, ODD);
}

/* Lane integers for index arithmetic (vec.h lists them; the deferred drawdown, mtm_defer.h). */
#define HS_HAVE_VI_LANES 1
/* 1/a within a relative HS_VD_RECIP_ERR, for a in [2^-100, 2^100] (a bound, never a value: mtm_defer.h):
 * vrcp14pd's documented error, under 2^-14. */
#define HS_VD_RECIP_ERR 0x1p-14
static inline hs_vd vd_recip_approx(hs_vd a) { return _mm512_rcp14_pd(a); }
/* HS_VN floats widened to doubles (exact). */
static inline hs_vd vd_load_f32(const float *p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
static inline void vi_storeu(int64_t *p, hs_vi v) { _mm512_storeu_si512((void *)p, v); }
static inline hs_vi vi_and(hs_vi a, hs_vi b) { return _mm512_and_si512(a, b); }
static inline hs_vmask vi_cmpgt_mask(hs_vi a, hs_vi b) { return _mm512_cmpgt_epi64_mask(a, b); }
static inline unsigned vm_bits(hs_vmask m) { return m; }

/* Lane bits (bit k = lane k): sign bits, and |v| > t (false for NaN). */
static inline unsigned vd_signbits(hs_vd v) { return (unsigned)_mm512_movepi64_mask(_mm512_castpd_si512(v)); }
static inline unsigned vd_absgt_bits(hs_vd v, hs_vd t) {
    return (unsigned)_mm512_cmp_pd_mask(_mm512_abs_pd(v), t, _CMP_GT_OQ);
}
#include "vec_bytes_avx2.h" /* vb_lane_bits64 */
