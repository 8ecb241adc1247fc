/* x_unroll8 — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `unchecked` with the
 * inner WMA loop unrolled 8 times (`#pragma GCC unroll 8`, honoured by gcc and clang), the loop shape
 * numba's LLVM gives it on x86.  Same operations in the same order: tier 0. */
#include <stdlib.h>

#include "port_alloc.h"

#define PORT_KERNEL x_unroll8
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_INNER_PRAGMA _Pragma("GCC unroll 8")
#include "port.h"
