/* The equity tracker's lane form (src/variants/mtm_lanes.h) against the scalar tracker (src/spec/equity.c,
 * hs_mtm), lane by lane and bit for bit: E at every period end and mtm_max_drawdown.  Compiled with one
 * ISA's flags and vector header (CMake builds it into test_book_lanes_<isa>).  Each lane is its own combo
 * over one close series: crosses from 1 to 5,000 bars apart (the windows, the blocks' windows, and the
 * scalar block query past 1,024 bars), a pnl walk with jumps that set new peaks (the record scans), period
 * ends several to a stretch (P = bars), lanes that never cross, rows of unequal counts (a lane idle while
 * the others go on), and the state stored and reloaded between tables, as segments does. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "book_lanes_check.h"
#include "check.h"
#include "splitmix.h"
#include "hmasweep.h"
#include "vec.h"
#include "mtm_lanes.h"

enum { MAX_ROWS = 4000 };


static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

typedef struct {
    int64_t first_bar; /* −1: never crosses */
    int first_pos, rows;
    int64_t bar[MAX_ROWS]; /* each close's bar (the last at n: the close after the last bar) */
    double p[MAX_ROWS];
} lane_trades;

/* A lane's crosses: gaps drawn from one of three scales per lane, p a walk with rare jumps. */
static void make_trades(lane_trades *t, size_t n, uint64_t *s) {
    t->rows = 0;
    if (splitmix_next(s) % 10 == 0) {
        t->first_bar = -1;
        return;
    }
    static const double scales[3] = {8.0, 120.0, 5000.0};
    double scale = scales[splitmix_next(s) % 3];
    t->first_bar = (int64_t)(splitmix_unit(s) * (double)n / 4);
    t->first_pos = splitmix_next(s) & 1 ? 1 : -1;
    int64_t b = t->first_bar;
    for (;;) {
        b += 1 + (int64_t)(splitmix_unit(s) * scale);
        if (b >= (int64_t)n - 1 || t->rows == MAX_ROWS - 1) break;
        t->bar[t->rows] = b;
        t->p[t->rows++] = splitmix_unit(s) < 0.03 ? 40.0 * splitmix_unit(s) : 2.0 * (splitmix_unit(s) - 0.55);
    }
    t->bar[t->rows] = (int64_t)n; /* the close after the last bar */
    t->p[t->rows++] = splitmix_unit(s) - 0.5;
}

