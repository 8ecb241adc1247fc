/* Live mode (src/live/live.c, docs/live.md): after any sequence of appends, every combo's trades and PnL equal
 * a batch run over every bar so far, bit for bit.
 *
 * The batch side is the reference kernel itself (`unchecked`, called straight from the registry so that
 * windows longer than the prefix are allowed: its d is all NaN there, 0 trades), and at the end of the
 * default series the golden file (tests/golden/default_run.json, the reference's output, reproduced by the
 * independent numba peer) and docs/spec.md §5's fingerprint. */
#include <stdlib.h>

#include "check.h"
#include "golden.h"
#include "hmasweep.h"
#include "variant.h"

/* ---- the batch side ----------------------------------------------------------------------------------- */
static hs_result batch_one(const double *close, size_t n, const hs_windows *w) {
    static hs_combo_fn ref;
    if (!ref) ref = hs_variant_find("unchecked")->fn[HS_ISA_SCALAR];
    return ref(close, n, w, hs_keep(HS_DEFAULT_FEE), NULL, NULL).r;
}

/* What the session returned for `n` bars, per combo. */
typedef struct {
    double *pnl;
    int64_t *trades;
    int8_t *pos;
    uint8_t *crossed;
} live_out;

static live_out out_new(size_t n) {
    return (live_out){calloc(n, sizeof(double)), calloc(n, sizeof(int64_t)), calloc(n, 1), calloc(n, 1)};
}
static void out_free(live_out o) {
    free(o.pnl);
    free(o.trades);
    free(o.pos);
    free(o.crossed);
}

/* Compare combos [0, n_combos) by `step` against the batch over close[0..n). */
static void check_against_batch(const char *what, const double *close, size_t n, const hs_windows *w,
                                size_t n_combos, size_t step, live_out o) {
    for (size_t c = 0; c < n_combos; c += step) {
        hs_result r = batch_one(close, n, &w[c]);
        CHECK(r.trades == o.trades[c], "%s, %zu bars, combo %zu: trades %lld, batch %lld", what, n, c,
              (long long)o.trades[c], (long long)r.trades);
        CHECK_BITS(o.pnl[c], r.pnl);
    }
}

static hs_live *open_or_fail(const double *close, size_t n, const hs_windows *w, size_t n_combos) {
    hs_live *s = NULL;
    hs_error err;
    hs_status st = hs_live_open(close, n, w, n_combos, &s, &err);
    CHECK(st == HS_OK && s, "hs_live_open: %s", err.msg);
    return s;
}

static int append_ok(hs_live *s, const double *bars, size_t k, live_out o) {
    hs_error err;
    hs_status st = hs_live_append(s, bars, k, o.pnl, o.trades, o.pos, o.crossed, &err);
    CHECK(st == HS_OK, "hs_live_append: %s", err.msg);
    return st == HS_OK;
}

/* ---- 1. the default series, one bar at a time ---------------------------------------------------------- */
/* With one-bar appends the reported trades (closed + the open one) grow by exactly 1 at a cross and by 0
 * otherwise; the position is open iff a trade was ever reported, and a cross after the first reverses it. */
static void check_one_bar_invariants(size_t n, size_t n_combos, const int64_t *prev_trades, const int8_t *prev_pos,
                                     live_out o, int *reported) {
    for (size_t c = 0; c < n_combos; c++) {
        int64_t dt = o.trades[c] - prev_trades[c];
        int ok = (dt == 0 || dt == 1) && o.crossed[c] == (dt == 1) && (o.pos[c] != 0) == (o.trades[c] > 0) &&
                 (!o.crossed[c] || prev_pos[c] == 0 || o.pos[c] == -prev_pos[c]);
        if (!ok && (*reported)++ < 5)
            CHECK(0, "bar %zu combo %zu: trades %lld -> %lld, crossed %d, position %d -> %d", n, c,
                  (long long)prev_trades[c], (long long)o.trades[c], o.crossed[c], prev_pos[c], o.pos[c]);
    }
}

