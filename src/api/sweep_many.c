/* hs_sweep_many: one parallel region over every (series, combo batch) of a universe.
 *
 * Why not a loop of hs_sweep calls: each threaded sweep opens its own OpenMP region and hands out its own
 * combos, so 500 short series pay 500 region start-ups and 500 tails where one core idles.  Here the
 * work units of all series are pooled, costliest first (LPT), and each unit runs the variant's serial
 * path through the public hs_sweep (threads = 1), so a unit's result is exactly what hs_sweep gives for
 * that series alone: every (series, combo) writes only its own slot, whatever the thread count or order.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "team.h"
#include "variant.h"

/* Combos per work unit: one vector batch of the batch kernels (HS_BATCH_MAX), so a batch kernel still
 * fills its lanes, and small enough that 80 combos of one long series spread over the cores. */
enum { UNIT_COMBOS = HS_BATCH_MAX };

typedef struct {
    double cost;  /* bars × Σ windows of the unit's combos: what one unit costs, up to a constant */
    size_t series, first, count;
} work_unit;

static int by_cost_desc(const void *pa, const void *pb) {
    const work_unit *a = pa, *b = pb;
    if (a->cost != b->cost) return a->cost < b->cost ? 1 : -1;
    if (a->series != b->series) return a->series < b->series ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

static double windows_cost(const hs_windows *combos, size_t first, size_t count) {
    double sum = 0;
    for (size_t c = first; c < first + count; c++)
        for (int k = 0; k < 6; k++) sum += (double)combos[c].w[k];
    return sum;
}

/* Where series s's E and mtm_max_drawdown go (§9; equity series-major, equity[(s·P + k)·n_combos + c]). */
typedef struct {
    size_t n_periods;
    double *equity, *mtm;
} many_equity;

/* A failed series' rows: pnl NaN, trades −1, and (when wanted) all-zero statistics, NaN equity and
 * drawdowns. */
static void mark_failed(hs_result *rows, hs_stats *stats, size_t n_combos, const many_equity *eq, size_t s) {
    for (size_t c = 0; c < n_combos; c++) rows[c] = (hs_result){NAN, -1};
    if (stats) memset(stats, 0, n_combos * sizeof *stats);
    for (size_t i = 0; eq->equity && i < eq->n_periods * n_combos; i++) eq->equity[s * eq->n_periods * n_combos + i] = NAN;
    for (size_t c = 0; eq->mtm && c < n_combos; c++) eq->mtm[s * n_combos + c] = NAN;
}

/* Validate each series alone (its prices, and every window against its length); a bad one is recorded
 * and left out of the work, never fatal to the call. */
static size_t validate_series(const hs_series_ref *series, size_t n_series, const hs_windows *combos,
                              size_t n_combos, hs_result *out, hs_stats *stats, hs_status *status, hs_error *errs,
                              char *ok, const many_equity *eq) {
    size_t failed = 0;
    for (size_t s = 0; s < n_series; s++) {
        hs_error e = {{0}};
        hs_status st = series[s].close ? hs_check_series(series[s].close, series[s].n_bars, &e)
                                       : hs_fail(&e, HS_ERR_USAGE, "NULL close");
        if (st == HS_OK) st = hs_check_windows(combos, n_combos, series[s].n_bars, &e);
        if (st == HS_OK && eq->n_periods > series[s].n_bars) st = hs_period_ends(series[s].n_bars, eq->n_periods, NULL, &e);
        ok[s] = st == HS_OK;
        if (status) status[s] = st;
        if (errs) errs[s] = e;
        if (!ok[s]) {
            failed++;
            mark_failed(out + s * n_combos, stats ? stats + s * n_combos : NULL, n_combos, eq, s);
        }
    }
    return failed;
}

static work_unit *plan_units(const hs_series_ref *series, size_t n_series, const char *ok, const hs_windows *combos,
                             size_t n_combos, size_t *n_units) {
    size_t per_series = (n_combos + UNIT_COMBOS - 1) / UNIT_COMBOS, n = 0;
    if (per_series && n_series > SIZE_MAX / sizeof(work_unit) / per_series) return NULL;
    work_unit *units = malloc((n_series * per_series > 0 ? n_series * per_series : 1) * sizeof *units);
    if (!units) return NULL;
    for (size_t s = 0; s < n_series; s++) {
        if (!ok[s]) continue;
        for (size_t first = 0; first < n_combos; first += UNIT_COMBOS) {
            size_t count = n_combos - first < UNIT_COMBOS ? n_combos - first : UNIT_COMBOS;
            double cost = (double)series[s].n_bars * windows_cost(combos, first, count);
            units[n++] = (work_unit){cost, s, first, count};
        }
    }
    qsort(units, n, sizeof *units, by_cost_desc);
    *n_units = n;
    return units;
}

/* The progress hook inside one unit: its own hs_sweep ticks after every combo (or batch), so a stop
 * takes effect within one combo, not at the end of the unit (8 combos of `unchecked` over 200,000 bars
 * are ~0.5 s: Python's Ctrl-C waited 485 ms for one).  On the calling thread it asks the caller's
 * callback, with the pairs finished so far; on the others it only reads the stop flag. */
typedef struct {
    hs_cancel *cancel;
    int is_caller;
} unit_watch;

static int unit_progress(void *user, size_t done, size_t total) {
    unit_watch *w = user;
    hs_cancel *c = w->cancel;
    if (hs_cancel_stopped(c)) return 1;
    if (!w->is_caller || done == total) return 0; /* the unit's end: hs_cancel_tick reports it */
    size_t all = atomic_load_explicit(&c->done, memory_order_relaxed) + done;
    if (c->fn(c->user, all < c->total ? all : c->total, c->total)) atomic_store_explicit(&c->stop, 1, memory_order_relaxed);
    return hs_cancel_stopped(c);
}

/* One unit through the public entry point, single-threaded.  A failure (out of memory) fails only its
 * series; the first message is kept. */
static void run_unit(const work_unit *u, const hs_series_ref *series, const hs_windows *combos, size_t n_combos,
                     hs_result *out, const hs_sweep_options *serial, hs_cancel *cancel, int is_caller,
                     hs_status *unit_status, hs_error *unit_err) {
    const hs_series_ref *sr = &series[u->series];
    size_t at = u->series * n_combos + u->first;
    hs_sweep_options mine = *serial;
    if (serial->stats) mine.stats = serial->stats + at;
    if (serial->equity) mine.equity = serial->equity + u->series * serial->n_periods * n_combos + u->first;
    if (serial->mtm_max_drawdown) mine.mtm_max_drawdown = serial->mtm_max_drawdown + at;
    unit_watch watch = {cancel, is_caller};
    if (cancel) mine.struct_size = sizeof mine, mine.progress = unit_progress, mine.progress_user = &watch;
    *unit_status = hs_sweep_strided(sr->close, sr->n_bars, combos + u->first, u->count, out + at, &mine, n_combos,
                                    unit_err);
}

/* The universe's units on the library's team (src/team/team.c): claimed one at a time from a counter,
 * so a worker that waits for a CPU never holds the caller (issue 28 item 2). */
typedef struct {
    const work_unit *units;
    size_t n_units;
    const hs_series_ref *series;
    const hs_windows *combos;
    size_t n_combos;
    hs_result *out;
    const hs_sweep_options *serial;
    hs_cancel *cancel;
    hs_status *ust;
    hs_error *uerr;
    _Atomic size_t next_unit;
} many_team;

static void many_seat(void *ctx, int seat) {
    many_team *j = ctx;
    for (size_t i; (i = atomic_fetch_add_explicit(&j->next_unit, 1, memory_order_relaxed)) < j->n_units;) {
        if (hs_cancel_stopped(j->cancel)) continue; /* stopped: the rest are skipped */
        run_unit(&j->units[i], j->series, j->combos, j->n_combos, j->out, j->serial, j->cancel, seat == 0, &j->ust[i],
                 &j->uerr[i]);
        if (j->ust[i] != HS_ERR_CANCELLED) hs_cancel_tick(j->cancel, j->units[i].count, seat == 0); /* a stopped unit did not finish */
    }
}

/* Threads for the pool: a threaded variant's team (capped as hs_sweep caps it), else 1; with no thread
 * count asked for, the library's choice for the universe's work (src/team/team.c, as hs_sweep). */
static int pool_threads(const hs_sweep_options *opt, int requested, int library_chooses, size_t bars, size_t combos) {
    const hs_variant *v = hs_variant_find(opt->variant ? opt->variant : HS_DEFAULT_VARIANT);
    int team = v ? hs_sweep_team(v, requested) : 1;
    return library_chooses && team > 1 ? hs_default_team(team, bars, combos) : team;
}

static void record_unit_failures(const work_unit *units, size_t n_units, const hs_status *ust, const hs_error *uerr,
                                 size_t n_combos, hs_result *out, hs_stats *stats, hs_status *status,
                                 hs_error *errs, char *ok, size_t *failed, const many_equity *eq) {
    for (size_t i = 0; i < n_units; i++) {
        size_t s = units[i].series;
        if (ust[i] == HS_OK || !ok[s]) continue;
        ok[s] = 0;
        (*failed)++;
        if (status) status[s] = ust[i];
        if (errs) errs[s] = uerr[i];
        mark_failed(out + s * n_combos, stats ? stats + s * n_combos : NULL, n_combos, eq, s);
    }
}

/* The periods of a universe: the options' own checks (hs_sweep), and given ends only with one length. */
static hs_status check_many_periods(const hs_series_ref *series, size_t n_series, const hs_sweep_options *opt,
                                   hs_error *err) {
    if (opt->n_periods == 0) return hs_check_no_periods(opt, err);
    if (!opt->period_ends) return HS_OK; /* equal periods per series; P > a series' bars fails that series */
    for (size_t s = 1; s < n_series; s++)
        if (series[s].n_bars != series[0].n_bars)
            return hs_fail(err, HS_ERR_USAGE, "period_ends given, but series %zu (%s) has %zu bars and series 0 (%s) "
                           "%zu: give period_ends = NULL (equal periods per series) or series of one length",
                           s, series[s].symbol ? series[s].symbol : "?", series[s].n_bars,
                           series[0].symbol ? series[0].symbol : "?", series[0].n_bars);
    return n_series ? hs_check_period_ends(opt->period_ends, opt->n_periods, series[0].n_bars, err) : HS_OK;
}

hs_status hs_sweep_many(const hs_series_ref *series, size_t n_series, const hs_windows *combos, size_t n_combos,
                        hs_result *out, hs_status *series_status, hs_error *series_err, size_t *n_failed,
                        const hs_sweep_options *opt, hs_error *err) {
    hs_sweep_options known;
    hs_status st = hs_read_sweep_options(opt, HS_OPTIONS_SIZE_1_3, &known, err);
    if (st != HS_OK) return st;
    opt = &known;
    if ((n_series && (!series || !out)) || (n_combos && !combos))
        return hs_fail(err, HS_ERR_USAGE, "hs_sweep_many: NULL series, combos or out");
    /* A bad variant, ISA or thread count is the caller's request, not a series' fault: check it once. */
    st = hs_check_threads(opt->threads, err);
    int requested, library_chooses;
    if (st == HS_OK) st = hs_requested_threads(opt->threads, &requested, &library_chooses, err);
    if (st != HS_OK) return st;
    if ((st = check_many_periods(series, n_series, opt, err)) != HS_OK) return st;
    many_equity eq = {opt->n_periods, opt->equity, opt->mtm_max_drawdown};
    /* no per-unit report; the fee and the statistics as the caller asked (the units' stats at their rows) */
    hs_sweep_options serial = {.variant = opt->variant, .isa = opt->isa, .threads = 1, .struct_size = sizeof serial,
                               .stats = opt->stats, .fee = opt->fee, .has_fee = opt->has_fee,
                               .n_periods = opt->n_periods, .period_ends = opt->period_ends, .equity = opt->equity,
                               .mtm_max_drawdown = opt->mtm_max_drawdown};
    double probe_bar = 1.0;
    hs_result no_rows;
    hs_sweep_options probe = serial;
    probe.stats = NULL;
    probe.n_periods = 0, probe.period_ends = NULL, probe.equity = NULL, probe.mtm_max_drawdown = NULL;
    st = hs_sweep(&probe_bar, 1, NULL, 0, &no_rows, &probe, err); /* also checks the fee */
    if (st != HS_OK) return st;
    char *ok = malloc(n_series ? n_series : 1);
    if (!ok) return hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu series flags", n_series);
    size_t failed = validate_series(series, n_series, combos, n_combos, out, opt->stats, series_status, series_err, ok,
                                   &eq), n_units = 0;
    work_unit *units = plan_units(series, n_series, ok, combos, n_combos, &n_units);
    hs_status *ust = units ? calloc(n_units ? n_units : 1, sizeof *ust) : NULL;
    hs_error *uerr = ust ? malloc((n_units ? n_units : 1) * sizeof *uerr) : NULL;
    if (!uerr) {
        free(ok), free(units), free(ust);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory planning %zu series x %zu combos", n_series, n_combos);
    }
    hs_cancel cancel = {opt->progress, opt->progress_user, 0, 0, 0};
    for (size_t i = 0; i < n_units; i++) cancel.total += units[i].count;
    hs_cancel *c = opt->progress ? &cancel : NULL;
    size_t all_bars = 0;
    for (size_t i = 0; i < n_series; i++) all_bars += ok[i] ? series[i].n_bars : 0;
    int pool = pool_threads(opt, requested, library_chooses, all_bars, n_combos);
    many_team job = {units, n_units, series, combos, n_combos, out, &serial, c, ust, uerr, 0};
    hs_team_run(pool, many_seat, &job);
    if (hs_cancel_stopped(c)) {
        size_t done = atomic_load(&cancel.done);
        free(ok), free(units), free(ust), free(uerr);
        return hs_fail(err, HS_ERR_CANCELLED, "sweep_many cancelled by its progress callback after %zu of %zu (series, combo) pairs",
                       done, cancel.total);
    }
    if (c) c->fn(c->user, cancel.total, cancel.total);
    record_unit_failures(units, n_units, ust, uerr, n_combos, out, opt->stats, series_status, series_err, ok, &failed,
                         &eq);
    if (n_failed) *n_failed = failed;
    free(ok), free(units), free(ust), free(uerr);
    return HS_OK;
}
