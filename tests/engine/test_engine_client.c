/* The C client (include/hmasweep_client.h) against a real `hmasweep serve` over Unix socket, TCP and shm:
 *  - sweeps of windows NOT derived from L, echo, LOAD / SWEEP on a handle / FREE, all equal to the
 *    in-process reference (hs_sweep with the `unchecked` variant) bit for bit;
 *  - error replies keep the connection usable (bad window, unknown handle), and say which;
 *  - a server that never answers gives a timeout, after which the client reports itself broken; so does
 *    a late reply on every transport (the next call fails, never reads it); a 2 GiB error prefix is a
 *    protocol error, not an allocation;
 *  - load: 32 threads x 50 mixed requests (sweep, echo, load + sweep-on-handle + free, live append) at
 *    once, every reply checked, and the server's peak RSS stays bounded.  Each thread's appends go to its
 *    own live session (LIVE_OPEN over a LOADed prefix of the series, k = 1..3 bars per append); every
 *    append's pnl and trades are checked against a batch hs_sweep over the same prefix, its position and
 *    crossed flags against hs_live in process.
 * usage: test_engine_client  (HS_CLI: the hmasweep binary) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hmasweep.h"
#include "hmasweep_client.h"
#include "../serve_fork.h"
#include "transport.h"
#include "transport_shm.h"

static int failures;
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            failures++;                                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

/* Sanitizers keep freed memory in quarantine (ASan: 256 MB) and shadow it: a looser bound there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_BOUND_KB (1536L * 1024)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RSS_BOUND_KB (1536L * 1024)
#endif
#endif
#ifndef RSS_BOUND_KB
#define RSS_BOUND_KB (200L * 1024)
#endif

enum { BARS = 3000, N_FREE = 8, N_THREADS = 32, N_REQUESTS = 50 };
static double series[BARS];
/* Six windows not derived from L: w0 > w1, w3 > w4 > w5, all ones, at the series length. */
static const hs_windows free_windows[N_FREE] = {
    {{3, 6, 2, 9, 2, 3}}, {{10, 3, 7, 2, 9, 4}}, {{1, 1, 1, 1, 1, 1}}, {{40, 1, 1, 1, 1, 40}},
    {{1, 40, 3, 30, 20, 1}}, {{7, 7, 7, 7, 7, 7}}, {{2, 9, 5, 12, 1, 6}}, {{BARS, 1, 1, 1, 2, BARS}},
};
static hs_result reference[N_FREE];

/* Live appends in the load: the first N_LIVE free windows (all < LIVE_HISTORY), a history of LIVE_HISTORY
 * bars, then append step s adds live_k(s) bars.  A thread makes at most one append per 4 requests. */
enum { N_LIVE = 7, LIVE_HISTORY = BARS - 100, LIVE_STEPS = N_REQUESTS / 4 + 1 };
static size_t live_end[LIVE_STEPS];                 /* bars after step s */
static hs_result live_batch[LIVE_STEPS][N_LIVE];    /* hs_sweep over series[0, live_end[s]) */
static int8_t live_position[LIVE_STEPS][N_LIVE];    /* hs_live in process */
static uint8_t live_crossed[LIVE_STEPS][N_LIVE];
static size_t live_k(int step) { return 1 + (size_t)step % 3; }
static char urls[3][160]; /* unix, tcp, shm */
static pid_t server_pid;

static int same_results(const hs_result *a, const hs_result *b, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (a[k].trades != b[k].trades || memcmp(&a[k].pnl, &b[k].pnl, 8) != 0) return 0;
    return 1;
}

static void start_server(const char *sock) {
    static const char *const extra[] = {"--workers", "2", "--max-clients", "80", NULL};
    server_pid = hs_test_serve(HS_CLI, sock, "hs_engine_test", extra, urls);
}

static long server_peak_rss_kb(void) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)server_pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

