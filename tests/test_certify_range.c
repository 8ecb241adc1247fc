/* Certified signs at the ends of the double range (src/variants/certify.h: certify_in_range).
 *
 * The a-priori bound that certifies a sign assumes nothing overflows and no rounding is subnormal.  Prices
 * near DBL_MAX/k made the reference's WMA sums overflow (d = ±inf or NaN) where a running or reordered
 * sum did not, and vice versa; before the range check, a random search found sliding (3 in 6,000 series),
 * simd_wma_dot (15) and live mode (3) giving other trades or PnL than the reference.  Here every variant
 * of the registry and a live session run such series and must equal the reference kernel bit for bit. */
#include <float.h>
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"
#include "variant.h"

enum { N = 600, SERIES = 10, MAX_COMBOS = 24 };

static uint64_t lcg(uint64_t *x) {
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return *x >> 33;
}

/* kind 0: all prices in [s/2, s]; 1: one in five near s, the rest ~1; 2: one in fifty at s, the rest ~100;
 * 3: subnormal prices.  s = DBL_MAX / (1..40). */
static void make_series(int which, double *x) {
    uint64_t rng = 1000 + (uint64_t)which;
    int kind = which % 4;
    double s = kind == 3 ? 1e-308 / (double)(1 + lcg(&rng) % 1000000) : DBL_MAX / (double)(1 + lcg(&rng) % 40);
    for (size_t i = 0; i < N; i++) {
        double u = (double)(lcg(&rng) % 100000) / 100000.0;
        if (kind == 0) x[i] = s * (0.5 + 0.5 * u);
        if (kind == 1) x[i] = lcg(&rng) % 5 == 0 ? s * (0.9 + 0.1 * u) : 1.0 + u;
        if (kind == 2) x[i] = lcg(&rng) % 50 == 0 ? s : 100.0 * (1.0 + 0.01 * u);
        if (kind == 3) x[i] = s * (1.0 + (double)(lcg(&rng) % 7));
    }
}

static size_t make_combos(hs_windows *w) {
    size_t n = 0;
    for (int64_t L = 2; L <= 21; L++) hs_windows_from_length(L, &w[n++], NULL);
    return n;
}

static int same(hs_result a, hs_result b) { return a.trades == b.trades && memcmp(&a.pnl, &b.pnl, sizeof a.pnl) == 0; }

int main(void) {
    hs_combo_fn ref = hs_variant_find("unchecked")->fn[HS_ISA_SCALAR];
    double *x = malloc(N * sizeof *x);
    hs_windows w[MAX_COMBOS];
    hs_result want[MAX_COMBOS], got[MAX_COMBOS];
    size_t nc = make_combos(w), n_variants;
    const hs_variant *vs = hs_variants(&n_variants);
    hs_error err;
    for (int which = 0; which < SERIES; which++) {
        make_series(which, x);
        for (size_t c = 0; c < nc; c++) want[c] = ref(x, N, &w[c], hs_keep(HS_DEFAULT_FEE), NULL, NULL).r;
        for (size_t v = 0; v < n_variants; v++) {
            hs_sweep_options opt = {.variant = vs[v].name, .isa = NULL, .threads = 1};
            CHECK(hs_sweep(x, N, w, nc, got, &opt, &err) == HS_OK, "%s: %s", vs[v].name, err.msg);
            for (size_t c = 0; c < nc; c++)
                CHECK(same(got[c], want[c]), "series %d, %s, L = %zu: %lld trades %.17g, reference %lld %.17g", which,
                      vs[v].name, c + 2, (long long)got[c].trades, got[c].pnl, (long long)want[c].trades, want[c].pnl);
        }
        /* live: one bar at a time after a 1-bar history */
        hs_live *s = NULL;
        CHECK(hs_live_open(x, 1, w, nc, &s, &err) == HS_OK, "%s", err.msg);
        double pnl[MAX_COMBOS];
        int64_t trades[MAX_COMBOS];
        for (size_t i = 1; s && i < N; i++) hs_live_append(s, &x[i], 1, pnl, trades, NULL, NULL, NULL);
        for (size_t c = 0; s && c < nc; c++)
            CHECK(same((hs_result){pnl[c], trades[c]}, want[c]), "series %d, live, L = %zu: %lld trades %.17g, reference %lld %.17g",
                  which, c + 2, (long long)trades[c], pnl[c], (long long)want[c].trades, want[c].pnl);
        hs_live_free(s);
    }
    free(x);
    return hs_check_summary("test_certify_range");
}
