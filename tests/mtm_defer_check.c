/* The deferred drawdown (src/variants/mtm_defer.h) against the scalar tracker (src/spec/equity.c, hs_mtm),
 * lane by lane and bit for bit: E at every period end and mtm_max_drawdown.  Compiled with one ISA's flags
 * and vector header (CMake builds it into test_book_lanes_<isa>; segments takes the path at AVX2 and
 * AVX-512, and it is written against the vector vocabulary, so every ISA runs it here).
 *
 * Each lane is its own combo over one close series, fed as segments' books feed it: tables of rows (a
 * close per row and lane, its cell: the stretch's bounds on the close and its signed exit price; per
 * 64-bar chunk, the rows before it and its bars with a row, and the bar of the last row before it, as the
 * books record them), each table's passes and E at its span's period ends, and a last table with the
 * closes after the last bar.  The cases reach every path:
 *   - crosses from 1 to 5,000 bars apart, and a pnl walk with jumps that set new peaks (barriers, and
 *     candidates kept from earlier tables resolved there);
 *   - lanes that lose steadily for thousands of rows (more candidates than a lane's list holds: the list
 *     cut and settled);
 *   - bounds from 64-bar chunks (as the books make them) or each stretch's own extremes (as tight as a bound
 *     can be, where the margin alone keeps it below e);
 *   - period ends several to a stretch (P = bars), before a lane's first cross, on a cross's bar, and in a
 *     stretch that runs on into the next table;
 *   - lanes that never cross, rows of unequal counts, tables of spans of 1 to 4,096 bars. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "book_lanes_check.h"
#include "check.h"
#include "splitmix.h"
#include "hmasweep.h"
#include "vec.h"
#include "mtm_defer.h"

enum { MAX_ROWS = 6000, MAX_TABLE = 4096 }; /* (segments' SEG_BOOK_SPAN) */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

typedef struct {
    int64_t first_bar; /* −1: never crosses */
    int first_pos, rows;
    int64_t bar[MAX_ROWS]; /* each close's bar (the last at n: the close after the last bar) */
    double p[MAX_ROWS];
} lane_trades;

/* A lane's crosses: gaps drawn from one of four scales per lane; p a walk with rare jumps, or (one lane in
 * four) a steady loss. */
static void make_trades(lane_trades *t, size_t n, uint64_t *s) {
    t->rows = 0;
    if (splitmix_next(s) % 10 == 0) {
        t->first_bar = -1;
        return;
    }
    static const double scales[4] = {3.0, 8.0, 120.0, 5000.0};
    double scale = scales[splitmix_next(s) % 4];
    int losing = splitmix_next(s) % 4 == 0;
    t->first_bar = (int64_t)(splitmix_unit(s) * (double)n / 4);
    t->first_pos = splitmix_next(s) & 1 ? 1 : -1;
    int64_t b = t->first_bar;
    for (;;) {
        b += 1 + (int64_t)(splitmix_unit(s) * scale);
        if (b >= (int64_t)n - 1 || t->rows == MAX_ROWS - 1) break;
        t->bar[t->rows] = b;
        t->p[t->rows++] = losing                       ? -0.2 * splitmix_unit(s)
                          : splitmix_unit(s) < 0.03 ? 40.0 * splitmix_unit(s)
                                                    : 2.0 * (splitmix_unit(s) - 0.55);
    }
    t->bar[t->rows] = (int64_t)n; /* the close after the last bar */
    t->p[t->rows++] = splitmix_unit(s) - 0.5;
}


/* The bounds the books write for the stretch [from, b] (b the close's bar, n for the close after the last
 * bar): the 64-bar chunks it touches, or its own extremes. */
static void stretch_bounds(const double *close, size_t n, int64_t from, int64_t b, int tight, float *hi, float *lo) {
    int64_t a = tight ? from : from / 64 * 64, z = tight ? b + 1 : (b / 64 + 1) * 64;
    if (z > (int64_t)n) z = (int64_t)n;
    double h = close[a], m = close[a];
    for (int64_t i = a; i < z; i++) h = close[i] > h ? close[i] : h, m = close[i] < m ? close[i] : m;
    *hi = hs_defer_bound_hi(h), *lo = hs_defer_bound_lo(m);
}

