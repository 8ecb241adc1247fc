/* hs_ipc_client: the boundary study's C client (study/ipc/run.py drives it).  Everything goes through the
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
 *   hs_ipc_client handle --addresses URL,URL,.. --series F.f64 --windows F.i64 --variant V --client-cpu C
 *       --inproc-cpus S[,C] [--server-pid P --rounds N --budget-ms T --min-reps M --cold-reps K]
 *       the preload rows behind the fast kernel (issue 21): each URL's connection LOADs the series once;
 *       then every round times, in an order rotated by one per round, one whole SWEEP_HANDLE per URL and
 *       the same sweep in process (hs_sweep with --variant) on each vCPU of --inproc-cpus, with each
 *       sweep's CPU and run-queue wait (schedstat) of this process and of the server (--server-pid, every
 *       URL's server).  Then the parts of the boundary (print_parts).  One JSON object; exit 1 when any row's results differ
 *       from the in-process ones in one bit.
 *
 * URL: unix:PATH, tcp:HOST:PORT (or tcp://HOST:PORT), shm:NAME.  Exit 1 on any error (named on stderr),
 * 2 on bad usage. */
#define _GNU_SOURCE /* sched_setaffinity: the handle command moves its in-process sweep between vCPUs */
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "hmasweep_client.h"
#include "codec.h" /* the handle command times the codec steps of one request */

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
    const char *addresses, *variant, *inproc_cpus; /* handle */
    long rounds, bars, budget_ms, min_reps, client_cpu, cold_reps, server_pid;
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
        else if (!strcmp(k, "--addresses")) a->addresses = v;
        else if (!strcmp(k, "--variant")) a->variant = v;
        else if (!strcmp(k, "--inproc-cpus")) a->inproc_cpus = v;
        else if (!strcmp(k, "--client-cpu")) a->client_cpu = strtol(v, NULL, 10);
        else if (!strcmp(k, "--cold-reps")) a->cold_reps = strtol(v, NULL, 10);
        else if (!strcmp(k, "--server-pid")) a->server_pid = strtol(v, NULL, 10);
        else if (!strcmp(k, "--mode")) { /* batch only */ }
        else if (!strcmp(k, "--form")) {
            if (strcmp(v, "study") && strcmp(v, "ours")) return 0;
            a->study = !strcmp(v, "study");
        }
        else return 0;
        i++;
    }
    return a->address != NULL || a->addresses != NULL;
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

/* ---- handle: LOAD once, then the whole sweep by handle, behind the fast kernel (issue 21) ---------- */
#define HANDLE_MAX_ROWS 8
#define HANDLE_MAX_ROUNDS 10000
#define HANDLE_COLD_SLEEP_NS 20000000L /* > the shm wait's 10 ms spin window: both sides sleep */

typedef struct {
    char name[16];  /* "inproc", or the URL's scheme */
    const char *address;
    int cpu;        /* inproc: the vCPU the sweep runs on */
    hs_client *c;
    uint32_t h, h_tiny; /* the whole series; the tiny one (the parts) */
    double load_ms;
    double *secs;
    hs_result *res;
    struct sched_ns *cl, *sv; /* per round: this process's and the server's scheduler figures */
} handle_row;

/* The scheduler's account of a task (/proc/.../schedstat): ns on a CPU, ns runnable but waiting for one.
 * Read around each sweep (outside its timing), so the boundary can be split into work and waiting. */
typedef struct sched_ns {
    uint64_t cpu, wait;
} sched_ns;

static void add_schedstat(const char *path, sched_ns *acc) {
    FILE *f = fopen(path, "r");
    unsigned long long cpu = 0, wait = 0;
    if (f && fscanf(f, "%llu %llu", &cpu, &wait) == 2) acc->cpu += cpu, acc->wait += wait;
    if (f) fclose(f);
}

