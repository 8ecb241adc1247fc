/* hs_sweep_many and hs_universe_list.  The independent source for every row is hs_sweep of the
 * reference variant (`unchecked`) on that series alone, and the study's fingerprint (57,029 trades,
 * -5165.5799542358627 as in tests/golden/default_run.json, docs/spec.md §5) for the default series inside
 * the universe. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"

enum { N_SERIES = 7, N_COMBOS = 80 };

typedef struct {
    hs_series_ref ref[N_SERIES];
    double *data[N_SERIES];
} universe;

/* Mixed lengths (the default series among them), one NaN series, one too short for the grid. */
static void make_universe(universe *u) {
    const size_t bars[N_SERIES] = {150000, 3000, 20000, 250, 5000, 150 /* < 200: too short */, 12000};
    for (int s = 0; s < N_SERIES; s++) {
        u->data[s] = malloc(bars[s] * sizeof(double));
        hs_make_close(s == 0 ? HS_DEFAULT_SEED : 100u + (unsigned)s, bars[s], HS_DEFAULT_VOL, HS_DEFAULT_START, u->data[s], NULL);
        u->ref[s] = (hs_series_ref){NULL, u->data[s], bars[s]};
    }
    u->data[4][1234] = NAN;
}

/* Each good series swept alone by the reference variant: the independent expectation. */
static hs_result alone[N_SERIES][N_COMBOS];

static void sweep_each_alone(const universe *u, const hs_windows *w) {
    hs_sweep_options ref = {.variant = "unchecked", .isa = NULL, .threads = 0};
    for (int s = 0; s < N_SERIES; s++)
        if (s != 4 && s != 5) hs_sweep(u->ref[s].close, u->ref[s].n_bars, w, N_COMBOS, alone[s], &ref, NULL);
}

