/* The progress/cancel hook of hs_sweep_options (include/hmasweep.h, docs/library.md "Progress and
 * cancel"), on every driver: serial combo, OpenMP combo, batch, the whole-sweep kernel (segments, what
 * `best` runs) and hs_sweep_many:
 *   - with a callback that never stops, the results are bit for bit those of a run without one, the
 *     callback runs on the calling thread only, `done` never goes back, and the last call is total/total;
 *   - a callback that answers non-zero stops the sweep: HS_ERR_CANCELLED, a message that says so, and
 *     far fewer combos run than asked (counted by the callback itself);
 *   - a caller whose struct_size ends before the hook is never called back (the extension rule);
 *   - hs_sweep_many asks inside its 8-combo work units, and hs_trade_log_opt inside its passes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hmasweep.h"

enum { BARS = 4000, COMBOS = 200, BIG_BARS = 200000 };
static double big[BIG_BARS]; /* the threaded stop runs on this: long enough that the caller gets a combo */

typedef struct {
    pthread_t caller;
    size_t calls, last_done, total;
    int wrong_thread, went_back, stop_after; /* stop_after > 0: answer 1 on that call */
} watch;

static int on_progress(void *user, size_t done, size_t total) {
    watch *w = user;
    w->calls++;
    if (!pthread_equal(pthread_self(), w->caller)) w->wrong_thread = 1;
    if (done < w->last_done || done > total) w->went_back = 1;
    w->last_done = done, w->total = total;
    return w->stop_after > 0 && (int)w->calls >= w->stop_after;
}

static int same_results(const hs_result *a, const hs_result *b, size_t n) {
    for (size_t c = 0; c < n; c++)
        if (a[c].trades != b[c].trades || memcmp(&a[c].pnl, &b[c].pnl, sizeof(double)) != 0) return 0;
    return 1;
}

/* The combos finished in the end, from the message "... after D of N ...". */
static size_t done_in(const char *msg) {
    const char *p = strstr(msg, "after ");
    size_t d = (size_t)-1;
    if (p) sscanf(p, "after %zu", &d);
    return d;
}

static void check_variant(const char *variant, int threads, const double *close, const hs_windows *w) {
    static hs_result plain[COMBOS], hooked[COMBOS];
    hs_error err;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = variant, opt.threads = threads;
    CHECK(hs_sweep(close, BARS, w, COMBOS, plain, &opt, &err) == HS_OK, "%s: %s", variant, err.msg);
    watch wt = {pthread_self(), 0, 0, 0, 0, 0, 0};
    opt.progress = on_progress, opt.progress_user = &wt;
    CHECK(hs_sweep(close, BARS, w, COMBOS, hooked, &opt, &err) == HS_OK, "%s: %s", variant, err.msg);
    CHECK(same_results(plain, hooked, COMBOS), "%s/%d: a callback changed the results", variant, threads);
    CHECK(wt.calls >= (threads == 1 ? 2u : 1u), "%s/%d: %zu calls", variant, threads, wt.calls);
    CHECK(!wt.wrong_thread, "%s/%d: called from a thread other than the caller", variant, threads);
    CHECK(!wt.went_back, "%s/%d: done went back or past total", variant, threads);
    CHECK(wt.last_done == COMBOS && wt.total == COMBOS, "%s/%d: last call %zu/%zu", variant, threads, wt.last_done,
          wt.total);

    /* With 2 threads on a loaded machine the other thread may take every combo while the caller is off
     * the CPU; its first call is then the final one (done == total).  Try again: it cannot stay so. */
    watch stop;
    hs_status st;
    for (int attempt = 0; attempt < 20; attempt++) {
        stop = (watch){pthread_self(), 0, 0, 0, 0, 0, 1};
        opt.progress_user = &stop;
        st = threads > 1 ? hs_sweep(big, BIG_BARS, w, COMBOS, hooked, &opt, &err)
                         : hs_sweep(close, BARS, w, COMBOS, hooked, &opt, &err);
        if (!(threads > 1 && st == HS_OK && stop.last_done == COMBOS)) break;
    }
    CHECK(st == HS_ERR_CANCELLED, "%s/%d: status %d after a stop (%zu calls, last %zu)", variant, threads, (int)st, stop.calls, stop.last_done);
    CHECK(strstr(err.msg, "cancelled") != NULL, "%s/%d: message '%s'", variant, threads, err.msg);
    CHECK(stop.calls == 1, "%s/%d: %zu calls after answering stop", variant, threads, stop.calls);
    /* after the stop, each other thread finishes at most the unit in hand (8 combos for a batch kernel) */
    size_t final_done = done_in(err.msg);
    CHECK(final_done <= stop.last_done + 8u * (unsigned)(threads - 1) && final_done < COMBOS,
          "%s/%d: %zu combos done at the stop, %zu in the end", variant, threads, stop.last_done, final_done);
}

/* hs_trade_log_opt's progress: with a callback that never stops, the log of hs_trade_log, asked on this thread
 * with done never going back and a last call of total/total; a stop gives HS_ERR_CANCELLED at once. */
