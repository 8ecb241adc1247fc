/* The multi-symbol live session (hs_live_open_many / hs_live_append_many, docs/live.md).
 *
 * Symbols run in the vector lanes (groups of the ISA's lanes: 1, 2, 4 or 8; the last group padded), so the
 * symbol counts 1, 3, 5, 7, 9 and 37 cover one lane short of and one past a full group on every ISA
 * (HMASWEEP_ISA picks it: test_live_many_<isa>).  Each symbol has its own series (seeds, volatilities and
 * history lengths differ, from 1 bar to past the longest window, so the symbols of a group start their
 * combos' d at different calls; four series defeat the certification: flat, integer plateaus, steps within
 * the bound, 1e300/1e-300), over a grid of 12 combos and a 2-D grid of 12 whose combos share close windows
 * (one running sum per distinct window and symbol group).  After every call, every
 * symbol's four arrays must equal a one-symbol session (hs_live_append) fed the same bars, bit for bit; at
 * the end, every symbol against the batch reference (`unchecked` over its whole series) and its
 * statistics against the one-symbol session's.  A bad price for one symbol refuses the whole call, names
 * the symbol, and changes no session (the sessions then still agree with the twins).  Bad opens: each
 * status and message. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"
#include "isa.h"

enum { MAX_SYMBOLS = 37, COMBOS = 12, APPENDS = 1500 };

static const size_t histories[] = {1, 50, 200, 201, 999, 2, 400, 120, 7};
#define N_HIST (sizeof histories / sizeof histories[0])

typedef struct {
    size_t n;
    double *series[MAX_SYMBOLS];
    const double *hist[MAX_SYMBOLS];
    size_t n_bars[MAX_SYMBOLS];
} symbols;

static void make_symbols(symbols *sy, size_t n) {
    hs_error err;
    sy->n = n;
    for (size_t s = 0; s < n; s++) {
        size_t h = histories[s % N_HIST], len = h + APPENDS;
        sy->series[s] = malloc(len * sizeof(double));
        uint64_t r = 99 + s;
        hs_make_close(100 + s, len, HS_DEFAULT_VOL * (double)(1 + s % 7), HS_DEFAULT_START, sy->series[s], &err);
        for (size_t i = 0; i < len; i++) { /* series that defeat the certification (as tests/test_live.c's) */
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            uint64_t k = r >> 33;
            if (s % N_HIST == 1) sy->series[s][i] = 1.0 + (double)(k % 4) * 0x1p-50;              /* within the bound */
            if (s % N_HIST == 3) sy->series[s][i] = 100.0 + (double)((i / 23) % 5) - (double)((i / 61) % 3); /* plateaus */
            if (s % N_HIST == 5) sy->series[s][i] = 1.25;                                         /* flat */
            if (s % N_HIST == 6) sy->series[s][i] = (k % 2) ? 1e300 : 1e-300;                     /* wild scale */
        }
        sy->hist[s] = sy->series[s];
        sy->n_bars[s] = h;
    }
}

static void free_symbols(symbols *sy) {
    for (size_t s = 0; s < sy->n; s++) free(sy->series[s]);
}

/* One session of n symbols against its one-symbol twins after every call and the batch at the end. */
static void check_symbols(size_t n, const hs_windows *w) {
    symbols sy;
    make_symbols(&sy, n);
    hs_error err;
    hs_live *twin[MAX_SYMBOLS];
    for (size_t s = 0; s < n; s++)
        CHECK(hs_live_open(sy.series[s], sy.n_bars[s], w, COMBOS, &twin[s], &err) == HS_OK, "twin %zu: %s", s, err.msg);
    hs_live_many *m = NULL;
    CHECK(hs_live_open_many(sy.hist, sy.n_bars, n, w, COMBOS, &m, &err) == HS_OK, "open many (%zu): %s", n, err.msg);
    if (!m) return;
    CHECK_EQ_I(hs_live_many_symbols(m), n);

    static double pnl[MAX_SYMBOLS * COMBOS], tpnl[COMBOS];
    static int64_t trades[MAX_SYMBOLS * COMBOS], ttrades[COMBOS];
    static int8_t pos[MAX_SYMBOLS * COMBOS], tpos[COMBOS];
    static uint8_t crossed[MAX_SYMBOLS * COMBOS], tcrossed[COMBOS];
    static hs_stats st[MAX_SYMBOLS * COMBOS], tst[COMBOS];
    double bars[MAX_SYMBOLS];
    size_t mismatches = 0, refused = 0;
    for (size_t i = 0; i < APPENDS; i++) {
        for (size_t s = 0; s < n; s++) bars[s] = sy.series[s][sy.n_bars[s] + i];
        if (i == APPENDS / 2 || i == APPENDS / 3) { /* refused calls: the last symbol's price is NaN, then 0 */
            double bad[MAX_SYMBOLS];
            memcpy(bad, bars, n * sizeof *bars);
            bad[n - 1] = NAN;
            refused += hs_live_append_many(m, bad, pnl, trades, pos, crossed, &err) == HS_ERR_DATA;
            char want[32];
            snprintf(want, sizeof want, "close[%zu]", n - 1);
            CHECK(strstr(err.msg, want) && strstr(err.msg, "no session changed"), "message: %s", err.msg);
            bad[n - 1] = 0.0;
            refused += hs_live_append_many(m, bad, pnl, trades, pos, crossed, &err) == HS_ERR_DATA;
        }
        CHECK(hs_live_append_many(m, bars, pnl, trades, pos, crossed, &err) == HS_OK, "append %zu: %s", i, err.msg);
        for (size_t s = 0; s < n; s++) {
            hs_live_append(twin[s], &bars[s], 1, tpnl, ttrades, tpos, tcrossed, &err);
            size_t at = s * COMBOS;
            mismatches += memcmp(tpnl, pnl + at, sizeof tpnl) != 0 || memcmp(ttrades, trades + at, sizeof ttrades) != 0 ||
                          memcmp(tpos, pos + at, sizeof tpos) != 0 || memcmp(tcrossed, crossed + at, sizeof tcrossed) != 0;
        }
    }
    CHECK(refused == 4, "%zu symbols: %zu of 4 bad calls refused", n, refused);
    CHECK(mismatches == 0, "%zu symbols: %zu (append, symbol) pairs differ from the one-symbol sessions", n, mismatches);

    CHECK(hs_live_many_stats(m, st, &err) == HS_OK, "stats: %s", err.msg);
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "unchecked";
    hs_result ref[COMBOS];
    long long all_trades = 0;
    size_t off = 0;
    for (size_t s = 0; s < n; s++) {
        CHECK(hs_sweep(sy.series[s], sy.n_bars[s] + APPENDS, w, COMBOS, ref, &opt, &err) == HS_OK, "batch: %s", err.msg);
        for (size_t c = 0; c < COMBOS; c++) {
            off += ref[c].trades != trades[s * COMBOS + c] ||
                   memcmp(&ref[c].pnl, &pnl[s * COMBOS + c], sizeof(double)) != 0;
            all_trades += ref[c].trades;
        }
        hs_live_stats(twin[s], tst, &err);
        off += memcmp(tst, st + s * COMBOS, sizeof tst) != 0;
    }
    CHECK(off == 0, "%zu symbols: %zu (symbol, combo) results or statistics differ from the batch", n, off);
    CHECK(all_trades > 100 * (long long)(n > 1 ? n - 1 : 1), "%zu symbols should trade (%lld trades)", n, all_trades);
    if (n > 5) CHECK_EQ_I(trades[5 * COMBOS], 0); /* the flat symbol never trades */
    hs_live_free_many(m);
    for (size_t s = 0; s < n; s++) hs_live_free(twin[s]);
    free_symbols(&sy);
}

