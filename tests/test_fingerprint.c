/* The study's fingerprint and the spec's per-combo values (docs/spec.md §5), from the reference variant on the
 * canonical series.  Sources: the article publishes combo 0 = 57,029 trades / −5165.58; docs/spec.md §5 gives
 * the full-precision combo 0–2 values and the 473,381 total, which the independent numba peer also
 * reproduces (peers/numba). */
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"

int main(void) {
    double *close = malloc(HS_DEFAULT_BARS * sizeof *close);
    int64_t lengths[HS_DEFAULT_GRID_COUNT];
    hs_windows w[HS_DEFAULT_GRID_COUNT];
    hs_result r[HS_DEFAULT_GRID_COUNT];
    hs_error err;
    CHECK(hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) == HS_OK,
          "%s", err.msg);
    CHECK(hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, lengths, &err) == HS_OK, "%s", err.msg);

    /* docs/spec.md §2: the grid's first and last lengths, and combo 0's windows. */
    const int64_t first[] = {6, 8, 10, 13, 15, 18, 20, 23, 25, 28};
    for (int i = 0; i < 10; i++) CHECK_EQ_I(lengths[i], first[i]);
    CHECK_EQ_I(lengths[77], 195);
    CHECK_EQ_I(lengths[78], 197);
    CHECK_EQ_I(lengths[79], 200);
    for (int i = 0; i < HS_DEFAULT_GRID_COUNT; i++) hs_windows_from_length(lengths[i], &w[i], NULL);
    const int64_t w0[6] = {3, 6, 2, 1, 2, 3};
    for (int k = 0; k < 6; k++) CHECK_EQ_I(w[0].w[k], w0[k]);
    hs_windows w5;
    hs_windows_from_length(5, &w5, NULL);
    const int64_t want5[6] = {2, 5, 2, 1, 1, 2};
    for (int k = 0; k < 6; k++) CHECK_EQ_I(w5.w[k], want5[k]);

    hs_sweep_options opt = {.variant = "unchecked", .isa = "scalar", .threads = 1};
    CHECK(hs_sweep(close, HS_DEFAULT_BARS, w, HS_DEFAULT_GRID_COUNT, r, &opt, &err) == HS_OK, "%s", err.msg);

    CHECK_EQ_I(r[0].trades, 57029);
    CHECK(round(r[0].pnl * 100) == -516558, "combo 0 PnL %.9f does not round to the study's -5165.58", r[0].pnl);
    CHECK_NEAR(r[0].pnl, -5165.579954236, 1e-9);
    /* The public header's statement of the same fact, which the other C checks use, against the article. */
    CHECK_EQ_I(HS_STUDY_TRADES, 57029);
    CHECK(round(HS_STUDY_PNL * 100) == -516558, "HS_STUDY_PNL %.9f does not round to the study's -5165.58", HS_STUDY_PNL);
    CHECK_BITS(r[0].pnl, HS_STUDY_PNL);
    CHECK_EQ_I(r[1].trades, 47104);
    CHECK_NEAR(r[1].pnl, -4243.884286639, 1e-9);
    CHECK_EQ_I(r[2].trades, 31044);
    CHECK_NEAR(r[2].pnl, -2790.034582170, 1e-9);
    long long total = 0;
    for (int i = 0; i < HS_DEFAULT_GRID_COUNT; i++) total += r[i].trades;
    CHECK_EQ_I(total, 473381);
    free(close);
    return hs_check_summary("test_fingerprint");
}
