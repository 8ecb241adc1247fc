/* prealloc — unchecked with its nine buffers allocated once per thread before the sweep (the driver
 * hands them in as `scratch`; PORT_SCRATCH_DOUBLES declares them, the gate checks the registry gives them)
 * and reused for every combo.  The buffers are
 * still NaN-filled each call, as np.full does, so the only change from `unchecked` is the allocator.
 * Tier 0. */
#define PORT_KERNEL prealloc
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) ((scratch) + (size_t)(slot) * hs_scratch_stride((size_t)(n)))
#define PORT_SCRATCH_DOUBLES(n) ((size_t)PORT_SLOTS * hs_scratch_stride(n))
#define PORT_RELEASE(p) ((void)(p))
#include "port.h"