static void check_basics(const char *url) {
    hs_client *c;
    hs_error err;
    CHECK(hs_client_connect(url, 10000, &c, &err) == HS_OK, "connect %s: %s", url, err.msg);
    if (failures) return;
    uint32_t version = 0, max_frame = 0;
    uint64_t max_work = 0;
    char variants[256];
    CHECK(hs_client_hello(c, &version, variants, sizeof variants, &max_frame, &max_work, &err) == HS_OK && version == 3 &&
              max_frame > 0 && strstr(variants, "unchecked"),
          "%s HELLO: %s", url, err.msg);
    hs_result got[N_FREE];
    CHECK(hs_client_sweep(c, series, BARS, free_windows, N_FREE, got, &err) == HS_OK, "%s sweep: %s", url, err.msg);
    CHECK(same_results(got, reference, N_FREE), "%s: free windows differ from the in-process reference", url);
    static double back[BARS];
    CHECK(hs_client_echo(c, series, BARS, back, &err) == HS_OK && memcmp(back, series, sizeof series) == 0,
          "%s echo: %s", url, err.msg);
    uint32_t h = 0;
    CHECK(hs_client_load(c, series, BARS, &h, &err) == HS_OK, "%s load: %s", url, err.msg);
    memset(got, 0, sizeof got);
    CHECK(hs_client_sweep_handle(c, h, free_windows, N_FREE, got, &err) == HS_OK && same_results(got, reference, N_FREE),
          "%s sweep on handle: %s", url, err.msg);
    /* errors: named, the connection stays usable */
    hs_windows bad = {{3, 6, 0, 1, 2, 3}};
    CHECK(hs_client_sweep(c, series, BARS, &bad, 1, got, &err) == HS_ERR_USAGE && hs_client_last_error(c) == 2 &&
              strstr(err.msg, "w2 = 0"),
          "%s bad window: %d '%s'", url, hs_client_last_error(c), err.msg);
    CHECK(hs_client_free(c, h, &err) == HS_OK, "%s free: %s", url, err.msg);
    CHECK(hs_client_sweep_handle(c, h, free_windows, 1, got, &err) != HS_OK && hs_client_last_error(c) == 17 &&
              strstr(err.msg, "unknown handle"),
          "%s freed handle: %d '%s'", url, hs_client_last_error(c), err.msg);
    double nan_series[4] = {1, 2, 0.0 / 0.0, 4};
    hs_windows one = {{1, 1, 1, 1, 1, 1}};
    CHECK(hs_client_sweep(c, nan_series, 4, &one, 1, got, &err) == HS_ERR_DATA && hs_client_last_error(c) == 1,
          "%s NaN: '%s'", url, err.msg);
    CHECK(hs_client_sweep(c, series, BARS, free_windows, 2, got, &err) == HS_OK && same_results(got, reference, 2),
          "%s usable after errors: %s", url, err.msg);
    hs_client_close(c);
}

/* Protocol 2 (docs/protocol.md "Version 2"): a fee in, the six statistics out, each bit for bit what
 * hs_sweep gives in process with that fee, by SWEEP_STATS, SWEEP_HANDLE_STATS and a LIVE_OPEN_STATS
 * session after every append (against hs_sweep over the bars so far); a bad fee is error 2 naming it. */
