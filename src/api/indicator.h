/* The indicators as arrays (hs_wma, hs_hma, hs_hma3, hs_signal; docs/library.md "Indicators"): one shared
 * runner over the reference kernel's own WMA and HMA functions (src/api/indicator.c), so a series served
 * here is the very array the reference variant walks, bit for bit. */
#ifndef HS_INDICATOR_H
#define HS_INDICATOR_H

#include "hmasweep.h"

typedef enum { HS_INDICATOR_WMA, HS_INDICATOR_HMA, HS_INDICATOR_HMA3, HS_INDICATOR_SIGNAL } hs_indicator;

/* Validate, then fill out[0..n) with the indicator named by `kind` over x[0..n): the windows it reads are
 * win->w[0] for WMA, w[0..2] for HMA, w[3..5] for HMA3 and all six for the signal (the others ignored).
 * `fn` starts every message (the public function's name); `names` names the windows it reads, in order. */
hs_status hs_indicator_run(const char *fn, const char *const *names, hs_indicator kind, const double *x, size_t n,
                           const hs_windows *win, double *out, hs_error *err);

/* The look-back of an indicator: how many leading outputs are NaN (src/spec/tier0.h hs_first_bars_of, the
 * one rule every variant starts from), or -1 when a window it reads is below 1. */
int64_t hs_indicator_lookback(hs_indicator kind, const hs_windows *win);

#endif
