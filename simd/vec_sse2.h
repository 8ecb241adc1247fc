/* SSE2: two doubles (x86-64 baseline).  No FMA in SSE2: vd_fma is the correctly rounded libm fma per lane
 * (slow; no tier-0 kernel uses it). */
#include <emmintrin.h>
#include <math.h>
#define HS_VN 2
#define HS_ISA_LABEL "sse2"
typedef __m128d hs_vd;
typedef __m128d hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return _mm_loadu_pd(p); }
static inline void vd_storeu(double *p, hs_vd v) { _mm_storeu_pd(p, v); }
static inline hs_vd vd_set1(double x) { return _mm_set1_pd(x); }
static inline hs_vd vd_zero(void) { return _mm_setzero_pd(); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return _mm_add_pd(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return _mm_sub_pd(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return _mm_mul_pd(a, b); }
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return _mm_div_pd(a, b); }
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) {
    double x[2], y[2], z[2];
    _mm_storeu_pd(x, a), _mm_storeu_pd(y, b), _mm_storeu_pd(z, c);
    return _mm_set_pd(fma(x[1], y[1], z[1]), fma(x[0], y[0], z[0]));
}
static inline double vd_hsum(hs_vd v) { return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v))); }
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return _mm_cmpgt_pd(a, b); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return _mm_or_pd(_mm_and_pd(m, t), _mm_andnot_pd(m, f)); }
