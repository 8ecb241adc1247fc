/* hs_trade_log: one combo's trades, from the reference kernel's own loop.
 *
 * The port (src/variants/port.h, the kernel of `unchecked`, the reference every variant is gated against) is
 * instantiated here once more with its nine buffers in one checked allocation, as `prealloc` does, and run
 * with a trade sink in its book (src/spec/tier0.h).  So the log is not a second copy of the event loop: it is
 * the same loop, and the sweep's PnL is the in-order sum of the logged PnLs by construction (tests/
 * test_trades.c checks it against hs_sweep on the golden series and on windows not derived from a length). */
#include <stdlib.h>

#include "error.h"
#include "tier0.h"
#include "variant.h"

/* The cancel state of one trade log, kept in the first cache line of its scratch block (the port's
 * functions carry `scratch` and nothing else, and a thread-local would cost a __tls_get_addr per row in
 * the shared library).  The port asks before every row of every pass (PORT_STOP); the callback is
 * asked every TRADE_POLL_ROWS rows: ~4,096 multiply-adds per window row, well under a millisecond. */
typedef struct {
    int (*fn)(void *user, size_t done, size_t total);
    void *user;
    size_t done, total; /* rows of the passes so far, of all of them (10 passes of n bars) */
    int stopped;
} trade_watch;
#define TRADE_POLL_ROWS 4096
#define TRADE_PASSES 10 /* 7 WMAs, 2 raw combinations, the event loop */
#define TRADE_HEADER_DOUBLES 8 /* the watch's 64-byte line, before the buffers (alignment kept) */

static int trade_stop(double *scratch, int64_t i) {
    trade_watch *w = (trade_watch *)(void *)scratch;
    if (w->stopped) return 1;
    if (!w->fn || (i & (TRADE_POLL_ROWS - 1))) return 0;
    w->done += TRADE_POLL_ROWS;
    w->stopped = w->fn(w->user, w->done < w->total ? w->done : w->total, w->total) != 0;
    return w->stopped;
}

/* No PORT_KERNEL: only port_combo, which hs_trade_log calls with its sink (no unused combo function). */
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) \
    ((scratch) + TRADE_HEADER_DOUBLES + (size_t)(slot) * hs_scratch_stride((size_t)(n)))
#define PORT_RELEASE(p) ((void)(p))
#define PORT_STOP(scratch, i) trade_stop((scratch), (i))
#include "port.h"

_Static_assert(sizeof(trade_watch) <= TRADE_HEADER_DOUBLES * sizeof(double), "the watch fits its header");

hs_status hs_trade_log_opt(const double *close, size_t n_bars, const hs_windows *combo, hs_trade *out, size_t cap,
                           size_t *n_trades, const hs_sweep_options *opt, hs_error *err) {
    if (!close || !combo || !n_trades) return hs_fail(err, HS_ERR_USAGE, "hs_trade_log: NULL close, combo or n_trades");
    if (cap && !out) return hs_fail(err, HS_ERR_USAGE, "hs_trade_log: out is NULL but cap is %zu", cap);
    hs_sweep_options known;
    double fee;
    hs_status st;
    if ((st = hs_read_sweep_options(opt, HS_OPTIONS_SIZE_1_3, &known, err)) != HS_OK) return st;
    if ((st = hs_options_fee(&known, &fee, err)) != HS_OK) return st;
    if ((st = hs_check_series(close, n_bars, err)) != HS_OK) return st;
    if ((st = hs_check_windows(combo, 1, n_bars, err)) != HS_OK) return st;
    size_t stride = hs_scratch_stride(n_bars);
    if (stride > SIZE_MAX / sizeof(double) / PORT_SLOTS - TRADE_HEADER_DOUBLES) {
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for the trade log's buffers (%zu bars)", n_bars);
    }
    double *scratch = aligned_alloc(64, (TRADE_HEADER_DOUBLES + PORT_SLOTS * stride) * sizeof(double));
    if (!scratch) return hs_fail(err, HS_ERR_NOMEM, "out of memory for the trade log's buffers (%zu bars)", n_bars);
    trade_watch *watch = (trade_watch *)(void *)scratch;
    *watch = (trade_watch){known.progress, known.progress_user, 0, TRADE_PASSES * n_bars, 0};
    hs_trade_sink sink = {out, cap, 0, 0};
    hs_outcome o = port_combo(close, n_bars, combo, hs_keep(fee), scratch, &sink, NULL);
    int stopped = watch->stopped;
    if (!stopped && known.progress) known.progress(known.progress_user, watch->total, watch->total);
    free(scratch);
    if (stopped) return hs_fail(err, HS_ERR_CANCELLED, "trade log cancelled by its progress callback");
    *n_trades = sink.n;
    if (known.stats) known.stats[0] = o.s;
    return HS_OK;
}

hs_status hs_trade_log(const double *close, size_t n_bars, const hs_windows *combo, hs_trade *out, size_t cap,
                       size_t *n_trades, hs_error *err) {
    return hs_trade_log_opt(close, n_bars, combo, out, cap, n_trades, NULL, err);
}
