/* unchecked — naive with plain pointer indexing (the study's `get_unchecked` build); still allocates per
 * call.  Tier 0.  The default variant and the reference every other variant is compared with. */
#include <stdlib.h>

#include "port_alloc.h"

#define PORT_KERNEL unchecked
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#include "port.h"
