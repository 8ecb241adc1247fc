/* naive — the line-for-line port of the numba kernel with every array access bounds-checked the way
 * Rust's safe indexing is (`x[i]` panics when i >= len), and buffers allocated per call (vec!/np.full).
 * Tier 0: the reference operation order.  This is the study's "rust_batch_unix" in C. */
#include <stdio.h>
#include <stdlib.h>

#include "port_alloc.h"

/* Out of line and cold, like Rust's panic_bounds_check: the hot path keeps one compare and branch. */
__attribute__((noinline, cold, noreturn)) static void naive_index_panic(int64_t i, int64_t len) {
    fprintf(stderr, "hmasweep: index out of bounds: the len is %lld but the index is %lld\n", (long long)len,
            (long long)i);
    abort();
}

/* Unsigned compare catches negative indices too, as Rust's usize does. */
static inline int64_t naive_checked(int64_t i, int64_t len) {
    if (__builtin_expect((uint64_t)i >= (uint64_t)len, 0)) naive_index_panic(i, len);
    return i;
}

#define PORT_KERNEL naive
#define PORT_AT(s, i) ((s).p[naive_checked((i), (s).len)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#include "port.h"
