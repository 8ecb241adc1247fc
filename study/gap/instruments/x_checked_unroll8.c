/* x_checked_unroll8 — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `naive` (every
 * index checked like Rust's safe indexing) with the inner WMA loop unrolled 8 times, to separate what a
 * bounds check costs itself from the unrolling it keeps the compiler from doing.  Tier 0. */
#include <stdlib.h>

#include "port_alloc.h"
#include "port_checked.h"

#define PORT_KERNEL x_checked_unroll8
#define PORT_AT(s, i) ((s).p[hs_port_checked((i), (s).len)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_INNER_PRAGMA _Pragma("GCC unroll 8")
#include "port.h"
