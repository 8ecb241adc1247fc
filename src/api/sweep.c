/* The drivers (serial, OpenMP across combos) and the public hs_sweep entry point. */
#define _POSIX_C_SOURCE 200809L /* getuid, opendir: RLIMIT_NPROC headroom (nproc_team) */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef HS_HAVE_OPENMP
#include <omp.h>
#endif

#include "env.h"
#include "error.h"
#include "team.h"
#include "variant.h"

/* One thread's scratch: scratch_buffers buffers of hs_scratch_stride(n) doubles, 64-byte aligned. */
static double *scratch_alloc(const hs_variant *v, size_t n_bars) {
    if (v->scratch_buffers == 0) return NULL;
    size_t doubles = (size_t)v->scratch_buffers * hs_scratch_stride(n_bars);
    if (doubles > SIZE_MAX / sizeof(double)) return NULL;
    return aligned_alloc(64, doubles * sizeof(double));
}

/* Work of one combo, up to a constant: seven WMA passes cost their window lengths per bar. */
static int64_t combo_cost(const hs_windows *w) {
    return w->w[0] + w->w[1] + w->w[2] + w->w[3] + w->w[4] + 2 * w->w[5];
}

typedef struct {
    int64_t cost;
    size_t index;
} costed_combo;

static int by_cost_desc(const void *pa, const void *pb) {
    const costed_combo *a = pa, *b = pb;
    if (a->cost != b->cost) return a->cost < b->cost ? 1 : -1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The order combos are run in: grid order, or costliest first (LPT).  Batch kernels always get LPT
 * order, so the combos sharing a vector have similar windows. */
static costed_combo *combo_order(const hs_windows *combos, size_t n_combos, int costliest_first) {
    costed_combo *order = malloc((n_combos ? n_combos : 1) * sizeof *order);
    if (!order) return NULL;
    for (size_t c = 0; c < n_combos; c++) order[c] = (costed_combo){combo_cost(&combos[c]), c};
    if (costliest_first) qsort(order, n_combos, sizeof *order, by_cost_desc);
    return order;
}

/* What one unit of work calls: one combo through a combo kernel, or up to HS_BATCH_MAX through a batch
 * kernel.  Every combo writes only its own out[] slot, so results do not depend on threads or order. */
typedef struct {
    hs_combo_fn fn;
    hs_batch_fn batch;
    size_t unit; /* combos per unit: 1, or HS_BATCH_MAX */
    const double *close;
    size_t n_bars;
    const hs_windows *combos;
    const costed_combo *order;
    size_t n_combos;
    double keep;       /* 1 − fee */
    hs_result *out;
    hs_stats *stats;   /* NULL: not wanted */
    hs_cancel *cancel; /* NULL: no progress callback */
    const hs_equity_terms *eq; /* NULL: no periods */
} sweep_plan;

static void put_outcome(const sweep_plan *p, size_t c, const hs_outcome *o) {
    p->out[c] = o->r;
    if (p->stats) p->stats[c] = o->s;
}

/* One unit, skipped once the sweep is stopped; is_caller: this is the calling thread (it alone calls
 * the progress callback). */
static void run_unit(const sweep_plan *p, size_t unit_index, double *scratch, int is_caller) {
    if (hs_cancel_stopped(p->cancel)) return;
    size_t first = unit_index * p->unit, count = p->n_combos - first < p->unit ? p->n_combos - first : p->unit;
    hs_mtm m[HS_BATCH_MAX];
    if (!p->batch) {
        size_t c = p->order[first].index;
        if (p->eq) hs_mtm_init(&m[0], p->eq, c, p->close, p->keep);
        hs_outcome o = p->fn(p->close, p->n_bars, &p->combos[c], p->keep, scratch, p->eq ? &m[0] : NULL);
        if (p->eq) hs_mtm_finish(&m[0], p->n_bars, p->eq, c);
        put_outcome(p, c, &o);
        hs_cancel_tick(p->cancel, 1, is_caller);
        return;
    }
    hs_windows w[HS_BATCH_MAX] = {{{0}}};
    hs_outcome r[HS_BATCH_MAX];
    for (size_t k = 0; k < count; k++) {
        w[k] = p->combos[p->order[first + k].index];
        if (p->eq) hs_mtm_init(&m[k], p->eq, p->order[first + k].index, p->close, p->keep);
    }
    p->batch(p->close, p->n_bars, w, count, p->keep, r, scratch, p->eq ? m : NULL);
    for (size_t k = 0; k < count; k++) {
        if (p->eq) hs_mtm_finish(&m[k], p->n_bars, p->eq, p->order[first + k].index);
        put_outcome(p, p->order[first + k].index, &r[k]);
    }
    hs_cancel_tick(p->cancel, count, is_caller);
}

static size_t unit_count(const sweep_plan *p) { return (p->n_combos + p->unit - 1) / p->unit; }

static hs_status out_of_memory(hs_error *err, const char *what, size_t n) {
    return hs_fail(err, HS_ERR_NOMEM, "out of memory for %s (%zu)", what, n);
}

static hs_status run_serial(const hs_variant *v, const sweep_plan *p, hs_error *err) {
    double *scratch = scratch_alloc(v, p->n_bars);
    if (v->scratch_buffers && !scratch) return out_of_memory(err, "scratch buffers, bars", p->n_bars);
    for (size_t u = 0; u < unit_count(p); u++) run_unit(p, u, scratch, 1);
    free(scratch);
    return HS_OK;
}

#ifdef HS_HAVE_OPENMP
/* How units are handed to threads.  HMASWEEP_OMP_SCHEDULE picks one for experiments (README); the
 * default is the measured best (reports/omp_schedule.md):
 *   lpt      costliest combo first, then dynamic,1 — the last combo to start is a cheap one (default)
 *   dynamic  grid order, dynamic,1
 *   static   grid order, contiguous blocks (what numba's prange does)
 *   static1  grid order, round robin                                                                 */
typedef enum { SCHED_LPT, SCHED_DYNAMIC, SCHED_STATIC, SCHED_STATIC1 } omp_sched_choice;

static hs_status schedule_choice(omp_sched_choice *out, hs_error *err) {
    static const char *const names[] = {"lpt", "dynamic", "static", "static1"};
    const char *s = hs_env()->omp_schedule;
    *out = SCHED_LPT;
    if (!*s) return HS_OK;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (omp_sched_choice)i;
            return HS_OK;
        }
    return hs_fail(err, HS_ERR_USAGE, "HMASWEEP_OMP_SCHEDULE='%s': expected lpt, dynamic, static or static1", s);
}

