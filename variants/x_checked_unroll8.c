/* x_checked_unroll8 — experiment instrument (prof/gap, reports/gap.md), not a kernel to use: `naive` (every
 * index checked like Rust's safe indexing) with the inner WMA loop unrolled 8 times, to separate what a
 * bounds check costs itself from the unrolling it keeps the compiler from doing.  Tier 0. */
#include <stdio.h>
#include <stdlib.h>

#include "port_alloc.h"

__attribute__((noinline, cold, noreturn)) static void x_checked_panic(int64_t i, int64_t len) {
    fprintf(stderr, "hmasweep: index out of bounds: the len is %lld but the index is %lld\n", (long long)len,
            (long long)i);
    abort();
}

static inline int64_t x_checked(int64_t i, int64_t len) {
    if (__builtin_expect((uint64_t)i >= (uint64_t)len, 0)) x_checked_panic(i, len);
    return i;
}

#define PORT_KERNEL x_checked_unroll8
#define PORT_AT(s, i) ((s).p[x_checked((i), (s).len)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_INNER_PRAGMA _Pragma("GCC unroll 8")
#include "port.h"
