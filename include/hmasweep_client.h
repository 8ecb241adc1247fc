/* hmasweep client — call `hmasweep serve` from C (docs/engine.md, wire protocol docs/protocol.md).
 *
 * Threads: one hs_client is one connection; every call on it (hs_client_close included) must come from one
 * thread at a time.  Distinct clients may be used from distinct threads at once.  Every call waits at most the
 * client's timeout for the whole round trip.  A call that fails returns an hs_status with a message in
 * err; hs_client_last_error says whether the server refused the request (the status is the server's:
 * HS_ERR_DATA, HS_ERR_USAGE, HS_ERR_NOMEM; the connection stays usable) or the connection broke
 * (HS_ERR_IO: a timeout, I/O error or out-of-protocol reply in the middle of a frame, on every
 * transport; the connection is out of step, so every later call fails with HS_CLIENT_E_BROKEN).
 * Requests go out as one writev of header and arrays, straight from the caller's memory; replies are
 * received into the caller's arrays where the layout allows (echo), else into one reused buffer. */
#ifndef HMASWEEP_CLIENT_H
#define HMASWEEP_CLIENT_H

#include "hmasweep.h"

#ifndef HS_API
#define HS_API
#endif
#ifndef HS_DEPRECATED
#define HS_DEPRECATED(msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_client hs_client;

#define HS_CLIENT_DEFAULT_TIMEOUT_MS 30000

/* hs_client_last_error: 0, a server error code (docs/protocol.md "Error replies", 1..18), or one of: */
#define HS_CLIENT_E_IO (-1)      /* the connection failed or the server closed it */
#define HS_CLIENT_E_TIMEOUT (-2) /* the round trip did not finish within the timeout */
#define HS_CLIENT_E_PROTOCOL (-3) /* the reply does not match the request */
#define HS_CLIENT_E_BROKEN (-4)   /* an earlier call broke the connection: nothing was sent; reconnect */
#define HS_CLIENT_E_INTERRUPTED (-5) /* the interrupt hook stopped the call mid-frame (HS_ERR_CANCELLED) */

/* Connect by URL: "unix:PATH", "tcp://HOST:PORT", "shm:NAME".  timeout_ms < 0: the default.  A URL of
 * no known scheme or a malformed address is HS_ERR_USAGE; a server that is not there, HS_ERR_IO. */
HS_API hs_status hs_client_connect(const char *url, int timeout_ms, hs_client **out, hs_error *err);
/* A client on file descriptors already connected to a server: a socket (rfd == wfd), or two pipes to a
 * `hmasweep serve --listen stdio:` child (read its stdout from rfd, write its stdin to wfd; pipes are
 * made non-blocking so a write never waits past the timeout).  The fds belong to the client from this
 * call on, even when it fails: hs_client_close closes them. */
HS_API hs_status hs_client_from_fds(int rfd, int wfd, int timeout_ms, hs_client **out, hs_error *err);
/* While a call waits for the server, interrupt(user) is asked at least every 50 ms and as soon as a
 * signal cuts the wait short; non-zero stops the call with HS_ERR_CANCELLED and HS_CLIENT_E_INTERRUPTED,
 * and breaks the connection (its reply may still come).  NULL: never (the default).  A front end's
 * Ctrl-C: Python's Client runs its signal handlers there. */
HS_API void hs_client_set_interrupt(hs_client *c, int (*interrupt)(void *user), void *user);
HS_API void hs_client_close(hs_client *c);
HS_API void hs_client_set_timeout(hs_client *c, int timeout_ms);
HS_API int hs_client_last_error(const hs_client *c);

/* AUTH with a shared secret (a tcp server started with --token-file). */
HS_API hs_status hs_client_auth(hs_client *c, const void *token, size_t len, hs_error *err);
/* HELLO: the server's protocol version, its variants (comma-separated, the one it runs first) and limits. */
HS_API hs_status hs_client_hello(hs_client *c, uint32_t *version, char *variants, size_t variants_cap,
                                 uint32_t *max_frame_bytes, uint64_t *max_work, hs_error *err);

/* docs/spec.md §6 sweep: hs_sweep's arguments and results, computed by the server.  `opt` is the library's
 * own hs_sweep_options (NULL = the defaults; made by HS_SWEEP_OPTIONS_INIT, read by the same struct_size
 * rule), and the client picks the wire op from it (docs/protocol.md): the plain SWEEP when no field below
 * is set; protocol 2's SWEEP_STATS (op 10) when has_fee/fee or stats is, every result then equal to
 * hs_sweep's with that fee, bit for bit, and stats (NULL = not wanted) filled; protocol 3's SWEEP_EQUITY
 * (op 13) when n_periods >= 1: n_periods equal periods (docs/spec.md §9.3; 1 <= n_periods <= n_bars, else
 * HS_ERR_USAGE naming it), equity[k * n_combos + c] and mtm_max_drawdown filled as hs_sweep fills them.
 * The fee is checked by the server (HS_ERR_USAGE naming it, hs_client_last_error 2).  The server runs its
 * own variant, ISA and threads: variant, isa, threads, report, progress and period_ends set are refused
 * with HS_ERR_USAGE naming the field, before anything is sent (hs_client_last_error 0). */
HS_API hs_status hs_client_sweep_opt(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                     size_t n_combos, hs_result *out, const hs_sweep_options *opt, hs_error *err);
/* docs/spec.md §6 echo: send close, receive it back into out (n_bars doubles). */
HS_API hs_status hs_client_echo(hs_client *c, const double *close, size_t n_bars, double *out, hs_error *err);