static void check_trade_log(void) {
    hs_windows w;
    hs_error err;
    CHECK(hs_windows_from_length(200, &w, &err) == HS_OK, "%s", err.msg);
    static hs_trade plain[BIG_BARS], hooked[BIG_BARS];
    size_t n_plain = 0, n_hooked = 0;
    CHECK(hs_trade_log(big, BIG_BARS, &w, plain, BIG_BARS, &n_plain, &err) == HS_OK, "%s", err.msg);
    watch wt = {pthread_self(), 0, 0, 0, 0, 0, 0};
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.progress = on_progress, opt.progress_user = &wt;
    CHECK(hs_trade_log_opt(big, BIG_BARS, &w, hooked, BIG_BARS, &n_hooked, &opt, &err) == HS_OK, "%s", err.msg);
    CHECK(n_plain == n_hooked && n_plain > 0 && memcmp(plain, hooked, n_plain * sizeof *plain) == 0,
          "trade log with a callback: %zu trades, without %zu, or different", n_hooked, n_plain);
    CHECK(wt.calls > 10 && !wt.wrong_thread && !wt.went_back && wt.last_done == wt.total && wt.total >= BIG_BARS,
          "trade log progress: %zu calls, last %zu/%zu", wt.calls, wt.last_done, wt.total);
    watch stop = {pthread_self(), 0, 0, 0, 0, 0, 1};
    opt.progress_user = &stop;
    hs_status st = hs_trade_log_opt(big, BIG_BARS, &w, hooked, BIG_BARS, &n_hooked, &opt, &err);
    CHECK(st == HS_ERR_CANCELLED && strstr(err.msg, "cancelled") && stop.calls == 1,
          "trade log stop: status %d, '%s', %zu calls", (int)st, err.msg, stop.calls);
}

static int never_called(void *user, size_t done, size_t total) {
    (void)done, (void)total;
    *(int *)user = 1;
    return 1;
}

int main(void) {
    static double close[BARS];
    hs_error err;
    CHECK(hs_make_close(7, BARS, 0.002, 100.0, close, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_make_close(8, BIG_BARS, 0.002, 100.0, big, &err) == HS_OK, "%s", err.msg);
    static hs_windows w[COMBOS];
    for (int c = 0; c < COMBOS; c++) CHECK(hs_windows_from_length(6 + c, &w[c], &err) == HS_OK, "%s", err.msg);
    const char *variants[] = {"unchecked", "simd_wma_omp", "sliding_lanes", "sliding_lanes_omp", "segments", "best"};
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
        for (int threads = 1; threads <= 2; threads++) check_variant(variants[v], threads, close, w);

    /* struct_size ends at `report`: a hook set past it is refused by name (since 1.3), never called */
    int called = 0;
    hs_sweep_options old = HS_SWEEP_OPTIONS_INIT;
    old.struct_size = offsetof(hs_sweep_options, progress);
    old.progress = never_called, old.progress_user = &called;
    static hs_result r[COMBOS];
    CHECK(hs_sweep(close, BARS, w, COMBOS, r, &old, &err) == HS_ERR_USAGE && strstr(err.msg, ".progress is set"),
          "%s", err.msg);
    CHECK(!called, "a callback past struct_size was called");
    old.progress = NULL, old.progress_user = NULL;
    CHECK(hs_sweep(close, BARS, w, COMBOS, r, &old, &err) == HS_OK, "%s", err.msg);

    /* hs_sweep_many: the same hook over every (series, combo) pair */
    hs_series_ref refs[3] = {{"a", close, BARS}, {"b", close, BARS / 2}, {"c", close + 100, BARS - 100}};
    static hs_result many[3 * COMBOS];
    for (int threads = 1; threads <= 2; threads++) {
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = "simd_wma_omp", opt.threads = threads;
        watch wt = {pthread_self(), 0, 0, 0, 0, 0, 0};
        opt.progress = on_progress, opt.progress_user = &wt;
        size_t failed = 9;
        CHECK(hs_sweep_many(refs, 3, w, COMBOS, many, NULL, NULL, &failed, &opt, &err) == HS_OK, "%s", err.msg);
        CHECK(failed == 0, "%zu failed", failed);
        CHECK(!wt.wrong_thread && !wt.went_back && wt.last_done == 3 * COMBOS && wt.total == 3 * COMBOS,
              "sweep_many/%d: calls %zu, last %zu/%zu, thread %d, back %d", threads, wt.calls, wt.last_done, wt.total,
              wt.wrong_thread, wt.went_back);
        hs_sweep_options plain = opt;
        plain.progress = NULL;
        static hs_result alone[COMBOS];
        CHECK(hs_sweep(close + 100, BARS - 100, w, COMBOS, alone, &plain, &err) == HS_OK, "%s", err.msg);
        CHECK(same_results(alone, many + 2 * COMBOS, COMBOS), "sweep_many with a callback differs from hs_sweep");
        watch stop = {pthread_self(), 0, 0, 0, 0, 0, 1};
        opt.progress_user = &stop;
        hs_status st = hs_sweep_many(refs, 3, w, COMBOS, many, NULL, NULL, &failed, &opt, &err);
        CHECK(st == HS_ERR_CANCELLED && strstr(err.msg, "cancelled"), "sweep_many stop: %d %s", (int)st, err.msg);
        size_t final_done = done_in(err.msg);
        CHECK(stop.calls == 1 && final_done <= stop.last_done + 8u * (unsigned)(threads - 1) && final_done < 3 * COMBOS,
              "sweep_many stop: %zu calls, %zu done at the stop, %zu in the end", stop.calls, stop.last_done, final_done);
        /* asked inside the first 8-combo unit, after its first combo, not at the unit's end */
        CHECK(threads != 1 || stop.last_done == 1, "sweep_many/1: first asked after %zu pairs", stop.last_done);
    }
    check_trade_log();
    return hs_check_summary("test_cancel");
}