static void check_against_alone(const universe *u, const hs_windows *w, const char *variant, int threads) {
    hs_result *out = malloc(N_SERIES * N_COMBOS * sizeof *out);
    hs_status status[N_SERIES];
    hs_error errs[N_SERIES], err;
    size_t failed = 99;
    hs_sweep_options opt = {.variant = variant, .isa = NULL, .threads = threads};
    hs_status st = hs_sweep_many(u->ref, N_SERIES, w, N_COMBOS, out, status, errs, &failed, &opt, &err);
    CHECK(st == HS_OK, "%s/%d: %s", variant, threads, err.msg);
    CHECK_EQ_I(failed, 2);
    CHECK(status[4] == HS_ERR_DATA && strstr(errs[4].msg, "close[1234]"), "NaN series: %d %s", status[4], errs[4].msg);
    CHECK(status[5] == HS_ERR_USAGE && strstr(errs[5].msg, "does not fit"), "short series: %d %s", status[5], errs[5].msg);
    CHECK(isnan(out[4 * N_COMBOS].pnl) && out[4 * N_COMBOS].trades == -1, "failed rows must be NaN / -1");
    CHECK_EQ_I(out[0].trades, HS_STUDY_TRADES);
    CHECK_BITS(out[0].pnl, HS_STUDY_PNL);
    for (int s = 0; s < N_SERIES; s++) {
        if (s == 4 || s == 5) continue;
        CHECK(status[s] == HS_OK, "series %d: %s", s, errs[s].msg);
        for (int c = 0; c < N_COMBOS; c++) {
            CHECK_EQ_I(out[s * N_COMBOS + c].trades, alone[s][c].trades);
            CHECK_BITS(out[s * N_COMBOS + c].pnl, alone[s][c].pnl);
        }
    }
    free(out);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void check_listing(void) {
    char dir[] = "/tmp/hs_universe_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char p[512], manifest[600];
    const char *files[] = {"b.csv", "a.f64", "c.npy", ".hidden"};
    for (int k = 0; k < 4; k++) snprintf(p, sizeof p, "%s/%s", dir, files[k]), write_file(p, "1\n");
    hs_universe_entry *e = NULL;
    size_t n = 0;
    hs_error err;
    CHECK(hs_universe_list(dir, &e, &n, &err) == HS_OK, "dir: %s", err.msg);
    CHECK(n == 3 && !strcmp(e[0].symbol, "a") && !strcmp(e[1].symbol, "b") && !strcmp(e[2].symbol, "c"),
          "dir listing by name without hidden files (n=%zu)", n);
    free(e);
    snprintf(p, sizeof p, "%s/*.csv", dir);
    CHECK(hs_universe_list(p, &e, &n, &err) == HS_OK && n == 1 && !strcmp(e[0].symbol, "b"), "glob: %s", err.msg);
    free(e);
    snprintf(manifest, sizeof manifest, "%s/universe.txt", dir);
    write_file(manifest, "# symbols\nEURUSD a.f64\n\n  b.csv   # trailing comment\n/abs/x.npy\n");
    CHECK(hs_universe_list(manifest, &e, &n, &err) == HS_OK && n == 3, "manifest: %s", err.msg);
    if (n == 3) {
        snprintf(p, sizeof p, "%s/a.f64", dir);
        CHECK(!strcmp(e[0].symbol, "EURUSD") && !strcmp(e[0].path, p), "manifest symbol/relative path: %s %s",
              e[0].symbol, e[0].path);
        CHECK(!strcmp(e[1].symbol, "b") && !strcmp(e[2].path, "/abs/x.npy"), "manifest default symbol / abs path");
    }
    free(e);
    /* The compact listing (hs_universe_open) lists the same series as the 1.0 array. */
    write_file(manifest, "# symbols\nEURUSD a.f64\n\n  b.csv   # trailing comment\n/abs/x.npy\n");
    hs_universe *u = NULL;
    CHECK(hs_universe_open(manifest, &u, &err) == HS_OK && hs_universe_count(u) == 3, "open: %s", err.msg);
    snprintf(p, sizeof p, "%s/a.f64", dir);
    CHECK(u && !strcmp(hs_universe_symbol(u, 0), "EURUSD") && !strcmp(hs_universe_path(u, 0), p) &&
              !strcmp(hs_universe_symbol(u, 1), "b") && !strcmp(hs_universe_path(u, 2), "/abs/x.npy") &&
              hs_universe_symbol(u, 3) == NULL && hs_universe_path(u, 3) == NULL,
          "compact listing: symbols and paths as the 1.0 array");
    hs_universe_close(u);
    write_file(manifest, "X a.f64\nX b.csv\n");
    CHECK(hs_universe_list(manifest, &e, &n, &err) == HS_ERR_USAGE && strstr(err.msg, "'X' names two series") &&
              strstr(err.msg, "a.f64 and ") && strstr(err.msg, "b.csv"),
          "duplicate symbol: %s", err.msg);
    write_file(manifest, "A a.f64 extra\n");
    CHECK(hs_universe_list(manifest, &e, &n, &err) == HS_ERR_USAGE && strstr(err.msg, "universe.txt:1"),
          "bad manifest line named: %s", err.msg);
    write_file(manifest, "# nothing\n");
    CHECK(hs_universe_list(manifest, &e, &n, &err) == HS_ERR_DATA && strstr(err.msg, "no series"), "empty: %s",
          err.msg);
    snprintf(p, sizeof p, "%s/none*.f64", dir);
    CHECK(hs_universe_list(p, &e, &n, &err) == HS_ERR_DATA && strstr(err.msg, "no file matches"), "glob: %s", err.msg);
    CHECK(hs_universe_list("/nonexistent/dir", &e, &n, &err) == HS_ERR_DATA, "missing path");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

int main(void) {
    universe u;
    make_universe(&u);
    int64_t lengths[N_COMBOS];
    hs_windows w[N_COMBOS];
    hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, N_COMBOS, lengths, NULL);
    for (int c = 0; c < N_COMBOS; c++) hs_windows_from_length(lengths[c], &w[c], NULL);
    sweep_each_alone(&u, w);
    /* A serial variant, and threaded ones at 1 and 2 threads: the pool must not change a bit. */
    check_against_alone(&u, w, "sliding", 1);
    check_against_alone(&u, w, "simd_wma_omp", 2);
    check_against_alone(&u, w, "sliding_lanes_omp", 1);
    check_against_alone(&u, w, "sliding_lanes_omp", 2);
    hs_error err;
    hs_result out[1];
    hs_sweep_options bad = {.variant = "no_such_variant", .isa = NULL, .threads = 0};
    CHECK(hs_sweep_many(u.ref, 1, w, 1, out, NULL, NULL, NULL, &bad, &err) == HS_ERR_USAGE &&
              strstr(err.msg, "no_such_variant"),
          "unknown variant is the call's error: %s", err.msg);
    check_listing();
    for (int s = 0; s < N_SERIES; s++) free(u.data[s]);
    return hs_check_summary("test_sweep_many");
}
