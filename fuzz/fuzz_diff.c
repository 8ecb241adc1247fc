/* Differential target: a random positive series and random six-window combos (any windows, not only
 * those derived from L); every registered variant on every ISA built and supported here must give what
 * the `unchecked` reference gives — tier 0 bit for bit (trades and PnL bits), tier 1 the same trades
 * and |ΔPnL| <= 1e-6 (docs/spec.md §5) — and no sanitizer may fire.  The variant list is the registry's.
 *
 * Input layout (everything optional: missing bytes read as zero):
 *   byte 0      series shape (mod 6): random walk, raw doubles, quantised walk, huge prices, flat with
 *               ripples, two-level zigzag — the last four put d at or near zero or overflow the sums
 *   bytes 1-2   bars n = 1 + u16 % 160
 *   byte 3      combos = 1 + b % 6;  byte 4: threads for OpenMP variants (1 + b % 2)
 *   then 6 × u16 per combo: window = 1 + u16 % n
 *   then the series parameters: 8-byte seed and a volatility byte, or raw doubles (shape 1)
 *   last byte   also where hs_sweep_many's deliberately bad series has its NaN
 * Sizes are kept small so one input runs every variant in about a millisecond.
 * hs:fuzz-max-len 1400   (the most this layout reads: 5 + 72 window bytes + 9 + 160 raw doubles) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmasweep.h"
#include "variant.h"

enum { MAX_BARS = 160, MAX_COMBOS = 6 };

typedef struct {
    const uint8_t *p;
    size_t n, at;
} bytes;

static unsigned take8(bytes *b) { return b->at < b->n ? b->p[b->at++] : 0; }
static unsigned take16(bytes *b) { return take8(b) | take8(b) << 8; }
static uint64_t take64(bytes *b) {
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v |= (uint64_t)take8(b) << (8 * k);
    return v;
}

/* Positive finite prices of the chosen shape. */
static void make_series(unsigned shape, bytes *b, double *x, size_t n) {
    uint64_t seed = take64(b);
    double vol = HS_DEFAULT_VOL * (1 + take8(b) % 64);
    if (shape == 1) { /* raw doubles, made positive and finite */
        for (size_t i = 0; i < n; i++) {
            uint64_t bits = take64(b);
            double v;
            memcpy(&v, &bits, sizeof v);
            v = fabs(v);
            x[i] = (v > 0 && v <= 1.7e308) ? v : 1.0 + (double)(i % 3);
        }
        return;
    }
    hs_make_close(seed, n, vol, HS_DEFAULT_START, x, NULL);
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 2: x[i] = 100.0 + floor((x[i] - 100.0) * 4.0) * 0.25; break; /* few levels: d exactly 0 often */
        case 3: x[i] *= 1e303; break;                                      /* long sums overflow */
        case 4: x[i] = 100.0 + (double)(seed >> (i % 64) & 1) * 1e-12; break;
        case 5: x[i] = (i & 1) ? 101.0 : 100.0; break;
        default: break;
        }
        if (!(x[i] > 0)) x[i] = 1.0; /* quantising can reach 0 on a steep walk */
    }
}

static void fail(const char *what, size_t n, const hs_windows *w) {
    const int64_t *ww = w->w;
    fprintf(stderr, "fuzz_diff: MISMATCH %s, %zu bars, windows (%lld,%lld,%lld,%lld,%lld,%lld)\n", what, n,
            (long long)ww[0], (long long)ww[1], (long long)ww[2], (long long)ww[3], (long long)ww[4], (long long)ww[5]);
    abort();
}

static int same(const hs_result *a, const hs_result *b, int tier) {
    if (a->trades != b->trades) return 0;
    if (isnan(a->pnl) && isnan(b->pnl)) return 1;
    if (tier == 0) return memcmp(&a->pnl, &b->pnl, sizeof(double)) == 0;
    return fabs(a->pnl - b->pnl) <= 1e-6;
}

/* The public entry points a user calls, on the same input (coverage: without this no input reached
 * hs_sweep's option and ISA handling, hs_sweep_many or the trade log).  hs_sweep with default options
 * equals the reference within the default variant's tier; hs_sweep_many gives each series exactly what
 * hs_sweep gives it alone, with a failing series (a NaN, or a suffix too short for a window) marked and
 * not disturbing the others; the trade log's PnLs summed in order are the reference's PnL bit for bit. */
