/* Rust-style checked indexing for the port (naive and its experiment twins): an index outside [0, len)
 * aborts with Rust's panic message.  The panic is out of line and cold, like Rust's panic_bounds_check,
 * so the hot path keeps one compare and one branch. */
#ifndef HS_PORT_CHECKED_H
#define HS_PORT_CHECKED_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, cold, noreturn)) static void hs_port_index_panic(int64_t i, int64_t len) {
    fprintf(stderr, "hmasweep: index out of bounds: the len is %lld but the index is %lld\n", (long long)len,
            (long long)i);
    abort();
}

/* Unsigned compare catches negative indices too, as Rust's usize does. */
static inline int64_t hs_port_checked(int64_t i, int64_t len) {
    if (__builtin_expect((uint64_t)i >= (uint64_t)len, 0)) hs_port_index_panic(i, len);
    return i;
}
#endif
