/* naive — the line-for-line port of the numba kernel with every array access bounds-checked the way
 * Rust's safe indexing is (`x[i]` panics when i >= len), and buffers allocated per call (vec!/np.full).
 * Tier 0: the reference operation order.  This is the study's "rust_batch_unix" in C. */
#include <stdlib.h>

#include "port_alloc.h"
#include "port_checked.h"

#define PORT_KERNEL naive
#define PORT_AT(s, i) ((s).p[hs_port_checked((i), (s).len)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#include "port.h"