/* The default schedules (lpt, dynamic) run on the library's team (src/team/team.c): units claimed one at
 * a time from a counter, so a worker that waits for a CPU never holds the caller (issue 28 item 2). */
typedef struct {
    const hs_variant *v;
    const sweep_plan *p;
    size_t units;
    _Atomic size_t next_unit;
    _Atomic int failed;
} plan_team;

static void plan_seat(void *ctx, int seat) {
    plan_team *j = ctx;
    if (atomic_load_explicit(&j->next_unit, memory_order_relaxed) >= j->units) return; /* nothing left */
    double *scratch = scratch_alloc(j->v, j->p->n_bars);
    int ok = !(j->v->scratch_buffers && !scratch);
    if (!ok) atomic_store_explicit(&j->failed, 1, memory_order_relaxed); /* its units are skipped: the sweep fails */
    for (size_t u; (u = atomic_fetch_add_explicit(&j->next_unit, 1, memory_order_relaxed)) < j->units;)
        if (ok) run_unit(j->p, u, scratch, seat == 0);
    free(scratch);
}

/* The schedule is a clause of each loop, not omp_set_schedule + schedule(runtime): the library must not
 * change the host's OpenMP state (a Python process or a server has its own).  The static ones (an
 * experiment's) stay in an OpenMP region: a static share is a thread's own, whenever it starts. */
