/* hs_ipc_client: the boundary study's C client (prof/ipc/run.py drives it).  Everything goes through the
 * engine's public C client (include/hmasweep_client.h), so what it times is what a C caller gets.
 *
 *   hs_ipc_client sweep  --address URL --series F.f64 --windows F.i64 [--rounds N]
 *       N timed batch sweeps on one connection; prints {"seconds": [...], "pnl": [...], "trades": [...]}
 *   hs_ipc_client echo   --address URL --series F.f64 --sizes a,b,.. --reps a,b,.. [--budget-ms T --min-reps M]
 *       [--form study|ours]: one JSON line per size (at most its reps, stopping after T ms once M are done): {"n", "p50_us", "p99_us", "min_us", "n_reps"} (single round trips)
 *   hs_ipc_client preload --address URL --series F.f64 [--rounds N]
 *       LOAD 16 bars, then N x 80 SWEEP_HANDLE calls of one tiny combo: {"totals_ms": [N totals],
 *       "pnl": [last], "trades": [last]}: the boundary of the 80 window-only calls
 *   hs_ipc_client perbar --address URL|inproc --series F.f64 --windows F.i64 --bars N
 *       a live session opened on the first bars (the longest window), then one append per later bar of one bar each (over the wire, or hs_live_append
 *       in process); prints {"total_s", "appends", "pnl": [...], "trades": [...]} — the final results,
 *       which must equal a batch sweep over the N bars.
 *
 * URL: unix:PATH, tcp:HOST:PORT (or tcp://HOST:PORT), shm:NAME.  Exit 1 on any error (named on stderr),
 * 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "hmasweep_client.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int die(const char *what, const char *msg) {
    fprintf(stderr, "hs_ipc_client: %s: %s\n", what, msg);
    return 1;
}

typedef struct {
    const char *address, *series, *windows, *sizes, *reps;
    long rounds, bars, budget_ms, min_reps;
    int study; /* echo --form study */
} args;

static int parse(int argc, char **argv, args *a) {
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) return 0;
        if (!strcmp(k, "--address")) a->address = v;
        else if (!strcmp(k, "--series")) a->series = v;
        else if (!strcmp(k, "--windows")) a->windows = v;
        else if (!strcmp(k, "--sizes")) a->sizes = v;
        else if (!strcmp(k, "--reps")) a->reps = v;
        else if (!strcmp(k, "--rounds")) a->rounds = strtol(v, NULL, 10);
        else if (!strcmp(k, "--bars")) a->bars = strtol(v, NULL, 10);
        else if (!strcmp(k, "--budget-ms")) a->budget_ms = strtol(v, NULL, 10);
        else if (!strcmp(k, "--min-reps")) a->min_reps = strtol(v, NULL, 10);
        else if (!strcmp(k, "--mode")) { /* batch only */ }
        else if (!strcmp(k, "--form")) {
            if (strcmp(v, "study") && strcmp(v, "ours")) return 0;
            a->study = !strcmp(v, "study");
        }
        else return 0;
        i++;
    }
    return a->address != NULL;
}

/* "tcp:HOST:PORT" (the harness's form) -> "tcp://HOST:PORT" (the C client's). */
static const char *client_url(const char *address, char *buf, size_t cap) {
    if (!strncmp(address, "tcp:", 4) && strncmp(address, "tcp://", 6)) {
        snprintf(buf, cap, "tcp://%s", address + 4);
        return buf;
    }
    return address;
}

static int connect_to(const char *address, hs_client **c) {
    char buf[512];
    hs_error err;
    if (hs_client_connect(client_url(address, buf, sizeof buf), 30000, c, &err) != HS_OK)
        return die(address, err.msg);
    return 0;
}

static int read_windows(const char *path, hs_windows **w, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return die(path, "cannot open");
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes <= 0 || bytes % (long)sizeof(hs_windows)) {
        fclose(f);
        return die(path, "not a whole number of six-i64 combos");
    }
    *n = (size_t)bytes / sizeof(hs_windows);
    *w = malloc((size_t)bytes);
    size_t got = *w ? fread(*w, 1, (size_t)bytes, f) : 0;
    fclose(f);
    return got == (size_t)bytes ? 0 : die(path, "short read");
}

static void print_results(const double *pnl, const int64_t *trades, size_t n) {
    printf("\"pnl\": [");
    for (size_t k = 0; k < n; k++) printf("%s%.17g", k ? ", " : "", pnl[k]);
    printf("], \"trades\": [");
    for (size_t k = 0; k < n; k++) printf("%s%lld", k ? ", " : "", (long long)trades[k]);
    printf("]");
}

