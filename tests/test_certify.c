/* The sign certification of the running-sum kernels (src/variants/certify.h), at the unit level.
 *
 * An approximate d that overflowed to ±inf says nothing about the sign of the tier-0 d of that bar (the
 * error bound holds only for finite values), so it must be recomputed like any ambiguous bar (issue 10,
 * defect 1's companion).  The expected books here come from the tier-0 d of every bar, computed by the
 * building blocks directly (hma3_tier0_at − hma_tier0_at), not from the kernel under test. */
#include <float.h>
#include <stdlib.h>

#include "certify.h"
#include "check.h"

int main(void) {
    enum { N = 300 };
    double *close = malloc(3 * N * sizeof *close), *exact = close + N, *approx = close + 2 * N;
    hs_make_close(5, N, HS_DEFAULT_VOL * 4, HS_DEFAULT_START, close, NULL);
    const int64_t w[6] = {3, 6, 2, 9, 2, 3}; /* not derived from L: w3 > w4 > w5 */
    hs_first_bars f = hs_first_bars_of(w);
    CHECK_EQ_I(f.raw, 5);
    CHECK_EQ_I(f.raw3, 8);
    CHECK_EQ_I(f.start, 10); /* raw3 + w5 − 1 = 10 > raw + w2 − 1 = 6 */
    for (size_t i = f.start; i < N; i++) exact[i] = hma3_tier0_at(close, i, w) - hma_tier0_at(close, i, w);
    hs_result want = hs_books_over(exact, close, f.start, N, hs_keep(HS_DEFAULT_FEE)).r;
    CHECK(want.trades > 10, "the test series should trade (%lld trades)", (long long)want.trades);

    /* Every bar where the exact d is negative gets an approximate d of +inf (or -inf where positive):
     * trusting those infinities flips every sign; certifying them must give the exact books. */
    volatile size_t bars = N; /* a run-time length: GCC 12 misreads max_price's tail loop at a constant one */
    double tau = certify_threshold(close, bars, w);
    for (size_t i = f.start; i < N; i++) approx[i] = (i % 3 == 0) ? (exact[i] < 0 ? INFINITY : -INFINITY) : exact[i];
    hs_result got = certified_books(approx, close, f.start, N, hs_keep(HS_DEFAULT_FEE), tau, w).r;
    CHECK_EQ_I(got.trades, want.trades);
    CHECK_BITS(got.pnl, want.pnl);

    CHECK(!certify_sure(INFINITY, 1.0), "+inf is not a certain sign");
    CHECK(!certify_sure(-INFINITY, 1.0), "-inf is not a certain sign");
    CHECK(!certify_sure(NAN, 1.0), "NaN is not a certain sign");
    CHECK(!certify_sure(0.5, 1.0), "|d| below tau is not certain");
    CHECK(certify_sure(-DBL_MAX, 1.0), "a finite d beyond tau is certain");
    free(close);
    return hs_check_summary("test_certify");
}