static hs_status run_openmp(const hs_variant *v, const sweep_plan *p, int threads, omp_sched_choice choice,
                            hs_error *err) {
    int failed = 0;
    size_t units = unit_count(p);
    if (choice == SCHED_LPT || choice == SCHED_DYNAMIC) {
        plan_team job = {v, p, units, 0, 0};
        hs_team_run(hs_variant_threads(v, threads), plan_seat, &job);
        failed = atomic_load_explicit(&job.failed, memory_order_relaxed);
        return failed ? out_of_memory(err, "per-thread scratch, bars", p->n_bars) : HS_OK;
    }
#pragma omp parallel num_threads(hs_variant_threads(v, threads)) reduction(| : failed)
    {
        double *scratch = scratch_alloc(v, p->n_bars);
        int ok = !(v->scratch_buffers && !scratch);
        int is_caller = omp_get_thread_num() == 0; /* the master thread is the one that called hs_sweep */
        failed |= !ok;
        if (choice == SCHED_STATIC) {
#pragma omp for schedule(static)
            for (size_t u = 0; u < units; u++)
                if (ok) run_unit(p, u, scratch, is_caller);
        } else {
#pragma omp for schedule(static, 1)
            for (size_t u = 0; u < units; u++)
                if (ok) run_unit(p, u, scratch, is_caller);
        }
        free(scratch);
    }
    return failed ? out_of_memory(err, "per-thread scratch, bars", p->n_bars) : HS_OK;
}
#endif

int hs_variant_threads(const hs_variant *v, int requested) {
    if (v->driver != HS_DRIVER_OPENMP) return 1;
#ifdef HS_HAVE_OPENMP
    return requested > 0 ? requested : omp_get_max_threads();
#else
    return 1;
#endif
}

/* "Uid:" (real) and "Threads:" of one /proc/<pid>/status; 0 when it cannot be read (the task ended). */
static int task_status(const char *path, long *uid, long *threads) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[160];
    int got = 0;
    while (got < 2 && fgets(line, sizeof line, f))
        got += sscanf(line, "Uid: %ld", uid) == 1 || sscanf(line, "Threads: %ld", threads) == 1;
    fclose(f);
    return got == 2;
}

/* Tasks the real user runs now, as RLIMIT_NPROC counts them: the threads of every process of getuid()
 * under /proc (~1 ms per 1,000 processes); this process's own where /proc cannot be listed. */
static long user_task_count(void) {
    long uid, threads = 1, total = 0;
    DIR *d = opendir("/proc");
    if (!d) return 1;
    char path[64];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%.32s/status", e->d_name);
        if (task_status(path, &uid, &threads) && uid == (long)getuid()) total += threads;
    }
    closedir(d);
    if (total == 0 && task_status("/proc/self/status", &uid, &threads)) total = threads;
    return total > 0 ? total : 1;
}

/* Below this much headroom over the team, RLIMIT_NPROC is close enough to count the user's tasks (the
 * /proc scan above); above it, the limit read once per process decides, with no system call: getrlimit
 * costs 0.5-1 µs on the 2-vCPU EPYC VM (tight loop, pinned, load ~5), a quarter of the Python per-call
 * budget, and every call of the default variant is threaded. */
enum { NPROC_MARGIN = 4096 };

static pthread_once_t nproc_once = PTHREAD_ONCE_INIT;
static rlim_t nproc_first = RLIM_INFINITY; /* RLIMIT_NPROC at the first threaded sweep */

static void read_nproc(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NPROC, &rl) == 0) nproc_first = rl.rlim_cur;
}

static int nproc_far(rlim_t limit, int team) { return limit == RLIM_INFINITY || limit >= (rlim_t)team + NPROC_MARGIN; }