static void check_public_api(const double *x, size_t n, const hs_windows *w, size_t n_combos, int threads,
                             unsigned nan_at, const hs_result *want) {
    enum { N_SERIES = 3 };
    hs_result got[MAX_COMBOS], suffix[MAX_COMBOS], many[N_SERIES * MAX_COMBOS];
    hs_sweep_report report;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.threads = threads;
    opt.report = &report;
    hs_error err;
    if (hs_sweep(x, n, w, n_combos, got, &opt, &err) != HS_OK) fail(err.msg, n, &w[0]);
    int tier = hs_variant_find(report.variant)->tier;
    for (size_t c = 0; c < n_combos; c++)
        if (!same(&got[c], &want[c], tier)) fail("hs_sweep (default options) vs unchecked", n, &w[c]);

    static double bad[MAX_BARS];
    memcpy(bad, x, n * sizeof *x);
    bad[nan_at % n] = NAN;
    size_t half = n / 2; /* the suffix x[half..n): fails when a window no longer fits */
    int suffix_ok = hs_sweep(x + half, n - half, w, n_combos, suffix, &opt, &err) == HS_OK;
    hs_series_ref refs[N_SERIES] = {{"whole", x, n}, {"suffix", x + half, n - half}, {"nan", bad, n}};
    hs_status status[N_SERIES];
    size_t n_failed = 99;
    if (hs_sweep_many(refs, N_SERIES, w, n_combos, many, status, NULL, &n_failed, &opt, &err) != HS_OK)
        fail(err.msg, n, &w[0]);
    if (n_failed != (suffix_ok ? 1u : 2u) || status[0] != HS_OK || status[2] == HS_OK ||
        (status[1] == HS_OK) != suffix_ok)
        fail("hs_sweep_many: the failed series", n, &w[0]);
    for (size_t c = 0; c < n_combos; c++) {
        const hs_result *row = &many[c];
        if (memcmp(&row[0], &got[c], sizeof(hs_result)) != 0) fail("hs_sweep_many vs hs_sweep", n, &w[c]);
        if (suffix_ok ? memcmp(&row[n_combos], &suffix[c], sizeof(hs_result)) != 0 : row[n_combos].trades != -1)
            fail("hs_sweep_many vs hs_sweep on the suffix", n, &w[c]);
        if (row[2 * n_combos].trades != -1 || !isnan(row[2 * n_combos].pnl))
            fail("hs_sweep_many: the NaN series' rows", n, &w[c]);
    }

    static hs_trade trades[MAX_BARS + 1];
    for (size_t c = 0; c < n_combos; c++) {
        size_t count = 0, cap = want[c].trades > 0 ? (size_t)want[c].trades : 0;
        if (cap > MAX_BARS + 1 || hs_trade_log(x, n, &w[c], trades, cap, &count, &err) != HS_OK ||
            count != (size_t)want[c].trades)
            fail("hs_trade_log: trade count", n, &w[c]);
        double sum = 0.0;
        for (size_t t = 0; t < count; t++) sum += trades[t].pnl;
        if (memcmp(&sum, &want[c].pnl, sizeof sum) != 0 && !(isnan(sum) && isnan(want[c].pnl)))
            fail("hs_trade_log: PnLs summed in order vs unchecked", n, &w[c]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static double x[MAX_BARS];
    bytes b = {data, size, 0};
    unsigned shape = take8(&b) % 6;
    size_t n = 1 + take16(&b) % MAX_BARS, n_combos = 1 + take8(&b) % MAX_COMBOS;
    int threads = 1 + (int)(take8(&b) % 2);
    /* From the last byte, so that the layout above (and what the regression inputs mean) stays as it was. */
    unsigned nan_at = size ? data[size - 1] : 0; /* where hs_sweep_many's bad series has its NaN */
    hs_windows w[MAX_COMBOS];
    for (size_t c = 0; c < n_combos; c++)
        for (int k = 0; k < 6; k++) w[c].w[k] = 1 + (int64_t)(take16(&b) % n);
    make_series(shape, &b, x, n);
    if (hs_check_series(x, n, NULL) != HS_OK || hs_check_windows(w, n_combos, n, NULL) != HS_OK) return 0;

    hs_result want[MAX_COMBOS], got[MAX_COMBOS];
    hs_error err;
    if (hs_run_variant(hs_variant_find("unchecked"), HS_ISA_SCALAR, 1, x, n, w, n_combos, want, &err) != HS_OK) {
        fprintf(stderr, "fuzz_diff: the reference failed: %s\n", err.msg);
        abort();
    }
    size_t count;
    const hs_variant *all = hs_variants(&count);
    for (size_t v = 0; v < count; v++)
        for (int isa = 0; isa < HS_ISA_COUNT; isa++) {
            if (!all[v].fn[isa] || !hs_isa_supported((hs_isa)isa)) continue;
            if (hs_run_variant(&all[v], (hs_isa)isa, threads, x, n, w, n_combos, got, &err) != HS_OK) {
                fprintf(stderr, "fuzz_diff: %s/%s failed: %s\n", all[v].name, hs_isa_name((hs_isa)isa), err.msg);
                abort();
            }
            for (size_t c = 0; c < n_combos; c++)
                if (!same(&got[c], &want[c], all[v].tier)) {
                    const int64_t *ww = w[c].w;
                    fprintf(stderr,
                            "fuzz_diff: MISMATCH %s/%s (tier %d), shape %u, %zu bars, windows "
                            "(%lld,%lld,%lld,%lld,%lld,%lld): %lld trades pnl %.17g, reference %lld trades "
                            "pnl %.17g\n",
                            all[v].name, hs_isa_name((hs_isa)isa), all[v].tier, shape, n, (long long)ww[0],
                            (long long)ww[1], (long long)ww[2], (long long)ww[3], (long long)ww[4], (long long)ww[5],
                            (long long)got[c].trades, got[c].pnl, (long long)want[c].trades, want[c].pnl);
                    abort();
                }
        }
    check_public_api(x, n, w, n_combos, threads, nan_at, want);
    return 0;
}
