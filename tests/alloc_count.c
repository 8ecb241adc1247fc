/* How many heap allocations a sweep makes, per variant: shows that `prealloc` (and every variant that
 * takes scratch from the driver) allocates once per thread before the sweep and never inside it, while
 * the study-shaped ports allocate nine arrays per combo.  The rules key on the registry's fields (shape,
 * scratch_buffers, role), not on names.  Linked with -Wl,--wrap=malloc,... so every
 * allocation the library makes passes through the counters below. */
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"
#include "variant.h"

void *__real_malloc(size_t);
void *__real_aligned_alloc(size_t, size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
static long allocations;
/* Failure injection: when fail_at >= 0, allocation number fail_at (counting from when it was set)
 * returns NULL, as a full machine would. */
static long fail_at = -1;
static int fail_now(void) { return fail_at >= 0 && fail_at-- == 0; }
void *__wrap_malloc(size_t n) { allocations++; return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { allocations++; return fail_now() ? NULL : __real_aligned_alloc(a, n); }
void *__wrap_calloc(size_t c, size_t n) { allocations++; return fail_now() ? NULL : __real_calloc(c, n); }
void *__wrap_realloc(void *p, size_t n) { allocations++; return fail_now() ? NULL : __real_realloc(p, n); }

/* Issue 10, defect 8: every variant, with each of its first allocations failing in turn, returns
 * HS_ERR_NOMEM (or succeeds, where the failed one was optional) — never aborts.  The ports used to
 * abort() (exit 134) on a failed per-call allocation. */
static void defect8_port_alloc_nomem(const double *close, size_t n, const hs_windows *w) {
    size_t nv;
    const hs_variant *v = hs_variants(&nv);
    for (size_t k = 0; k < nv; k++)
        for (long at = 0; at < 12; at++) {
            hs_result out[4];
            hs_error err = {{0}};
            fail_at = at;
            hs_status st = hs_run_variant(&v[k], HS_ISA_SCALAR, 1, close, n, w, 4, out, &err);
            fail_at = -1;
            CHECK(st == HS_OK || (st == HS_ERR_NOMEM && strstr(err.msg, "out of memory")),
                  "%s, allocation %ld failing: status %d (%s)", v[k].name, at, (int)st, err.msg);
            if (v[k].scratch_buffers == 0 && v[k].shape != HS_SHAPE_SWEEP && at >= 1 && at < 10)
                CHECK(st == HS_ERR_NOMEM, "%s: allocation %ld inside a combo failed, yet status %d", v[k].name, at,
                      (int)st);
        }
}

static long count_sweep(const hs_variant *v, int threads, const double *close, size_t n, const hs_windows *w,
                        size_t combos) {
    hs_result out[64];
    hs_error err;
    long before = allocations;
    hs_status st = hs_run_variant(v, HS_ISA_SCALAR, threads, close, n, w, combos, out, &err);
    CHECK(st == HS_OK, "%s: %s", v->name, err.msg);
    return allocations - before;
}

int main(void) {
    enum { N = 3000 };
    static double close[N];
    hs_make_close(3, N, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_windows w[64];
    for (int c = 0; c < 64; c++) hs_windows_from_length(6 + 3 * c, &w[c], NULL);

    defect8_port_alloc_nomem(close, N, w);
    size_t nv;
    const hs_variant *v = hs_variants(&nv);
    for (size_t k = 0; k < nv; k++) {
        if (v[k].driver != HS_DRIVER_SERIAL) continue;
        long few = count_sweep(&v[k], 1, close, N, w, 4), many = count_sweep(&v[k], 1, close, N, w, 64);
        printf("%-14s allocations: 4 combos -> %ld, 64 combos -> %ld\n", v[k].name, few, many);
        /* The driver allocates twice per sweep, whatever the number of combos: the run order of the combos
         * and the thread's scratch (when the variant asks for any). */
        long driver = 1 + (v[k].scratch_buffers > 0);
        if (v[k].shape == HS_SHAPE_SWEEP) {
            /* a whole-sweep kernel (segments): one block per sweep, the interleaved series and every
             * thread's rings and masks, whatever the number of combos */
            CHECK(few == 1 && many == 1, "%s (whole-sweep kernel) allocated %ld / %ld times, expected 1", v[k].name,
                  few, many);
        } else if (v[k].scratch_buffers > 0) {
            CHECK(few == driver && many == driver, "%s takes driver scratch but allocated %ld / %ld times", v[k].name,
                  few, many);
        } else if (v[k].role != HS_ROLE_PRODUCTION) {
            /* the port family (reference, ports, gap-study instruments) with no driver scratch: nine arrays
             * per combo, as numba's np.full/np.empty and Rust's vec! do */
            CHECK(few == driver + 4 * 9 && many == driver + 64 * 9,
                  "%s: expected 9 allocations per combo, got %ld / %ld", v[k].name, few, many);
        } else {
            /* a production kernel without scratch allocates nothing per combo */
            CHECK(few == driver && many == driver, "%s allocated %ld / %ld times, expected %ld", v[k].name, few,
                  many, driver);
        }
    }
    return hs_check_summary("alloc_count");
}
