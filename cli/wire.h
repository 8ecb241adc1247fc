#ifndef HS_WIRE_H
#define HS_WIRE_H
#include <stdio.h>

#include "hmasweep.h"

/* Serve request frames from `in` until EOF, replies to `out` (SPEC §6).  Returns 0, or 1 with err set:
 * a truncated or inconsistent frame, an unknown opcode, bad prices or windows. */
int hs_wire_serve(FILE *in, FILE *out, const hs_sweep_options *opt, hs_error *err);
#endif
