/* hs_signals_entries (hmasweep.signals): every combo's entries, against the reference kernel's own trade log
 * (hs_trade_log, the port of `unchecked`) one combo at a time: +1 at each long trade's entry bar, -1 at
 * each short's, 0 elsewhere; the same at 1 and 2 threads (run under ASan/TSan in CI), on the default
 * series and on a flat-stretched one (every d exactly 0 there: the certification's fallback). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"
#include "signals.h"

static void check_against_trade_log(const double *close, size_t n, const int64_t *lengths, size_t m, int threads) {
    hs_windows *w = malloc(m * sizeof *w);
    int8_t *got = malloc(m * n), *want = calloc(m * n, 1);
    hs_trade *t = malloc((n + 1) * sizeof *t);
    hs_error err;
    for (size_t c = 0; c < m; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    CHECK(hs_signals_entries(close, n, w, m, got, threads, &err) == HS_OK, "%s", err.msg);
    for (size_t c = 0; c < m; c++) {
        size_t k = 0;
        CHECK(hs_trade_log(close, n, &w[c], t, n + 1, &k, &err) == HS_OK, "%s", err.msg);
        for (size_t j = 0; j < k; j++) want[c * n + (size_t)t[j].entry_bar] = t[j].side;
    }
    size_t differ = 0;
    for (size_t i = 0; i < m * n; i++) differ += got[i] != want[i];
    CHECK(differ == 0, "%zu of %zu (combo, bar) entries differ from the trade logs (threads %d)", differ, m * n, threads);
    free(w), free(got), free(want), free(t);
}

int main(void) {
    enum { N = 6000, M = 12 };
    double *close = malloc(N * sizeof *close), *flat = malloc(N * sizeof *flat);
    hs_error err;
    CHECK(hs_make_close(42, N, 0.0008, 100.0, close, &err) == HS_OK, "%s", err.msg);
    for (size_t i = 0; i < N; i++) flat[i] = close[i / 20]; /* stretches of 20 equal prices */
    int64_t lengths[M];
    CHECK(hs_grid(6, 150, M, lengths, &err) == HS_OK, "%s", err.msg);
    for (int threads = 1; threads <= 2; threads++) {
        check_against_trade_log(close, N, lengths, M, threads);
        check_against_trade_log(flat, N, lengths, M, threads);
    }
    int8_t out[1];
    hs_windows w;
    hs_windows_from_length(6, &w, NULL);
    double bad[3] = {1.0, NAN, 1.0};
    CHECK(hs_signals_entries(bad, 3, &w, 1, out, 1, &err) != HS_OK && strstr(err.msg, "NaN"), "NaN: %s", err.msg);
    free(close), free(flat);
    return hs_check_summary("test_signals");
}
