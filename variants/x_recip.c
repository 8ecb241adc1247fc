/* x_recip — experiment instrument (prof/gap, reports/gap.md), not a kernel to use: `unchecked` with the WMA
 * scaled by a multiply with 1/denom (computed once per WMA call) instead of a division per output.
 * Tier 1: s * (1/d) is not always s / d in the last bit, so bit-identity is not guaranteed (on the gate's
 * data the max |dPnL| is 0).  Both peers divide; this measures what the division costs. */
#include <stdlib.h>

#include "port_alloc.h"

#define PORT_KERNEL x_recip
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_DIVIDE(s, denom) ((s) * (1.0 / (denom)))
#include "port.h"
