/* Live mode over `hmasweep serve` (ops 6-8, docs/live.md) with the C client, over Unix socket, TCP and
 * shared memory:
 *  - every append's four arrays equal an in-process hs_live session's fed the same bars, bit for bit, and
 *    at the end the batch reference (hs_sweep, `unchecked`) over every bar;
 *  - one-bar appends (unix) and random chunks (tcp, shm); windows not derived from L;
 *  - a bad price is refused (error 1) and leaves the session unchanged; unknown and closed sessions are
 *    error 17, windows longer than the loaded series error 2, the per-connection limit error 16; a
 *    session survives FREE of its handle and belongs to its connection.
 * usage: test_live_server  (HS_CLI: the hmasweep binary) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"
#include "hmasweep_client.h"
#include "serve_fork.h"

enum { N = 6000, HISTORY = 500, MAX_COMBOS = 16 };
static double series[N];
static hs_windows combos[MAX_COMBOS];
static size_t n_combos;
static pid_t server_pid;

typedef struct {
    double pnl[MAX_COMBOS];
    int64_t trades[MAX_COMBOS];
    int8_t pos[MAX_COMBOS];
    uint8_t crossed[MAX_COMBOS];
} live_state;

static int same_state(const live_state *a, const live_state *b) {
    return memcmp(a->pnl, b->pnl, 8 * n_combos) == 0 && memcmp(a->trades, b->trades, 8 * n_combos) == 0 &&
           memcmp(a->pos, b->pos, n_combos) == 0 && memcmp(a->crossed, b->crossed, n_combos) == 0;
}

static uint64_t lcg(uint64_t *x) {
    *x = *x * 6364136223846793005u + 1442695040888963407u;
    return *x >> 33;
}

/* Append close[HISTORY..N) to the server's session and to an in-process twin, in chunks (max_chunk 1:
 * one bar at a time); every reply must equal the twin's. */
static void feed(hs_client *c, uint32_t session, hs_live *twin, size_t max_chunk, const char *url) {
    uint64_t rng = 77;
    live_state got, want;
    hs_error err;
    int reported = 0;
    for (size_t at = HISTORY; at < N;) {
        size_t k = max_chunk == 1 ? 1 : 1 + lcg(&rng) % max_chunk;
        if (k > N - at) k = N - at;
        hs_status st = hs_client_live_append(c, session, &series[at], k, n_combos, got.pnl, got.trades, got.pos,
                                             got.crossed, &err);
        if (st != HS_OK) {
            CHECK(0, "%s: append at bar %zu: %s", url, at, err.msg);
            return;
        }
        hs_live_append(twin, &series[at], k, want.pnl, want.trades, want.pos, want.crossed, NULL);
        if (!same_state(&got, &want) && reported++ < 3) CHECK(0, "%s: bar %zu: the server's state differs from in-process", url, at);
        at += k;
    }
    /* the end: the batch reference over every bar */
    hs_result ref[MAX_COMBOS];
    hs_sweep_options opt = {.variant = "unchecked", .isa = NULL, .threads = 1};
    CHECK(hs_sweep(series, N, combos, n_combos, ref, &opt, &err) == HS_OK, "%s", err.msg);
    for (size_t i = 0; i < n_combos; i++) {
        CHECK(got.trades[i] == ref[i].trades, "%s combo %zu: %lld trades, batch %lld", url, i, (long long)got.trades[i],
              (long long)ref[i].trades);
        CHECK_BITS(got.pnl[i], ref[i].pnl);
    }
}

static void expect_server_error(hs_client *c, hs_status st, const hs_error *err, int code, const char *needle,
                                const char *what) {
    CHECK(st != HS_OK && hs_client_last_error(c) == code && strstr(err->msg, needle),
          "%s: status %d, server code %d, '%s' (wanted code %d, '%s')", what, st, hs_client_last_error(c), err->msg, code,
          needle);
}

