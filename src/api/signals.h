/* The trades' entry bars of many combos at once, for hmasweep.signals (src/api/signals.c). */
#ifndef HS_SIGNALS_H
#define HS_SIGNALS_H
#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

/* out[c * n_bars + i] = +1 where combo c enters a long position at bar i (d turns positive against the last
 * non-zero d, docs/spec.md §4), -1 where it enters a short one, 0 elsewhere: exactly the entries of the
 * sweep's trades (the reference's signs: the certified `sliding` kernel's d, read by the books' own loop).
 * threads as hs_sweep_options.threads (0: the library's choice).  Bad input is HS_ERR_USAGE/HS_ERR_DATA
 * naming it, as hs_sweep. */
hs_status hs_signals_entries(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                             int8_t *out, int threads, hs_error *err);
#endif
