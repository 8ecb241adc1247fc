/* hs_signals_entries: every combo's entries as a matrix, at the certified kernel's speed (issue 28 item 5).
 *
 * vectorbt's Portfolio.from_signals takes entries and short entries per bar and combo; building them from
 * hs_signal (the reference's d, O(n·Σw) per combo) cost 300 ms for GOOG's 195 lengths where the sweep
 * takes 7 ms.  Here each combo runs the `sliding` kernel (running-sum WMAs, every sign of d certified
 * against the tier-0 value or recomputed in the reference's order: src/variants/sliding.c), and its d goes
 * through the books' own loop (src/spec/tier0.h, hs_books_log) with a trade sink: the entries written are
 * the trades' entry bars and sides, so they are the sweep's trades by construction (the books read d only
 * through its sign, and those signs are the reference's).  d's values are not the reference's bits, only
 * its signs: hmasweep.signal gives the bits. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef HS_HAVE_OPENMP
#include <omp.h>
#endif

#include "error.h"
#include "signals.h"
#include "team.h"
#include "tier0.h"
#include "variant.h"

/* One combo: its entries into row[0..n) (zeroed first).  `trades`: room for n + 1 trades (a reversal
 * at most once per bar, and the final close). */
static void combo_entries(const hs_variant *v, const double *close, size_t n, const hs_windows *combo,
                          double *scratch, hs_trade *trades, int8_t *row) {
    memset(row, 0, n);
    size_t start = hs_first_bars_of(combo->w).start;
    if (start >= n) return;
    v->fn[HS_ISA_SCALAR](close, n, combo, hs_keep(HS_DEFAULT_FEE), scratch, NULL); /* no periods: no mtm tracker */
    hs_trade_sink sink = {trades, n + 1, 0, 0};
    hs_books_log(hs_sliding_certified_d(scratch, n), close, start, n, hs_keep(HS_DEFAULT_FEE), &sink);
    for (size_t t = 0; t < sink.n && t < sink.cap; t++) row[trades[t].entry_bar] = trades[t].side;
}

/* The combos on the library's team (src/team/team.c): claimed one at a time from a counter, so a worker
 * that waits for a CPU never holds the caller (issue 28 item 2).  A seat without its buffers claims and
 * skips the rest: the call fails. */
typedef struct {
    const hs_variant *v;
    const double *close;
    size_t n_bars;
    const hs_windows *combos;
    size_t n_combos;
    int8_t *out;
    size_t stride;
    _Atomic size_t next_combo;
    _Atomic int failed;
} signals_team;

static void signals_seat(void *ctx, int seat) {
    (void)seat;
    signals_team *j = ctx;
    if (atomic_load_explicit(&j->next_combo, memory_order_relaxed) >= j->n_combos) return; /* nothing left */
    double *scratch = aligned_alloc(64, (size_t)j->v->scratch_buffers * j->stride * sizeof(double));
    hs_trade *trades = malloc((j->n_bars + 1) * sizeof *trades);
    int ok = scratch && trades;
    if (!ok) atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    for (size_t c; (c = atomic_fetch_add_explicit(&j->next_combo, 1, memory_order_relaxed)) < j->n_combos;)
        if (ok) combo_entries(j->v, j->close, j->n_bars, &j->combos[c], scratch, trades, j->out + c * j->n_bars);
    free(scratch);
    free(trades);
}

hs_status hs_signals_entries(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                             int8_t *out, int threads, hs_error *err) {
    hs_status st;
    if (!close || !out || (n_combos && !combos)) return hs_fail(err, HS_ERR_USAGE, "signals: NULL close, combos or out");
    if ((st = hs_check_threads(threads, err)) != HS_OK) return st;
    if ((st = hs_check_series(close, n_bars, err)) != HS_OK) return st;
    if ((st = hs_check_windows(combos, n_combos, n_bars, err)) != HS_OK) return st;
    const hs_variant *v = hs_variant_find("sliding");
    if (!v || !v->fn[HS_ISA_SCALAR]) return hs_fail(err, HS_ERR_USAGE, "signals: the sliding kernel is not built");
    int requested, library_chooses;
    if ((st = hs_requested_threads(threads, &requested, &library_chooses, err)) != HS_OK) return st;
    size_t stride = hs_scratch_stride(n_bars);
    if (stride > SIZE_MAX / sizeof(double) / (size_t)v->scratch_buffers || n_bars >= SIZE_MAX / sizeof(hs_trade) - 1)
        return hs_fail(err, HS_ERR_NOMEM, "signals: out of memory for %zu bars", n_bars);
    int team = 1;
#ifdef HS_HAVE_OPENMP
    team = requested > 0 ? requested : omp_get_max_threads();
    if (library_chooses) team = hs_default_team(team, n_bars, n_combos);
#endif
    signals_team job = {v, close, n_bars, combos, n_combos, out, stride, 0, 0};
    hs_team_run(team, signals_seat, &job);
    int failed = atomic_load_explicit(&job.failed, memory_order_relaxed);
    return failed ? hs_fail(err, HS_ERR_NOMEM, "signals: out of memory for a thread's buffers (%zu bars)", n_bars) : HS_OK;
}
