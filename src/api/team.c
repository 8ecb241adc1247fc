/* The default thread count of a sweep (threads = 0, HMASWEEP_THREADS unset): chosen from the work and
 * from the CPUs that are free now, so that the default never makes a sweep slow (issue 28, item 2;
 * docs/library.md "Threads"; the figures: prof/thread_choice.py -> reports/thread_choice.md).
 *
 * Why: a threaded sweep ends in OpenMP's join, which waits for every thread of the team.  On a machine
 * whose CPUs are all busy, a woken worker waits for a CPU while the caller spins at the join: a sweep
 * of GOOG's 2,148 bars x 195 combos took 18.6 ms with 2 threads against 0.65 ms on one (load 10.7,
 * issue 28).  And a sweep too short to pay for waking a thread is faster on one. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef HS_HAVE_OPENMP
#include <omp.h>
#endif

#include "env.h"
#include "error.h"
#include "hmasweep.h"
#include "team.h"

/* Work (bars x combos) below which one thread runs: waking and joining a team costs more than such a
 * sweep saves (measured by prof/thread_choice.py: reports/thread_choice.md). */
#define HS_TEAM_MIN_WORK ((uint64_t)32768)

/* The run queue is read at most this often (ns); in between, the last reading is used. */
enum { RUNNABLE_REFRESH_NS = 20 * 1000 * 1000 };

static _Atomic long long runnable_read_at = -1; /* CLOCK_MONOTONIC ns of the last reading, -1 = never */
static _Atomic int runnable_last = 1;           /* its value: runnable tasks, this thread included */
static _Atomic int last_team = 1;               /* the team this process ran last (its workers may spin) */

static long long now_ns(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
#endif
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Runnable tasks on the machine now (the 4th field of /proc/loadavg, "R/T": R counts the reader), or
 * 0 when it cannot be read (then the CPUs are taken as free). */
static int read_runnable(void) {
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return 0;
    double l1, l5, l15;
    int running = 0, total = 0;
    int got = fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total);
    fclose(f);
    return got == 5 && running > 0 ? running : 0;
}

static int runnable_now(void) {
    long long t = now_ns(), at = atomic_load_explicit(&runnable_read_at, memory_order_relaxed);
    if (at >= 0 && t - at < RUNNABLE_REFRESH_NS) return atomic_load_explicit(&runnable_last, memory_order_relaxed);
    int r = read_runnable();
    atomic_store_explicit(&runnable_last, r, memory_order_relaxed);
    atomic_store_explicit(&runnable_read_at, t, memory_order_relaxed);
    return r;
}

static int online_cpus(void) {
#ifdef HS_HAVE_OPENMP
    return omp_get_num_procs(); /* the CPUs this process may run on (its affinity mask) */
#else
    return 1;
#endif
}

int hs_team_free_cpus(void) {
    int runnable = runnable_now();
    int cpus = online_cpus();
    if (runnable <= 0) return cpus;
    /* Not ours: this thread, and the workers of our last team, which may still be spinning after it. */
    int others = runnable - 1 - (atomic_load_explicit(&last_team, memory_order_relaxed) - 1);
    if (others < 0) others = 0;
    return cpus - others > 1 ? cpus - others : 1;
}

int hs_default_team(int max_team, size_t n_bars, size_t n_combos) {
    if (max_team <= 1) return max_team < 1 ? 1 : max_team;
    uint64_t work = (uint64_t)n_bars * (uint64_t)n_combos;
    if (n_combos < 2 || (n_bars && work / n_bars != n_combos)) return n_combos < 2 ? 1 : max_team;
    if (work < HS_TEAM_MIN_WORK) return 1;
    int free_cpus = hs_team_free_cpus();
    return free_cpus < max_team ? free_cpus : max_team;
}

void hs_team_ran(int team) { atomic_store_explicit(&last_team, team > 0 ? team : 1, memory_order_relaxed); }

hs_status hs_requested_threads(int threads, int *requested, int *chosen_by_library, hs_error *err) {
    *requested = threads, *chosen_by_library = 0;
    if (threads != 0) return HS_OK;
    const char *text = hs_env()->threads;
    if (!*text) {
        *chosen_by_library = 1;
        return HS_OK;
    }
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || end == text || v < 1 || v > HS_THREADS_MAX)
        return hs_fail(err, HS_ERR_USAGE, "HMASWEEP_THREADS=%s: expected a whole number of threads from 1 to %d",
                       text, HS_THREADS_MAX);
    *requested = (int)v;
    return HS_OK;
}