static void check_transport(const char *url, size_t max_chunk) {
    hs_client *c, *other;
    hs_error err;
    if (hs_client_connect(url, 20000, &c, &err) != HS_OK) {
        CHECK(0, "connect %s: %s", url, err.msg);
        return;
    }
    uint32_t h = 0, s = 0, s2 = 0;
    CHECK(hs_client_load(c, series, HISTORY, &h, &err) == HS_OK, "%s load: %s", url, err.msg);
    CHECK(hs_client_live_open(c, h, combos, n_combos, &s, &err) == HS_OK, "%s live open: %s", url, err.msg);
    CHECK(hs_client_free(c, h, &err) == HS_OK, "%s free: %s", url, err.msg); /* the session keeps its own state */
    hs_live *twin = NULL;
    hs_live_open(series, HISTORY, combos, n_combos, &twin, NULL);

    /* refused appends leave the session unchanged (the twin never sees them) */
    live_state got;
    double bad[3] = {series[HISTORY], 0.0 / 0.0, series[HISTORY + 1]};
    hs_status st = hs_client_live_append(c, s, bad, 3, n_combos, got.pnl, got.trades, got.pos, got.crossed, &err);
    expect_server_error(c, st, &err, 1, "close[1]", "NaN bar");
    bad[1] = -5.0;
    st = hs_client_live_append(c, s, bad, 3, n_combos, got.pnl, got.trades, got.pos, got.crossed, &err);
    expect_server_error(c, st, &err, 1, "not positive", "negative bar");
    st = hs_client_live_append(c, s + 100, series, 1, n_combos, got.pnl, got.trades, got.pos, got.crossed, &err);
    expect_server_error(c, st, &err, 17, "unknown live session", "unknown session");
    st = hs_client_live_append(c, s, series, 0, n_combos, got.pnl, got.trades, got.pos, got.crossed, &err);
    expect_server_error(c, st, &err, 2, "k = 0", "k = 0");

    /* opens that are refused */
    uint32_t h2 = 0, extra[2];
    CHECK(hs_client_load(c, series, 100, &h2, &err) == HS_OK, "%s load: %s", url, err.msg);
    st = hs_client_live_open(c, h2, combos, n_combos, &s2, &err); /* 100 bars: the 500-bar windows do not fit */
    expect_server_error(c, st, &err, 2, "w0 = 500", "windows longer than the loaded series");
    hs_windows too_long = {{3, 6, 2, 1, 2, 101}};
    st = hs_client_live_open(c, h2, &too_long, 1, &s2, &err);
    expect_server_error(c, st, &err, 2, "w5 = 101", "window longer than the loaded series");
    st = hs_client_live_open(c, h2 + 50, combos, 1, &s2, &err);
    expect_server_error(c, st, &err, 17, "unknown handle", "open on an unknown handle");
    /* --max-handles 3: two more sessions fit, the fourth is refused */
    CHECK(hs_client_live_open(c, h2, combos, 1, &extra[0], &err) == HS_OK, "%s second session: %s", url, err.msg);
    CHECK(hs_client_live_open(c, h2, combos, 1, &extra[1], &err) == HS_OK, "%s third session: %s", url, err.msg);
    st = hs_client_live_open(c, h2, combos, 1, &s2, &err);
    expect_server_error(c, st, &err, 16, "LIVE_OPEN", "fourth session");
    CHECK(hs_client_live_close(c, extra[1], &err) == HS_OK, "%s close: %s", url, err.msg);
    st = hs_client_live_close(c, extra[1], &err);
    expect_server_error(c, st, &err, 17, "unknown live session", "closed twice");

    /* a session belongs to its connection */
    if (hs_client_connect(url, 20000, &other, &err) == HS_OK) {
        st = hs_client_live_append(other, s, series, 1, n_combos, got.pnl, got.trades, got.pos, got.crossed, &err);
        expect_server_error(other, st, &err, 17, "unknown live session", "another connection's session");
        hs_client_close(other);
    }

    feed(c, s, twin, max_chunk, url);
    CHECK(hs_client_live_close(c, s, &err) == HS_OK, "%s close: %s", url, err.msg);
    hs_live_free(twin);
    hs_client_close(c); /* extra[0] is left open: the server frees it with the connection */
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    hs_make_close(5, N, 0.002, 30.0, series, NULL);
    for (int64_t L = 6; L <= 60; L += 9) hs_windows_from_length(L, &combos[n_combos++], NULL);
    const hs_windows odd[] = {{{3, 6, 2, 9, 2, 3}}, {{6, 3, 2, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}},
                              {{50, 3, 40, 7, 60, 2}}, {{HISTORY, 1, 1, 1, 2, HISTORY}}};
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++) combos[n_combos++] = odd[k];

    char sock[] = "/tmp/hs_live_server_XXXXXX", urls[3][160];
    int tmp = mkstemp(sock);
    close(tmp);
    unlink(sock);
    static const char *const extra[] = {"--max-handles", "3", NULL};
    server_pid = hs_test_serve(HS_CLI, sock, "hs_live_test", extra, urls);
    check_transport(urls[0], 1);  /* unix: one bar at a time */
    check_transport(urls[1], 64); /* tcp: random chunks */
    check_transport(urls[2], 16); /* shm: random chunks */
    check_transport(urls[0], 1);  /* again, on a server that has served and dropped connections with sessions */
    kill(server_pid, SIGTERM);
    int status = 0;
    waitpid(server_pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server exit status %d", status);
    return hs_check_summary("test_live_server");
}