static void test_default_series_bar_by_bar(void) {
    size_t n = HS_DEFAULT_BARS, nc = HS_DEFAULT_GRID_COUNT;
    double *close = malloc(n * sizeof *close);
    int64_t lengths[HS_DEFAULT_GRID_COUNT], prev_trades[HS_DEFAULT_GRID_COUNT] = {0};
    int8_t prev_pos[HS_DEFAULT_GRID_COUNT] = {0};
    hs_windows w[HS_DEFAULT_GRID_COUNT];
    hs_make_close(HS_DEFAULT_SEED, n, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, nc, lengths, NULL);
    for (size_t c = 0; c < nc; c++) hs_windows_from_length(lengths[c], &w[c], NULL);

    /* The checkpoints run the reference over the prefix for every 9th combo (0, 9, ..., 72, plus 79 at
     * the end through the golden file); the reference costs ~Σw per bar, live ~7 flops per sum. */
    const size_t checkpoints[] = {1, 2, 3, 4, 6, 12, 99, 200, 201, 398, 1000, 4097, 33333, 100000};
    size_t next = 0, bad = 0;
    int reported = 0;
    live_out o = out_new(nc);
    hs_live *s = open_or_fail(close, 1, w, nc);
    if (!s) return;
    for (size_t bars = 2; bars <= n; bars++) {
        if (!append_ok(s, &close[bars - 1], 1, o) && bad++ > 3) break;
        check_one_bar_invariants(bars, nc, prev_trades, prev_pos, o, &reported);
        memcpy(prev_trades, o.trades, sizeof prev_trades);
        memcpy(prev_pos, o.pos, sizeof prev_pos);
        if (next < sizeof checkpoints / sizeof *checkpoints && bars == checkpoints[next]) {
            check_against_batch("default series", close, bars, w, nc, 9, o);
            next++;
        }
    }
    CHECK_EQ_I(hs_live_bars(s), n);
    CHECK_EQ_I(hs_live_combos(s), nc);

    /* The end: all 80 combos against the golden run, and docs/spec.md §5's fingerprint. */
    golden_run g;
    CHECK(golden_load(HS_SOURCE_DIR "/tests/golden/default_run.json", &g), "cannot read the golden run");
    CHECK_EQ_I(g.n, nc);
    for (size_t c = 0; c < g.n && c < nc; c++) {
        CHECK(o.trades[c] == g.results[c].trades, "combo %zu: trades %lld, golden %lld", c, (long long)o.trades[c],
              (long long)g.results[c].trades);
        CHECK_BITS(o.pnl[c], g.results[c].pnl);
    }
    golden_free(&g);
    CHECK_EQ_I(o.trades[0], HS_STUDY_TRADES);
    CHECK_BITS(o.pnl[0], HS_STUDY_PNL);
    int64_t total = 0;
    for (size_t c = 0; c < nc; c++) total += o.trades[c];
    CHECK_EQ_I(total, 473381);
    hs_live_free(s);
    out_free(o);
    free(close);
}

/* ---- 2. random chunks, and the same bars chunked differently give the same state ---------------------- */
static uint64_t lcg(uint64_t *x) {
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return *x >> 33;
}

/* Windows not derived from any L: w0 > w1, w3 > w5, w4 > w5, ones, long smoothing. */
static const hs_windows odd_windows[] = {
    {{3, 6, 2, 9, 2, 3}}, {{6, 3, 2, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}}, {{9, 2, 7, 5, 1, 3}},
    {{50, 3, 40, 7, 60, 2}}, {{2, 2, 30, 31, 1, 17}}, {{1, 64, 1, 64, 1, 1}}, {{5, 5, 5, 5, 5, 5}},
};
enum { N_ODD = sizeof odd_windows / sizeof *odd_windows };

/* Default-style combos for L = 6..60 plus the odd windows. */
static size_t mixed_combos(hs_windows *w) {
    size_t n = 0;
    for (int64_t L = 6; L <= 60; L += 9) hs_windows_from_length(L, &w[n++], NULL);
    for (size_t k = 0; k < N_ODD; k++) w[n++] = odd_windows[k];
    return n;
}

static void test_random_chunks(void) {
    enum { N = 6000 };
    double *close = malloc(N * sizeof *close);
    hs_make_close(7, N, 0.002, 50.0, close, NULL);
    hs_windows w[16];
    size_t nc = mixed_combos(w);
    uint64_t rng = 12345;
    for (int round = 0; round < 3; round++) {
        size_t history = 1 + lcg(&rng) % 300, at = history;
        live_out o = out_new(nc);
        hs_live *s = open_or_fail(close, history, w, nc);
        if (!s) return;
        while (at < N) {
            size_t k = 1 + lcg(&rng) % (round == 2 ? 2000 : 400);
            if (k > N - at) k = N - at;
            if (!append_ok(s, &close[at], k, o)) break;
            at += k;
            check_against_batch("random chunks", close, at, w, nc, 1, o);
        }
        CHECK_EQ_I(hs_live_bars(s), N);
        hs_live_free(s);
        out_free(o);
    }
    free(close);
}