/* One case: the close series and HS_VN lanes' trades t, P ends; 0 when every E cell and drawdown matched.
 * `s` draws the tables' spans. */
static int run_case(uint64_t *s, const double *close, size_t n, lane_trades *t, size_t P, double keep, int tight) {
    int64_t *ends = malloc(P * sizeof *ends);
    double *E1 = malloc(P * HS_VN * sizeof *E1), *E2 = malloc(P * HS_VN * sizeof *E2);
    hs_defer_lanes *st = malloc(sizeof *st);
    /* the table's planes as segments lays them out (mtm_defer.h hs_defer_table), two of each (tables
     * alternate), zeroed: the rows past a lane's last that pass A loads are defined */
    size_t stride = HS_DEFER_STRIDE(MAX_TABLE);
    uint32_t *cells = calloc(2 * HS_VN * HS_DEFER_FIELDS * stride, sizeof *cells);
    uint32_t *hits = malloc(2 * HS_VN * stride * sizeof *hits);
    double *p = malloc(MAX_TABLE * HS_VN * sizeof *p), *lb = calloc(2 * HS_VN * stride, sizeof *lb);
    double *pnl_at = calloc(2 * HS_VN * stride, sizeof *pnl_at);
    double mdd1[HS_VN], mdd2[HS_VN];
    if (!ends || !E1 || !E2 || !st || !cells || !hits || !p || !lb || !pnl_at) {
        CHECK(0, "mtm defer: out of memory");
        free(ends), free(E1), free(E2), free(st), free(cells), free(hits), free(p), free(lb), free(pnl_at);
        return 1;
    }
    hs_period_ends(n, P, ends, NULL);
    for (size_t i = 0; i < P * HS_VN; i++) E2[i] = NAN; /* an end left unwritten shows */
    hs_equity_terms one = {ends, P, E1, HS_VN, mdd1, {0}}, lanes = {ends, P, E2, HS_VN, mdd2, {0}};
    /* the scalar tracker, lane by lane (no range table: it scans) */
    for (int l = 0; l < HS_VN; l++) {
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
    /* the deferred lanes, as segments feeds them: tables of spans of bars of random lengths (a lane's rows
     * of a table are its closes in the span), each with its period ends, then a last table with the closes
     * after the last bar */
    hs_defer_ctx cx;
    hs_defer_ctx_init(&cx, close, n, keep, &lanes);
    enum { CHUNKS = MAX_TABLE / 64 };
    static uint32_t rows_at[2][HS_VN * CHUNKS], from_at[HS_VN * CHUNKS];
    static uint64_t trades_at[2][HS_VN * CHUNKS];
    int64_t from_in[2][HS_VN];
    hs_defer_table tvs[2];
    for (int par = 0; par < 2; par++)
        tvs[par] = (hs_defer_table){cells + HS_DEFER_LEAD + (size_t)par * HS_VN * HS_DEFER_FIELDS * stride,
                                    p,
                                    lb + (size_t)par * HS_VN * stride,
                                    pnl_at + (size_t)par * HS_VN * stride,
                                    hits + (size_t)par * HS_VN * stride,
                                    HS_VN,
                                    stride,
                                    rows_at[par],
                                    trades_at[par],
                                    CHUNKS,
                                    0,
                                    0,
                                    from_in[par]};
    int par = 0;
    hs_defer_lanes_new(st, 0);
    hs_book_lanes acc = hs_book_lanes_new();
    int done[HS_VN], pos[HS_VN];
    for (int l = 0; l < HS_VN; l++) {
        done[l] = 0, pos[l] = t[l].first_pos;
        if (t[l].first_bar >= 0) hs_defer_lanes_start(&cx, st, &tvs[0], l, t[l].first_bar, t[l].first_pos);
    }
    size_t k = 0;
    for (int64_t from = 0;; par = !par) {
        int last = from >= (int64_t)n;
        int64_t to = last ? (int64_t)n + 1 : from + 1 + (int64_t)(splitmix_next(s) % (splitmix_next(s) & 1 ? 100 : MAX_TABLE));
        if (!last && to > (int64_t)n) to = (int64_t)n;
        tvs[par].span_bar = from, tvs[par].n_chunks = (size_t)(to - from + 63) / 64;
        hs_defer_table tv = tvs[par];
        size_t rows = 0;
        memset(p, 0, MAX_TABLE * HS_VN * sizeof *p);
        memset(trades_at[par], 0, sizeof trades_at[par]);
        for (int l = 0; l < HS_VN; l++) {
            int64_t before = done[l] ? t[l].bar[done[l] - 1] : 0; /* the last row's bar before the table */
            size_t r = 0;
            for (; done[l] < t[l].rows && t[l].bar[done[l]] < to; r++, done[l]++) {
                int q = done[l];
                int64_t start = q ? t[l].bar[q - 1] : t[l].first_bar, b = t[l].bar[q];
                float hi, lo;
                stretch_bounds(close, n, start, b < (int64_t)n ? b : (int64_t)n - 1, tight, &hi, &lo);
                pos[l] = -pos[l];
                hs_defer_put_cell(hs_defer_field(&tv, l, 0), stride, r, hi, lo,
                                  close[b < (int64_t)n ? b : (int64_t)n - 1], pos[l] > 0);
                p[r * HS_VN + (size_t)l] = t[l].p[q];
                if (!last) trades_at[par][l * CHUNKS + (size_t)(b - from) / 64] |= 1ULL << ((b - from) % 64);
                st->last_bar[l] = b;
            }
            st->rows[l] = r;
            rows = r > rows ? r : rows;
            for (size_t c = 0, above = 0; c < CHUNKS; c++) { /* the rows before each chunk, and the last one's bar */
                uint64_t w = trades_at[par][l * CHUNKS + c];
                rows_at[par][l * CHUNKS + c] = (uint32_t)above;
                from_at[l * CHUNKS + c] = (uint32_t)before;
                above += (size_t)__builtin_popcountll(w);
                if (w) before = from + 64 * (int64_t)c + 63 - __builtin_clzll(w);
            }
        }
        hs_defer_span span = {k, 0, from_at};
        for (; !last && k < P && ends[k] < to; k++) span.n++;
        hs_defer_passes(&cx, st, &tv, &tvs[!par], rows, &acc, last);
        hs_defer_put_ends(&cx, st, &tv, &span, 0, HS_VN);
        hs_defer_next_table(st, &tv, &tvs[!par]);
        if (last) break;
        from = to;
    }
    for (int l = 0; l < HS_VN; l++) hs_defer_lanes_finish(&cx, st, l);
    int bad = 0;
    for (size_t i = 0; i < P * HS_VN; i++)
        if (!same_bits(E1[i], E2[i]) && bad++ < 3)
            CHECK(0, "mtm defer (%s, %zu bars, P = %zu, keep %.17g): E[%zu] of lane %zu is %.17g, the scalar tracker's %.17g",
                  HS_VEC_STR(HS_ISA_NAME), n, P, keep, i / HS_VN, i % HS_VN, E2[i], E1[i]);
    for (int l = 0; l < HS_VN; l++)
        if (!same_bits(mdd1[l], mdd2[l]) && bad++ < 3)
            CHECK(0, "mtm defer (%s, %zu bars, P = %zu, %s bounds): lane %d's mtm_max_drawdown %.17g, the scalar tracker's %.17g",
                  HS_VEC_STR(HS_ISA_NAME), n, P, tight ? "tight" : "chunk", l, mdd2[l], mdd1[l]);
    CHECK(bad == 0, "mtm defer (%s, %zu bars, P = %zu, keep %.17g): %d differences", HS_VEC_STR(HS_ISA_NAME), n, P, keep,
          bad);
    free(ends), free(E1), free(E2), free(st), free(cells), free(hits), free(p), free(lb), free(pnl_at);
    return bad;
}

/* A case's close series (n bars) and HS_VN lanes' trades; 0 (checked) when out of memory. */
static int case_buffers(size_t n, double **close, lane_trades **t) {
    *close = malloc(n * sizeof **close), *t = malloc(HS_VN * sizeof **t);
    if (*close && *t) return 1;
    CHECK(0, "mtm defer: out of memory");
    free(*close), free(*t);
    return 0;
}

/* A random case: a walk with one-bar spikes, HS_VN lanes of random trades. */
static int one_case(uint64_t *s, size_t n, size_t P, double keep, int tight) {
    double *close;
    lane_trades *t;
    if (!case_buffers(n, &close, &t)) return 1;
    double x = 100.0, vol = splitmix_next(s) & 1 ? 0.02 : 0.001;
    for (size_t i = 0; i < n; i++) {
        x *= 1.0 + vol * (splitmix_unit(s) - 0.5);
        close[i] = splitmix_unit(s) < 0.002 ? x * (splitmix_unit(s) < 0.5 ? 1.3 : 0.7) : x; /* one-bar spikes mid-stretch */
    }
    for (int l = 0; l < HS_VN; l++) make_trades(&t[l], n, s);
    int bad = run_case(s, close, n, t, P, keep, tight);
    free(close), free(t);
    return bad;
}

/* The margin's case: a stretch whose lowest e lies a hair (1e-6 pp) below the epoch's lowest known e,
 * closer than the bounds' own error without their margin (the reciprocal's, ~100·keep·2^-14 pp at AVX-512
 * and ~2^-22 of 100·keep at AVX2; the division's elsewhere is far smaller).  One entry price per round for
 * every lane, a flat close but for one dip per lane.  Lane l: a short from bar 25l + 2 (flat), a long
 * from 25l + 5 over its dip at 25l + 12 (its slope from pass A's reciprocal of the float exit), closed at
 * 25l + 20 with p set so that the cross's e is the dip's e + 1e-6 (the p values are the test's, as in the
 * random cases), then a short to the end, which gains at the other lanes' dips.  The drawdown is the
 * dip's: a bound above it without the margin rules the stretch out and gives the cross's instead (cut to
 * 0, the margin fails these cases at AVX-512 and AVX2). */
static int near_tie_case(uint64_t *s, int tight) {
    enum { N = 200, P = 16 };
    _Static_assert(25 * HS_VN <= N, "a lane's 25 bars each");
    const double keep = 1.0 - 0.0009;
    int bad = 0;
    for (int round = 0; round < 16; round++) {
        double *close;
        lane_trades *t;
        if (!case_buffers(N, &close, &t)) return 1;
        double entry = 50.0 + 97.0 * splitmix_unit(s);
        for (int i = 0; i < N; i++) close[i] = entry;
        for (int l = 0; l < HS_VN; l++) {
            double dip = entry * (1.0 - 1e-7 * (1.0 + splitmix_unit(s)));
            close[25 * l + 12] = dip;
            t[l].first_bar = 25 * l + 2;
            t[l].first_pos = -1;
            t[l].rows = 3;
            t[l].bar[0] = 25 * l + 5, t[l].p[0] = 0.0;
            t[l].bar[1] = 25 * l + 20;
            t[l].p[1] = hs_trade_pnl(1.0, entry, dip, keep) - (keep - 1.0) * 100.0 + 1e-6;
            t[l].bar[2] = N, t[l].p[2] = 0.0; /* the close after the last bar */
        }
        bad += run_case(s, close, N, t, P, keep, tight) != 0;
        free(close), free(t);
    }
    return bad;
}

int mtm_defer_check(void) {
    uint64_t s = 0x5eed;
    int failed = 0;
    for (int k = 0; k < 120; k++) {
        size_t n = 2000 + (size_t)(splitmix_next(&s) % 28000);
        static const size_t Ps[4] = {1, 16, 1000, 0};
        size_t P = Ps[k % 4] ? Ps[k % 4] : n;
        if (P > n) P = n;
        double keep = k % 3 ? 1.0 - 0.0009 : 1.0;
        failed += one_case(&s, n, P, keep, k % 5 == 0) != 0;
    }
    failed += near_tie_case(&s, 0) != 0;
    failed += near_tie_case(&s, 1) != 0;
    CHECK(failed == 0, "mtm defer (%s): %d of 120 cases differ from the scalar tracker", HS_VEC_STR(HS_ISA_NAME), failed);
    return hs_check_summary("test_book_lanes (deferred drawdown)"); /* this file's checks (check.h counts per file) */
}