static int same_stats(const hs_stats *a, const hs_stats *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

static void check_stats(const char *url) {
    hs_client *c;
    hs_error err;
    CHECK(hs_client_connect(url, 10000, &c, &err) == HS_OK, "connect %s: %s", url, err.msg);
    if (failures) return;
    const double fees[3] = {HS_DEFAULT_FEE, 0.0, 0.005};
    for (int f = 0; f < 3; f++) {
        hs_result want[N_FREE], got[N_FREE];
        hs_stats want_s[N_FREE], got_s[N_FREE];
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = "unchecked", opt.stats = want_s, opt.fee = fees[f], opt.has_fee = 1;
        CHECK(hs_sweep(series, BARS, free_windows, N_FREE, want, &opt, &err) == HS_OK, "reference: %s", err.msg);
        CHECK(hs_client_sweep_stats(c, series, BARS, free_windows, N_FREE, fees[f], got, got_s, &err) == HS_OK &&
                  same_results(got, want, N_FREE) && same_stats(got_s, want_s, N_FREE),
              "%s SWEEP_STATS fee %g: %s", url, fees[f], err.msg);
        uint32_t h = 0;
        memset(got_s, 0, sizeof got_s);
        CHECK(hs_client_load(c, series, BARS, &h, &err) == HS_OK &&
                  hs_client_sweep_handle_stats(c, h, free_windows, N_FREE, fees[f], got, got_s, &err) == HS_OK &&
                  same_results(got, want, N_FREE) && same_stats(got_s, want_s, N_FREE) && hs_client_free(c, h, &err) == HS_OK,
              "%s SWEEP_HANDLE_STATS fee %g: %s", url, fees[f], err.msg);
    }
    /* live: a history of BARS - 40 bars and the free windows but the last (whose w0 is BARS: a live
     * session needs its windows to fit the history), then appends of 1..3 bars; the statistics after
     * each = a batch sweep's */
    enum { NS = N_FREE - 1 };
    uint32_t h = 0, session = 0;
    CHECK(hs_client_load(c, series, BARS - 40, &h, &err) == HS_OK &&
              hs_client_live_open_stats(c, h, free_windows, NS, 0.002, &session, &err) == HS_OK,
          "%s LIVE_OPEN_STATS: %s", url, err.msg);
    for (size_t end = BARS - 40, k = 1; !failures && end + k <= BARS; end += k, k = k % 3 + 1) {
        double pnl[NS];
        int64_t trades[NS];
        hs_stats got_s[NS], want_s[NS];
        hs_result want[NS];
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = "unchecked", opt.stats = want_s, opt.fee = 0.002, opt.has_fee = 1;
        CHECK(hs_sweep(series, end + k, free_windows, NS, want, &opt, &err) == HS_OK, "reference: %s", err.msg);
        CHECK(hs_client_live_append_stats(c, session, series + end, k, NS, pnl, trades, NULL, NULL, got_s, &err) ==
                      HS_OK &&
                  same_stats(got_s, want_s, NS),
              "%s LIVE_APPEND (stats) at %zu bars: %s", url, end + k, err.msg);
        for (size_t i = 0; i < NS; i++)
            CHECK(memcmp(&pnl[i], &want[i].pnl, 8) == 0 && trades[i] == want[i].trades, "%s live pnl combo %zu", url, i);
    }
    hs_result got[1];
    const double bad_fees[3] = {-0.25, 1.0, 0.0 / 0.0};
    for (int f = 0; f < 3; f++)
        CHECK(hs_client_sweep_stats(c, series, BARS, free_windows, 1, bad_fees[f], got, NULL, &err) == HS_ERR_USAGE &&
                  hs_client_last_error(c) == 2 && strstr(err.msg, "fee = "),
              "%s bad fee %g: %d '%s'", url, bad_fees[f], hs_client_last_error(c), err.msg);
    hs_client_close(c);
}

/* Protocol 3 (docs/protocol.md "Version 3"): SWEEP_EQUITY and SWEEP_HANDLE_EQUITY give hs_sweep's statistics,
 * E at P period ends and mtm_max_drawdown with that fee in process, bit for bit; P = 0 and P > bars are
 * HS_ERR_USAGE naming P, and the connection stays usable. */
static void check_equity(const char *url) {
    hs_client *c;
    hs_error err;
    CHECK(hs_client_connect(url, 10000, &c, &err) == HS_OK, "connect %s: %s", url, err.msg);
    if (failures) return;
    enum { P = 9 };
    const double fees[2] = {HS_DEFAULT_FEE, 0.004};
    for (int f = 0; f < 2; f++) {
        hs_result want[N_FREE], got[N_FREE];
        hs_stats want_s[N_FREE], got_s[N_FREE];
        double want_e[P * N_FREE], got_e[P * N_FREE], want_m[N_FREE], got_m[N_FREE];
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = "unchecked", opt.stats = want_s, opt.fee = fees[f], opt.has_fee = 1;
        opt.n_periods = P, opt.equity = want_e, opt.mtm_max_drawdown = want_m;
        CHECK(hs_sweep(series, BARS, free_windows, N_FREE, want, &opt, &err) == HS_OK, "reference: %s", err.msg);
        CHECK(hs_client_sweep_equity(c, series, BARS, free_windows, N_FREE, fees[f], P, got, got_s, got_m, got_e, &err) ==
                      HS_OK &&
                  same_results(got, want, N_FREE) && same_stats(got_s, want_s, N_FREE) &&
                  !memcmp(got_m, want_m, sizeof got_m) && !memcmp(got_e, want_e, sizeof got_e),
              "%s SWEEP_EQUITY fee %g: %s", url, fees[f], err.msg);
        uint32_t h = 0;
        memset(got_e, 0, sizeof got_e), memset(got_m, 0, sizeof got_m);
        CHECK(hs_client_load(c, series, BARS, &h, &err) == HS_OK &&
                  hs_client_sweep_handle_equity(c, h, free_windows, N_FREE, fees[f], P, got, NULL, got_m, got_e, &err) ==
                      HS_OK &&
                  same_results(got, want, N_FREE) && !memcmp(got_m, want_m, sizeof got_m) &&
                  !memcmp(got_e, want_e, sizeof got_e) && hs_client_free(c, h, &err) == HS_OK,
              "%s SWEEP_HANDLE_EQUITY fee %g: %s", url, fees[f], err.msg);
    }
    hs_result got[1];
    CHECK(hs_client_sweep_equity(c, series, BARS, free_windows, 1, HS_DEFAULT_FEE, 0, got, NULL, NULL, NULL, &err) ==
                  HS_ERR_USAGE && strstr(err.msg, "n_periods = 0"),
          "%s P = 0: '%s'", url, err.msg);
    CHECK(hs_client_sweep_equity(c, series, BARS, free_windows, 1, HS_DEFAULT_FEE, BARS + 1, got, NULL, NULL, NULL, &err) ==
                  HS_ERR_USAGE && hs_client_last_error(c) == 2 && strstr(err.msg, "periods"),
          "%s P > bars: %d '%s'", url, hs_client_last_error(c), err.msg);
    CHECK(hs_client_sweep(c, series, BARS, free_windows, 1, got, &err) == HS_OK, "%s usable after: %s", url, err.msg);
    hs_client_close(c);
}

/* A Unix listener at a fresh path (path: a "/tmp/...XXXXXX" template, filled in); its URL in url. */
static int fake_listener(char *path, char url[128]) {
    int tmp = mkstemp(path);
    close(tmp);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4) == 0, "listener %s", path);
    snprintf(url, 128, "unix:%s", path);
    return fd;
}

