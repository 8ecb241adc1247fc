/* The threads of a sweep: how many the library chooses when the caller leaves it (threads = 0,
 * HMASWEEP_THREADS unset), and the team that runs the segments kernel (the default variant's) and the
 * OpenMP driver's default schedules (src/api/sweep.c), so that
 * the default never makes a sweep slow (issue 28, item 2; docs/library.md "The default thread count";
 * the figures: prof/thread_choice.py -> reports/thread_choice.md).
 *
 * Why a team of our own and not OpenMP's parallel region: a region ends in a join that waits for every
 * thread of the team, so a worker that waits for a CPU holds the caller: on a machine whose CPUs were
 * all busy a sweep of GOOG's 2,148 bars x 195 combos took 18.6 ms on 2 threads against 0.65 ms on one
 * (load 10.7, issue 28), and with a busy loop on each vCPU the 2-thread medians were 12-48 ms for sweeps
 * of 0.04-1.7 ms (reports/thread_choice.md, first table).  Here the caller runs the work itself, and a
 * pool worker takes a seat only while the job is open: the body claims its work from a counter, so
 * whoever runs does all of it, a worker that arrives after the caller has claimed the last unit does
 * not run, and the join waits only for the units in flight. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "env.h"
#include "error.h"
#include "hmasweep.h"
#include "team.h"

int hs_default_team(int max_team, size_t n_bars, size_t n_combos) {
    if (max_team <= 1) return 1;
    if (n_combos < 2) return 1;
    uint64_t work = (uint64_t)n_bars * (uint64_t)n_combos;
    if (n_bars && work / n_bars != n_combos) return max_team; /* overflow: a huge sweep */
    return work < HS_TEAM_MIN_WORK ? 1 : max_team;
}

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

/* ---- the team ---------------------------------------------------------------------------------- */

/* How long a worker spins for the next job, and the caller for the units in flight, before sleeping on
 * a condition variable (a futex): a wake-up costs ~10-50 us on this VM, so a spin this short pays only
 * for back-to-back sweeps, and never takes a CPU for long from anyone else (OpenMP's default spins
 * ~300,000 rounds before it sleeps). */
enum { TEAM_SPIN_NS = 20 * 1000 };

/* Concurrent callers (another Python thread, the server's workers) each take a lane of their own, the
 * first free one: a lane is a pool of workers and the job in progress on it.  A caller that finds every
 * lane taken runs its body alone (same bits). */
enum { TEAM_LANES = 16 };

/* The job word: ticket (high 32 bits) | JOB_CLOSED | seated workers (low 31 bits).  One job at a time
 * per lane (one_job); a worker seats itself with a CAS only while the job is open and has a free seat,
 * so once the caller closes it (fetch_or) the seated count is final. */
#define JOB_CLOSED ((uint64_t)1 << 31)
#define JOB_SEATS (JOB_CLOSED - 1)

typedef struct {
    pthread_mutex_t lock;     /* the condition variables' mutex, and `workers` */
    pthread_cond_t job_ready; /* sleeping workers wait here for a new ticket */
    pthread_cond_t job_done;  /* the caller waits here for the seated workers */
    pthread_mutex_t one_job;  /* held by the caller of the job in progress */
    _Atomic uint64_t job;     /* the job word, above */
    _Atomic int finished;     /* seated workers whose body has returned */
    _Atomic int seats;        /* the open job's team - 1 (a stale read only makes a CAS fail) */
    hs_team_body *body;       /* written by the caller before it opens the job; read by seated workers */
    void *ctx;
    int workers;              /* threads started on this lane (they live as long as the process) */
} team_lane;

#define LANE_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, \
                   PTHREAD_MUTEX_INITIALIZER, JOB_CLOSED, 0, 0, NULL, NULL, 0}
#define LANES4 LANE_INIT, LANE_INIT, LANE_INIT, LANE_INIT
static team_lane lanes[TEAM_LANES] = {LANES4, LANES4, LANES4, LANES4};

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static uint32_t ticket_of(uint64_t word) { return (uint32_t)(word >> 32); }

/* What a spin waits for: the lane's ticket to leave `seen` (a worker), or `seated` workers finished. */
typedef struct {
    team_lane *lane;
    uint32_t seen;
    int seated;
} team_wait;

static int ticket_moved(const team_wait *w) {
    return ticket_of(atomic_load_explicit(&w->lane->job, memory_order_acquire)) != w->seen;
}

static int all_finished(const team_wait *w) {
    return atomic_load_explicit(&w->lane->finished, memory_order_acquire) >= w->seated;
}