/* One case: close series, HS_VN lanes, P ends; 0 when every E cell and drawdown matched. */
static int one_case(uint64_t *s, size_t n, size_t P, double keep) {
    double *close = malloc(n * sizeof *close), *table = malloc(hs_mtm_ranges_doubles(n, 1) * sizeof *table);
    int64_t *ends = malloc(P * sizeof *ends);
    double *E1 = malloc(P * HS_VN * sizeof *E1), *E2 = malloc(P * HS_VN * sizeof *E2);
    lane_trades *t = malloc(HS_VN * sizeof *t);
    double mdd1[HS_VN], mdd2[HS_VN];
    if (!close || !table || !ends || !E1 || !E2 || !t) {
        CHECK(0, "mtm lanes: out of memory");
        free(close), free(table), free(ends), free(E1), free(E2), free(t);
        return 1;
    }
    double x = 100.0, vol = splitmix_next(s) & 1 ? 0.02 : 0.001;
    for (size_t i = 0; i < n; i++) {
        x *= 1.0 + vol * (splitmix_unit(s) - 0.5);
        close[i] = splitmix_unit(s) < 0.002 ? x * (splitmix_unit(s) < 0.5 ? 1.3 : 0.7) : x; /* one-bar spikes mid-stretch */
    }
    hs_period_ends(n, P, ends, NULL);
    hs_mtm_ranges ranges = hs_mtm_ranges_make(close, n, table, 1);
    hs_equity_terms one = {ends, P, E1, HS_VN, mdd1, ranges}, lanes = {ends, P, E2, HS_VN, mdd2, ranges};
    /* the scalar tracker, lane by lane */
    for (int l = 0; l < HS_VN; l++) {
        make_trades(&t[l], n, s);
        hs_mtm m;
        hs_mtm_init(&m, &one, (size_t)l, close, keep);
        if (t[l].first_bar >= 0) {
            hs_mtm_cross(&m, (size_t)t[l].first_bar, 0.0, t[l].first_pos);
            for (int r = 0, pos = t[l].first_pos; r + 1 < t[l].rows; r++) {
                pos = -pos;
                hs_mtm_cross(&m, (size_t)t[l].bar[r], t[l].p[r], pos);
            }
        }
        hs_mtm_finish(&m, n, &one, (size_t)l);
    }
    /* the lanes, row by row, the state stored and reloaded every 37 rows */
    hs_mtm_lanes_ctx cx;
    hs_mtm_lanes st;
    mtm_lanes_regs g;
    hs_mtm_lanes_ctx_init(&cx, close, n, keep, &lanes);
    hs_mtm_lanes_new(&st, &cx, 0);
    int rows = 0, pos[HS_VN];
    double pnl[HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        pnl[l] = 0.0, pos[l] = t[l].first_pos;
        if (t[l].first_bar >= 0) hs_mtm_lanes_start(&cx, &st, l, t[l].first_bar, t[l].first_pos);
        rows = t[l].rows > rows ? t[l].rows : rows;
    }
    hs_mtm_lanes_load(&st, &g);
    for (int r = 0; r < rows; r++) {
        int64_t code[HS_VN];
        for (int l = 0; l < HS_VN; l++) {
            if (r < t[l].rows) pos[l] = -pos[l];
            code[l] = r < t[l].rows ? t[l].bar[r] << 1 | (pos[l] > 0) : -1;
        }
        g = hs_mtm_lanes_row(&cx, &st, g, vi_loadu(code), vd_loadu(pnl));
        for (int l = 0; l < HS_VN; l++)
            if (r < t[l].rows) pnl[l] += t[l].p[r];
        if (r % 37 == 36) hs_mtm_lanes_store(&st, &g), hs_mtm_lanes_load(&st, &g);
    }
    hs_mtm_lanes_store(&st, &g);
    for (int l = 0; l < HS_VN; l++) hs_mtm_lanes_finish(&cx, &st, l);
    int bad = 0;
    for (size_t i = 0; i < P * HS_VN; i++)
        if (!same_bits(E1[i], E2[i]) && bad++ < 3)
            CHECK(0, "mtm lanes (%s, %zu bars, P = %zu, keep %.17g): E[%zu] of lane %zu is %.17g, the scalar tracker's %.17g",
                  HS_VEC_STR(HS_ISA_NAME), n, P, keep, i / HS_VN, i % HS_VN, E2[i], E1[i]);
    for (int l = 0; l < HS_VN; l++)
        if (!same_bits(mdd1[l], mdd2[l]) && bad++ < 3)
            CHECK(0, "mtm lanes (%s, %zu bars, P = %zu): lane %d's mtm_max_drawdown %.17g, the scalar tracker's %.17g",
                  HS_VEC_STR(HS_ISA_NAME), n, P, l, mdd2[l], mdd1[l]);
    CHECK(bad == 0, "mtm lanes (%s, %zu bars, P = %zu, keep %.17g): %d differences", HS_VEC_STR(HS_ISA_NAME), n, P, keep,
          bad);
    free(close), free(table), free(ends), free(E1), free(E2), free(t);
    return bad;
}

int mtm_lanes_check(void) {
    uint64_t s = 0x5eed;
    int failed = 0;
    for (int k = 0; k < 120; k++) {
        size_t n = 2000 + (size_t)(splitmix_next(&s) % 18000);
        static const size_t Ps[4] = {1, 16, 1000, 0};
        size_t P = Ps[k % 4] ? Ps[k % 4] : n;
        double keep = k % 3 ? 1.0 - 0.0009 : 1.0;
        failed += one_case(&s, n, P, keep) != 0;
    }
    CHECK(failed == 0, "mtm lanes (%s): %d of 120 cases differ from the scalar tracker", HS_VEC_STR(HS_ISA_NAME), failed);
    return hs_check_summary("test_book_lanes (equity lanes)"); /* this file's checks (check.h counts per file) */
}