/* A listener that accepts nothing and answers nothing: the client must time out, not hang. */
static void check_timeout(void) {
    char path[] = "/tmp/hs_engine_mute_XXXXXX", url[128];
    int fd = fake_listener(path, url);
    hs_client *c;
    hs_error err;
    CHECK(hs_client_connect(url, 200, &c, &err) == HS_OK, "connect to mute listener: %s", err.msg);
    if (!failures) {
        double out[4];
        CHECK(hs_client_echo(c, series, 4, out, &err) == HS_ERR_IO && hs_client_last_error(c) == HS_CLIENT_E_TIMEOUT &&
                  strstr(err.msg, "timed out"),
              "timeout: %d '%s'", hs_client_last_error(c), err.msg);
        CHECK(hs_client_echo(c, series, 4, out, &err) == HS_ERR_IO && hs_client_last_error(c) == HS_CLIENT_E_BROKEN &&
                  strstr(err.msg, "broken"),
              "broken after timeout: '%s'", err.msg);
        hs_client_close(c);
    }
    close(fd);
    unlink(path);
    CHECK(hs_client_connect("unix:/nonexistent/dir/sock", 200, &c, &err) != HS_OK && strstr(err.msg, "No such file"),
          "missing socket: '%s'", err.msg);
    CHECK(hs_client_connect("http://x", 200, &c, &err) == HS_ERR_USAGE && strstr(err.msg, "expected unix:PATH"),
          "bad URL: '%s'", err.msg);
}

/* Issue 20 item 5, on every transport against the real server: a call that times out leaves its reply
 * on the way; the next call must fail (HS_ERR_IO, HS_CLIENT_E_BROKEN) instead of reading that reply as
 * its own.  The sweep (N_SLOW combos over the series: ~10^7 bar-combos, tens of ms) cannot finish in
 * 1 ms, and the reply it leaves behind is of the same size as the next call's. */