/* Spin at most TEAM_SPIN_NS, then sleep on `cond`, until done(w) holds. */
static void wait_until(int (*done)(const team_wait *), const team_wait *w, pthread_cond_t *cond) {
    long long until = 0;
    for (unsigned i = 0; !done(w); i++) {
        cpu_relax();
        if ((i & 63) != 63) continue;
        long long t = now_ns();
        if (!until) until = t + TEAM_SPIN_NS;
        else if (t > until) {
            pthread_mutex_lock(&w->lane->lock);
            while (!done(w)) pthread_cond_wait(cond, &w->lane->lock);
            pthread_mutex_unlock(&w->lane->lock);
            return;
        }
    }
}

/* A seat in the lane's open job (1..seats), or 0 when it is closed or full. */
static int take_seat(team_lane *lane) {
    uint64_t w = atomic_load_explicit(&lane->job, memory_order_acquire);
    while (!(w & JOB_CLOSED) && (w & JOB_SEATS) < (uint64_t)atomic_load_explicit(&lane->seats, memory_order_relaxed))
        if (atomic_compare_exchange_weak_explicit(&lane->job, &w, w + 1, memory_order_acq_rel, memory_order_acquire))
            return (int)(w & JOB_SEATS) + 1;
    return 0;
}

static void *worker_main(void *arg) {
    team_lane *lane = arg;
    team_wait w = {lane, ticket_of(atomic_load_explicit(&lane->job, memory_order_acquire)), 0};
    for (;;) {
        wait_until(ticket_moved, &w, &lane->job_ready);
        w.seen = ticket_of(atomic_load_explicit(&lane->job, memory_order_acquire));
        int seat = take_seat(lane);
        if (!seat) continue; /* came too late: the caller has done the work */
        lane->body(lane->ctx, seat);
        atomic_fetch_add_explicit(&lane->finished, 1, memory_order_release);
        pthread_mutex_lock(&lane->lock); /* under the lock, so the caller cannot miss it between check and wait */
        pthread_cond_signal(&lane->job_done);
        pthread_mutex_unlock(&lane->lock);
    }
    return NULL;
}

/* A forked child has none of the parent's workers: it starts its lanes again (a job in progress in the
 * parent is not the child's). */
static void lanes_after_fork_in_child(void) {
    for (int i = 0; i < TEAM_LANES; i++) {
        team_lane *lane = &lanes[i];
        pthread_mutex_init(&lane->lock, NULL);
        pthread_mutex_init(&lane->one_job, NULL);
        pthread_cond_init(&lane->job_ready, NULL);
        pthread_cond_init(&lane->job_done, NULL);
        atomic_store(&lane->job, JOB_CLOSED);
        lane->workers = 0;
    }
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void) { pthread_atfork(NULL, NULL, lanes_after_fork_in_child); }

/* Start workers on the lane until `want` exist (fewer when the system refuses a thread: the caller then
 * runs with those it has).  Workers block every signal, so signals go to the caller's threads (Ctrl-C). */
static void grow_lane(team_lane *lane, int want) {
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&lane->lock);
    if (lane->workers < want) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        while (lane->workers < want && pthread_create(&t, &attr, worker_main, lane) == 0) lane->workers++;
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    pthread_mutex_unlock(&lane->lock);
}

static team_lane *free_lane(void) {
    for (int i = 0; i < TEAM_LANES; i++)
        if (pthread_mutex_trylock(&lanes[i].one_job) == 0) return &lanes[i];
    return NULL;
}

void hs_team_run(int team, hs_team_body *body, void *ctx) {
    team_lane *lane = team > 1 ? free_lane() : NULL;
    if (!lane) {
        body(ctx, 0);
        return;
    }
    if (team - 1 > HS_THREADS_MAX) team = HS_THREADS_MAX + 1;
    grow_lane(lane, team - 1);
    lane->body = body, lane->ctx = ctx;
    atomic_store_explicit(&lane->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&lane->seats, team - 1, memory_order_relaxed);
    uint32_t ticket = ticket_of(atomic_load_explicit(&lane->job, memory_order_relaxed)) + 1;
    atomic_store_explicit(&lane->job, (uint64_t)ticket << 32, memory_order_release); /* open, no one seated */
    pthread_mutex_lock(&lane->lock);
    pthread_cond_broadcast(&lane->job_ready); /* the sleeping workers; the spinning ones saw the ticket */
    pthread_mutex_unlock(&lane->lock);
    body(ctx, 0);
    team_wait w = {lane, ticket, (int)(atomic_fetch_or_explicit(&lane->job, JOB_CLOSED, memory_order_acq_rel) & JOB_SEATS)};
    wait_until(all_finished, &w, &lane->job_done);
    pthread_mutex_unlock(&lane->one_job);
}
