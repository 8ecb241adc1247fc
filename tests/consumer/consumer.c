/* A program of another project that uses an installed hmasweep: only <hmasweep.h> and the library.
 * It sweeps the study's default series for L = 6 and 200, logs combo 0's trades and checks the study's
 * fingerprint (57,029 trades, -5165.58).  Exit 0 when all agree. */
#include <hmasweep.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    size_t n = HS_DEFAULT_BARS;
    double *close = malloc(n * sizeof *close);
    hs_windows w[2];
    hs_result r[2];
    hs_error err;
    if (!close || hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, &err) != HS_OK ||
        hs_windows_from_length(6, &w[0], &err) != HS_OK || hs_windows_from_length(200, &w[1], &err) != HS_OK) {
        fprintf(stderr, "consumer: %s\n", close ? err.msg : "out of memory");
        return 1;
    }
    hs_sweep_options opt = {.variant = "sliding", .isa = NULL, .threads = 0};
    if (hs_sweep(close, n, w, 2, r, &opt, &err) != HS_OK) {
        fprintf(stderr, "consumer: hs_sweep: %s\n", err.msg);
        return 1;
    }
    size_t trades = 0;
    if (hs_trade_log_opt(close, n, &w[0], NULL, 0, &trades, NULL, &err) != HS_OK) {
        fprintf(stderr, "consumer: hs_trade_log_opt: %s\n", err.msg);
        return 1;
    }
    printf("consumer: L=6 %lld trades, PnL %.9f; L=200 %lld trades; log %zu trades\n", (long long)r[0].trades, r[0].pnl,
           (long long)r[1].trades, trades);
    int ok = r[0].trades == HS_STUDY_TRADES && r[0].pnl == HS_STUDY_PNL && trades == HS_STUDY_TRADES && r[1].trades > 0;
    puts(ok ? "consumer: fingerprint MATCH" : "consumer: fingerprint MISMATCH");
    free(close);
    return ok ? 0 : 1;
}