/* The largest team (<= `team`) that RLIMIT_NPROC lets this process create: libgomp exits the process
 * ("Thread creation failed") when pthread_create fails.  Threads already in this process's libgomp pool
 * are counted as used, so the estimate errs low; a limit lowered after the first threaded sweep from
 * far above the team, and tasks that start between the count and the region, are not seen
 * (docs/library.md "Threads"). */
static int nproc_team(int team) {
    pthread_once(&nproc_once, read_nproc);
    if (nproc_far(nproc_first, team)) return team;
    struct rlimit rl; /* a tight limit: read it again, and count */
    if (getrlimit(RLIMIT_NPROC, &rl) != 0 || nproc_far(rl.rlim_cur, team)) return team;
    long room = (long)rl.rlim_cur - user_task_count() + 1; /* the calling thread is one of the team */
    return room >= team ? team : room > 1 ? (int)room : 1;
}

int hs_sweep_team(const hs_variant *v, int requested) {
    int team = hs_variant_threads(v, requested);
    if (team > HS_THREADS_MAX) team = HS_THREADS_MAX; /* a large OMP_NUM_THREADS */
    return team > 1 ? nproc_team(team) : team;
}

hs_status hs_run_variant(const hs_variant *v, hs_isa isa, int threads, const double *close, size_t n_bars,
                         const hs_windows *combos, size_t n_combos, hs_result *out, hs_error *err) {
    hs_run_terms terms = {hs_keep(HS_DEFAULT_FEE), NULL, NULL, NULL};
    return hs_run_variant_terms(v, isa, threads, close, n_bars, combos, n_combos, out, &terms, err);
}

/* After the drivers: a stopped sweep is HS_ERR_CANCELLED; a finished one tells the callback done ==
 * total once (its answer no longer matters: every result is in). */
static hs_status cancel_outcome(hs_cancel *c, hs_status st, size_t n_combos, hs_error *err) {
    if (!c || st != HS_OK) return st;
    if (hs_cancel_stopped(c))
        return hs_fail(err, HS_ERR_CANCELLED, "sweep cancelled by its progress callback after %zu of %zu combos",
                       atomic_load(&c->done) < n_combos ? atomic_load(&c->done) : n_combos, n_combos);
    c->fn(c->user, n_combos, n_combos);
    return HS_OK;
}

hs_status hs_run_variant_terms(const hs_variant *v, hs_isa isa, int threads, const double *close, size_t n_bars,
                               const hs_windows *combos, size_t n_combos, hs_result *out, const hs_run_terms *terms,
                               hs_error *err) {
    hs_cancel *cancel = terms->cancel;
    hs_combo_fn fn = (unsigned)isa < HS_ISA_COUNT ? v->fn[isa] : NULL;
    if (!fn) {
        return hs_fail(err, HS_ERR_ISA, "variant '%s' is not built for ISA %s", v->name, hs_isa_name(isa));
    }
    if (!hs_scratch_fits(v, isa, n_bars)) /* a registry line out of step with its kernel: never run it */
        return hs_fail(err, HS_ERR_USAGE, "variant '%s' on %s: its kernel's scratch layout for %zu bars does not fit "
                       "the registry's %d buffers (registry.def)", v->name, hs_isa_name(isa), n_bars, v->scratch_buffers);
#ifdef HS_HAVE_OPENMP
    omp_sched_choice choice;
    hs_status sched = schedule_choice(&choice, err); /* a misspelt experiment knob is refused, whatever runs */
    if (sched != HS_OK) return sched;
#endif
    if (v->sweep[isa]) {
        hs_status st = v->sweep[isa](close, n_bars, combos, n_combos, terms->keep, out, terms->stats,
                                     hs_variant_threads(v, threads), cancel, terms->equity, err);
        return cancel_outcome(cancel, st, n_combos, err);
    }
    hs_batch_fn batch = v->batch[isa];
    int costliest_first = batch != NULL;
#ifdef HS_HAVE_OPENMP
    if (v->driver == HS_DRIVER_OPENMP) costliest_first |= choice == SCHED_LPT;
#endif
    costed_combo *order = combo_order(combos, n_combos, costliest_first);
    if (!order) return out_of_memory(err, "combo order, combos", n_combos);
    sweep_plan plan = {fn,    batch, batch ? HS_BATCH_MAX : 1, close, n_bars, combos, order, n_combos, terms->keep,
                       out,   terms->stats, cancel, terms->equity};
    hs_status st;
#ifdef HS_HAVE_OPENMP
    if (v->driver == HS_DRIVER_OPENMP) st = run_openmp(v, &plan, threads, choice, err);
    else
#endif
        st = run_serial(v, &plan, err);
    free(order);
    for (size_t c = 0; st == HS_OK && !hs_cancel_stopped(cancel) && c < n_combos; c++)
        if (out[c].trades == HS_TRADES_NOMEM)
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory in variant '%s' (combo %zu, %zu bars)", v->name, c, n_bars);
    return cancel_outcome(cancel, st, n_combos, err);
}