/* LOAD a series once; sweep it by handle sending only the windows (ops 4, 11, 14, picked from opt as
 * hs_client_sweep_opt picks); FREE it. */
HS_API hs_status hs_client_load(hs_client *c, const double *close, size_t n_bars, uint32_t *handle, hs_error *err);
HS_API hs_status hs_client_sweep_handle_opt(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                            hs_result *out, const hs_sweep_options *opt, hs_error *err);
HS_API hs_status hs_client_free(hs_client *c, uint32_t handle, hs_error *err);

/* Live mode (docs/live.md): a session over a LOADed series (its bars are the history) and combos.  Opened
 * with opt's has_fee/fee or stats set, it is a statistics session (protocol 2, LIVE_OPEN_STATS): its trades
 * are booked with that fee, and each append can return every combo's statistics, equal to a batch sweep's
 * over every bar so far (hs_live_stats); otherwise the plain LIVE_OPEN.  A live session over the wire has
 * no periods: n_periods, equity, mtm_max_drawdown set are refused, as are the fields a sweep refuses.  Each
 * append of k >= 1 bars returns, per combo (arrays n_combos long, the session's; any may be NULL), what
 * hs_live_append returns in process: pnl and trades equal to a sweep over every bar so far, the position
 * after the newest bar, whether a cross happened in the k bars, and, when opt->stats is non-NULL (a
 * statistics session only; else HS_ERR_USAGE), the statistics into stats[0..n_combos).  An append reads
 * opt->stats only (NULL opt = none wanted).  The client remembers which of its sessions have statistics;
 * a session belongs to its connection. */
HS_API hs_status hs_client_live_open_opt(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                         const hs_sweep_options *opt, uint32_t *session, hs_error *err);
HS_API hs_status hs_client_live_append_opt(hs_client *c, uint32_t session, const double *bars, size_t k,
                                           size_t n_combos, double *pnl, int64_t *trades, int8_t *position,
                                           uint8_t *crossed, const hs_sweep_options *opt, hs_error *err);
HS_API hs_status hs_client_live_close(hs_client *c, uint32_t session, hs_error *err);

/* ---- deprecated 1.x calls (docs/library.md "One way to extend a call") ---------------------------------- *
 * Kept exported with the same behaviour for SONAME libhmasweep.so.1, each a thin wrapper of the call its
 * message names; `tests/engine/test_engine_client.c` checks each against that call.  Before 1.4 the fee and
 * statistics of protocol 2, and the periods of protocol 3, were extra arguments of separate calls; they are
 * fields of hs_sweep_options now.  *_stats(fee, ..., stats) is *_opt with has_fee = 1, fee, stats;
 * *_equity(fee, n_periods, ...) is *_opt with has_fee = 1, fee, n_periods, stats, mtm_max_drawdown, equity
 * (n_periods 0 still refused); the plain calls are *_opt with opt NULL. */
HS_API hs_status hs_client_sweep(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                 size_t n_combos, hs_result *out, hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_opt(..., NULL, err)");
HS_API hs_status hs_client_sweep_handle(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                        hs_result *out, hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_handle_opt(..., NULL, err)");
HS_API hs_status hs_client_live_open(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                     uint32_t *session, hs_error *err)
    HS_DEPRECATED("use hs_client_live_open_opt(..., NULL, session, err)");
HS_API hs_status hs_client_live_append(hs_client *c, uint32_t session, const double *bars, size_t k, size_t n_combos,
                                       double *pnl, int64_t *trades, int8_t *position, uint8_t *crossed,
                                       hs_error *err)
    HS_DEPRECATED("use hs_client_live_append_opt(..., NULL, err)");
HS_API hs_status hs_client_sweep_stats(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                       size_t n_combos, double fee, hs_result *out, hs_stats *stats, hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_opt with hs_sweep_options has_fee, fee, stats");
HS_API hs_status hs_client_sweep_handle_stats(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                              double fee, hs_result *out, hs_stats *stats, hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_handle_opt with hs_sweep_options has_fee, fee, stats");
HS_API hs_status hs_client_live_open_stats(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                           double fee, uint32_t *session, hs_error *err)
    HS_DEPRECATED("use hs_client_live_open_opt with hs_sweep_options has_fee, fee");
HS_API hs_status hs_client_live_append_stats(hs_client *c, uint32_t session, const double *bars, size_t k,
                                             size_t n_combos, double *pnl, int64_t *trades, int8_t *position,
                                             uint8_t *crossed, hs_stats *stats, hs_error *err)
    HS_DEPRECATED("use hs_client_live_append_opt with hs_sweep_options stats");
HS_API hs_status hs_client_sweep_equity(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                        size_t n_combos, double fee, size_t n_periods, hs_result *out, hs_stats *stats,
                                        double *mtm_max_drawdown, double *equity, hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_opt with hs_sweep_options has_fee, fee, n_periods, equity");
HS_API hs_status hs_client_sweep_handle_equity(hs_client *c, uint32_t handle, const hs_windows *combos,
                                               size_t n_combos, double fee, size_t n_periods, hs_result *out,
                                               hs_stats *stats, double *mtm_max_drawdown, double *equity,
                                               hs_error *err)
    HS_DEPRECATED("use hs_client_sweep_handle_opt with hs_sweep_options has_fee, fee, n_periods, equity");

#ifdef __cplusplus
}
#endif
#endif