/* Bad opens and appends: each status and message. */
static void check_refusals(const hs_windows *w) {
    symbols sy;
    make_symbols(&sy, 7);
    hs_error err;
    hs_live_many *bad = (hs_live_many *)1;
    CHECK(hs_live_open_many(sy.hist, sy.n_bars, 0, w, COMBOS, &bad, &err) == HS_ERR_USAGE && !bad, "0 symbols");
    CHECK(strstr(err.msg, "no symbols") != NULL, "message: %s", err.msg);
    CHECK(hs_live_open_many(NULL, sy.n_bars, 7, w, COMBOS, &bad, &err) == HS_ERR_USAGE, "NULL history");
    CHECK(strstr(err.msg, "history") != NULL, "message: %s", err.msg);
    double nan_hist[2] = {1.0, NAN};
    const double *bad_hist[7];
    memcpy(bad_hist, sy.hist, sizeof bad_hist);
    bad_hist[4] = nan_hist;
    size_t bad_n[7];
    memcpy(bad_n, sy.n_bars, sizeof bad_n);
    bad_n[4] = 2;
    CHECK(hs_live_open_many(bad_hist, bad_n, 7, w, COMBOS, &bad, &err) == HS_ERR_DATA && !bad, "NaN history");
    CHECK(strstr(err.msg, "symbol 4") != NULL, "message: %s", err.msg);
    hs_live_many *m = NULL;
    CHECK(hs_live_open_many(sy.hist, sy.n_bars, 7, w, COMBOS, &m, &err) == HS_OK, "open: %s", err.msg);
    double bars[7] = {1, 1, 1, 1, 1, 1, 1}, pnl[7 * COMBOS];
    CHECK(hs_live_append_many(NULL, bars, pnl, NULL, NULL, NULL, &err) == HS_ERR_USAGE, "NULL session");
    CHECK(hs_live_append_many(m, NULL, pnl, NULL, NULL, NULL, &err) == HS_ERR_USAGE, "NULL bars");
    hs_live_free_many(m);
    hs_live_free_many(NULL);
    free_symbols(&sy);
}

int main(void) {
    /* ctest runs this once per ISA built (test_live_many_<isa>, HMASWEEP_ISA): the symbol-lane step is built
     * per ISA (src/live/live_lanes.c) and chosen like a sweep's. */
    hs_isa isa;
    hs_error why;
    if (hs_isa_default(&isa, &why) != HS_OK) {
        printf("SKIPPED: cpu-isa: %s\n", why.msg);
        return 77;
    }
    printf("test_live_many: symbols in the lanes of %s\n", hs_isa_name(isa));
    hs_windows w[COMBOS];
    int64_t lengths[COMBOS];
    hs_error err;
    hs_grid(6, 200, COMBOS, lengths, &err);
    for (size_t c = 0; c < COMBOS; c++) hs_windows_from_length(lengths[c], &w[c], &err);
    static const size_t counts[] = {1, 3, 5, 7, 9, 37};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) check_symbols(counts[i], w);
    /* A 2-D grid (3 HMA x 4 HMA3 lengths): combos share close windows across combos (a symbol group slides
     * one sum per distinct window, live_lanes.h), and combos reading one window enter at different calls. */
    static const int64_t hma[] = {8, 30, 90}, hma3[] = {6, 20, 60, 150};
    hs_windows shared[COMBOS];
    CHECK(hs_grid_2d(hma, 3, hma3, 4, shared, &err) == HS_OK, "2-D grid: %s", err.msg);
    check_symbols(9, shared);
    check_symbols(37, shared);
    check_refusals(w);
    return hs_check_summary("test_live_many");
}
