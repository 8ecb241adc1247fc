/* AVX2 + FMA: four doubles. */
#if !(defined(__AVX2__) && defined(__FMA__))
#error "vec_avx2.h: compiled without avx2's flags (isa.def); include vec.h in a translation unit CMake builds for avx2"
#endif
#include <immintrin.h>
#define HS_VN 4
typedef __m256d hs_vd;
typedef __m256d hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return _mm256_loadu_pd(p); }
static inline void vd_storeu(double *p, hs_vd v) { _mm256_storeu_pd(p, v); }
static inline hs_vd vd_set1(double x) { return _mm256_set1_pd(x); }
static inline hs_vd vd_zero(void) { return _mm256_setzero_pd(); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return _mm256_add_pd(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return _mm256_sub_pd(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return _mm256_mul_pd(a, b); }
static inline hs_vd vd_abs(hs_vd a) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), a); }
static inline hs_vd vd_max(hs_vd a, hs_vd b) { return _mm256_max_pd(a, b); } /* not for NaN */
static inline hs_vd vd_min(hs_vd a, hs_vd b) { return _mm256_min_pd(a, b); } /* not for NaN */
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return _mm256_div_pd(a, b); }
#define HS_VD_FMA_FUSED 1 /* vd_fma is one instruction */
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) { return _mm256_fmadd_pd(a, b, c); }
static inline double vd_hsum(hs_vd v) {
    __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
    __m128d s = _mm_add_pd(lo, hi);
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return _mm256_blendv_pd(f, t, m); }

/* Index vectors (one int64 per double lane) and the gather, for kernels that read a different offset in
 * each lane. */
#include <stdint.h>
typedef __m256i hs_vi;
static inline hs_vi vi_set1(int64_t x) { return _mm256_set1_epi64x(x); }
static inline hs_vi vi_add(hs_vi a, hs_vi b) { return _mm256_add_epi64(a, b); }
static inline hs_vi vi_loadu(const int64_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline hs_vd vd_gather(const double *base, hs_vi idx) { return _mm256_i64gather_pd(base, idx, 8); }
static inline void vd_transpose(hs_vd *v) {
    hs_vd t0 = _mm256_unpacklo_pd(v[0], v[1]), t1 = _mm256_unpackhi_pd(v[0], v[1]);
    hs_vd t2 = _mm256_unpacklo_pd(v[2], v[3]), t3 = _mm256_unpackhi_pd(v[2], v[3]);
    v[0] = _mm256_permute2f128_pd(t0, t2, 0x20), v[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    v[2] = _mm256_permute2f128_pd(t0, t2, 0x31), v[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* Lane integers for index arithmetic (vec.h lists them; the deferred drawdown, mtm_defer.h). */
#define HS_HAVE_VI_LANES 1
/* 1/a within a relative HS_VD_RECIP_ERR, for a in [2^-100, 2^100] (a bound, never a value: mtm_defer.h):
 * rcpps on the float (|error| <= 1.5·2^-12, plus 2^-24 for the float), one Newton step in double
 * (r·(2 − a·r): the error squared, plus the roundings), so under 2^-21. */
#define HS_VD_RECIP_ERR 0x1p-21
static inline hs_vd vd_recip_approx(hs_vd a) {
    hs_vd r = _mm256_cvtps_pd(_mm_rcp_ps(_mm256_cvtpd_ps(a)));
    return _mm256_mul_pd(r, _mm256_sub_pd(_mm256_set1_pd(2.0), _mm256_mul_pd(a, r)));
}
/* HS_VN floats widened to doubles (exact). */
static inline hs_vd vd_load_f32(const float *p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
static inline void vi_storeu(int64_t *p, hs_vi v) { _mm256_storeu_si256((__m256i *)p, v); }
static inline hs_vi vi_and(hs_vi a, hs_vi b) { return _mm256_and_si256(a, b); }
static inline hs_vmask vi_cmpgt_mask(hs_vi a, hs_vi b) { return _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)); }
static inline unsigned vm_bits(hs_vmask m) { return (unsigned)_mm256_movemask_pd(m); }

/* Lane bits (bit k = lane k): sign bits, and |v| > t (false for NaN). */
static inline unsigned vd_signbits(hs_vd v) { return (unsigned)_mm256_movemask_pd(v); }
static inline unsigned vd_absgt_bits(hs_vd v, hs_vd t) {
    return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), v), t, _CMP_GT_OQ));
}
#include "vec_bytes_avx2.h" /* vb_lane_bits64 */
