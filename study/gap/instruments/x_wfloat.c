/* x_wfloat — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `unchecked` with the
 * WMA weight (j + 1) kept as a running f64 counter (w += 1.0) instead of converting the int64 j + 1 to
 * f64 in the inner loop.  Integers below 2^53 are exact in f64, so every product is the same: tier 0.
 * It toggles the one thing the numba and Rust hot loops spend an int->float conversion on. */
#include <stdlib.h>

#include "port_alloc.h"

#define PORT_KERNEL x_wfloat
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_WEIGHT_STATE double port_wj = 0.0
#define PORT_WEIGHT(j) (port_wj += 1.0)
#include "port.h"