/* The ISA a variant runs with: the requested one (must be built for it and supported), else the widest
 * it was built for that the CPU runs, capped by $HMASWEEP_ISA when that is set.  hs_variant_describe
 * reports its default with this same function. */
hs_status hs_choose_isa(const hs_variant *v, const char *requested, hs_isa *out, hs_error *err) {
    hs_isa cap;
    hs_status st;
    if (requested) {
        if ((st = hs_isa_parse(requested, &cap, err)) != HS_OK) return st;
        if (!hs_isa_supported(cap)) {
            return hs_fail(err, HS_ERR_ISA, "ISA %s was requested but this CPU cannot run it", requested);
        }
        if (!v->fn[cap]) {
            return hs_fail(err, HS_ERR_ISA, "variant '%s' is not built for ISA %s", v->name, requested);
        }
        *out = cap;
        return HS_OK;
    }
    if ((st = hs_isa_default(&cap, err)) != HS_OK) return st;
    for (int i = cap; i >= 0; i--)
        if (v->fn[i] && hs_isa_supported((hs_isa)i)) {
            *out = (hs_isa)i;
            return HS_OK;
        }
    *out = HS_ISA_SCALAR;
    return HS_OK;
}

hs_status hs_check_threads(int threads, hs_error *err) {
    if (threads < 0) return hs_fail(err, HS_ERR_USAGE, "threads = %d is negative", threads);
    if (threads > HS_THREADS_MAX)
        return hs_fail(err, HS_ERR_USAGE, "threads = %d is above the maximum, %d", threads,
                       HS_THREADS_MAX);
    return HS_OK;
}

static void fill_report(hs_sweep_report *r, const hs_variant *v, hs_isa isa, int threads) {
    if (!r) return;
    snprintf(r->variant, sizeof r->variant, "%s", v->name);
    snprintf(r->isa, sizeof r->isa, "%s", hs_isa_name(isa));
    r->threads = hs_variant_threads(v, threads);
}

/* The periods an options struct asks for (§9.3), checked: NULL terms when n_periods is 0 (then equity
 * and mtm_max_drawdown must be NULL), else the terms with the ends (the caller's, checked, or P equal
 * periods) and, where `ranges` asks for it, the close's range table (hs_mtm_ranges_make; its windows for
 * n_combos >= HS_MTM_NEAR_MIN_COMBOS), both in *owned, which the caller frees.  E goes at
 * equity[k·stride + c].  A whole-sweep kernel (segments) gets no table: it makes one itself where it
 * needs one (its deferred path does not: 0.4 ms of a 14 ms sweep, reports/equity.md). */
