/* exp for the close series (docs/spec.md §1): SLEEF's 1-ulp FMA exp, Sleef_expd1_u10purecfma, from libsleef
 * (cmake/sleef.cmake links it: Debian libsleef-dev, Homebrew sleef).  This replaces the hand transcription
 * of SLEEF's xexp that lived in kernels/sleef_exp.c.
 *
 * docs/spec.md §1 defines close = start * exp(c) with exactly this exp, so that the canonical series has the same
 * bytes on every machine (the C library's exp differs in the last bit for ~5% of the inputs).  The check:
 * tests/test_sleef_exp.c (146 rows of libsleef 3.5.1's answers, made before the library was linked) and
 * the series SHA-256 in test_rng.
 *
 * libsleef's purecfma code is built with FMA instructions (vfmadd in Debian's libsleef.so.3), so on an x86
 * CPU without FMA it would die of SIGILL: hs_make_close refuses with a message there, and hs_exp_u10
 * returns NaN. */
#include <math.h>

#include "error.h"
#include "exp.h"

int hs_exp_available(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("fma");
#else
    return 1; /* aarch64: FMA is in the base ISA */
#endif
}

hs_status hs_exp_check(hs_error *err) {
    if (hs_exp_available()) return HS_OK;
    return hs_fail(err, HS_ERR_ISA, "this CPU has no FMA, which SLEEF's exp (Sleef_expd1_u10purecfma) needs");
}

double hs_exp_u10(double x) { return hs_exp_available() ? Sleef_expd1_u10purecfma(x) : NAN; }