/* ---- 3. series that defeat the certification: exact zeros, plateaus, overflow -------------------------- */
/* Integer plateaus give d exactly 0 for long stretches (prev must survive them); tiny steps give d within
 * the bound; prices near DBL_MAX make running sums overflow (±inf or NaN) where the reference's order may
 * not, and vice versa. */
static void make_hard_series(int kind, double *x, size_t n) {
    uint64_t rng = 99 + (uint64_t)kind;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = lcg(&rng);
        if (kind == 0) x[i] = 100.0 + (double)((i / 23) % 5) - (double)((i / 61) % 3); /* plateaus */
        if (kind == 1) x[i] = 1.0 + (double)(r % 4) * 0x1p-50;                          /* within the bound */
        if (kind == 2) x[i] = (r % 7 == 0) ? 1.7e308 : 1e308 * (1.0 + (double)(r % 1000) * 1e-4); /* overflow */
        if (kind == 3) x[i] = (r % 2) ? 1e300 : 1e-300;                                  /* wild scale */
    }
}

static void test_hard_series(void) {
    enum { N = 1500 };
    double x[N];
    hs_windows w[16];
    size_t nc = mixed_combos(w);
    live_out o = out_new(nc);
    for (int kind = 0; kind < 4; kind++) {
        make_hard_series(kind, x, N);
        hs_live *s = open_or_fail(x, 3, w, nc);
        if (!s) break;
        for (size_t at = 3; at < N; at++) {
            if (!append_ok(s, &x[at], 1, o)) break;
            if (at % 97 == 0 || at == N - 1) check_against_batch("hard series", x, at + 1, w, nc, 1, o);
        }
        hs_live_free(s);
    }
    out_free(o);
}

/* ---- 4. bad input: a clear error, and the session unchanged -------------------------------------------- */
static void expect_fail(hs_status got, hs_status want, const hs_error *err, const char *needle, const char *what) {
    CHECK(got == want, "%s: status %d, expected %d (%s)", what, got, want, err->msg);
    CHECK(strstr(err->msg, needle) != NULL, "%s: message '%s' does not mention '%s'", what, err->msg, needle);
}

