/* The count of bars the certified kernels recomputed in tier-0 order (variant.h): here, beside the kernels
 * that add to it (it was defined in src/api, a layer above them); the profiling tools read it. */
#include <stdatomic.h>

#include "variant.h"

static _Atomic long long recomputed_total;

void hs_kernel_count_recomputed(long long bars) {
    if (bars) atomic_fetch_add_explicit(&recomputed_total, bars, memory_order_relaxed);
}

long long hs_kernel_recomputed_total(void) { return atomic_load_explicit(&recomputed_total, memory_order_relaxed); }
