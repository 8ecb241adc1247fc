/* x_prefixnan — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `prealloc` (nine
 * buffers allocated once per thread) with each WMA output NaN-filled only where the spec needs NaN, the
 * first w - 1 elements, instead of all n as np.full does; everything after is overwritten anyway.
 * Same values: tier 0.  With `unchecked` -> `prealloc` it splits the buffer cost into allocation and fill. */
#define PORT_KERNEL x_prefixnan
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) ((scratch) + (size_t)(slot) * hs_scratch_stride((size_t)(n)))
#define PORT_SCRATCH_DOUBLES(n) ((size_t)PORT_SLOTS * hs_scratch_stride(n))
#define PORT_RELEASE(p) ((void)(p))
#define PORT_NAN_COUNT(n, w) ((w) - 1 < (n) ? (w) - 1 : (n))
#include "port.h"
