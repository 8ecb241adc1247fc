/* SLEEF's exp as the series uses it (src/data/exp.c). */
#ifndef HS_EXP_H
#define HS_EXP_H
#include "hmasweep.h"

/* Sleef_expd1_u10purecfma, from libsleef (sleef.h declares it only for FMA-targeted compiles). */
double Sleef_expd1_u10purecfma(double);

/* Can this CPU run libsleef's purecfma code?  (x86 needs FMA; aarch64 always can.) */
int hs_exp_available(void);
/* HS_ERR_ISA with a message when it cannot. */
hs_status hs_exp_check(hs_error *err);
#endif
