/* Windows not derived from L (the wire carries any six): the certified kernels this session added or
 * changed (segments, segments_omp, simd_wma_dot, x_recip) against the `unchecked` reference on every ISA
 * built and run here, 64 combos of independent random windows (w0 > w1, w3 > w5 and the like included,
 * windows up to 300 on 3,000 bars, some leaving no valid d at all), bit-identical PnL and equal trades. */
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"
#include "variant.h"

enum { N = 3000, COMBOS = 64 };

int main(void) {
    static double close[N];
    hs_make_close(5, N, 0.002, 100.0, close, NULL);
    hs_windows w[COMBOS];
    unsigned s = 12345;
    for (int c = 0; c < COMBOS; c++)
        for (int k = 0; k < 6; k++) {
            s = s * 1103515245u + 12345u;
            w[c].w[k] = 1 + (int64_t)((s >> 16) % (c < 32 ? 12u : 300u));
        }
    hs_result want[COMBOS], got[COMBOS];
    hs_error err;
    CHECK(hs_run_variant(hs_variant_find("unchecked"), HS_ISA_SCALAR, 1, close, N, w, COMBOS, want, &err) == HS_OK,
          "reference: %s", err.msg);
    int64_t trades = 0;
    for (int c = 0; c < COMBOS; c++) trades += want[c].trades;
    CHECK(trades > 1000, "the reference made only %lld trades: the windows test nothing", (long long)trades);
    const char *names[] = {"segments", "segments_omp", "simd_wma_dot", "x_recip"};
    for (size_t v = 0; v < sizeof names / sizeof names[0]; v++) {
        const hs_variant *var = hs_variant_find(names[v]);
        for (int isa = 0; isa < HS_ISA_COUNT; isa++) {
            if (!var->fn[isa] || !hs_isa_supported((hs_isa)isa)) continue;
            hs_status st = hs_run_variant(var, (hs_isa)isa, 2, close, N, w, COMBOS, got, &err);
            CHECK(st == HS_OK, "%s/%s: %s", names[v], hs_isa_name((hs_isa)isa), err.msg);
            for (int c = 0; st == HS_OK && c < COMBOS; c++)
                CHECK(got[c].trades == want[c].trades && memcmp(&got[c].pnl, &want[c].pnl, sizeof(double)) == 0,
                      "%s/%s combo %d [%lld %lld %lld %lld %lld %lld]: %lld trades %.17g, reference %lld %.17g",
                      names[v], hs_isa_name((hs_isa)isa), c, (long long)w[c].w[0], (long long)w[c].w[1],
                      (long long)w[c].w[2], (long long)w[c].w[3], (long long)w[c].w[4], (long long)w[c].w[5],
                      (long long)got[c].trades, got[c].pnl, (long long)want[c].trades, want[c].pnl);
        }
    }
    return hs_check_summary("test_free_windows");
}
