/* SLEEF's 1-ulp double exp in its FMA flavour (Sleef_expd1_u10purecfma, SLEEF 3.x), bit for bit.
 *
 * SPEC §1 defines close = start * exp(c) with exactly this exp, so that the canonical series has the same
 * bytes on every machine; the C library's exp differs in the last bit for ~5% of the inputs.  This is a
 * transcription of xexp() in SLEEF's src/libm/sleefsimddp.c as compiled for the "purecfma" scalar target
 * (src/arch/helperpurec_scalar.h with CONFIG 2): every vmla/vfma is a real fused multiply-add (fma() from
 * math.h, so the result does not depend on -ffp-contract or on the CPU having an FMA unit), the
 * polynomial is evaluated by Estrin's scheme (src/libm/estrin.h, POLY10), d/ln2 is rounded to the
 * nearest integer with ties to even, and the scaling by 2^q is split in two (vldexp2) so that results near
 * the overflow and underflow limits come out right.
 *
 * Verification (against the installed libsleef-dev 3.5.1, Sleef_expd1_u10purecfma, -lsleef): bits equal
 * for all 150,000 inputs c[i] of the default series (seed 42, vol 0.0008), for 4,000,000 uniform random
 * inputs in [-20, 20], 2,000,000 in [-745, 710], 1,000,000 random bit patterns, the values next to every
 * rounding tie of d/ln2 = k + 1/2 for k in [-1100, 1100], and the edge cases in tests/test_sleef_exp.c
 * (+-0, subnormals, +-1e-300, the overflow threshold 709.78271114955742909217217426 and its neighbours,
 * -745.13, -1000 and its neighbours, +-1e300, +-inf; NaN gives NaN).  The comparison was a throwaway
 * program that called both functions on each input and compared the result bits (NaN against NaN by
 * isnan), built as  gcc -std=c11 -O2 -ffp-contract=off ... kernels/sleef_exp.c -lsleef -lm  and again
 * with -O0, with -O3 -march=native and with -fsanitize=address,undefined: 0 mismatches in every build.
 * tests/test_sleef_exp.c keeps a 146-row table of libsleef's answers (and the program that made it), so
 * the check runs without libsleef.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hmasweep.h"

/* SLEEF's misc.h: ln2 split into a high part with trailing zero bits (so u * L2U is exact for the q of
 * interest) and a low part; R_LN2 = 1/ln2. */
#define SLEEF_R_LN2 1.442695040888963407359924681001892137426645954152985934135449406931
#define SLEEF_L2U .69314718055966295651160180568695068359375
#define SLEEF_L2L .28235290563031577122588448175013436025525412068e-12

/* Beyond these the result is +inf / +0 by selection, not by computation. */
#define SLEEF_EXP_OVERFLOW 709.78271114955742909217217426
#define SLEEF_EXP_UNDERFLOW (-1000.0)

/* vrint_vi_vd of SLEEF 3.5's helperpurec_scalar.h: round to nearest, ties to even (RINT, or the
 * "add 0.5, truncate, step back one ulp when odd" trick where FULL_FP_ROUNDING is off).  The two differ
 * only for d*R_LN2 = +-(0.5 + 2^-53), and for those inputs q = 0 and q = +-1 give the same exp bits
 * (checked against libsleef), so rint is exact here.  The caller clamps d: the int conversion would be
 * undefined for |d| >= 2^31, and for such d the result is replaced anyway. */
static int32_t sleef_rint_to_int(double d) {
    return (int32_t)rint(d);
}

/* vpow2i_vd_vi: 2^q built directly in the exponent field. */
static double sleef_pow2i(int32_t q) {
    uint64_t bits = (uint64_t)(uint32_t)(q + 0x3ff) << 52;
    double result;
    memcpy(&result, &bits, sizeof result);
    return result;
}

/* vldexp2_vd_vd_vi: d * 2^(q/2) * 2^(q - q/2), so neither factor overflows or underflows on its own. */
static double sleef_ldexp2(double d, int32_t q) {
    return d * sleef_pow2i(q >> 1) * sleef_pow2i(q - (q >> 1));
}

/* Estrin's POLY2/POLY4/POLY8/POLY10 of estrin.h with MLA = fma. */
static double sleef_exp_poly(double s) {
    double s2 = s * s, s4 = s2 * s2, s8 = s4 * s4;
    double p98 = fma(s, +0.2081276378237164457e-8, +0.2511210703042288022e-7);
    double p76 = fma(s, +0.2755762628169491192e-6, +0.2755723402025388239e-5);
    double p54 = fma(s, +0.2480158687479686264e-4, +0.1984126989855865850e-3);
    double p32 = fma(s, +0.1388888888914497797e-2, +0.8333333333314938210e-2);
    double p10 = fma(s, +0.4166666666666602598e-1, +0.1666666666666669072e+0);
    double p7654 = fma(s2, p76, p54);
    double p3210 = fma(s2, p32, p10);
    double p70 = fma(s4, p7654, p3210);
    return fma(s8, p98, p70);
}

double hs_exp_u10(double d) {
    /* Clamping keeps the int conversion defined; it changes nothing for |d| <= 1e9, every d outside
     * [-1000, 709.78...] is replaced below, and a NaN d makes s (hence the result) NaN whatever q is. */
    double clamped = isnan(d) ? 0.0 : (d > 1e9 ? 1e9 : (d < -1e9 ? -1e9 : d));
    int32_t q = sleef_rint_to_int(clamped * SLEEF_R_LN2);
    double u = (double)q;

    double s = fma(u, -SLEEF_L2U, d);
    s = fma(u, -SLEEF_L2L, s);

    u = sleef_exp_poly(s);
    u = fma(u, s, +0.5);
    u = fma(u, s, +1.0);
    u = fma(u, s, +1.0);

    u = sleef_ldexp2(u, q);

    if (d > SLEEF_EXP_OVERFLOW)
        u = INFINITY;
    if (d < SLEEF_EXP_UNDERFLOW)
        u = 0.0; /* SLEEF clears every bit: +0 */
    return u;
}
