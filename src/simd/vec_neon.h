/* NEON (AArch64 Advanced SIMD): two doubles.  The study's "NEON-vectorised WMA" is this form. */
#if !(defined(__ARM_NEON))
#error "vec_neon.h: compiled without neon's flags (isa.def); include vec.h in a translation unit CMake builds for neon"
#endif
#include <arm_neon.h>
#define HS_VN 2
typedef float64x2_t hs_vd;
typedef uint64x2_t hs_vmask;
static inline hs_vd vd_loadu(const double *p) { return vld1q_f64(p); }
static inline void vd_storeu(double *p, hs_vd v) { vst1q_f64(p, v); }
static inline hs_vd vd_set1(double x) { return vdupq_n_f64(x); }
static inline hs_vd vd_zero(void) { return vdupq_n_f64(0.0); }
static inline hs_vd vd_add(hs_vd a, hs_vd b) { return vaddq_f64(a, b); }
static inline hs_vd vd_sub(hs_vd a, hs_vd b) { return vsubq_f64(a, b); }
static inline hs_vd vd_mul(hs_vd a, hs_vd b) { return vmulq_f64(a, b); }
static inline hs_vd vd_abs(hs_vd a) { return vabsq_f64(a); }
static inline hs_vd vd_max(hs_vd a, hs_vd b) { return vmaxq_f64(a, b); } /* not for NaN */
static inline hs_vd vd_min(hs_vd a, hs_vd b) { return vminq_f64(a, b); } /* not for NaN */
static inline hs_vd vd_div(hs_vd a, hs_vd b) { return vdivq_f64(a, b); }
#define HS_VD_FMA_FUSED 1 /* vd_fma is one instruction */
static inline hs_vd vd_fma(hs_vd a, hs_vd b, hs_vd c) { return vfmaq_f64(c, a, b); }
static inline double vd_hsum(hs_vd v) { return vaddvq_f64(v); }
static inline hs_vmask vd_cmpgt_mask(hs_vd a, hs_vd b) { return vcgtq_f64(a, b); }
static inline hs_vd vd_blend(hs_vmask m, hs_vd f, hs_vd t) { return vbslq_f64(m, t, f); }

/* Index vectors (one int64 per double lane) and the gather, for kernels that read a different offset in
 * each lane. */
#include <stdint.h>
typedef int64x2_t hs_vi;
static inline hs_vi vi_set1(int64_t x) { return vdupq_n_s64(x); }
static inline hs_vi vi_add(hs_vi a, hs_vi b) { return vaddq_s64(a, b); }
static inline hs_vi vi_loadu(const int64_t *p) { return vld1q_s64(p); }
static inline void vi_storeu(int64_t *p, hs_vi v) { vst1q_s64(p, v); }
/* NEON has no gather: two lane loads. */
static inline hs_vd vd_gather(const double *base, hs_vi idx) {
    hs_vd v = vdupq_n_f64(base[vgetq_lane_s64(idx, 0)]);
    return vsetq_lane_f64(base[vgetq_lane_s64(idx, 1)], v, 1);
}
static inline void vd_transpose(hs_vd *v) {
    hs_vd a = vzip1q_f64(v[0], v[1]), b = vzip2q_f64(v[0], v[1]);
    v[0] = a, v[1] = b;
}

/* Lane bits (bit k = lane k): sign bits, and |v| > t (false for NaN). */
static inline unsigned vd_signbits(hs_vd v) {
    uint64x2_t s = vshrq_n_u64(vreinterpretq_u64_f64(v), 63);
    return (unsigned)(vgetq_lane_u64(s, 0) | vgetq_lane_u64(s, 1) << 1);
}
static inline unsigned vd_absgt_bits(hs_vd v, hs_vd t) {
    uint64x2_t m = vcagtq_f64(v, t); /* |v| > |t|, false for NaN */
    return (unsigned)((vgetq_lane_u64(m, 0) & 1) | (vgetq_lane_u64(m, 1) & 1) << 1);
}
