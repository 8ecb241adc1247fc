/* The books' lane form (src/variants/book_lanes.h) against the book's one-trade-at-a-time form (tier0.h
 * hs_book_close_at), lane by lane and bit for bit, compiled with one ISA's flags and vector header (CMake
 * builds this file once per ISA: test_book_lanes_<isa>).  Each lane books its own trades: random walks'
 * reversals, trades of unequal counts (the shorter columns padded with +0.0, as segments pads them), flat
 * trades (exit = entry at fee 0: p = +0.0), and extreme prices whose trades gain +inf and lose −inf, so
 * that the PnL total turns NaN and the running high and the drawdown must keep C's a > b ? a : b. */
#include <stdint.h>
#include <string.h>

#include "book_lanes_check.h"
#include "check.h"
#include "splitmix.h"
#include "vec.h"
#include "book_lanes.h"

enum { MAX_TRADES = 300 };


/* A price for trade k of a case: `kind` 0 a walk near 100, 1 a walk with flat trades, 2 extreme prices. */
static double price_of(int kind, uint64_t *s, double prev) {
    switch (kind) {
    case 0: return prev * (1.0 + 0.02 * (splitmix_unit(s) - 0.5));
    case 1: return splitmix_unit(s) < 0.3 ? prev : prev * (1.0 + 0.01 * (splitmix_unit(s) - 0.5));
    default: {
        double u = splitmix_unit(s);
        return u < 0.25 ? 1e306 : u < 0.5 ? 1e-306 : u < 0.75 ? prev : 1.0 + u;
    }
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* One case: HS_VN lanes, each its own trade list of n[l] trades, booked both ways and compared. */
static void one_case(int kind, double keep, uint64_t *s, int *nan_seen, int *zero_seen) {
    static double p[MAX_TRADES][HS_VN];
    hs_book ref[HS_VN];
    int n[HS_VN], rows = 0;
    memset(p, 0, sizeof p); /* +0.0: the padding of the shorter columns */
    for (int l = 0; l < HS_VN; l++) {
        n[l] = (int)(splitmix_next(s) % MAX_TRADES);
        rows = n[l] > rows ? n[l] : rows;
        ref[l] = hs_book_new(keep);
        ref[l].first_bar = 7;
        double price = 100.0;
        int pos = splitmix_next(s) & 1 ? 1 : -1;
        for (int k = 0; k < n[l]; k++) {
            double exit = price_of(kind, s, price);
            hs_book_open(&ref[l], pos, price);
            p[k][l] = hs_trade_pnl((double)pos, price, exit, keep);
            hs_book_close_at(&ref[l], exit, (size_t)(8 + 3 * k), NULL);
            *zero_seen |= p[k][l] == 0.0;
            price = exit;
            pos = -pos;
        }
        *nan_seen |= ref[l].pnl != ref[l].pnl;
    }
    hs_book_lanes acc = hs_book_lanes_new();
    for (int r = 0; r < rows; r++) hs_book_lanes_book(&acc, vd_loadu(p[r]));
    for (int l = 0; l < HS_VN; l++) {
        hs_outcome got = hs_book_lanes_outcome(&acc, l, ref[l].trades, ref[l].first_bar, 8 + 3 * (n[l] - 1));
        hs_outcome want = hs_book_outcome(&ref[l]);
        CHECK(same_bits(got.r.pnl, want.r.pnl), "kind %d lane %d pnl %.17g != %.17g", kind, l, got.r.pnl, want.r.pnl);
        CHECK_EQ_I(got.r.trades, want.r.trades);
        CHECK_EQ_I(got.s.wins, want.s.wins);
        CHECK(same_bits(got.s.gross_profit, want.s.gross_profit), "kind %d lane %d gross_profit", kind, l);
        CHECK(same_bits(got.s.gross_loss, want.s.gross_loss), "kind %d lane %d gross_loss", kind, l);
        CHECK(same_bits(got.s.sum_sq, want.s.sum_sq), "kind %d lane %d sum_sq", kind, l);
        CHECK(same_bits(got.s.max_drawdown, want.s.max_drawdown), "kind %d lane %d max_drawdown %.17g != %.17g", kind,
              l, got.s.max_drawdown, want.s.max_drawdown);
        CHECK_EQ_I(got.s.bars_held, want.s.bars_held);
    }
}

int book_lanes_check(void) {
    uint64_t s = 42;
    int nan_seen = 0, zero_seen = 0;
    const double keeps[] = {hs_keep(0.0), hs_keep(HS_DEFAULT_FEE), hs_keep(0.5)};
    for (int kind = 0; kind < 3; kind++)
        for (int f = 0; f < 3; f++)
            for (int rep = 0; rep < 40; rep++) one_case(kind, keeps[f], &s, &nan_seen, &zero_seen);
    /* The cases must reach what they are for: a NaN total and +0.0 trades. */
    CHECK(nan_seen, "no case made a NaN PnL total");
    CHECK(zero_seen, "no case made a +0.0 trade");
    printf("lanes: %d (HS_VN)\n", HS_VN);
    return hs_check_summary("test_book_lanes");
}
