/* The fee and the six statistics (docs/spec.md §8) through every public surface of the library.
 *
 * 1. The statistics hs_sweep returns equal §8's definitions applied here, independently of the books, to
 *    the trade list hs_trade_log gives (wins = positive trades, max_drawdown from the running sum of the
 *    trade PnLs, bars_held = sum of durations ...), on the default series (combos 0-2) and on free windows,
 *    at fees 0, 0.0009 and 0.01; fee 0 and the default fee make the same trades.
 * 2. The fee: HS_DEFAULT_FEE and a zeroed options struct give the v1 bits (the golden fingerprint);
 *    has_fee = 0 means the default whatever `fee` holds; bad fees are HS_ERR_USAGE naming the value, in
 *    hs_sweep, hs_sweep_many, hs_trade_log_opt and hs_live_open_opt.
 * 3. Every surface agrees bit for bit: hs_sweep (best and unchecked), hs_sweep_many, hs_trade_log_opt,
 *    and live mode after every append (hs_live_stats, hs_live_many_stats).
 * 4. hs_stats_derive on hand-made values.
 * 5. Properties on 300 random cases (random walks and arbitrary positive prices with plateaus, 4..400 bars,
 *    random free windows, random fees), against hs_trade_log_opt: wins = the count of positive trade PnLs,
 *    max_drawdown from the running sum of the trade PnLs, bars_held = the sum of the durations, the other
 *    three sums; fee 0 and fee 0.0009 make the same trades (count, bars and sides).  (python/tests/
 *    test_stats_properties.py states the same with Hypothesis through the Python package.)
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"

#define SAME(a, b) (memcmp(&(a), &(b), sizeof(a)) == 0)

static int same_stats(const hs_stats *a, const hs_stats *b) {
    return a->wins == b->wins && a->bars_held == b->bars_held && SAME(a->gross_profit, b->gross_profit) &&
           SAME(a->gross_loss, b->gross_loss) && SAME(a->sum_sq, b->sum_sq) && SAME(a->max_drawdown, b->max_drawdown);
}

static void print_stats(const char *what, const hs_stats *s) {
    fprintf(stderr, "  %s: wins %lld gp %.17g gl %.17g sq %.17g dd %.17g held %lld\n", what, (long long)s->wins,
            s->gross_profit, s->gross_loss, s->sum_sq, s->max_drawdown, (long long)s->bars_held);
}

static hs_sweep_options with_fee(const char *variant, double fee, hs_stats *stats) {
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.variant = variant;
    o.stats = stats;
    o.fee = fee;
    o.has_fee = 1;
    return o;
}

/* §8 from a trade list, written from the spec's table, not from the books. */
static hs_stats stats_from_log(const hs_trade *t, size_t n) {
    hs_stats s = {0, 0.0, 0.0, 0.0, 0.0, 0};
    double pnl = 0.0, peak = 0.0;
    for (size_t k = 0; k < n; k++) {
        double p = t[k].pnl;
        if (p > 0) {
            s.wins++;
            s.gross_profit += p;
        }
        if (p < 0) s.gross_loss += p;
        s.sum_sq += p * p;
        pnl += p;
        if (pnl > peak) peak = pnl;
        if (peak - pnl > s.max_drawdown) s.max_drawdown = peak - pnl;
        s.bars_held += t[k].exit_bar - t[k].entry_bar;
    }
    return s;
}