enum { N_SLOW = 4000 };
static void check_late_reply(const char *url) {
    static hs_windows slow[N_SLOW];
    static hs_result got[N_SLOW];
    for (int k = 0; k < N_SLOW; k++) slow[k] = free_windows[k % N_FREE];
    hs_client *c = NULL;
    hs_error err;
    CHECK(hs_client_connect(url, 10000, &c, &err) == HS_OK, "connect %s: %s", url, err.msg);
    if (!c) return;
    hs_client_set_timeout(c, 1);
    CHECK(hs_client_sweep(c, series, BARS, slow, N_SLOW, got, &err) == HS_ERR_IO &&
              hs_client_last_error(c) == HS_CLIENT_E_TIMEOUT && strstr(err.msg, "timed out"),
          "%s: a 1 ms timeout: %d '%s'", url, hs_client_last_error(c), err.msg);
    hs_client_set_timeout(c, 10000);
    usleep(300 * 1000); /* the late reply is on its way, or there */
    CHECK(hs_client_sweep(c, series, BARS, slow, N_SLOW, got, &err) == HS_ERR_IO &&
              hs_client_last_error(c) == HS_CLIENT_E_BROKEN && strstr(err.msg, "broken"),
          "%s: the call after a timeout: %d '%s'", url, hs_client_last_error(c), err.msg);
    hs_client_close(c);
}

/* A server that answers every request with `prefix` (a length of 2^31 - 1 bytes), then nothing. */
typedef struct {
    int fd;
    const unsigned char *prefix;
    size_t n;
    atomic_int sent;        /* the prefix is written: from now on the client has all it may read */
    atomic_int waits_after; /* the client's empty waits counted since then (waited_for_more) */
} liar;

static void *lying_server(void *arg) {
    liar *l = arg;
    int fd = accept(l->fd, NULL, NULL);
    if (fd < 0) return NULL;
    unsigned char req[64];
    if (read(fd, req, sizeof req) > 0 && write(fd, l->prefix, l->n) == (ssize_t)l->n) {
        atomic_store(&l->sent, 1);
        while (read(fd, req, sizeof req) > 0) {
        } /* until the client hangs up */
    }
    close(fd);
    return NULL;
}

/* The client's interrupt hook, which its stream asks after every wait of HS_STREAM_POLL_MS that brought
 * nothing.  "At once" is counted in these waits, not timed (a loaded host may take seconds): once the
 * prefix is written the client has every byte it may read, so one that refuses the length waits at most
 * once more (a wait that began before the bytes came); one that waits for the 2 GiB body is asked again
 * and again, and is stopped at the second such wait (HS_ERR_CANCELLED, which the check refuses). */
static int waited_for_more(void *user) {
    liar *l = user;
    return atomic_load(&l->sent) && atomic_fetch_add(&l->waits_after, 1) + 1 >= 2;
}

/* Issue 20 item 12: the C client allocated up to 2 GiB from an error-reply length the server sent, then
 * waited for the bytes.  An error reply is at most 4 KiB: a protocol error, at once.  HELLO is the other
 * reply of a size the client cannot know from its request: the same cap (issue 19). */
static void check_huge_prefix(int hello) {
    static const unsigned char error_prefix[8] = {0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0}; /* 0x80000000 | 0x7fffffff, code 1 */
    static const unsigned char reply_prefix[4] = {0xff, 0xff, 0xff, 0x7f};            /* a reply of 2^31 - 1 bytes */
    char path[] = "/tmp/hs_engine_liar_XXXXXX", url[128];
    liar l = {fake_listener(path, url), hello ? reply_prefix : error_prefix, hello ? 4 : 8, 0, 0};
    pthread_t t;
    pthread_create(&t, NULL, lying_server, &l);
    hs_client *c = NULL;
    hs_error err;
    /* A long timeout: the waits are what is bounded, and a timeout here would only hide that bound. */
    CHECK(hs_client_connect(url, 60000, &c, &err) == HS_OK, "connect to the lying server: %s", err.msg);
    if (c) {
        double out[4];
        char names[64];
        hs_client_set_interrupt(c, waited_for_more, &l);
        hs_status st = hello ? hs_client_hello(c, NULL, names, sizeof names, NULL, NULL, &err)
                             : hs_client_echo(c, series, 4, out, &err);
        int waits = atomic_load(&l.waits_after);
        CHECK(st == HS_ERR_IO && hs_client_last_error(c) == HS_CLIENT_E_PROTOCOL &&
                  strstr(err.msg, hello ? "reply of 2147483647 bytes where at most 4096" : "error reply of 2147483647 bytes") &&
                  waits <= 1,
              "2 GiB %s prefix: status %d, last error %d, %d empty waits after the prefix, '%s'", hello ? "HELLO" : "error",
              st, hs_client_last_error(c), waits, err.msg);
        hs_client_close(c);
    }
    pthread_join(t, NULL);
    close(l.fd);
    unlink(path);
}

