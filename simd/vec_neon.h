/* NEON (AArch64 Advanced SIMD): two doubles.  The study's "NEON-vectorised WMA" is this form. */
#include <arm_neon.h>
#define HS_VN 2
#define HS_ISA_LABEL "neon"
typedef float64x2_t hs_vd;
typedef uint64x2_t hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return vld1q_f64(p); }
static inline void vd_storeu(double *p, hs_vd v) { vst1q_f64(p, v); }
static inline hs_vd vd_set1(double x) { return vdupq_n_f64(x); }
static inline hs_vd vd_zero(void) { return vdupq_n_f64(0.0); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return vaddq_f64(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return vsubq_f64(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return vmulq_f64(a, b); }
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return vdivq_f64(a, b); }
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) { return vfmaq_f64(c, a, b); }
static inline double vd_hsum(hs_vd v) { return vaddvq_f64(v); }
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return vcgtq_f64(a, b); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return vbslq_f64(m, t, f); }
