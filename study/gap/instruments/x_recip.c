/* x_recip — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `unchecked` with the WMA
 * scaled by a multiply with 1/denom (computed once per WMA call) instead of a division per output.
 * s * (1/d) is not always s / d in the last bit, and where d is at rounding level (real quotes: flat
 * stretches, few decimals) that flipped signs and trades (the gate's quote-like series: 26 failed checks
 * uncertified).  So its signs are certified (port.h
 * PORT_CERTIFY_EPS, bound eps_recip): tier 0.  The certification is one compare per bar, next to the
 * division it replaces, so the instrument still measures what the division costs.  Both peers divide. */
#include <stdlib.h>

#include "port_alloc.h"

#define PORT_KERNEL x_recip
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_DIVIDE(s, denom) ((s) * (1.0 / (denom)))
#define PORT_CERTIFY_EPS eps_recip
#include "port.h"