/* 1 and 3 (batch side) for combos w[0..n) of one series at one fee. */
static void check_series(const char *label, const double *close, size_t bars, const hs_windows *w, size_t n, double fee,
                         hs_result *out_res, hs_stats *out_stats) {
    hs_error err = {{0}};
    for (int v = 0; v < 2; v++) {
        const char *variant = v ? "unchecked" : NULL;
        hs_result res[8];
        hs_stats st[8];
        hs_sweep_options o = with_fee(variant, fee, st);
        hs_status rc = hs_sweep(close, bars, w, n, res, &o, &err);
        CHECK(rc == HS_OK, "%s fee %g: %s", label, fee, err.msg);
        if (rc != HS_OK) return;
        for (size_t c = 0; c < n; c++) {
            size_t count = 0;
            hs_stats one;
            hs_sweep_options lo = with_fee(NULL, fee, &one);
            CHECK(hs_trade_log_opt(close, bars, &w[c], NULL, 0, &count, &lo, &err) == HS_OK, "%s", err.msg);
            hs_trade *t = malloc((count ? count : 1) * sizeof *t);
            CHECK(hs_trade_log_opt(close, bars, &w[c], t, count, &count, &lo, &err) == HS_OK, "%s", err.msg);
            hs_stats want = stats_from_log(t, count);
            CHECK((size_t)res[c].trades == count, "%s fee %g combo %zu: %lld trades, the log has %zu", label, fee, c,
                  (long long)res[c].trades, count);
            int ok = same_stats(&st[c], &want);
            CHECK(ok, "%s fee %g combo %zu (%s): the sweep's statistics are not the trade log's", label, fee, c,
                  variant ? variant : "best");
            if (!ok) print_stats("sweep", &st[c]), print_stats("log", &want);
            CHECK(same_stats(&one, &st[c]), "%s fee %g combo %zu: hs_trade_log_opt's statistics differ", label, fee, c);
            free(t);
            if (v == 0) out_res[c] = res[c], out_stats[c] = st[c];
            else CHECK(same_stats(&st[c], &out_stats[c]) && SAME(res[c].pnl, out_res[c].pnl),
                       "%s fee %g combo %zu: best and unchecked differ", label, fee, c);
        }
    }
}

