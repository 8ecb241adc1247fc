/* x_wu64 — experiment instrument (study/gap, reports/gap.md), not a kernel to use: `unchecked` with the
 * weight converted the way Rust's `(j + 1) as f64` is when j is a usize whose range the compiler cannot
 * bound (the get_unchecked build): an unsigned 64-bit -> f64 conversion.  The empty asm hides the range
 * (zero instructions), so the compiler must emit its general u64 -> f64 sequence: without AVX-512 LLVM
 * expands it to punpckldq/subpd/unpckhpd/addsd, gcc to a sign test and branch.  Values below 2^53 convert
 * exactly either way: tier 0. */
#include <stdint.h>
#include <stdlib.h>

#include "port_alloc.h"

static inline double x_wu64_weight(int64_t j) {
    uint64_t v = (uint64_t)j + 1;
    __asm__("" : "+r"(v));
    return (double)v;
}

#define PORT_KERNEL x_wu64
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) hs_port_alloc(n)
#define PORT_RELEASE(p) free(p)
#define PORT_WEIGHT(j) x_wu64_weight(j)
#include "port.h"