static void test_bad_input(void) {
    enum { N = 800 };
    double close[N];
    hs_make_close(3, N, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_windows w[16];
    size_t nc = mixed_combos(w);
    hs_error err;
    hs_live *s = NULL;

    /* open */
    expect_fail(hs_live_open(close, 0, w, nc, &s, &err), HS_ERR_DATA, &err, "empty", "0 bars");
    CHECK(s == NULL, "a failed open returned a session");
    double saved = close[5];
    close[5] = NAN;
    expect_fail(hs_live_open(close, N, w, nc, &s, &err), HS_ERR_DATA, &err, "close[5]", "NaN history");
    close[5] = saved;
    expect_fail(hs_live_open(close, N, w, 0, &s, &err), HS_ERR_USAGE, &err, "n_combos = 0", "no combos");
    expect_fail(hs_live_open(close, N, NULL, 2, &s, &err), HS_ERR_USAGE, &err, "NULL", "NULL combos");
    expect_fail(hs_live_open(close, N, w, nc, NULL, &err), HS_ERR_USAGE, &err, "NULL", "NULL out");
    hs_windows bad = w[0];
    bad.w[4] = 0;
    expect_fail(hs_live_open(close, N, &bad, 1, &s, &err), HS_ERR_USAGE, &err, "w4 = 0", "zero window");
    bad.w[4] = -3;
    expect_fail(hs_live_open(close, N, &bad, 1, &s, &err), HS_ERR_USAGE, &err, "w4 = -3", "negative window");
    bad.w[4] = HS_LIVE_MAX_WINDOW + 1;
    expect_fail(hs_live_open(close, N, &bad, 1, &s, &err), HS_ERR_USAGE, &err, "HS_LIVE_MAX_WINDOW", "huge window");
    CHECK(s == NULL, "a failed open returned a session");

    /* append: every bad value at every place of a 5-bar append is refused, and changes nothing; a twin
     * session that never saw the bad appends then agrees to the bit. */
    size_t hist = 300;
    hs_live *a = open_or_fail(close, hist, w, nc), *twin = open_or_fail(close, hist, w, nc);
    if (!a || !twin) return;
    live_out oa = out_new(nc), ot = out_new(nc);
    const double bads[] = {NAN, INFINITY, -INFINITY, 0.0, -1.0, -0.0};
    for (size_t b = 0; b < sizeof bads / sizeof *bads; b++)
        for (size_t at = 0; at < 5; at++) {
            double five[5];
            memcpy(five, &close[hist], sizeof five);
            five[at] = bads[b];
            oa.trades[0] = 4242;
            hs_status st = hs_live_append(a, five, 5, oa.pnl, oa.trades, oa.pos, oa.crossed, &err);
            CHECK(st == HS_ERR_DATA, "bad value %g at %zu: status %d (%s)", bads[b], at, st, err.msg);
            char want[32];
            snprintf(want, sizeof want, "close[%zu]", at);
            CHECK(strstr(err.msg, want) && strstr(err.msg, "unchanged"), "message '%s' should name %s", err.msg, want);
            CHECK_EQ_I(oa.trades[0], 4242);
        }
    expect_fail(hs_live_append(a, &close[hist], 0, NULL, NULL, NULL, NULL, &err), HS_ERR_USAGE, &err, "k = 0", "k = 0");
    expect_fail(hs_live_append(a, NULL, 3, NULL, NULL, NULL, NULL, &err), HS_ERR_USAGE, &err, "NULL", "NULL bars");
    expect_fail(hs_live_append(NULL, &close[hist], 1, NULL, NULL, NULL, NULL, &err), HS_ERR_USAGE, &err, "NULL",
                "NULL session");
    CHECK_EQ_I(hs_live_bars(a), hist);
    for (size_t at = hist; at < N; at += 50) {
        size_t k = at + 50 <= N ? 50 : N - at;
        append_ok(a, &close[at], k, oa);
        append_ok(twin, &close[at], k, ot);
        for (size_t c = 0; c < nc; c++) {
            CHECK_EQ_I(oa.trades[c], ot.trades[c]);
            CHECK_BITS(oa.pnl[c], ot.pnl[c]);
            CHECK_EQ_I(oa.pos[c], ot.pos[c]);
        }
    }
    check_against_batch("after bad appends", close, N, w, nc, 1, oa);
    /* every output may be NULL */
    CHECK(hs_live_append(a, close, 1, NULL, NULL, NULL, NULL, &err) == HS_OK, "%s", err.msg);
    hs_live_free(a);
    hs_live_free(twin);
    hs_live_free(NULL);
    out_free(oa);
    out_free(ot);
}

/* ---- 5. windows longer than the history: the session warms up ------------------------------------------ */
static void test_warm_up(void) {
    enum { N = 700 };
    double close[N];
    hs_make_close(11, N, 0.003, 20.0, close, NULL);
    hs_windows w[3];
    hs_windows_from_length(200, &w[0], NULL);
    w[1] = (hs_windows){{300, 7, 90, 2, 150, 120}};
    w[2] = odd_windows[0];
    live_out o = out_new(3);
    hs_live *s = open_or_fail(close, 2, w, 3);
    if (!s) return;
    for (size_t at = 2; at < N; at++) {
        append_ok(s, &close[at], 1, o);
        if (at % 37 == 0 || at == N - 1) check_against_batch("warm-up", close, at + 1, w, 3, 1, o);
    }
    CHECK(o.trades[0] > 0 && o.trades[1] > 0, "the long combos never traded: %lld %lld", (long long)o.trades[0],
          (long long)o.trades[1]);
    hs_live_free(s);
    out_free(o);
}

int main(void) {
    /* ctest runs this once per ISA built (test_live_<isa>, HMASWEEP_ISA): live mode's group step is built
     * per ISA (src/live/live_lanes.c) and chosen like a sweep's. */
    hs_isa isa;
    hs_error why;
    if (hs_isa_default(&isa, &why) != HS_OK) {
        printf("test_live: skipped, %s\n", why.msg);
        return 77;
    }
    printf("test_live: live mode's group step on %s\n", hs_isa_name(isa));
    test_bad_input();
    test_warm_up();
    test_hard_series();
    test_random_chunks();
    test_default_series_bar_by_bar();
    return hs_check_summary("test_live");
}