/* hs_client_set_interrupt: a call waiting on a mute server asks the hook at least every 50 ms; the
 * third answer "stop" ends it with HS_ERR_CANCELLED long before its 20 s timeout (counted in calls,
 * not timed), and the connection is broken after. */
static int stop_on_third(void *user) { return ++*(int *)user >= 3; }

static void check_interrupt(void) {
    char path[] = "/tmp/hs_engine_mute2_XXXXXX", url[128];
    int fd = fake_listener(path, url), calls = 0;
    hs_client *c = NULL;
    hs_error err;
    CHECK(hs_client_connect(url, 20000, &c, &err) == HS_OK, "connect to mute listener: %s", err.msg);
    if (c) {
        hs_client_set_interrupt(c, stop_on_third, &calls);
        double out[4];
        hs_status st = hs_client_echo(c, series, 4, out, &err);
        CHECK(st == HS_ERR_CANCELLED && hs_client_last_error(c) == HS_CLIENT_E_INTERRUPTED && calls == 3 &&
                  strstr(err.msg, "interrupted"),
              "interrupt: status %d, last error %d, %d calls, '%s'", st, hs_client_last_error(c), calls, err.msg);
        CHECK(hs_client_echo(c, series, 4, out, &err) == HS_ERR_IO && hs_client_last_error(c) == HS_CLIENT_E_BROKEN,
              "after an interrupt: %d '%s'", hs_client_last_error(c), err.msg);
        hs_client_close(c);
    }
    close(fd);
    unlink(path);
}

/* URLs: the scheme is looked up in the transport table; a bad URL is a usage error naming it, a server
 * that is not there an I/O error (HS_ERR_IO), on every transport. */
static void check_connect_errors(void) {
    static const struct {
        const char *url, *says;
        hs_status st;
    } cases[] = {
        {"http://x", "unknown scheme", HS_ERR_USAGE},        {"unix", "unix:PATH, tcp://HOST:PORT, shm:NAME", HS_ERR_USAGE},
        {"tcp://nohostport", "HOST:PORT", HS_ERR_USAGE},     {"tcp://127.0.0.1:99999", "0 to 65535", HS_ERR_USAGE},
        {"stdio:", "hs_client_from_fds", HS_ERR_USAGE},      {"unix:/nonexistent/hs.sock", "connecting", HS_ERR_IO},
        {"shm:hs-nobody-listens-here", "connect", HS_ERR_IO},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        hs_client *c = NULL;
        hs_error err = {0};
        hs_status st = hs_client_connect(cases[k].url, 1000, &c, &err);
        CHECK(st == cases[k].st && !c && strstr(err.msg, cases[k].says), "connect %s: status %d '%s'", cases[k].url, st,
              err.msg);
        hs_client_close(c);
    }
}

/* hs_client_from_fds: a client on a socketpair, and on two pipes, to `hmasweep serve --listen stdio:`. */
static pid_t spawn_stdio_server(int in_fd, int out_fd, int ours1, int ours2) {
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in_fd, 0), dup2(out_fd, 1);
        close(ours1), close(ours2); /* the client's ends: held here, the server would never see end of input */
        execl(HS_CLI, HS_CLI, "serve", "--listen", "stdio:", "--variant", "unchecked", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void check_from_fds(int use_pipes) {
    int a[2], b[2];
    pid_t pid;
    hs_client *c = NULL;
    hs_error err;
    if (use_pipes) {
        CHECK(pipe(a) == 0 && pipe(b) == 0, "pipes");
        pid = spawn_stdio_server(a[0], b[1], a[1], b[0]); /* the server reads a, writes b */
        close(a[0]), close(b[1]);
        CHECK(hs_client_from_fds(b[0], a[1], 20000, &c, &err) == HS_OK, "from_fds (pipes): %s", err.msg);
    } else {
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0, "socketpair");
        pid = spawn_stdio_server(a[1], a[1], a[0], a[0]);
        close(a[1]);
        CHECK(hs_client_from_fds(a[0], a[0], 20000, &c, &err) == HS_OK, "from_fds (socket): %s", err.msg);
    }
    if (c) {
        hs_result got[N_FREE];
        static double back[BARS];
        CHECK(hs_client_sweep(c, series, BARS, free_windows, N_FREE, got, &err) == HS_OK && same_results(got, reference, N_FREE),
              "from_fds (%s) sweep: %s", use_pipes ? "pipes" : "socket", err.msg);
        CHECK(hs_client_echo(c, series, BARS, back, &err) == HS_OK && memcmp(back, series, sizeof back) == 0,
              "from_fds (%s) echo: %s", use_pipes ? "pipes" : "socket", err.msg);
        hs_client_close(c); /* closes the fds: the server sees end of input and exits 0 */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "serve --listen stdio: exit status %d", status);
}

