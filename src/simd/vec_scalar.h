/* Scalar "vectors" of one lane: the portable fallback and the check that kernels written against the
 * vocabulary are right before any intrinsic is involved. */
#include <math.h>
#define HS_VN 1
typedef double hs_vd;
typedef int hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return *p; }
static inline void vd_storeu(double *p, hs_vd v) { *p = v; }
static inline hs_vd vd_set1(double x) { return x; }
static inline hs_vd vd_zero(void) { return 0.0; }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return a + b; }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return a - b; }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return a * b; }
static inline hs_vd vd_abs(hs_vd a) { return fabs(a); }
static inline hs_vd vd_max(hs_vd a, hs_vd b) { return a > b ? a : b; } /* not for NaN */
static inline hs_vd vd_min(hs_vd a, hs_vd b) { return a < b ? a : b; } /* not for NaN */
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return a / b; }
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) { return fma(a, b, c); }
static inline double vd_hsum(hs_vd v) { return v; }
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return a > b; }
static inline hs_vd vd_blend(hs_vmask m, hs_vd if_false, hs_vd if_true) { return m ? if_true : if_false; }

/* Index vectors (one int64 per double lane) and the gather, for kernels that read a different offset in
 * each lane. */
#include <stdint.h>
typedef int64_t hs_vi;
static inline hs_vi vi_set1(int64_t x) { return x; }
static inline hs_vi vi_add(hs_vi a, hs_vi b) { return a + b; }
static inline hs_vi vi_loadu(const int64_t *p) { return *p; }
static inline hs_vd vd_gather(const double *base, hs_vi idx) { return base[idx]; }
static inline void vd_transpose(hs_vd *v) { (void)v; }
static inline void vi_storeu(int64_t *p, hs_vi v) { *p = v; }

/* Lane bits (bit k = lane k): sign bits, and |v| > t (false for NaN). */
static inline unsigned vd_signbits(hs_vd v) { return signbit(v) ? 1u : 0u; }
static inline unsigned vd_absgt_bits(hs_vd v, hs_vd t) { return fabs(v) > t ? 1u : 0u; }
