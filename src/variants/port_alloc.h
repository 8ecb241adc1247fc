/* Per-call allocation for the port, as numba (np.full / np.empty) and Rust (vec!) do it.  A failed
 * allocation returns NULL: port.h passes it up as a NULL slice and the combo's result as
 * HS_TRADES_NOMEM, which the driver reports as HS_ERR_NOMEM (the library never aborts; issue 10,
 * defect 8: this used to abort() with exit 134, as Rust's global allocator does). */
#ifndef HS_PORT_ALLOC_H
#define HS_PORT_ALLOC_H
#include <stdint.h>
#include <stdlib.h>

static inline double *hs_port_alloc(int64_t n) { return malloc((size_t)n * sizeof(double)); }
#endif
