/* SSE2: two doubles (x86-64 baseline).  No FMA in SSE2: vd_fma is the correctly rounded libm fma per lane
 * (slow; no tier-0 kernel uses it). */
#if !(defined(__SSE2__))
#error "vec_sse2.h: compiled without sse2's flags (isa.def); include vec.h in a translation unit CMake builds for sse2"
#endif
#include <emmintrin.h>
#include <math.h>
#define HS_VN 2
typedef __m128d hs_vd;
typedef __m128d hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return _mm_loadu_pd(p); }
static inline void vd_storeu(double *p, hs_vd v) { _mm_storeu_pd(p, v); }
static inline hs_vd vd_set1(double x) { return _mm_set1_pd(x); }
static inline hs_vd vd_zero(void) { return _mm_setzero_pd(); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return _mm_add_pd(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return _mm_sub_pd(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return _mm_mul_pd(a, b); }
static inline hs_vd vd_abs(hs_vd a) { return _mm_andnot_pd(_mm_set1_pd(-0.0), a); }
static inline hs_vd vd_max(hs_vd a, hs_vd b) { return _mm_max_pd(a, b); } /* not for NaN */
static inline hs_vd vd_min(hs_vd a, hs_vd b) { return _mm_min_pd(a, b); } /* not for NaN */
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return _mm_div_pd(a, b); }
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) {
    double x[2], y[2], z[2];
    _mm_storeu_pd(x, a), _mm_storeu_pd(y, b), _mm_storeu_pd(z, c);
    return _mm_set_pd(fma(x[1], y[1], z[1]), fma(x[0], y[0], z[0]));
}
static inline double vd_hsum(hs_vd v) { return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v))); }
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return _mm_cmpgt_pd(a, b); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return _mm_or_pd(_mm_and_pd(m, t), _mm_andnot_pd(m, f)); }

/* Index vectors (one int64 per double lane) and the gather, for kernels that read a different offset in
 * each lane. */
#include <stdint.h>
typedef __m128i hs_vi;
static inline hs_vi vi_set1(int64_t x) { return _mm_set1_epi64x(x); }
static inline hs_vi vi_add(hs_vi a, hs_vi b) { return _mm_add_epi64(a, b); }
static inline hs_vi vi_loadu(const int64_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline void vi_storeu(int64_t *p, hs_vi v) { _mm_storeu_si128((__m128i *)p, v); }
/* SSE2 has no gather: two scalar loads. */
static inline hs_vd vd_gather(const double *base, hs_vi idx) {
    int64_t i[2];
    _mm_storeu_si128((__m128i *)i, idx);
    return _mm_set_pd(base[i[1]], base[i[0]]);
}
static inline void vd_transpose(hs_vd *v) {
    hs_vd a = _mm_unpacklo_pd(v[0], v[1]), b = _mm_unpackhi_pd(v[0], v[1]);
    v[0] = a, v[1] = b;
}

/* Lane bits (bit k = lane k): sign bits, and |v| > t (false for NaN). */
static inline unsigned vd_signbits(hs_vd v) { return (unsigned)_mm_movemask_pd(v); }
static inline unsigned vd_absgt_bits(hs_vd v, hs_vd t) {
    return (unsigned)_mm_movemask_pd(_mm_cmpgt_pd(_mm_andnot_pd(_mm_set1_pd(-0.0), v), t));
}
/* vb_lane_bits64 (src/simd/vec.h) by byte shift and movemask, 16 bytes at a time (see vec_bytes_avx2.h). */
#define HS_HAVE_VB_LANE_BITS64 1
static inline uint64_t vb_lane_bits64(const unsigned char *bytes, int lane) {
    const __m128i by = _mm_cvtsi32_si128(7 - lane);
    uint64_t word = 0;
    for (int q = 0; q < 4; q++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(bytes + 16 * q));
        word |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_sll_epi64(x, by)) << (16 * q);
    }
    return word;
}
