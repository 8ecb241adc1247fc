#ifndef HS_WIRE_H
#define HS_WIRE_H
#include "hmasweep.h"

/* Serve request frames from stdin until EOF, replies to stdout (docs/protocol.md).  Returns 0, or 1 with
 * err set when any frame got an error reply (each is also named on stderr) or the stream was empty. */
int hs_wire_serve(const hs_sweep_options *opt, hs_error *err);
#endif
