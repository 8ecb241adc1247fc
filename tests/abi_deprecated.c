/* Every deprecated 1.x call (HS_DEPRECATED in include/hmasweep.h and include/hmasweep_client.h; docs/library.md
 * "One way to extend a call") against libhmasweep.so: each is still exported and gives what the call its
 * message names gives, bit for bit and status for status (errors with the same message), and the new calls
 * give what an independent in-process computation gives (hs_sweep, hs_live_* over the same bars).  The
 * client's are checked against a real `hmasweep serve` (HS_CLI).  Compiled with -Wno-deprecated-declarations
 * (tests/library.cmake); tests/test_deprecated.sh checks that the same calls do warn without it.  Where the
 * library has symbol versions, the 1.4 names are HMASWEEP_1.4 and the deprecated ones keep HMASWEEP_1.3. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"
#include "hmasweep_client.h"
#include "serve_fork.h"

#define BARS 3000
#define HIST 2000 /* bars of history a live session opens with; the rest are appended */
#define N 3
#define SYMS 2
static double close_[BARS], other_[BARS];
static hs_windows combos[N];

static int same(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static void check_trade_log(void) {
    hs_error e1, e2;
    size_t n1 = 0, n2 = 0;
    CHECK(hs_trade_log(close_, BARS, &combos[0], NULL, 0, &n1, &e1) == HS_OK, "%s", e1.msg);
    CHECK(hs_trade_log_opt(close_, BARS, &combos[0], NULL, 0, &n2, NULL, &e2) == HS_OK && n1 == n2 && n1 > 10,
          "sizing: %zu vs %zu trades", n1, n2);
    hs_trade *t1 = calloc(n1, sizeof *t1), *t2 = calloc(n1, sizeof *t2);
    CHECK(hs_trade_log(close_, BARS, &combos[0], t1, n1, &n1, &e1) == HS_OK &&
              hs_trade_log_opt(close_, BARS, &combos[0], t2, n1, &n2, NULL, &e2) == HS_OK && same(t1, t2, n1 * sizeof *t1),
          "hs_trade_log's trades differ from hs_trade_log_opt(NULL)'s");
    hs_result r;
    CHECK(hs_sweep(close_, BARS, &combos[0], 1, &r, NULL, &e1) == HS_OK && r.trades == (int64_t)n1, "vs hs_sweep");
    hs_windows bad = {{0, 6, 2, 1, 2, 3}};
    hs_status s1 = hs_trade_log(close_, BARS, &bad, NULL, 0, &n1, &e1);
    hs_status s2 = hs_trade_log_opt(close_, BARS, &bad, NULL, 0, &n2, NULL, &e2);
    CHECK(s1 == HS_ERR_USAGE && s1 == s2 && !strcmp(e1.msg, e2.msg), "bad window: %d '%s' vs %d '%s'", s1, e1.msg, s2,
          e2.msg);
    free(t1), free(t2);
}

/* Two sessions fed the same bars give the same answers to every call. */
static void check_live(void) {
    hs_error err;
    hs_live *a = NULL, *b = NULL;
    CHECK(hs_live_open(close_, HIST, combos, N, &a, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_live_open_opt(close_, HIST, combos, N, NULL, &b, &err) == HS_OK, "%s", err.msg);
    if (!a || !b) return;
    for (size_t i = HIST; i < BARS; i += 7) {
        size_t k = BARS - i < 7 ? BARS - i : 7;
        double pa[N], pb[N];
        int64_t ta[N], tb[N];
        int8_t qa[N], qb[N];
        uint8_t xa[N], xb[N];
        CHECK(hs_live_append(a, close_ + i, k, pa, ta, qa, xa, &err) == HS_OK &&
                  hs_live_append(b, close_ + i, k, pb, tb, qb, xb, &err) == HS_OK,
              "%s", err.msg);
        CHECK(same(pa, pb, sizeof pa) && same(ta, tb, sizeof ta) && same(qa, qb, sizeof qa) && same(xa, xb, sizeof xa),
              "hs_live_open's session differs from hs_live_open_opt(NULL)'s after bar %zu", i + k);
    }
    hs_result batch[N];
    hs_stats sa[N], sb[N];
    double pa[N];
    CHECK(hs_sweep(close_, BARS, combos, N, batch, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_live_append(a, close_, 0, pa, NULL, NULL, NULL, &err) == HS_ERR_USAGE, "k = 0 is refused");
    CHECK(hs_live_stats(a, sa, &err) == HS_OK && hs_live_stats(b, sb, &err) == HS_OK && same(sa, sb, sizeof sa),
          "statistics differ");
    CHECK(hs_live_equity(a, pa, NULL, &err) == HS_OK, "%s", err.msg);
    for (int c = 0; c < N; c++) CHECK_BITS(pa[c], batch[c].pnl);
    hs_live_free(a), hs_live_free(b);
}

static void check_live_many(void) {
    const double *hist[SYMS] = {close_, other_};
    size_t nb[SYMS] = {HIST, HIST - 500};
    hs_error err, e2;
    hs_live_many *old = NULL, *old_opt = NULL, *now = NULL, *now_fee = NULL;
    hs_sweep_options fee = HS_SWEEP_OPTIONS_INIT;
    fee.has_fee = 1, fee.fee = 0.002;
    CHECK(hs_live_open_many(hist, nb, SYMS, combos, N, &old, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_live_open_many_opt(hist, nb, SYMS, combos, N, &fee, &old_opt, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_live_many_open(hist, nb, SYMS, combos, N, NULL, &now, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_live_many_open(hist, nb, SYMS, combos, N, &fee, &now_fee, &err) == HS_OK, "%s", err.msg);
    if (!old || !old_opt || !now || !now_fee) return;
    double p[4][SYMS * N];
    int64_t t[4][SYMS * N];
    int8_t q[4][SYMS * N];
    uint8_t x[4][SYMS * N];
    for (size_t i = 0; i < 300; i++) {
        double bars[SYMS] = {close_[HIST + i], other_[HIST - 500 + i]};
        CHECK(hs_live_append_many(old, bars, p[0], t[0], q[0], x[0], &err) == HS_OK, "%s", err.msg);
        CHECK(hs_live_many_append(now, bars, p[1], t[1], q[1], x[1], &err) == HS_OK, "%s", err.msg);
        CHECK(hs_live_append_many(old_opt, bars, p[2], t[2], q[2], x[2], &err) == HS_OK, "%s", err.msg);
        CHECK(hs_live_many_append(now_fee, bars, p[3], t[3], q[3], x[3], &err) == HS_OK, "%s", err.msg);
        CHECK(same(p[0], p[1], sizeof p[0]) && same(t[0], t[1], sizeof t[0]) && same(q[0], q[1], sizeof q[0]) &&
                  same(x[0], x[1], sizeof x[0]),
              "hs_live_open_many/hs_live_append_many differ from hs_live_many_open/_append at step %zu", i);
        CHECK(same(p[2], p[3], sizeof p[2]) && same(t[2], t[3], sizeof t[2]),
              "hs_live_open_many_opt differs from hs_live_many_open with the fee at step %zu", i);
    }
    /* the fee did reach the session: symbol 0's pnl equals a batch sweep's with it */
    hs_result r[N];
    CHECK(hs_sweep(close_, HIST + 300, combos, N, r, &fee, &err) == HS_OK, "%s", err.msg);
    for (int c = 0; c < N; c++) CHECK_BITS(p[3][c], r[c].pnl);
    hs_stats s0[SYMS * N], s1[SYMS * N];
    CHECK(hs_live_many_stats(old, s0, &err) == HS_OK && hs_live_many_stats(now, s1, &err) == HS_OK &&
              same(s0, s1, sizeof s0), "statistics differ");
    double bad[SYMS] = {100.0, -1.0};
    hs_status st1 = hs_live_append_many(old, bad, NULL, NULL, NULL, NULL, &err);
    hs_status st2 = hs_live_many_append(now, bad, NULL, NULL, NULL, NULL, &e2);
    CHECK(st1 == HS_ERR_DATA && st1 == st2 && !strcmp(err.msg, e2.msg), "bad price: '%s' vs '%s'", err.msg, e2.msg);
    hs_live_many *none = (hs_live_many *)1;
    st1 = hs_live_open_many(hist, nb, 0, combos, N, &none, &err);
    CHECK(st1 == HS_ERR_USAGE && !none && hs_live_many_open(hist, nb, 0, combos, N, NULL, &none, &e2) == st1 &&
              !strcmp(err.msg, e2.msg), "no symbols: '%s' vs '%s'", err.msg, e2.msg);
    hs_live_free_many(old), hs_live_free_many(old_opt); /* ASan/valgrind: both free everything */
    hs_live_many_free(now), hs_live_many_free(now_fee);
    hs_live_free_many(NULL), hs_live_many_free(NULL);
}

static void check_describe(void) {
    size_t n = hs_variant_count();
    CHECK(n > 0, "variants");
    for (size_t i = 0; i < n; i++) {
        hs_variant_info a, b;
        memset(&a, 0xA5, sizeof a), memset(&b, 0xA5, sizeof b);
        hs_error e1, e2;
        hs_status s1 = hs_variant_describe(i, &a, &e1);
        hs_status s2 = hs_variant_describe_sized(i, &b, offsetof(hs_variant_info, kernel), &e2);
        CHECK(s1 == s2 && same(&a, &b, sizeof a), "variant %zu: the 1.1 call wrote other bytes", i);
        unsigned char tail[sizeof a - offsetof(hs_variant_info, kernel)];
        memset(tail, 0xA5, sizeof tail);
        CHECK(same((unsigned char *)&a + offsetof(hs_variant_info, kernel), tail, sizeof tail),
              "variant %zu: hs_variant_describe wrote past the 1.1 struct", i);
    }
}

static void check_universe(void) {
    char dir[] = "/tmp/hs_abi_deprecated_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    const char *names[2] = {"AAA.f64", "BBB.f64"};
    hs_error err;
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CHECK(hs_write_series(path, "f64", close_, 50, &err) == HS_OK, "%s", err.msg);
    }
    hs_universe_entry *e = NULL;
    size_t n = 0;
    hs_universe *u = NULL;
    CHECK(hs_universe_list(dir, &e, &n, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_universe_open(dir, &u, &err) == HS_OK && n == hs_universe_count(u) && n == 2, "%zu entries", n);
    for (size_t i = 0; e && u && i < n; i++)
        CHECK(!strcmp(e[i].symbol, hs_universe_symbol(u, i)) && !strcmp(e[i].path, hs_universe_path(u, i)),
              "entry %zu: %s %s vs %s %s", i, e[i].symbol, e[i].path, hs_universe_symbol(u, i), hs_universe_path(u, i));
    free(e);
    hs_universe_close(u);
    hs_error e2;
    CHECK(hs_universe_list("/nonexistent/hs", &e, &n, &err) == HS_ERR_DATA &&
              hs_universe_open("/nonexistent/hs", &u, &e2) == HS_ERR_DATA && !u && !strcmp(err.msg, e2.msg),
          "'%s' vs '%s'", err.msg, e2.msg);
    for (int i = 0; i < 2; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* ---- the client's: each deprecated call and its *_opt form, and the in-process library ---------------- */
static void check_client_sweeps(hs_client *c) {
    hs_error err;
    hs_result lib[N], old[N], now[N];
    hs_stats lib_s[N], old_s[N], now_s[N];
    double fee = 0.0015;
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    uint32_t h = 0;
    CHECK(hs_client_load(c, close_, BARS, &h, &err) == HS_OK, "%s", err.msg);
    /* plain */
    CHECK(hs_sweep(close_, BARS, combos, N, lib, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_client_sweep(c, close_, BARS, combos, N, old, &err) == HS_OK && same(old, lib, sizeof lib), "%s", err.msg);
    CHECK(hs_client_sweep_opt(c, close_, BARS, combos, N, now, NULL, &err) == HS_OK && same(now, lib, sizeof lib), "%s",
          err.msg);
    CHECK(hs_client_sweep_handle(c, h, combos, N, old, &err) == HS_OK && same(old, lib, sizeof lib), "%s", err.msg);
    CHECK(hs_client_sweep_handle_opt(c, h, combos, N, now, NULL, &err) == HS_OK && same(now, lib, sizeof lib), "%s",
          err.msg);
    /* statistics alone: protocol 2 with the default fee */
    o.stats = lib_s;
    CHECK(hs_sweep(close_, BARS, combos, N, lib, &o, &err) == HS_OK, "%s", err.msg);
    o.stats = now_s;
    CHECK(hs_client_sweep_opt(c, close_, BARS, combos, N, now, &o, &err) == HS_OK && same(now, lib, sizeof lib) &&
              same(now_s, lib_s, sizeof lib_s), "sweep_opt with stats only: %s", err.msg);
    /* fee and statistics */
    o.has_fee = 1, o.fee = fee, o.stats = lib_s;
    CHECK(hs_sweep(close_, BARS, combos, N, lib, &o, &err) == HS_OK, "%s", err.msg);
    o.stats = now_s;
    memset(old_s, 0, sizeof old_s), memset(now_s, 0, sizeof now_s);
    CHECK(hs_client_sweep_stats(c, close_, BARS, combos, N, fee, old, old_s, &err) == HS_OK &&
              same(old, lib, sizeof lib) && same(old_s, lib_s, sizeof lib_s), "sweep_stats: %s", err.msg);
    CHECK(hs_client_sweep_opt(c, close_, BARS, combos, N, now, &o, &err) == HS_OK && same(now, lib, sizeof lib) &&
              same(now_s, lib_s, sizeof lib_s), "sweep_opt with a fee: %s", err.msg);
    memset(old_s, 0, sizeof old_s), memset(now_s, 0, sizeof now_s);
    CHECK(hs_client_sweep_handle_stats(c, h, combos, N, fee, old, old_s, &err) == HS_OK && same(old, lib, sizeof lib) &&
              same(old_s, lib_s, sizeof lib_s), "sweep_handle_stats: %s", err.msg);
    CHECK(hs_client_sweep_handle_opt(c, h, combos, N, now, &o, &err) == HS_OK && same(now, lib, sizeof lib) &&
              same(now_s, lib_s, sizeof lib_s), "sweep_handle_opt with a fee: %s", err.msg);
    /* equity at period ends */
    enum { P = 5 };
    double lib_e[P * N], lib_m[N], old_e[P * N], old_m[N], now_e[P * N], now_m[N];
    o.stats = lib_s, o.n_periods = P, o.equity = lib_e, o.mtm_max_drawdown = lib_m;
    CHECK(hs_sweep(close_, BARS, combos, N, lib, &o, &err) == HS_OK, "%s", err.msg);
    o.stats = now_s, o.equity = now_e, o.mtm_max_drawdown = now_m;
    CHECK(hs_client_sweep_equity(c, close_, BARS, combos, N, fee, P, old, old_s, old_m, old_e, &err) == HS_OK &&
              same(old, lib, sizeof lib) && same(old_s, lib_s, sizeof lib_s) && same(old_e, lib_e, sizeof lib_e) &&
              same(old_m, lib_m, sizeof lib_m), "sweep_equity: %s", err.msg);
    CHECK(hs_client_sweep_opt(c, close_, BARS, combos, N, now, &o, &err) == HS_OK && same(now, lib, sizeof lib) &&
              same(now_s, lib_s, sizeof lib_s) && same(now_e, lib_e, sizeof lib_e) && same(now_m, lib_m, sizeof lib_m),
          "sweep_opt with periods: %s", err.msg);
    memset(old_e, 0, sizeof old_e), memset(now_e, 0, sizeof now_e);
    CHECK(hs_client_sweep_handle_equity(c, h, combos, N, fee, P, old, old_s, old_m, old_e, &err) == HS_OK &&
              same(old_e, lib_e, sizeof lib_e) && same(old_m, lib_m, sizeof lib_m), "sweep_handle_equity: %s", err.msg);
    CHECK(hs_client_sweep_handle_opt(c, h, combos, N, now, &o, &err) == HS_OK && same(now_e, lib_e, sizeof lib_e) &&
              same(now_m, lib_m, sizeof lib_m), "sweep_handle_opt with periods: %s", err.msg);
    /* errors: the 1.x equity call still refuses n_periods 0 locally; a bad fee is the server's to name */
    hs_status st = hs_client_sweep_equity(c, close_, BARS, combos, N, fee, 0, old, NULL, NULL, NULL, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "n_periods = 0") && hs_client_last_error(c) == 0, "'%s'", err.msg);
    hs_error e2;
    hs_sweep_options bad = HS_SWEEP_OPTIONS_INIT;
    bad.has_fee = 1, bad.fee = 1.5;
    st = hs_client_sweep_stats(c, close_, BARS, combos, N, 1.5, old, NULL, &err);
    int code_old = hs_client_last_error(c);
    CHECK(st == HS_ERR_USAGE && hs_client_sweep_opt(c, close_, BARS, combos, N, now, &bad, &e2) == st &&
              !strcmp(err.msg, e2.msg) && code_old == hs_client_last_error(c) && code_old == 2,
          "bad fee: '%s' vs '%s' (codes %d, %d)", err.msg, e2.msg, code_old, hs_client_last_error(c));
    /* what the wire cannot carry is refused by name, nothing sent, the connection fine */
    hs_sweep_options local = HS_SWEEP_OPTIONS_INIT;
    local.variant = "unchecked";
    st = hs_client_sweep_opt(c, close_, BARS, combos, N, now, &local, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.variant") && hs_client_last_error(c) == 0,
          "variant: %d '%s'", (int)st, err.msg);
    hs_sweep_options zero = {0};
    zero.has_fee = 1;
    st = hs_client_sweep_opt(c, close_, BARS, combos, N, now, &zero, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "struct_size = 0"), "the library's struct_size rule: '%s'", err.msg);
    CHECK(hs_client_sweep_opt(c, close_, BARS, combos, N, now, NULL, &err) == HS_OK, "still usable: %s", err.msg);
    CHECK(hs_client_free(c, h, &err) == HS_OK, "%s", err.msg);
}

static void check_client_live(hs_client *c) {
    hs_error err;
    uint32_t h = 0, s_old = 0, s_now = 0, f_old = 0, f_now = 0;
    double fee = 0.002;
    CHECK(hs_client_load(c, close_, HIST, &h, &err) == HS_OK, "%s", err.msg);
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.has_fee = 1, o.fee = fee;
    CHECK(hs_client_live_open(c, h, combos, N, &s_old, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_client_live_open_opt(c, h, combos, N, NULL, &s_now, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_client_live_open_stats(c, h, combos, N, fee, &f_old, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_client_live_open_opt(c, h, combos, N, &o, &f_now, &err) == HS_OK, "%s", err.msg);
    hs_live *ref = NULL;
    CHECK(hs_live_open_opt(close_, HIST, combos, N, &o, &ref, &err) == HS_OK, "%s", err.msg);
    double p[5][N];
    int64_t t[5][N];
    int8_t q[5][N];
    uint8_t x[5][N];
    hs_stats s_o[N], s_n[N], s_ref[N];
    hs_sweep_options want = HS_SWEEP_OPTIONS_INIT;
    want.stats = s_n;
    for (size_t i = HIST; i < HIST + 200 && ref; i += 3) {
        CHECK(hs_client_live_append(c, s_old, close_ + i, 3, N, p[0], t[0], q[0], x[0], &err) == HS_OK, "%s", err.msg);
        CHECK(hs_client_live_append_opt(c, s_now, close_ + i, 3, N, p[1], t[1], q[1], x[1], NULL, &err) == HS_OK, "%s",
              err.msg);
        CHECK(same(p[0], p[1], sizeof p[0]) && same(t[0], t[1], sizeof t[0]) && same(q[0], q[1], sizeof q[0]) &&
                  same(x[0], x[1], sizeof x[0]), "plain live sessions differ at bar %zu", i);
        CHECK(hs_client_live_append_stats(c, f_old, close_ + i, 3, N, p[2], t[2], q[2], x[2], s_o, &err) == HS_OK, "%s",
              err.msg);
        CHECK(hs_client_live_append_opt(c, f_now, close_ + i, 3, N, p[3], t[3], q[3], x[3], &want, &err) == HS_OK, "%s",
              err.msg);
        CHECK(hs_live_append(ref, close_ + i, 3, p[4], t[4], q[4], x[4], &err) == HS_OK &&
                  hs_live_stats(ref, s_ref, &err) == HS_OK, "%s", err.msg);
        CHECK(same(p[2], p[4], sizeof p[2]) && same(p[3], p[4], sizeof p[3]) && same(t[3], t[4], sizeof t[3]) &&
                  same(s_o, s_ref, sizeof s_o) && same(s_n, s_ref, sizeof s_n),
              "statistics sessions differ from hs_live in process at bar %zu", i);
    }
    /* the client knows which sessions carry statistics: a plain append of one works (1.x: a protocol error),
     * statistics asked of a plain one are refused before anything is sent */
    CHECK(hs_client_live_append_opt(c, f_now, close_ + HIST, 1, N, p[3], NULL, NULL, NULL, NULL, &err) == HS_OK, "%s",
          err.msg);
    hs_status st = hs_client_live_append_opt(c, s_now, close_ + HIST, 1, N, p[1], NULL, NULL, NULL, &want, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "opened without statistics") && hs_client_last_error(c) == 0,
          "%d '%s'", (int)st, err.msg);
    hs_sweep_options periods = HS_SWEEP_OPTIONS_INIT;
    periods.n_periods = 4;
    uint32_t none = 0;
    st = hs_client_live_open_opt(c, h, combos, N, &periods, &none, &err);
    CHECK(st == HS_ERR_USAGE && strstr(err.msg, "hs_sweep_options.n_periods"), "%d '%s'", (int)st, err.msg);
    CHECK(hs_client_live_append_opt(c, f_now, close_ + HIST, 1, N, p[3], NULL, NULL, NULL, &o, &err) == HS_ERR_USAGE &&
              strstr(err.msg, "has_fee"), "a fee at append: '%s'", err.msg);
    uint32_t sessions[4] = {s_old, s_now, f_old, f_now};
    for (int i = 0; i < 4; i++) CHECK(hs_client_live_close(c, sessions[i], &err) == HS_OK, "%s", err.msg);
    hs_live_free(ref);
}

static void check_client(void) {
    char sock[64];
    snprintf(sock, sizeof sock, "/tmp/hs_abi_deprecated_%d.sock", (int)getpid());
    char urls[3][160];
    pid_t pid = hs_test_serve(HS_CLI, sock, "/hs_abi_dep", NULL, urls);
    hs_client *c = NULL;
    hs_error err;
    CHECK(hs_client_connect(urls[0], 10000, &c, &err) == HS_OK, "%s", err.msg);
    if (c) {
        check_client_sweeps(c);
        check_client_live(c);
        hs_client_close(c);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    unlink(sock);
}

static void check_versions(void) {
#ifdef HS_SYMBOL_VERSIONS
    const char *v14[] = {"hs_live_many_open", "hs_live_many_append", "hs_live_many_free", "hs_client_sweep_opt",
                         "hs_client_sweep_handle_opt", "hs_client_live_open_opt", "hs_client_live_append_opt"};
    const char *v13[] = {"hs_live_open_many", "hs_live_free_many", "hs_trade_log", "hs_client_sweep_stats",
                         "hs_variant_describe", "hs_universe_list"};
    for (size_t i = 0; i < sizeof v14 / sizeof *v14; i++)
        CHECK(dlvsym(RTLD_DEFAULT, v14[i], "HMASWEEP_1.4") != NULL, "%s@HMASWEEP_1.4", v14[i]);
    for (size_t i = 0; i < sizeof v13 / sizeof *v13; i++)
        CHECK(dlvsym(RTLD_DEFAULT, v13[i], "HMASWEEP_1.3") != NULL, "%s@HMASWEEP_1.3", v13[i]);
#endif
}

int main(void) {
    hs_error err;
    CHECK(hs_make_close(7, BARS, 0.01, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_make_close(8, BARS, 0.012, 50.0, other_, &err) == HS_OK, "%s", err.msg);
    const int64_t lengths[N] = {6, 11, 30};
    for (int c = 0; c < N; c++) CHECK(hs_windows_from_length(lengths[c], &combos[c], &err) == HS_OK, "%s", err.msg);
    check_trade_log();
    check_live();
    check_live_many();
    check_describe();
    check_universe();
    check_versions();
    check_client();
    return hs_check_summary("abi_deprecated");
}
