/* The library is reentrant (include/hmasweep.h "Threads"; docs/library.md "Threads and reentrancy"): several
 * threads call hs_sweep at once (every registered variant, threaded ones with an OpenMP team of 2 each, with
 * a fee, statistics and equity at period ends), hs_sweep_many, hs_trade_log_opt, and each its own live
 * session, and every answer has the bits the same call gives when it runs alone (computed afterwards, on
 * this thread).  The first calls race too: the threads start together, before anything has read the
 * environment or the thread limit (pthread_once).  Label openmp: the TSan preset runs it (with Archer), and
 * reports any data race in the library's state. */
#define _GNU_SOURCE /* pthread_barrier_t under -std=c11 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

#define BARS 4000
#define N 6
#define P 4
#define THREADS 4
#define MAX_VARIANTS 64
static double close_[BARS];
static hs_windows combos[N];
static const char *names[MAX_VARIANTS];
static size_t n_names;

typedef struct {
    hs_result r[N];
    hs_stats s[N];
    double e[P * N], m[N];
} answer;
static pthread_barrier_t start;

static hs_status sweep_one(const char *variant, answer *a, hs_error *err) {
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.variant = variant, o.threads = 2, o.has_fee = 1, o.fee = 0.001, o.stats = a->s;
    o.n_periods = P, o.equity = a->e, o.mtm_max_drawdown = a->m;
    return hs_sweep(close_, BARS, combos, N, a->r, &o, err);
}

static hs_status sweep_many(hs_result *out, hs_error *err) {
    hs_series_ref s[2] = {{"a", close_, BARS}, {"b", close_ + 1000, BARS - 1000}};
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.threads = 2;
    return hs_sweep_many(s, 2, combos, N, out, NULL, NULL, NULL, &o, err);
}

typedef struct {
    int id, failures;
    hs_error err;
    answer a[MAX_VARIANTS];
    hs_result many[2 * N], batch[N];
    hs_trade *log;
    size_t n_log;
    double live_pnl[N];
} worker;

static void failed(worker *w, hs_status st) {
    if (st != HS_OK) w->failures++;
}

/* Everything a worker computes is kept, and compared with the references once every thread is done. */
static void *run(void *arg) {
    worker *w = arg;
    pthread_barrier_wait(&start);
    for (size_t k = 0; k < n_names; k++) {
        size_t v = (k + (size_t)w->id * 3) % n_names; /* each thread its own order */
        failed(w, sweep_one(names[v], &w->a[v], &w->err));
    }
    failed(w, sweep_many(w->many, &w->err));
    failed(w, hs_trade_log_opt(close_, BARS, &combos[0], NULL, 0, &w->n_log, NULL, &w->err));
    w->log = calloc(w->n_log + 1, sizeof *w->log);
    if (w->log) failed(w, hs_trade_log_opt(close_, BARS, &combos[0], w->log, w->n_log, &w->n_log, NULL, &w->err));
    hs_live *s = NULL;
    hs_status st = hs_live_open_opt(close_, BARS / 2, combos, N, NULL, &s, &w->err);
    if (st == HS_OK) st = hs_live_append(s, close_ + BARS / 2, BARS - BARS / 2, w->live_pnl, NULL, NULL, NULL, &w->err);
    failed(w, st);
    hs_live_free(s);
    failed(w, hs_sweep(close_, BARS, combos, N, w->batch, NULL, &w->err));
    return NULL;
}

int main(void) {
    hs_error err;
    CHECK(hs_make_close(3, BARS, 0.01, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    const int64_t lengths[N] = {6, 9, 14, 25, 40, 77};
    for (int c = 0; c < N; c++) CHECK(hs_windows_from_length(lengths[c], &combos[c], &err) == HS_OK, "%s", err.msg);
    static hs_variant_info info[MAX_VARIANTS];
    for (size_t i = 0; i < hs_variant_count() && n_names < MAX_VARIANTS; i++) {
        hs_variant_describe_sized(i, &info[i], sizeof info[i], NULL); /* name: static storage */
        names[n_names++] = info[i].name;
    }
    CHECK(n_names >= 5, "%zu variants", n_names);
    /* The workers' sweeps are the process's first (nothing above reads the environment, the thread limit or
     * the load), so its once-only initialisations race too; the references come after, on this thread. */
    static worker w[THREADS];
    pthread_t tid[THREADS];
    pthread_barrier_init(&start, NULL, THREADS + 1);
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        CHECK(pthread_create(&tid[i], NULL, run, &w[i]) == 0, "pthread_create %d", i);
    }
    pthread_barrier_wait(&start);
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&start);

    static answer expected[MAX_VARIANTS];
    for (size_t v = 0; v < n_names; v++) CHECK(sweep_one(names[v], &expected[v], &err) == HS_OK, "%s: %s", names[v], err.msg);
    hs_result many[2 * N], batch[N];
    CHECK(sweep_many(many, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_sweep(close_, BARS, combos, N, batch, NULL, &err) == HS_OK, "%s", err.msg);
    size_t n_log = 0;
    CHECK(hs_trade_log_opt(close_, BARS, &combos[0], NULL, 0, &n_log, NULL, &err) == HS_OK && n_log > 50, "%zu", n_log);
    hs_trade *log = calloc(n_log + 1, sizeof *log);
    CHECK(hs_trade_log_opt(close_, BARS, &combos[0], log, n_log, &n_log, NULL, &err) == HS_OK, "%s", err.msg);
    for (int i = 0; i < THREADS; i++) {
        CHECK(w[i].failures == 0, "thread %d: %d calls failed (last: '%s')", i, w[i].failures, w[i].err.msg);
        for (size_t v = 0; v < n_names; v++)
            CHECK(!memcmp(&w[i].a[v], &expected[v], sizeof expected[v]), "thread %d, %s: not the bits it gives alone", i,
                  names[v]);
        CHECK(!memcmp(w[i].many, many, sizeof many), "thread %d: hs_sweep_many", i);
        CHECK(!memcmp(w[i].batch, batch, sizeof batch), "thread %d: hs_sweep with no options", i);
        CHECK(w[i].n_log == n_log && w[i].log && !memcmp(w[i].log, log, n_log * sizeof *log), "thread %d: trade log", i);
        for (int c = 0; c < N; c++) CHECK_BITS(w[i].live_pnl[c], batch[c].pnl);
        free(w[i].log);
    }
    free(log);
    printf("test_reentrant: %d threads x %zu variants (with a fee, statistics, equity; threaded ones on 2 threads),"
           " hs_sweep_many, a trade log and a live session each, at once\n", THREADS, n_names);
    return hs_check_summary("test_reentrant");
}