static void check_against_log(void) {
    static double close[HS_DEFAULT_BARS];
    hs_make_close(HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_windows w[3];
    for (int c = 0; c < 3; c++) hs_windows_from_length(6 + 2 * c, &w[c], NULL); /* combos 0-2: L = 6, 8, 10 */
    const double fees[] = {0.0, HS_DEFAULT_FEE, 0.01};
    hs_result res[3][8];
    hs_stats st[3][8];
    for (int f = 0; f < 3; f++) check_series("default series", close, HS_DEFAULT_BARS, w, 3, fees[f], res[f], st[f]);
    for (int c = 0; c < 3; c++) {
        CHECK(res[0][c].trades == res[1][c].trades && res[1][c].trades == res[2][c].trades,
              "combo %d: the fee changed the trades (%lld, %lld, %lld)", c, (long long)res[0][c].trades,
              (long long)res[1][c].trades, (long long)res[2][c].trades);
        CHECK(res[0][c].pnl > res[1][c].pnl && res[1][c].pnl > res[2][c].pnl, "combo %d: PnL not falling with the fee", c);
        CHECK(st[1][c].wins > 0 && st[1][c].wins < res[1][c].trades, "combo %d: wins %lld", c, (long long)st[1][c].wins);
    }
    /* The fingerprint with the statistics asked for (docs/spec.md §5). */
    CHECK_EQ_I(res[1][0].trades, 57029);
    CHECK(fabs(res[1][0].pnl - -5165.579954236) < 5e-10, "combo 0 PnL %.17g", res[1][0].pnl);
    printf("default series, fee 0.0009, combos 0-2:\n");
    for (int c = 0; c < 3; c++)
        printf("  combo %d: trades %lld pnl %.17g wins %lld gross_profit %.17g gross_loss %.17g sum_sq %.17g "
               "max_drawdown %.17g bars_held %lld\n", c, (long long)res[1][c].trades, res[1][c].pnl,
               (long long)st[1][c].wins, st[1][c].gross_profit, st[1][c].gross_loss, st[1][c].sum_sq,
               st[1][c].max_drawdown, (long long)st[1][c].bars_held);

    /* Free windows (not derived from a length) on a short, volatile series. */
    static double x[3000];
    hs_make_close(7, 3000, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, x, NULL);
    const hs_windows fw[5] = {{{3, 6, 2, 9, 2, 3}}, {{10, 3, 7, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}}, {{25, 4, 9, 3, 18, 11}},
                              {{1, 40, 3, 30, 20, 1}}};
    for (int f = 0; f < 3; f++) check_series("free windows", x, 3000, fw, 5, fees[f], res[f], st[f]);
}

/* 2: the default, has_fee, and bad fees on every entry point. */
static void check_fee_rules(void) {
    double close[400];
    hs_make_close(3, 400, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, close, NULL);
    hs_windows w[2];
    hs_windows_from_length(6, &w[0], NULL);
    hs_windows_from_length(13, &w[1], NULL);
    hs_result a[2], b[2], c[2];
    hs_error err = {{0}};
    hs_sweep_options def = HS_SWEEP_OPTIONS_INIT, zero = {0}, odd = HS_SWEEP_OPTIONS_INIT, set = with_fee(NULL, HS_DEFAULT_FEE, NULL);
    zero.struct_size = sizeof zero; /* every v2 field zero: has_fee 0 is the default fee, not fee 0 */
    odd.fee = 0.5;                  /* ignored: has_fee is 0 */
    CHECK(hs_sweep(close, 400, w, 2, a, &def, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_sweep(close, 400, w, 2, b, &zero, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_sweep(close, 400, w, 2, c, &odd, &err) == HS_OK, "%s", err.msg);
    for (int k = 0; k < 2; k++) CHECK(SAME(a[k].pnl, b[k].pnl) && SAME(a[k].pnl, c[k].pnl), "combo %d: the default differs", k);
    CHECK(hs_sweep(close, 400, w, 2, b, &set, &err) == HS_OK, "%s", err.msg);
    for (int k = 0; k < 2; k++) CHECK(SAME(a[k].pnl, b[k].pnl), "combo %d: fee 0.0009 is not the default", k);
    CHECK(HS_DEFAULT_FEE == 0.0009, "HS_DEFAULT_FEE");

    const double bad[] = {-0.0001, 1.0, 1.5, -1.0, NAN, INFINITY, -INFINITY};
    const char *shown[] = {"-0.0001", "fee = 1:", "1.5", "-1", "nan", "inf", "-inf"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        hs_sweep_options o = with_fee(NULL, bad[k], NULL);
        err.msg[0] = 0;
        CHECK(hs_check_fee(bad[k], &err) == HS_ERR_USAGE && strstr(err.msg, shown[k]), "hs_check_fee(%g): %s", bad[k], err.msg);
        CHECK(hs_sweep(close, 400, w, 2, a, &o, &err) == HS_ERR_USAGE && strstr(err.msg, shown[k]) && strstr(err.msg, "fee"),
              "hs_sweep fee %g: %s", bad[k], err.msg);
        hs_series_ref s = {"X", close, 400};
        CHECK(hs_sweep_many(&s, 1, w, 2, a, NULL, NULL, NULL, &o, &err) == HS_ERR_USAGE && strstr(err.msg, "fee"),
              "hs_sweep_many fee %g: %s", bad[k], err.msg);
        size_t n = 0;
        CHECK(hs_trade_log_opt(close, 400, w, NULL, 0, &n, &o, &err) == HS_ERR_USAGE && strstr(err.msg, "fee"),
              "hs_trade_log_opt fee %g: %s", bad[k], err.msg);
        hs_live *live = (hs_live *)1;
        CHECK(hs_live_open_opt(close, 400, w, 2, &o, &live, &err) == HS_ERR_USAGE && !live && strstr(err.msg, "fee"),
              "hs_live_open_opt fee %g: %s", bad[k], err.msg);
    }
    CHECK(hs_check_fee(0.0, NULL) == HS_OK && hs_check_fee(0.999, NULL) == HS_OK, "good fees refused");
}

/* 3: sweep_many and live mode give hs_sweep's statistics. */
static void check_many_and_live(void) {
    enum { S = 3, N = 900, C = 4, HIST = 300 };
    static double x[S][N];
    hs_windows w[C] = {{{3, 6, 2, 1, 2, 3}}, {{5, 10, 3, 2, 2, 5}}, {{10, 3, 7, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}}};
    for (int s = 0; s < S; s++) hs_make_close(20 + (uint64_t)s, N, HS_DEFAULT_VOL * 4, HS_DEFAULT_START, x[s], NULL);
    hs_error err = {{0}};
    const double fee = 0.002;
    hs_series_ref refs[S];
    for (int s = 0; s < S; s++) refs[s] = (hs_series_ref){NULL, x[s], N};
    hs_result many[S * C];
    hs_stats many_st[S * C];
    hs_sweep_options o = with_fee(NULL, fee, many_st);
    CHECK(hs_sweep_many(refs, S, w, C, many, NULL, NULL, NULL, &o, &err) == HS_OK, "%s", err.msg);
    for (int s = 0; s < S; s++) {
        hs_result r[C];
        hs_stats st[C];
        hs_sweep_options one = with_fee(NULL, fee, st);
        CHECK(hs_sweep(x[s], N, w, C, r, &one, &err) == HS_OK, "%s", err.msg);
        for (int c = 0; c < C; c++)
            CHECK(same_stats(&st[c], &many_st[s * C + c]) && SAME(r[c].pnl, many[s * C + c].pnl),
                  "sweep_many series %d combo %d differs from hs_sweep", s, c);
    }

    /* live: one session per series, and one many-symbol session; after every append, batch = live */
    hs_live *live[S];
    const double *hist[S];
    size_t hist_n[S];
    hs_sweep_options lo = with_fee(NULL, fee, NULL);
    for (int s = 0; s < S; s++) {
        CHECK(hs_live_open_opt(x[s], HIST, w, C, &lo, &live[s], &err) == HS_OK, "%s", err.msg);
        hist[s] = x[s], hist_n[s] = HIST;
    }
    hs_live_many *m = NULL;
    CHECK(hs_live_open_many_opt(hist, hist_n, S, w, C, &lo, &m, &err) == HS_OK, "%s", err.msg);
    int failures = 0;
    for (size_t bar = HIST; bar < N && failures < 5; bar += 1 + bar % 3) {
        size_t k = bar + 1 + bar % 3 <= N ? 1 + bar % 3 : N - bar;
        double mbars[S];
        hs_stats mst[S * C];
        for (int s = 0; s < S; s++) {
            double pnl[C];
            int64_t trades[C];
            hs_stats lst[C], bst[C];
            hs_result r[C];
            CHECK(hs_live_append(live[s], x[s] + bar, k, pnl, trades, NULL, NULL, &err) == HS_OK, "%s", err.msg);
            CHECK(hs_live_stats(live[s], lst, &err) == HS_OK, "%s", err.msg);
            hs_sweep_options one = with_fee("unchecked", fee, bst);
            CHECK(hs_sweep(x[s], bar + k, w, C, r, &one, &err) == HS_OK, "%s", err.msg);
            for (int c = 0; c < C; c++) {
                int ok = same_stats(&lst[c], &bst[c]) && SAME(pnl[c], r[c].pnl) && trades[c] == r[c].trades;
                CHECK(ok, "live series %d combo %d after %zu bars: not the batch's", s, c, bar + k);
                if (!ok && failures++ < 5) print_stats("live", &lst[c]), print_stats("batch", &bst[c]);
            }
        }
        if (k == 1) {
            for (int s = 0; s < S; s++) mbars[s] = x[s][bar];
            CHECK(hs_live_append_many(m, mbars, NULL, NULL, NULL, NULL, &err) == HS_OK, "%s", err.msg);
            CHECK(hs_live_many_stats(m, mst, &err) == HS_OK, "%s", err.msg);
            for (int s = 0; s < S; s++) {
                hs_stats lst[C];
                hs_live_stats(live[s], lst, NULL);
                for (int c = 0; c < C; c++)
                    CHECK(same_stats(&mst[s * C + c], &lst[c]), "live many symbol %d combo %d after %zu bars", s, c, bar + 1);
            }
        } else {
            /* keep the many-symbol session in step: one bar per call */
            for (size_t j = 0; j < k; j++) {
                for (int s = 0; s < S; s++) mbars[s] = x[s][bar + j];
                hs_live_append_many(m, mbars, NULL, NULL, NULL, NULL, NULL);
            }
        }
    }
    CHECK(hs_live_stats(NULL, NULL, &err) == HS_ERR_USAGE, "live stats of NULL");
    for (int s = 0; s < S; s++) hs_live_free(live[s]);
    hs_live_free_many(m);
}

/* 4 */
static void check_derive(void) {
    hs_result r = {3.0, 4};
    hs_stats s = {3, 6.0, -3.0, 18.0, 2.5, 50};
    hs_derived d;
    hs_stats_derive(&r, &s, 200, &d);
    CHECK(d.win_rate == 0.75 && d.profit_factor == 2.0 && d.mean_trade == 0.75 && d.exposure == 0.25, "derive basic");
    CHECK(d.std_trade == sqrt((18.0 - 4.0 * 0.5625) / 3.0) && d.sharpe == 0.75 / d.std_trade, "derive std/sharpe");
    hs_stats nolose = {2, 1.0, 0.0, 0.5, 0.0, 4};
    hs_result two = {1.0, 2};
    hs_stats_derive(&two, &nolose, 10, &d);
    CHECK(isinf(d.profit_factor) && d.profit_factor > 0, "no losing trade: +inf, got %g", d.profit_factor);
    hs_result none = {0.0, 0};
    hs_stats zero = {0};
    hs_stats_derive(&none, &zero, 10, &d);
    CHECK(isnan(d.win_rate) && isnan(d.profit_factor) && isnan(d.mean_trade) && isnan(d.std_trade) && isnan(d.sharpe) &&
              d.exposure == 0.0, "no trades: NaN figures, exposure 0");
}

/* 5 */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double unit(void) { return (double)(rnd() >> 11) * 0x1p-53; }

static void check_properties(void) {
    enum { CASES = 300, MAXN = 400 };
    static double x[MAXN];
    static hs_trade t0[MAXN], t1[MAXN];
    hs_error err = {{0}};
    int failures = 0, trading = 0;
    for (int k = 0; k < CASES && failures < 5; k++) {
        size_t n = 4 + rnd() % (MAXN - 3);
        int kind = (int)(rnd() % 3);
        double level = 100.0;
        for (size_t i = 0; i < n; i++) {
            if (kind == 0) level *= exp((unit() - 0.5) * 0.02);             /* a random walk */
            else if (kind == 1) level = 1e-3 + unit() * 1e3;               /* any positive prices */
            else if (rnd() % 4 == 0) level = round((level + unit() - 0.5) * 100) / 100; /* plateaus, cents */
            x[i] = level > 0 ? level : 0.01;
        }
        hs_windows w;
        for (int q = 0; q < 6; q++) w.w[q] = 1 + (int64_t)(rnd() % (n < 40 ? n : 40));
        double fee = (rnd() % 3 == 0) ? 0.0 : unit() * 0.01;
        hs_result r;
        hs_stats s, s0, s9;
        hs_sweep_options o = with_fee(NULL, fee, &s);
        if (hs_sweep(x, n, &w, 1, &r, &o, &err) != HS_OK) {
            CHECK(0, "case %d: %s", k, err.msg);
            failures++;
            continue;
        }
        size_t m0 = 0, m9 = 0, m = 0;
        hs_sweep_options l0 = with_fee(NULL, 0.0, &s0), l9 = with_fee(NULL, HS_DEFAULT_FEE, &s9), lf = with_fee(NULL, fee, NULL);
        hs_trade_log_opt(x, n, &w, t0, MAXN, &m0, &l0, NULL);
        hs_trade_log_opt(x, n, &w, t1, MAXN, &m9, &l9, NULL);
        hs_trade tf[MAXN];
        hs_trade_log_opt(x, n, &w, tf, MAXN, &m, &lf, NULL);
        /* the properties, each from the trade log */
        int64_t wins = 0, held = 0;
        double run = 0.0, peak = 0.0, dd = 0.0;
        for (size_t i = 0; i < m; i++) {
            wins += tf[i].pnl > 0;
            held += tf[i].exit_bar - tf[i].entry_bar;
            run += tf[i].pnl;
            peak = run > peak ? run : peak;
            dd = peak - run > dd ? peak - run : dd;
        }
        hs_stats want = stats_from_log(tf, m);
        trading += m > 1;
        int ok = (size_t)r.trades == m && s.wins == wins && s.bars_held == held && SAME(s.max_drawdown, dd) &&
                 SAME(r.pnl, run) && same_stats(&s, &want);
        int same_trades = m0 == m9;
        for (size_t i = 0; same_trades && i < m0; i++)
            same_trades = t0[i].entry_bar == t1[i].entry_bar && t0[i].exit_bar == t1[i].exit_bar && t0[i].side == t1[i].side;
        CHECK(ok, "case %d (%zu bars, kind %d, fee %g): the statistics do not follow from the trade log", k, n, kind, fee);
        CHECK(same_trades, "case %d: fee 0 makes %zu trades, fee 0.0009 %zu (or other bars/sides)", k, m0, m9);
        CHECK(s0.bars_held == s9.bars_held, "case %d: bars_held depends on the fee", k);
        if (!ok || !same_trades) failures++;
        if (!ok) print_stats("sweep", &s), print_stats("log", &want);
    }
    CHECK(trading >= CASES / 2, "only %d of %d random cases made two trades or more: the properties test little", trading, CASES);
    printf("properties: %d random cases, %d with two trades or more\n", CASES, trading);
}

int main(void) {
    check_fee_rules();
    check_derive();
    check_many_and_live();
    check_against_log();
    check_properties();
    return hs_check_summary("test_stats");
}
