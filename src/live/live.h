/* Live mode's internal interface for the engine (the public one is include/hmasweep.h). */
#ifndef HS_LIVE_H
#define HS_LIVE_H
#include <stddef.h>

#include "hmasweep.h"

/* The bytes hs_live_open would allocate for these combos (windows as hs_live_open accepts them): what the
 * server charges to its loaded-bytes limits before opening a session. */
size_t hs_live_bytes_for(const hs_windows *combos, size_t n_combos);
#endif