/* ---- load ---------------------------------------------------------------------------------------- */
/* The expected replies of every live append step, from two independent in-process sources. */
static int make_live_reference(void) {
    hs_error err;
    hs_live *live;
    hs_sweep_options ref = {.variant = "unchecked", .isa = NULL, .threads = 1};
    if (hs_live_open(series, LIVE_HISTORY, free_windows, N_LIVE, &live, &err) != HS_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    size_t end = LIVE_HISTORY;
    for (int s = 0; s < LIVE_STEPS; s++) {
        double pnl[N_LIVE];
        int64_t trades[N_LIVE];
        if (hs_live_append(live, series + end, live_k(s), pnl, trades, live_position[s], live_crossed[s], &err) != HS_OK ||
            hs_sweep(series, end + live_k(s), free_windows, N_LIVE, live_batch[s], &ref, &err) != HS_OK)
            return fprintf(stderr, "live reference: %s\n", err.msg), hs_live_free(live), 1;
        end = live_end[s] = end + live_k(s);
        for (int k = 0; k < N_LIVE; k++) /* the two references must agree, or the test would prove nothing */
            CHECK(live_batch[s][k].trades == trades[k] && memcmp(&live_batch[s][k].pnl, &pnl[k], 8) == 0,
                  "in-process live differs from the batch sweep at step %d combo %d", s, k);
    }
    hs_live_free(live);
    return 0;
}

/* A thread's live session: LOAD the history, LIVE_OPEN on it, FREE the handle (the session keeps what it
 * needs; the handle is not its storage). */
static int live_open(hs_client *c, uint32_t *session, hs_error *err) {
    uint32_t h;
    return hs_client_load(c, series, LIVE_HISTORY, &h, err) != HS_OK ||
           hs_client_live_open(c, h, free_windows, N_LIVE, session, err) != HS_OK || hs_client_free(c, h, err) != HS_OK;
}

/* Append step `step`'s bars and compare the reply with the references; non-zero when anything differs. */
static int live_append_checked(hs_client *c, uint32_t session, int step, hs_error *err) {
    double pnl[N_LIVE];
    int64_t trades[N_LIVE];
    int8_t position[N_LIVE];
    uint8_t crossed[N_LIVE];
    size_t k = live_k(step), from = live_end[step] - k;
    if (hs_client_live_append(c, session, series + from, k, N_LIVE, pnl, trades, position, crossed, err) != HS_OK) return 1;
    for (int i = 0; i < N_LIVE; i++)
        if (trades[i] != live_batch[step][i].trades || memcmp(&pnl[i], &live_batch[step][i].pnl, 8) != 0 ||
            position[i] != live_position[step][i] || crossed[i] != live_crossed[step][i]) {
            snprintf(err->msg, sizeof err->msg, "live append step %d combo %d differs from the in-process reference", step, i);
            return 1;
        }
    return 0;
}

static int load_errors, live_appends;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void *load_client(void *arg) {
    int id = (int)(intptr_t)arg, bad = 0;
    hs_client *c;
    hs_error err;
    if (hs_client_connect(urls[id % 3], 30000, &c, &err) != HS_OK) {
        fprintf(stderr, "load client %d: %s\n", id, err.msg);
        bad = N_REQUESTS;
    }
    static __thread double back[BARS];
    uint32_t session = 0;
    int steps = 0;
    for (int r = 0; r < N_REQUESTS && !bad; r++) {
        hs_result got[N_FREE];
        size_t k = (size_t)(id + r) % N_FREE, n = N_FREE - k;
        uint32_t h;
        switch ((id + r) % 4) {
        case 0:
            bad += hs_client_sweep(c, series, BARS, free_windows + k, n, got, &err) != HS_OK ||
                   !same_results(got, reference + k, n);
            break;
        case 1:
            bad += hs_client_echo(c, series, BARS, back, &err) != HS_OK || memcmp(back, series, sizeof back) != 0;
            break;
        case 2:
            bad += hs_client_load(c, series, BARS, &h, &err) != HS_OK ||
                   hs_client_sweep_handle(c, h, free_windows + k, n, got, &err) != HS_OK ||
                   !same_results(got, reference + k, n) || hs_client_free(c, h, &err) != HS_OK;
            break;
        default:
            bad += (steps == 0 && live_open(c, &session, &err)) || live_append_checked(c, session, steps++, &err);
        }
        if (bad) fprintf(stderr, "load client %d request %d: %s\n", id, r, err.msg);
    }
    if (!bad && steps && hs_client_live_close(c, session, &err) != HS_OK) {
        fprintf(stderr, "load client %d LIVE_CLOSE: %s\n", id, err.msg);
        bad++;
    }
    if (c && bad < N_REQUESTS) hs_client_close(c);
    pthread_mutex_lock(&load_lock);
    load_errors += bad;
    live_appends += steps;
    pthread_mutex_unlock(&load_lock);
    return NULL;
}

int main(void) {
    hs_error err;
    if (hs_make_close(7, BARS, HS_DEFAULT_VOL * 3, HS_DEFAULT_START, series, &err) != HS_OK) return 1;
    hs_sweep_options ref = {.variant = "unchecked", .isa = NULL, .threads = 1};
    if (hs_sweep(series, BARS, free_windows, N_FREE, reference, &ref, &err) != HS_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    char sock[64];
    snprintf(sock, sizeof sock, "/tmp/hs_engine_test_%d.sock", (int)getpid());
    start_server(sock);
    check_basics(urls[0]);
    check_basics(urls[1]);
    check_basics(urls[2]);
    for (int k = 0; k < 3; k++) check_stats(urls[k]);
    for (int k = 0; k < 3; k++) check_equity(urls[k]);
    check_timeout();
    check_huge_prefix(0);
    check_huge_prefix(1);
    check_interrupt();
    check_connect_errors();
    check_from_fds(0);
    check_from_fds(1);
    for (int k = 0; k < 3; k++) check_late_reply(urls[k]);
    if (make_live_reference()) return 1;
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) pthread_create(&t[i], NULL, load_client, (void *)(intptr_t)i);
    for (int i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
    CHECK(load_errors == 0, "load: %d of %d requests failed", load_errors, N_THREADS * N_REQUESTS);
    int expected_appends = 0; /* request r of thread id is an append when (id + r) % 4 == 3 */
    for (int id = 0; id < N_THREADS; id++)
        for (int r = 0; r < N_REQUESTS; r++) expected_appends += (id + r) % 4 == 3;
    CHECK(live_appends == expected_appends, "load: %d live appends made, %d planned", live_appends, expected_appends);
    long rss = server_peak_rss_kb();
    /* 32 connections each hold at most one 24 kB request and its reply; 200 MB is far above what a
     * bounded server needs and far below what a leak per request (1,600 x 24 kB+) would add to it. */
    CHECK(rss > 0 && rss < RSS_BOUND_KB, "server peak RSS %ld kB (bound %ld kB)", rss, (long)RSS_BOUND_KB);
    printf("test_engine_client: load %d x %d requests (%d live appends), server peak RSS %ld kB\n", N_THREADS, N_REQUESTS,
           live_appends, rss);
    kill(server_pid, SIGTERM);
    int status = 0;
    waitpid(server_pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server exit status %d", status);
    CHECK(access(sock, F_OK) != 0, "socket removed");
    char shm_name[64], shm_path[128];
    snprintf(shm_name, sizeof shm_name, "hs_engine_test_%d", (int)getpid());
    CHECK(hs_shm_path(shm_name, shm_path, sizeof shm_path, 0, &err) == HS_OK && access(shm_path, F_OK) != 0,
          "shm rendezvous socket %s removed", shm_path);
    printf("test_engine_client: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