hs_status hs_options_equity(const hs_sweep_options *known, const double *close, size_t n_bars, size_t n_combos,
                            size_t stride, int ranges, hs_equity_terms *terms, const hs_equity_terms **out,
                            void **owned, hs_error *err) {
    *out = NULL;
    *owned = NULL;
    if (known->n_periods == 0) return hs_check_no_periods(known, err);
    hs_status st;
    const int64_t *ends = known->period_ends;
    if (ends && (st = hs_check_period_ends(ends, known->n_periods, n_bars, err)) != HS_OK) return st;
    if (!ends && known->n_periods > n_bars) return hs_period_ends(n_bars, known->n_periods, NULL, err); /* names P */
    int near = n_combos >= HS_MTM_NEAR_MIN_COMBOS;
    size_t doubles = ranges ? hs_mtm_ranges_doubles(n_bars, near) : 0, made = ends ? 0 : known->n_periods;
    double *table = malloc(doubles * sizeof *table + made * sizeof *ends + 1);
    if (!table) return out_of_memory(err, "period ends and the close's range table, bars", n_bars);
    hs_mtm_ranges view = {0};
    if (ranges) view = hs_mtm_ranges_make(close, n_bars, table, near);
    if (!ends) {
        int64_t *mine = (int64_t *)(void *)(table + doubles);
        hs_period_ends(n_bars, known->n_periods, mine, err); /* P checked above */
        ends = mine;
    }
    *owned = table;
    *terms = (hs_equity_terms){ends, known->n_periods, known->equity, stride, known->mtm_max_drawdown, view};
    *out = terms;
    return HS_OK;
}

hs_status hs_sweep_strided(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                           hs_result *out, const hs_sweep_options *opt_in, size_t equity_stride, hs_error *err) {
    hs_sweep_options o;
    hs_status st;
    if ((st = hs_read_sweep_options(opt_in, HS_OPTIONS_SIZE_1_3, &o, err)) != HS_OK) return st;
    const hs_sweep_options *opt = &o;
    const char *name = opt->variant ? opt->variant : HS_DEFAULT_VARIANT;
    const hs_variant *v = hs_variant_find(name);
    if (!v) {
        return hs_fail(err, HS_ERR_USAGE, "unknown variant '%s' (see `hmasweep variants`)", name);
    }
    if (!close || !out || (n_combos && !combos)) {
        return hs_fail(err, HS_ERR_USAGE, "hs_sweep: NULL close, combos or out");
    }
    if ((st = hs_check_threads(opt->threads, err)) != HS_OK) return st;
    double fee;
    if ((st = hs_options_fee(opt, &fee, err)) != HS_OK) return st;
    if ((st = hs_check_series(close, n_bars, err)) != HS_OK) return st;
    if ((st = hs_check_windows(combos, n_combos, n_bars, err)) != HS_OK) return st;
    hs_isa isa;
    if ((st = hs_choose_isa(v, opt->isa, &isa, err)) != HS_OK) return st;
    int requested, library_chooses;
    if ((st = hs_requested_threads(opt->threads, &requested, &library_chooses, err)) != HS_OK) return st;
    hs_equity_terms eq_terms;
    const hs_equity_terms *eq;
    void *owned_ends;
    if ((st = hs_options_equity(opt, close, n_bars, n_combos, equity_stride ? equity_stride : n_combos,
                                v->shape != HS_SHAPE_SWEEP, &eq_terms, &eq, &owned_ends, err)) != HS_OK)
        return st;
    int team = hs_sweep_team(v, requested);
    if (library_chooses && team > 1) team = hs_default_team(team, n_bars, n_combos);
    hs_cancel cancel = {opt->progress, opt->progress_user, n_combos, 0, 0};
    hs_run_terms terms = {hs_keep(fee), opt->stats, opt->progress ? &cancel : NULL, eq};
    st = hs_run_variant_terms(v, isa, team, close, n_bars, combos, n_combos, out, &terms, err);
    free(owned_ends);
    if (st == HS_OK) fill_report(opt->report, v, isa, team);
    return st;
}

hs_status hs_sweep(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos, hs_result *out,
                   const hs_sweep_options *opt, hs_error *err) {
    return hs_sweep_strided(close, n_bars, combos, n_combos, out, opt, 0, err);
}