/* This thread, or every thread of process `pid` (the server: its listener, connection and worker threads). */
static sched_ns sched_of(long pid) {
    sched_ns s = {0, 0};
    if (pid <= 0) {
        /* this thread is running: its schedstat CPU figure is only brought up to date at a tick or a
         * switch (stale by up to a tick), the clock is exact; its wait ends when it last got a vCPU */
        struct timespec t;
        add_schedstat("/proc/thread-self/schedstat", &s);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        s.cpu = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
        return s;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char p[128];
        snprintf(p, sizeof p, "/proc/%ld/task/%.20s/schedstat", pid, e->d_name);
        add_schedstat(p, &s);
    }
    if (d) closedir(d);
    return s;
}

static int pin_to(long cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* One sweep of `row` over (close, n) (its handle `h` when remote); its seconds in *dt. */
static hs_status sweep_row(const handle_row *row, long client_cpu, uint32_t h, const double *close, size_t n,
                           const hs_windows *w, size_t nw, const hs_sweep_options *opt, hs_result *out, double *dt,
                           hs_error *err) {
    hs_status st;
    if (row->c) {
        double t0 = now_s();
        st = hs_client_sweep_handle(row->c, h, w, nw, out, err);
        *dt = now_s() - t0;
        return st;
    }
    if (row->cpu != client_cpu && pin_to(row->cpu)) {
        snprintf(err->msg, sizeof err->msg, "cannot move to vCPU %d", row->cpu);
        return HS_ERR_USAGE;
    }
    double t0 = now_s();
    st = hs_sweep(close, n, w, nw, out, opt, err);
    *dt = now_s() - t0;
    if (row->cpu != client_cpu) pin_to(client_cpu);
    return st;
}

/* p50/min (µs) of at most `reps` calls of `row` on the tiny series (or, with echo_n > 0, of an echo of
 * echo_n floats), each after `sleep_ns` idle; stops after budget_s once 5 are done. */
static int time_calls(const handle_row *row, long client_cpu, const double *close, size_t tiny_n, const hs_windows *w,
                      size_t nw, const hs_sweep_options *opt, size_t echo_n, long reps, long sleep_ns, double budget_s,
                      double *p50, double *min, long *done) {
    double *t = malloc((size_t)reps * sizeof *t), *echo = malloc((echo_n ? echo_n : 1) * sizeof *echo);
    hs_result *res = malloc(nw * sizeof *res);
    hs_error err;
    double t_end = now_s() + budget_s;
    long k = 0;
    if (!t || !echo || !res) return die("handle", "out of memory");
    for (; k < reps; k++) {
        if (sleep_ns) nanosleep(&(struct timespec){0, sleep_ns}, NULL);
        hs_status st;
        if (echo_n) {
            double t0 = now_s();
            st = hs_client_echo(row->c, close, echo_n, echo, &err);
            t[k] = now_s() - t0;
        } else {
            st = sweep_row(row, client_cpu, row->h_tiny, close, tiny_n, w, nw, opt, res, &t[k], &err);
        }
        if (st != HS_OK) return die(row->name, err.msg);
        t[k] *= 1e6;
        if (now_s() > t_end && k + 1 >= 5) {
            k++;
            break;
        }
    }
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    *p50 = t[k / 2], *min = t[0], *done = k;
    free(t), free(echo), free(res);
    return 0;
}

/* ns per call of the engine's codec steps that one SWEEP_HANDLE of nw combos costs outside the kernel
 * and the transport: the client's frame header, the server's parse and windows check, the server's
 * copy of the results into the reply (the client's copy out of it moves the same bytes back). */
static void print_codec_parts(const hs_windows *w, size_t nw, size_t n_bars, const hs_result *res) {
    enum { K = 20000 };
    unsigned char hdr[HS_REQUEST_HEADER_MAX];
    size_t pad = hs_codec_body_pad(HS_OP_SWEEP_HANDLE), hn = hs_codec_request_header(HS_OP_SWEEP_HANDLE, 1, (uint32_t)nw, 48 * nw, hdr);
    size_t body_len = hn - HS_FRAME_PREFIX_BYTES + 48 * nw;
    unsigned char *buf = aligned_alloc(64, (pad + body_len + 63) / 64 * 64 + 64);
    unsigned char *reply = malloc(hs_codec_sweep_reply_bytes(nw));
    hs_codec_limits lim = {UINT32_MAX >> 1, UINT64_MAX};
    hs_request req;
    hs_error err;
    volatile size_t sink = 0;
    double t[4];
    memcpy(buf + pad, hdr + HS_FRAME_PREFIX_BYTES, hn - HS_FRAME_PREFIX_BYTES);
    memcpy(buf + pad + hn - HS_FRAME_PREFIX_BYTES, w, 48 * nw);
    double t0 = now_s();
    for (int i = 0; i < K; i++) sink += hs_codec_request_header(HS_OP_SWEEP_HANDLE, (uint32_t)i, (uint32_t)nw, 48 * nw, hdr);
    t[0] = now_s();
    for (int i = 0; i < K; i++) sink += hs_codec_parse_request(buf + pad, body_len, &lim, &req, &err);
    t[1] = now_s();
    for (int i = 0; i < K; i++) sink += hs_codec_check_windows(w, nw, n_bars, UINT64_MAX, &err);
    t[2] = now_s();
    for (int i = 0; i < K; i++) hs_codec_encode_sweep_reply(res, nw, reply), sink += reply[i % 16];
    t[3] = now_s();
    printf("\"codec_ns\": {\"encode_header\": %.1f, \"parse_request\": %.1f, \"check_windows\": %.1f, "
           "\"copy_results\": %.1f}", 1e9 * (t[0] - t0) / K, 1e9 * (t[1] - t[0]) / K, 1e9 * (t[2] - t[1]) / K,
           1e9 * (t[3] - t[2]) / K);
    free(buf), free(reply);
}

/* Open the rows: one in-process row per vCPU of --inproc-cpus, then one connection per URL, which LOADs
 * the whole series (timed) and the tiny one.  Returns the number of rows, 0 on error (named). */
static size_t open_handle_rows(const args *a, const double *close, size_t n_bars, size_t tiny_n, handle_row *rows) {
    size_t n = 0;
    char list[1024];
    hs_error err;
    for (const char *p = a->inproc_cpus; p && *p && n < 2;) {
        char *e;
        long cpu = strtol(p, &e, 10);
        if (e == p || cpu < 0 || cpu >= CPU_SETSIZE) return die("--inproc-cpus", "not a list of vCPUs"), 0;
        rows[n] = (handle_row){.cpu = (int)cpu};
        snprintf(rows[n++].name, sizeof rows->name, "inproc");
        p = *e == ',' ? e + 1 : e;
    }
    if (n == 0) return die("--inproc-cpus", "at least one vCPU is needed (the in-process rows)"), 0;
    if (strlen(a->addresses) >= sizeof list) return die("--addresses", "too long"), 0;
    strcpy(list, a->addresses);
    for (char *save = NULL, *u = strtok_r(list, ",", &save); u; u = strtok_r(NULL, ",", &save)) {
        if (n == HANDLE_MAX_ROWS) return die("--addresses", "too many"), 0;
        handle_row *r = &rows[n];
        *r = (handle_row){.cpu = -1, .address = a->addresses + (u - list)};
        snprintf(r->name, sizeof r->name, "%.*s", (int)strcspn(u, ":"), u);
        if (connect_to(u, &r->c)) return 0;
        n++;
        double t0 = now_s();
        if (hs_client_load(r->c, close, n_bars, &r->h, &err) != HS_OK) return die("load", err.msg), 0;
        r->load_ms = 1e3 * (now_s() - t0);
        if (hs_client_load(r->c, close, tiny_n, &r->h_tiny, &err) != HS_OK) return die("load", err.msg), 0;
    }
    return n;
}

static void print_row(const handle_row *r, long rounds, size_t nw) {
    printf("{\"name\": \"%s\", \"cpu\": %d, \"load_ms\": %.4f, \"seconds\": [", r->name, r->cpu, r->load_ms);
    for (long k = 0; k < rounds; k++) printf("%s%.9f", k ? ", " : "", r->secs[k]);
    static const char *const key[4] = {"client_cpu_us", "client_wait_us", "server_cpu_us", "server_wait_us"};
    for (int j = 0; j < 4; j++) {
        printf("], \"%s\": [", key[j]);
        for (long k = 0; k < rounds; k++) {
            const sched_ns *s = j < 2 ? &r->cl[k] : &r->sv[k];
            printf("%s%.1f", k ? ", " : "", 1e-3 * (double)(j & 1 ? s->wait : s->cpu));
        }
    }
    printf("], ");
    double *pnl = malloc(nw * sizeof *pnl);
    int64_t *trades = malloc(nw * sizeof *trades);
    for (size_t k = 0; k < nw; k++) pnl[k] = r->res[k].pnl, trades[k] = r->res[k].trades;
    print_results(pnl, trades, nw);
    printf("}");
    free(pnl), free(trades);
}

/* The boundary's parts, per URL: a warm and a cold (after 20 ms idle) round trip of an echo as large as
 * the request (6 floats = 48 bytes per combo), and the same SWEEP_HANDLE on a tiny series (the kernel's
 * work a few µs) warm and cold, beside the tiny sweep in process. */
static int print_parts(const args *a, handle_row *rows, size_t nr, const double *close, size_t tiny_n,
                       const hs_windows *w, size_t nw, const hs_sweep_options *opt) {
    long cold = a->cold_reps > 0 ? a->cold_reps : 15, warm = 1000;
    double p50, mn;
    long done;
    printf("\"parts\": {\"tiny_bars\": %zu, \"echo_floats\": %zu, ", tiny_n, 6 * nw);
    if (time_calls(&rows[0], a->client_cpu, close, tiny_n, w, nw, opt, 0, warm, 0, 0.3, &p50, &mn, &done)) return 1;
    printf("\"inproc_tiny_us\": {\"cpu\": %d, \"p50\": %.3f, \"min\": %.3f, \"n\": %ld}, ", rows[0].cpu, p50, mn, done);
    if (time_calls(&rows[0], a->client_cpu, close, tiny_n, w, nw, opt, 0, cold, HANDLE_COLD_SLEEP_NS, 1.0, &p50, &mn, &done))
        return 1;
    printf("\"inproc_tiny_cold_us\": {\"cpu\": %d, \"p50\": %.3f, \"min\": %.3f, \"n\": %ld}, ", rows[0].cpu, p50, mn, done);
    print_codec_parts(w, nw, tiny_n, rows[0].res);
    printf(", \"transports\": {");
    int first = 1;
    for (size_t i = 0; i < nr; i++) {
        if (!rows[i].c) continue;
        printf("%s\"%s\": {", first ? "" : ", ", rows[i].name);
        first = 0;
        static const char *const what[4] = {"echo_warm_us", "echo_cold_us", "tiny_warm_us", "tiny_cold_us"};
        for (int j = 0; j < 4; j++) {
            if (time_calls(&rows[i], a->client_cpu, close, tiny_n, w, nw, opt, j < 2 ? 6 * nw : 0, j & 1 ? cold : warm,
                           j & 1 ? HANDLE_COLD_SLEEP_NS : 0, j & 1 ? 1.0 : 0.3, &p50, &mn, &done))
                return 1;
            printf("%s\"%s\": {\"p50\": %.3f, \"min\": %.3f, \"n\": %ld}", j ? ", " : "", what[j], p50, mn, done);
        }
        printf("}");
    }
    printf("}}");
    return 0;
}

static int cmd_handle(const args *a, const double *close, size_t n_bars) {
    hs_windows *w;
    size_t nw;
    if (!a->addresses || !a->variant || !a->windows) return die("handle", "--addresses, --variant and --windows are required");
    if (read_windows(a->windows, &w, &nw)) return 1;
    if (pin_to(a->client_cpu)) return die("--client-cpu", "cannot pin to that vCPU");
    size_t longest = 1;
    for (size_t k = 0; k < nw; k++)
        for (int j = 0; j < 6; j++)
            if ((size_t)w[k].w[j] > longest) longest = (size_t)w[k].w[j];
    size_t tiny_n = 2 * longest < n_bars ? 2 * longest : n_bars;
    if (a->rounds < 0 || a->rounds > HANDLE_MAX_ROUNDS) return die("--rounds", "must be 1..10000");
    long rounds = a->rounds > 0 ? a->rounds : 10;
    double budget_s = a->budget_ms > 0 ? 1e-3 * (double)a->budget_ms : 60.0;
    handle_row rows[HANDLE_MAX_ROWS];
    size_t nr = open_handle_rows(a, close, n_bars, tiny_n, rows);
    if (!nr) return 1;
    hs_sweep_report rep = {{0}, {0}, 0};
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = a->variant, opt.threads = 1, opt.report = &rep;
    hs_error err;
    double dt;
    for (size_t i = 0; i < nr; i++) {
        rows[i].secs = malloc((size_t)rounds * sizeof(double));
        rows[i].res = malloc(nw * sizeof(hs_result));
        rows[i].cl = malloc((size_t)rounds * sizeof(sched_ns));
        rows[i].sv = malloc((size_t)rounds * sizeof(sched_ns));
        if (!rows[i].secs || !rows[i].res || !rows[i].cl || !rows[i].sv) return die("handle", "out of memory");
        /* warm-up: the first sweep of each row (page faults, the server's first use of its buffers) */
        if (sweep_row(&rows[i], a->client_cpu, rows[i].h, close, n_bars, w, nw, &opt, rows[i].res, &dt, &err) != HS_OK)
            return die(rows[i].name, err.msg);
    }
    double t_end = now_s() + budget_s;
    long done = 0;
    while (done < rounds) {
        for (size_t j = 0; j < nr; j++) {
            handle_row *r = &rows[(j + (size_t)done) % nr];
            /* the server's figures outside this thread's, so reading them is not charged to the client */
            sched_ns s0 = sched_of(a->server_pid), c0 = sched_of(0);
            if (sweep_row(r, a->client_cpu, r->h, close, n_bars, w, nw, &opt, r->res, &r->secs[done], &err) != HS_OK)
                return die(r->name, err.msg);
            sched_ns c1 = sched_of(0), s1 = sched_of(a->server_pid);
            r->cl[done] = (sched_ns){c1.cpu - c0.cpu, c1.wait - c0.wait};
            r->sv[done] = (sched_ns){s1.cpu - s0.cpu, s1.wait - s0.wait};
        }
        for (size_t i = 1; i < nr; i++)
            for (size_t k = 0; k < nw; k++)
                if (rows[i].res[k].trades != rows[0].res[k].trades || memcmp(&rows[i].res[k].pnl, &rows[0].res[k].pnl, 8))
                    return die(rows[i].name, "a result differs from the in-process sweep's");
        done++;
        if (now_s() > t_end && done >= (a->min_reps > 0 ? a->min_reps : 3)) break;
    }
    printf("{\"variant\": \"%s\", \"ran\": \"%s\", \"isa\": \"%s\", \"threads\": %d, \"client_cpu\": %ld, "
           "\"bars\": %zu, \"combos\": %zu, \"rounds\": %ld, \"rows\": [", a->variant, rep.variant, rep.isa, rep.threads,
           a->client_cpu, n_bars, nw, done);
    for (size_t i = 0; i < nr; i++) {
        printf("%s", i ? ", " : "");
        print_row(&rows[i], done, nw);
    }
    printf("], ");
    int rc = print_parts(a, rows, nr, close, tiny_n, w, nw, &opt);
    printf("}\n");
    for (size_t i = 0; i < nr; i++) {
        if (rows[i].c) hs_client_close(rows[i].c);
        free(rows[i].secs), free(rows[i].res), free(rows[i].cl), free(rows[i].sv);
    }
    free(w);
    return rc;
}

int main(int argc, char **argv) {
    args a = {0};
    if (argc < 2 || !parse(argc, argv, &a) || !a.series) {
        fprintf(stderr, "usage: hs_ipc_client sweep|echo|preload|perbar --address URL --series F.f64 "
                        "[--windows F.i64] [--rounds N] [--sizes a,b --reps a,b] [--bars N]\n"
                        "       hs_ipc_client handle --addresses URL,URL --series F.f64 --windows F.i64 --variant V "
                        "--client-cpu C --inproc-cpus S[,C] [--server-pid P]\n");
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
    else if (!strcmp(argv[1], "handle")) rc = cmd_handle(&a, close, n_bars);
    else fprintf(stderr, "hs_ipc_client: unknown command '%s'\n", argv[1]);
    free(close); /* the series (LeakSanitizer in the asan preset) */
    return rc;
}
