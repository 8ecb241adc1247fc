/* Per-call allocation for the port, as numba (np.full / np.empty) and Rust (vec!) do it.  An allocation
 * failure aborts with a message, as Rust's global allocator does; the sweep API's size checks make it
 * unreachable for series that fit in memory once. */
#ifndef HS_PORT_ALLOC_H
#define HS_PORT_ALLOC_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline double *hs_port_alloc(int64_t n) {
    double *p = malloc((size_t)n * sizeof(double));
    if (!p) {
        fprintf(stderr, "hmasweep: memory allocation of %lld bytes failed\n", (long long)n * 8);
        abort();
    }
    return p;
}
#endif