static int cmd_sweep(const args *a, const double *close, size_t n_bars) {
    hs_windows *w;
    size_t n;
    if (read_windows(a->windows, &w, &n)) return 1;
    hs_result *res = malloc(n * sizeof *res);
    double *secs = malloc((size_t)(a->rounds > 0 ? a->rounds : 1) * sizeof *secs);
    hs_client *c;
    if (!res || !secs || connect_to(a->address, &c)) return 1;
    hs_error err;
    long rounds = a->rounds > 0 ? a->rounds : 1;
    for (long r = 0; r < rounds; r++) {
        double t0 = now_s();
        if (hs_client_sweep(c, close, n_bars, w, n, res, &err) != HS_OK) return die("sweep", err.msg);
        secs[r] = now_s() - t0;
    }
    hs_client_close(c);
    double *pnl = malloc(n * sizeof *pnl);
    int64_t *trades = malloc(n * sizeof *trades);
    for (size_t k = 0; k < n; k++) pnl[k] = res[k].pnl, trades[k] = res[k].trades;
    printf("{\"seconds\": [");
    for (long r = 0; r < rounds; r++) printf("%s%.9f", r ? ", " : "", secs[r]);
    printf("], ");
    print_results(pnl, trades, n);
    printf("}\n");
    free(w), free(res), free(secs), free(pnl), free(trades);
    return 0;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One echo round trip.  Ours: the caller's arrays, sent and received in place.  The study's form, in C:
 * what its Python client does per call (a new request object the payload is copied into, a new reply
 * object), as a fresh malloc + memcpy of the payload and a fresh reply buffer, freed after the call;
 * the frame itself still goes through the library's codec (no second copy of it here). */
static hs_status echo_once(hs_client *c, const double *close, size_t n, double *out, int study, hs_error *err) {
    if (!study) return hs_client_echo(c, close, n, out, err);
    double *req = malloc(n * sizeof *req), *rep = malloc(n * sizeof *rep);
    if (!req || !rep) {
        free(req), free(rep);
        snprintf(err->msg, sizeof err->msg, "echo: out of memory");
        return HS_ERR_NOMEM;
    }
    memcpy(req, close, n * sizeof *req);
    hs_status st = hs_client_echo(c, req, n, rep, err);
    memcpy(out, rep, n * sizeof *out); /* the caller keeps the verbatim check */
    free(req), free(rep);
    return st;
}

static int cmd_echo(const args *a, const double *close, size_t n_bars) {
    hs_client *c;
    if (!a->sizes || !a->reps || connect_to(a->address, &c)) return a->sizes ? 1 : die("echo", "--sizes and --reps are required");
    double *out = malloc(n_bars * sizeof *out);
    const char *sp = a->sizes, *rp = a->reps;
    hs_error err;
    while (*sp && *rp) {
        char *e1, *e2;
        long n = strtol(sp, &e1, 10), reps = strtol(rp, &e2, 10);
        if (n < 1 || (size_t)n > n_bars || reps < 1) return die("echo", "a size is outside 1..n_bars or reps < 1");
        double *t = malloc((size_t)reps * sizeof *t);
        if (echo_once(c, close, (size_t)n, out, a->study, &err) != HS_OK) return die("echo", err.msg); /* warm-up */
        if (memcmp(out, close, (size_t)n * sizeof *out) != 0) return die("echo", "the echo is not verbatim");
        /* at most `reps` calls, or --budget-ms per size once --min-reps are done (a slow tail across
         * vCPUs must not stretch the whole curve) */
        double t_end = now_s() + (a->budget_ms > 0 ? 1e-3 * (double)a->budget_ms : 1e30);
        long done = 0;
        while (done < reps) {
            double t0 = now_s();
            if (echo_once(c, close, (size_t)n, out, a->study, &err) != HS_OK) return die("echo", err.msg);
            double t1 = now_s();
            t[done++] = (t1 - t0) * 1e6;
            if (t1 > t_end && done >= a->min_reps) break;
        }
        reps = done;
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        printf("{\"n\": %ld, \"p50_us\": %.3f, \"p99_us\": %.3f, \"min_us\": %.3f, \"n_reps\": %ld}\n", n,
               t[reps / 2], t[(long)(0.99 * (double)(reps - 1))], t[0], reps);
        free(t);
        sp = *e1 == ',' ? e1 + 1 : e1;
        rp = *e2 == ',' ? e2 + 1 : e2;
    }
    hs_client_close(c);
    free(out);
    return 0;
}

/* LOAD a short series once, then --rounds x (80 SWEEP_HANDLE calls of one combo's windows): the kernel has
 * almost nothing to do, so the 80 calls' time is their boundary.  Prints every round's total and the
 * last reply (the harness gates it); a reply that differs from the first one fails here. */
static int cmd_preload(const args *a, const double *close, size_t n_bars) {
    hs_client *c;
    hs_error err;
    uint32_t h;
    size_t n = n_bars < 16 ? n_bars : 16;
    hs_windows w = {{1, 2, 1, 1, 1, 2}};
    hs_result r, first;
    long rounds = a->rounds > 0 ? a->rounds : 1;
    double *tot = malloc((size_t)rounds * sizeof *tot);
    if (!tot || connect_to(a->address, &c)) return 1;
    if (hs_client_load(c, close, n, &h, &err) != HS_OK) return die("load", err.msg);
    if (hs_client_sweep_handle(c, h, &w, 1, &first, &err) != HS_OK) return die("sweep_handle", err.msg);
    for (long k = 0; k < rounds; k++) {
        double t0 = now_s();
        for (int i = 0; i < 80; i++)
            if (hs_client_sweep_handle(c, h, &w, 1, &r, &err) != HS_OK) return die("sweep_handle", err.msg);
        tot[k] = (now_s() - t0) * 1e3;
        if (r.trades != first.trades || memcmp(&r.pnl, &first.pnl, sizeof r.pnl))
            return die("preload", "a reply differs from the first one");
    }
    hs_client_close(c);
    printf("{\"totals_ms\": [");
    for (long k = 0; k < rounds; k++) printf("%s%.4f", k ? ", " : "", tot[k]);
    printf("], ");
    print_results(&r.pnl, &r.trades, 1);
    printf("}\n");
    free(tot);
    return 0;
}

static int cmd_perbar(const args *a, const double *close, size_t n_bars) {
    hs_windows *w;
    size_t n;
    if (read_windows(a->windows, &w, &n)) return 1;
    size_t bars = a->bars > 1 && (size_t)a->bars <= n_bars ? (size_t)a->bars : n_bars;
    double *pnl = malloc(n * sizeof *pnl);
    int64_t *trades = malloc(n * sizeof *trades);
    hs_error err;
    double t0, total;
    /* The history is the longest window (the server's LIVE_OPEN wants every window within the loaded
     * series); every later bar is one append, here and over the wire alike. */
    size_t hist = 1;
    for (size_t k = 0; k < n; k++)
        for (int j = 0; j < 6; j++)
            if (w[k].w[j] > 0 && (size_t)w[k].w[j] > hist) hist = (size_t)w[k].w[j];
    if (hist >= bars) return die("perbar", "--bars must exceed the longest window");
    if (!strcmp(a->address, "inproc")) {
        hs_live *s;
        if (hs_live_open(close, hist, w, n, &s, &err) != HS_OK) return die("hs_live_open", err.msg);
        t0 = now_s();
        for (size_t i = hist; i < bars; i++)
            if (hs_live_append(s, close + i, 1, pnl, trades, NULL, NULL, &err) != HS_OK) return die("append", err.msg);
        total = now_s() - t0;
        hs_live_free(s);
    } else {
#ifdef HS_HAVE_CLIENT_LIVE
        hs_client *c;
        uint32_t h, sess;
        if (connect_to(a->address, &c)) return 1;
        if (hs_client_load(c, close, hist, &h, &err) != HS_OK) return die("load", err.msg);
        if (hs_client_live_open(c, h, w, n, &sess, &err) != HS_OK) return die("live_open", err.msg);
        t0 = now_s();
        for (size_t i = hist; i < bars; i++)
            if (hs_client_live_append(c, sess, close + i, 1, n, pnl, trades, NULL, NULL, &err) != HS_OK)
                return die("live_append", err.msg);
        total = now_s() - t0;
        hs_client_live_close(c, sess, &err);
        hs_client_close(c);
#else
        return die("perbar", "this build's C client has no live mode (hs_client_live_open)");
#endif
    }
    printf("{\"total_s\": %.9f, \"appends\": %zu, \"history\": %zu, \"bars\": %zu, ", total, bars - hist, hist, bars);
    print_results(pnl, trades, n);
    printf("}\n");
    free(pnl), free(trades), free(w);
    return 0;
}

int main(int argc, char **argv) {
    args a = {0};
    if (argc < 2 || !parse(argc, argv, &a) || !a.series) {
        fprintf(stderr, "usage: hs_ipc_client sweep|echo|perbar --address URL --series F.f64 "
                        "[--windows F.i64] [--rounds N] [--sizes a,b --reps a,b] [--bars N]\n");
        return 2;
    }
    double *close;
    size_t n_bars;
    hs_error err;
    if (hs_read_series(a.series, &close, &n_bars, &err) != HS_OK) return die(a.series, err.msg);
    int rc = 2;
    if (!strcmp(argv[1], "sweep")) rc = cmd_sweep(&a, close, n_bars);
    else if (!strcmp(argv[1], "echo")) rc = cmd_echo(&a, close, n_bars);
    else if (!strcmp(argv[1], "perbar")) rc = cmd_perbar(&a, close, n_bars);
    else if (!strcmp(argv[1], "preload")) rc = cmd_preload(&a, close, n_bars);
    else fprintf(stderr, "hs_ipc_client: unknown command '%s'\n", argv[1]);
    free(close); /* the series (LeakSanitizer in the asan preset) */
    return rc;
}
