/* The C client (include/hmasweep_client.h) on the frame codec and the hs_stream transports. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "error.h"
#include "hmasweep_client.h"
#include "transport.h"
#include "opts.h"

struct hs_client {
    hs_stream *s;       /* NULL once the connection broke (closed at once: the server frees its side) */
    char peer[64];
    int timeout_ms;
    int last_error;
    unsigned char *buf; /* reply scratch, reused across calls */
    size_t cap;
    size_t reply_len;   /* bytes of the last reply body */
    int (*interrupt)(void *user);
    void *interrupt_user;
    uint32_t *stats_sessions; /* live sessions opened with statistics (op 12): their appends' replies carry them */
    size_t n_stats_sessions, cap_stats_sessions;
};

/* `want` for a reply of any length up to SMALL_REPLY_MAX (HELLO), received into the scratch buffer.
 * Every byte count the client allocates for comes from its own request (the reply's exact size) or is
 * at most SMALL_REPLY_MAX (HELLO, error replies): a length the peer sends never sizes an allocation. */
#define ANY_SMALL_REPLY ((size_t)-1)
#define SMALL_REPLY_MAX 4096u

static hs_status client_on(hs_stream *s, int timeout_ms, hs_client **out, hs_error *err) {
    hs_client *c = calloc(1, sizeof *c);
    if (!c) {
        s->close(s->ctx);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    c->s = s, c->timeout_ms = timeout_ms < 0 ? HS_CLIENT_DEFAULT_TIMEOUT_MS : timeout_ms;
    snprintf(c->peer, sizeof c->peer, "%s", s->peer);
    *out = c;
    return HS_OK;
}

HS_API hs_status hs_client_connect(const char *url, int timeout_ms, hs_client **out, hs_error *err) {
    *out = NULL;
    if (!url) return hs_fail(err, HS_ERR_USAGE, "no server URL");
    hs_stream *s;
    hs_status st = hs_connect_url(url, timeout_ms < 0 ? HS_CLIENT_DEFAULT_TIMEOUT_MS : timeout_ms, &s, err);
    return st != HS_OK ? st : client_on(s, timeout_ms, out, err);
}

/* A pipe's write would block until the peer reads, past any deadline: made non-blocking, it moves what
 * fits and the stream waits in poll() (src/engine/transport_fd.c).  A socket is written with MSG_DONTWAIT. */
static void nonblocking_unless_socket(int fd) {
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISSOCK(st.st_mode)) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

HS_API hs_status hs_client_from_fds(int rfd, int wfd, int timeout_ms, hs_client **out, hs_error *err) {
    *out = NULL;
    if (rfd < 0 || wfd < 0) {
        if (rfd >= 0) close(rfd);
        if (wfd >= 0 && wfd != rfd) close(wfd);
        return hs_fail(err, HS_ERR_USAGE, "hs_client_from_fds: file descriptors %d and %d: both must be open", rfd, wfd);
    }
    nonblocking_unless_socket(rfd);
    if (wfd != rfd) nonblocking_unless_socket(wfd);
    char peer[32];
    snprintf(peer, sizeof peer, rfd == wfd ? "fd %d" : "fds %d/%d", rfd, wfd);
    hs_stream *s = hs_fd_stream(rfd, wfd, 1, "fd", peer);
    if (!s) {
        close(rfd);
        if (wfd != rfd) close(wfd);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return client_on(s, timeout_ms, out, err);
}

HS_API void hs_client_close(hs_client *c) {
    if (!c) return;
    if (c->s) c->s->close(c->s->ctx);
    free(c->buf);
    free(c->stats_sessions);
    free(c);
}

/* The stream's stop hook (stream.h) calls the caller's interrupt. */
static int interrupted(void *user) {
    hs_client *c = user;
    return c->interrupt(c->interrupt_user);
}

HS_API void hs_client_set_interrupt(hs_client *c, int (*interrupt)(void *user), void *user) {
    c->interrupt = interrupt, c->interrupt_user = user;
    if (c->s) c->s->stop = interrupt ? interrupted : NULL, c->s->stop_user = c;
}

HS_API void hs_client_set_timeout(hs_client *c, int timeout_ms) {
    c->timeout_ms = timeout_ms < 0 ? HS_CLIENT_DEFAULT_TIMEOUT_MS : timeout_ms;
}
HS_API int hs_client_last_error(const hs_client *c) { return c->last_error; }

/* A failure mid-frame: the rest of the reply may still arrive, so the stream is out of step for good.
 * It is closed now (the server sees the connection end and frees what it held), and every later call
 * fails with HS_CLIENT_E_BROKEN instead of reading this reply as its own. */
static hs_status broke(hs_client *c, int code, hs_status kind, hs_error *err, const char *what) {
    c->last_error = code;
    if (c->s) c->s->close(c->s->ctx), c->s = NULL;
    return hs_fail(err, kind, "server %s: %s", c->peer, what);
}

static hs_status io_failure(hs_client *c, int rc, hs_error *err, const char *stage) {
    char what[96];
    if (rc == (int)HS_STREAM_CANCELLED) {
        snprintf(what, sizeof what, "%s: interrupted", stage);
        return broke(c, HS_CLIENT_E_INTERRUPTED, HS_ERR_CANCELLED, err, what);
    }
    snprintf(what, sizeof what, "%s %s", stage,
             rc == 1 ? "failed: the server closed the connection"
             : rc == (int)HS_STREAM_TIMEOUT ? "timed out" : "failed (I/O error)");
    return broke(c, rc == (int)HS_STREAM_TIMEOUT ? HS_CLIENT_E_TIMEOUT : HS_CLIENT_E_IO, HS_ERR_IO, err, what);
}

static hs_status protocol_error(hs_client *c, hs_error *err, const char *what) {
    return broke(c, HS_CLIENT_E_PROTOCOL, HS_ERR_IO, err, what);
}

static hs_status send_request(hs_client *c, struct iovec *iov, int n, long long deadline, hs_error *err) {
    if (!c->s) {
        c->last_error = HS_CLIENT_E_BROKEN;
        return hs_fail(err, HS_ERR_IO, "server %s: the connection is broken (an earlier call failed mid-frame); reconnect",
                       c->peer);
    }
    c->last_error = 0;
    int rc = hs_stream_write_full(c->s, iov, n, deadline);
    return rc ? io_failure(c, rc, err, "sending the request") : HS_OK;
}

static hs_status grow(hs_client *c, size_t n, hs_error *err) {
    if (n <= c->cap) return HS_OK;
    unsigned char *b = realloc(c->buf, n);
    if (!b) return hs_fail(err, HS_ERR_NOMEM, "out of memory for a %zu-byte reply", n);
    c->buf = b, c->cap = n;
    return HS_OK;
}

/* An error reply is a code and a short message: a length past SMALL_REPLY_MAX is not one (a server
 * that sent 2^31 - 1 had this client allocate 2 GiB), so it is refused before anything is allocated. */
static hs_status server_error(hs_client *c, uint32_t len, long long deadline, hs_error *err) {
    if (len > SMALL_REPLY_MAX) {
        char what[96];
        snprintf(what, sizeof what, "error reply of %u bytes (an error reply is at most %u)", len, SMALL_REPLY_MAX);
        return protocol_error(c, err, what);
    }
    hs_status st = grow(c, len, err);
    if (st != HS_OK) return broke(c, HS_CLIENT_E_IO, HS_ERR_IO, err, "no memory for the error reply");
    int rc = hs_stream_read_full(c->s, c->buf, len, deadline, NULL);
    if (rc) return io_failure(c, rc, err, "receiving an error reply");
    char msg[sizeof(hs_error)];
    hs_wire_code code = hs_codec_parse_error(c->buf, len, msg, sizeof msg - 32);
    c->last_error = (int)code;
    hs_status kind = code == HS_WIRE_BAD_DATA ? HS_ERR_DATA : code == HS_WIRE_NOMEM ? HS_ERR_NOMEM : HS_ERR_USAGE;
    return hs_fail(err, kind, "server error %d: %s", (int)code, msg);
}

/* Receive one reply.  A body of exactly `want` bytes (or ANY_SMALL_REPLY) goes to dst (NULL: the
 * scratch buffer); c->reply_len says how many came. */
static hs_status receive(hs_client *c, size_t want, void *dst, long long deadline, hs_error *err) {
    unsigned char prefix[4];
    int rc = hs_stream_read_full(c->s, prefix, 4, deadline, NULL);
    if (rc) return io_failure(c, rc, err, "receiving the reply");
    int is_error;
    uint32_t len;
    hs_codec_parse_reply_prefix(hs_codec_get_u32(prefix), &is_error, &len);
    if (is_error) return server_error(c, len, deadline, err);
    if (want == ANY_SMALL_REPLY && len <= SMALL_REPLY_MAX) want = len;
    if (len != want) {
        char what[96];
        if (want == ANY_SMALL_REPLY)
            snprintf(what, sizeof what, "reply of %u bytes where at most %u were expected", len, SMALL_REPLY_MAX);
        else
            snprintf(what, sizeof what, "reply of %u bytes where %zu were expected", len, want);
        return protocol_error(c, err, what);
    }
    if (!dst) {
        if (grow(c, want, err) != HS_OK) return broke(c, HS_CLIENT_E_IO, HS_ERR_IO, err, "no memory for the reply");
        dst = c->buf;
    }
    rc = hs_stream_read_full(c->s, dst, want, deadline, NULL);
    c->reply_len = want;
    return rc ? io_failure(c, rc, err, "receiving the reply") : HS_OK;
}

static long long deadline_of(const hs_client *c) { return hs_now_ms() + c->timeout_ms; }

/* One round trip: a request header of h bytes (0: it could not be made) + up to two arrays out in one
 * writev, `want` bytes back. */
static hs_status send_and_receive(hs_client *c, unsigned char *hdr, size_t h, const void *x, size_t xn, const void *y,
                                  size_t yn, size_t want, void *dst, hs_error *err) {
    if (!h) return hs_fail(err, HS_ERR_USAGE, "request too large for one frame (%zu bytes)", xn + yn);
    struct iovec iov[3] = {{hdr, h}, {(void *)x, xn}, {(void *)y, yn}};
    long long deadline = deadline_of(c);
    hs_status st = send_request(c, iov, 3, deadline, err);
    return st != HS_OK ? st : receive(c, want, dst, deadline, err);
}

static hs_status round_trip(hs_client *c, unsigned op, uint32_t a, uint32_t b, const void *x, size_t xn, const void *y,
                            size_t yn, size_t want, void *dst, hs_error *err) {
    unsigned char hdr[HS_REQUEST_HEADER_MAX];
    size_t h = hs_codec_request_header(op, a, b, xn + yn, hdr);
    return send_and_receive(c, hdr, h, x, xn, y, yn, want, dst, err);
}

/* The same for the protocol-2 ops, whose header carries the fee (docs/protocol.md "Version 2"). */
static hs_status round_trip_fee(hs_client *c, unsigned op, uint32_t a, uint32_t b, double fee, const void *x, size_t xn,
                                const void *y, size_t yn, size_t want, hs_error *err) {
    unsigned char hdr[HS_REQUEST_HEADER_MAX];
    size_t h = hs_codec_request_header_fee(op, a, b, fee, xn + yn, hdr);
    return send_and_receive(c, hdr, h, x, xn, y, yn, want, NULL, err);
}

static hs_status check_sizes(hs_client *c, size_t n_bars, size_t n_combos, hs_error *err) {
    c->last_error = 0; /* refused here, before a byte is sent: no server code, the connection is fine */
    if (n_bars > UINT32_MAX || n_combos > UINT32_MAX)
        return hs_fail(err, HS_ERR_USAGE, "n_bars = %zu, n_combos = %zu: the wire carries 32-bit counts", n_bars, n_combos);
    return HS_OK;
}

static void decode_results(const unsigned char *body, size_t n, hs_result *out) {
    for (size_t k = 0; k < n; k++) {
        memcpy(&out[k].pnl, body + 8 * k, 8);
        memcpy(&out[k].trades, body + 8 * (n + k), 8);
    }
}

/* A statistics reply (ops 10, 11): the sweep reply's arrays, then the six statistics'. */
static void decode_stats_reply(const unsigned char *body, size_t n, hs_result *out, hs_stats *stats) {
    decode_results(body, n, out);
    if (stats) hs_codec_decode_stats_arrays(body + 16 * n, n, stats);
}

static hs_status check_periods(size_t n_periods, hs_error *err) {
    if (n_periods == 0 || n_periods > UINT32_MAX)
        return hs_fail(err, HS_ERR_USAGE, "n_periods = %zu: expected 1 to n_bars periods", n_periods);
    return HS_OK;
}

/* Protocol 3's equity ops (13, 14): the header with the fee and n_periods, the reply of
 * hs_codec_encode_equity_reply decoded into whichever outputs are wanted. */
static hs_status equity_round_trip(hs_client *c, unsigned op, uint32_t a, size_t n_combos, double fee, size_t n_periods,
                                   const void *x, size_t xn, const void *y, size_t yn, hs_result *out, hs_stats *stats,
                                   double *mtm_max_drawdown, double *equity, hs_error *err) {
    hs_status st = check_periods(n_periods, err);
    if (st != HS_OK) return st;
    uint64_t bytes = hs_codec_equity_reply_bytes(n_combos, n_periods);
    if (!bytes)
        return hs_fail(err, HS_ERR_USAGE, "n_periods = %zu x n_combos = %zu: the reply would not fit one frame",
                       n_periods, n_combos);
    unsigned char hdr[HS_REQUEST_HEADER_MAX];
    size_t h = hs_codec_request_header_equity(op, a, (uint32_t)n_combos, fee, (uint32_t)n_periods, xn + yn, hdr);
    st = send_and_receive(c, hdr, h, x, xn, y, yn, (size_t)bytes - HS_FRAME_PREFIX_BYTES, NULL, err);
    if (st != HS_OK) return st;
    decode_stats_reply(c->buf, n_combos, out, stats);
    const unsigned char *tail = c->buf + HS_STATS_REPLY_PER_COMBO * n_combos;
    if (mtm_max_drawdown) memcpy(mtm_max_drawdown, tail, 8 * n_combos);
    if (equity) memcpy(equity, tail + 8 * n_combos, 8 * n_combos * n_periods);
    return HS_OK;
}

/* What a call's hs_sweep_options ask of the wire (docs/protocol.md): the lowest protocol whose op carries
 * every field set, 1 (the plain ops), 2 (fee and statistics: ops 10-12) or 3 (equity at period ends: ops
 * 13-14).  The options are read as hs_sweep reads them (struct_size, hs_read_sweep_options); a field the
 * wire cannot carry is refused by name before a byte is sent, never dropped. */
enum wire_call { WIRE_SWEEP, WIRE_LIVE_OPEN, WIRE_LIVE_APPEND };
typedef struct {
    int protocol;
    double fee;
    hs_sweep_options known;
} wire_terms;

static const char *field_off_the_wire(const hs_sweep_options *k, enum wire_call call) {
    if (k->variant || k->isa || k->threads || k->report || k->progress || k->period_ends)
        return k->variant ? "variant" : k->isa ? "isa" : k->threads ? "threads" : k->report ? "report"
               : k->progress ? "progress" : "period_ends";
    if (call != WIRE_SWEEP && (k->n_periods || k->equity || k->mtm_max_drawdown))
        return k->n_periods ? "n_periods" : k->equity ? "equity" : "mtm_max_drawdown";
    if (call == WIRE_LIVE_APPEND && k->has_fee) return "has_fee";
    return NULL;
}

static hs_status wire_terms_of(hs_client *c, const hs_sweep_options *opt, enum wire_call call, wire_terms *w,
                               hs_error *err) {
    c->last_error = 0; /* refused here, before a byte is sent: no server code, the connection is fine */
    hs_status st = hs_read_sweep_options(opt, HS_OPTIONS_SIZE_1_3, &w->known, err);
    if (st != HS_OK) return st;
    const hs_sweep_options *k = &w->known;
    const char *field = field_off_the_wire(k, call);
    if (field)
        return hs_fail(err, HS_ERR_USAGE,
                       "hs_sweep_options.%s is set, but a %s over the wire does not carry it (the server runs its own "
                       "variant, ISA and threads; a live session's fee is set at open, and it has no periods; "
                       "docs/engine.md)", field, call == WIRE_SWEEP ? "sweep" : "live session");
    if (call == WIRE_SWEEP && !k->n_periods && (st = hs_check_no_periods(k, err)) != HS_OK) return st;
    w->fee = k->has_fee ? k->fee : HS_DEFAULT_FEE; /* checked by the server, which names a bad one */
    w->protocol = k->n_periods ? 3 : (k->has_fee || k->stats) ? 2 : 1;
    return HS_OK;
}

/* hs_client_sweep_opt and hs_client_sweep_handle_opt: the series in the request (x = close, y = combos)
 * or by handle (x = combos), a = n_bars or the handle. */
static hs_status sweep_call(hs_client *c, int by_handle, uint32_t a, size_t n_bars, const void *x, size_t xn,
                            const void *y, size_t yn, size_t n_combos, hs_result *out, const hs_sweep_options *opt,
                            hs_error *err) {
    wire_terms w;
    hs_status st = wire_terms_of(c, opt, WIRE_SWEEP, &w, err);
    if (st == HS_OK) st = check_sizes(c, n_bars, n_combos, err);
    if (st != HS_OK) return st;
    const hs_sweep_options *k = &w.known;
    if (w.protocol == 3)
        return equity_round_trip(c, by_handle ? HS_OP_SWEEP_HANDLE_EQUITY : HS_OP_SWEEP_EQUITY, a, n_combos, w.fee,
                                 k->n_periods, x, xn, y, yn, out, k->stats, k->mtm_max_drawdown, k->equity, err);
    if (w.protocol == 2) {
        st = round_trip_fee(c, by_handle ? HS_OP_SWEEP_HANDLE_STATS : HS_OP_SWEEP_STATS, a, (uint32_t)n_combos, w.fee,
                            x, xn, y, yn, HS_STATS_REPLY_PER_COMBO * n_combos, err);
        if (st == HS_OK) decode_stats_reply(c->buf, n_combos, out, k->stats);
        return st;
    }
    st = round_trip(c, by_handle ? HS_OP_SWEEP_HANDLE : HS_OP_SWEEP, a, (uint32_t)n_combos, x, xn, y, yn,
                    16 * n_combos, NULL, err);
    if (st == HS_OK) decode_results(c->buf, n_combos, out);
    return st;
}

HS_API hs_status hs_client_sweep_opt(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                     size_t n_combos, hs_result *out, const hs_sweep_options *opt, hs_error *err) {
    return sweep_call(c, 0, (uint32_t)n_bars, n_bars, close, 8 * n_bars, combos, sizeof(hs_windows) * n_combos,
                      n_combos, out, opt, err);
}

HS_API hs_status hs_client_sweep_handle_opt(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                            hs_result *out, const hs_sweep_options *opt, hs_error *err) {
    return sweep_call(c, 1, handle, 0, combos, sizeof(hs_windows) * n_combos, NULL, 0, n_combos, out, opt, err);
}

HS_API hs_status hs_client_echo(hs_client *c, const double *close, size_t n_bars, double *out, hs_error *err) {
    hs_status st = check_sizes(c, n_bars, 0, err);
    return st != HS_OK ? st
                       : round_trip(c, HS_OP_ECHO, (uint32_t)n_bars, 0, close, 8 * n_bars, NULL, 0, 8 * n_bars, out, err);
}

HS_API hs_status hs_client_load(hs_client *c, const double *close, size_t n_bars, uint32_t *handle, hs_error *err) {
    hs_status st = check_sizes(c, n_bars, 0, err);
    if (st == HS_OK) st = round_trip(c, HS_OP_LOAD, (uint32_t)n_bars, 0, close, 8 * n_bars, NULL, 0, 4, NULL, err);
    if (st == HS_OK) *handle = hs_codec_get_u32(c->buf);
    return st;
}

HS_API hs_status hs_client_free(hs_client *c, uint32_t handle, hs_error *err) {
    return round_trip(c, HS_OP_FREE, handle, 0, NULL, 0, NULL, 0, 0, NULL, err);
}

/* Which live sessions reply with statistics: the client remembers those it opened with them, so one append
 * call serves both kinds (before 1.4 the caller had to pick hs_client_live_append or _stats to match). */
static ssize_t stats_session_at(const hs_client *c, uint32_t session) {
    for (size_t i = 0; i < c->n_stats_sessions; i++)
        if (c->stats_sessions[i] == session) return (ssize_t)i;
    return -1;
}

static hs_status remember_stats_session(hs_client *c, uint32_t session, hs_error *err) {
    if (stats_session_at(c, session) >= 0) return HS_OK;
    if (c->n_stats_sessions == c->cap_stats_sessions) {
        size_t cap = c->cap_stats_sessions ? 2 * c->cap_stats_sessions : 8;
        uint32_t *ids = realloc(c->stats_sessions, cap * sizeof *ids);
        if (!ids) return hs_fail(err, HS_ERR_NOMEM, "out of memory for the client's list of live sessions");
        c->stats_sessions = ids, c->cap_stats_sessions = cap;
    }
    c->stats_sessions[c->n_stats_sessions++] = session;
    return HS_OK;
}

static void forget_stats_session(hs_client *c, uint32_t session) {
    ssize_t i = stats_session_at(c, session);
    if (i >= 0) c->stats_sessions[i] = c->stats_sessions[--c->n_stats_sessions];
}

HS_API hs_status hs_client_live_open_opt(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                         const hs_sweep_options *opt, uint32_t *session, hs_error *err) {
    wire_terms w;
    hs_status st = wire_terms_of(c, opt, WIRE_LIVE_OPEN, &w, err);
    if (st == HS_OK) st = check_sizes(c, 0, n_combos, err);
    if (st != HS_OK) return st;
    if (w.protocol == 2)
        st = round_trip_fee(c, HS_OP_LIVE_OPEN_STATS, handle, (uint32_t)n_combos, w.fee, combos,
                            sizeof(hs_windows) * n_combos, NULL, 0, 4, err);
    else
        st = round_trip(c, HS_OP_LIVE_OPEN, handle, (uint32_t)n_combos, combos, sizeof(hs_windows) * n_combos, NULL, 0,
                        4, NULL, err);
    if (st == HS_OK) *session = hs_codec_get_u32(c->buf);
    if (st == HS_OK && w.protocol == 2) st = remember_stats_session(c, *session, err);
    return st;
}

/* The reply is struct-of-arrays [pnl][trades][position][crossed], and for a LIVE_OPEN_STATS session the
 * six statistics' arrays: copied out of the scratch buffer. */
static hs_status live_append(hs_client *c, uint32_t session, const double *bars, size_t k, size_t n_combos, double *pnl,
                             int64_t *trades, int8_t *position, uint8_t *crossed, hs_stats *stats, int with_stats,
                             hs_error *err) {
    hs_status st = check_sizes(c, k, n_combos, err);
    size_t want = (18 + (with_stats ? HS_STATS_REPLY_PER_COMBO - 16 : 0)) * n_combos;
    if (st == HS_OK) st = round_trip(c, HS_OP_LIVE_APPEND, session, (uint32_t)k, bars, 8 * k, NULL, 0, want, NULL, err);
    if (st != HS_OK) return st;
    if (stats) hs_codec_decode_stats_arrays(c->buf + 18 * n_combos, n_combos, stats);
    if (pnl) memcpy(pnl, c->buf, 8 * n_combos);
    if (trades) memcpy(trades, c->buf + 8 * n_combos, 8 * n_combos);
    if (position) memcpy(position, c->buf + 16 * n_combos, n_combos);
    if (crossed) memcpy(crossed, c->buf + 17 * n_combos, n_combos);
    return HS_OK;
}

HS_API hs_status hs_client_live_append_opt(hs_client *c, uint32_t session, const double *bars, size_t k,
                                           size_t n_combos, double *pnl, int64_t *trades, int8_t *position,
                                           uint8_t *crossed, const hs_sweep_options *opt, hs_error *err) {
    wire_terms w;
    hs_status st = wire_terms_of(c, opt, WIRE_LIVE_APPEND, &w, err);
    if (st != HS_OK) return st;
    int with_stats = stats_session_at(c, session) >= 0;
    if (w.known.stats && !with_stats)
        return hs_fail(err, HS_ERR_USAGE, "live session %u was opened without statistics: open it with "
                       "has_fee or stats set in its hs_sweep_options to have them after every append", session);
    return live_append(c, session, bars, k, n_combos, pnl, trades, position, crossed, w.known.stats, with_stats, err);
}

HS_API hs_status hs_client_live_close(hs_client *c, uint32_t session, hs_error *err) {
    forget_stats_session(c, session); /* closed or not, the id is the server's to give again */
    return round_trip(c, HS_OP_LIVE_CLOSE, session, 0, NULL, 0, NULL, 0, 0, NULL, err);
}

HS_API hs_status hs_client_auth(hs_client *c, const void *token, size_t len, hs_error *err) {
    return round_trip(c, HS_OP_AUTH, 0, 0, token, len, NULL, 0, 0, NULL, err);
}

HS_API hs_status hs_client_hello(hs_client *c, uint32_t *version, char *variants, size_t variants_cap,
                                 uint32_t *max_frame_bytes, uint64_t *max_work, hs_error *err) {
    hs_status st = round_trip(c, HS_OP_HELLO, HS_PROTOCOL_VERSION, 0, NULL, 0, NULL, 0, ANY_SMALL_REPLY, NULL, err);
    if (st != HS_OK) return st;
    hs_hello hello;
    hs_error why;
    if (hs_codec_parse_hello(c->buf, c->reply_len, &hello, &why) != HS_WIRE_OK) return protocol_error(c, err, why.msg);
    if (version) *version = hello.version;
    if (max_frame_bytes) *max_frame_bytes = hello.max_frame_bytes;
    if (max_work) *max_work = hello.max_work;
    if (variants && variants_cap) snprintf(variants, variants_cap, "%s", hello.variants);
    return HS_OK;
}

/* ---- the 1.x calls, thin wrappers of the *_opt calls (include/hmasweep_client.h, deprecated in 1.4) ---- */

HS_API hs_status hs_client_sweep(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                 size_t n_combos, hs_result *out, hs_error *err) {
    return hs_client_sweep_opt(c, close, n_bars, combos, n_combos, out, NULL, err);
}

HS_API hs_status hs_client_sweep_handle(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                        hs_result *out, hs_error *err) {
    return hs_client_sweep_handle_opt(c, handle, combos, n_combos, out, NULL, err);
}

/* The fee (and, for the equity calls, the periods) of a 1.x *_stats / *_equity call as options. */
static hs_sweep_options fee_options(double fee, hs_stats *stats) {
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.has_fee = 1, o.fee = fee, o.stats = stats;
    return o;
}

HS_API hs_status hs_client_sweep_stats(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                       size_t n_combos, double fee, hs_result *out, hs_stats *stats, hs_error *err) {
    hs_sweep_options o = fee_options(fee, stats);
    return hs_client_sweep_opt(c, close, n_bars, combos, n_combos, out, &o, err);
}

HS_API hs_status hs_client_sweep_handle_stats(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                              double fee, hs_result *out, hs_stats *stats, hs_error *err) {
    hs_sweep_options o = fee_options(fee, stats);
    return hs_client_sweep_handle_opt(c, handle, combos, n_combos, out, &o, err);
}

static hs_sweep_options equity_options(double fee, size_t n_periods, hs_stats *stats, double *mtm_max_drawdown,
                                       double *equity) {
    hs_sweep_options o = fee_options(fee, stats);
    o.n_periods = n_periods, o.mtm_max_drawdown = mtm_max_drawdown, o.equity = equity;
    return o;
}

HS_API hs_status hs_client_sweep_equity(hs_client *c, const double *close, size_t n_bars, const hs_windows *combos,
                                        size_t n_combos, double fee, size_t n_periods, hs_result *out, hs_stats *stats,
                                        double *mtm_max_drawdown, double *equity, hs_error *err) {
    hs_status st = check_sizes(c, n_bars, n_combos, err);
    if (st == HS_OK) st = check_periods(n_periods, err); /* 1.x: n_periods 0 is refused, not a protocol-2 sweep */
    if (st != HS_OK) return st;
    hs_sweep_options o = equity_options(fee, n_periods, stats, mtm_max_drawdown, equity);
    return hs_client_sweep_opt(c, close, n_bars, combos, n_combos, out, &o, err);
}

HS_API hs_status hs_client_sweep_handle_equity(hs_client *c, uint32_t handle, const hs_windows *combos,
                                               size_t n_combos, double fee, size_t n_periods, hs_result *out,
                                               hs_stats *stats, double *mtm_max_drawdown, double *equity,
                                               hs_error *err) {
    hs_status st = check_sizes(c, 0, n_combos, err);
    if (st == HS_OK) st = check_periods(n_periods, err);
    if (st != HS_OK) return st;
    hs_sweep_options o = equity_options(fee, n_periods, stats, mtm_max_drawdown, equity);
    return hs_client_sweep_handle_opt(c, handle, combos, n_combos, out, &o, err);
}

HS_API hs_status hs_client_live_open(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                     uint32_t *session, hs_error *err) {
    return hs_client_live_open_opt(c, handle, combos, n_combos, NULL, session, err);
}

HS_API hs_status hs_client_live_open_stats(hs_client *c, uint32_t handle, const hs_windows *combos, size_t n_combos,
                                           double fee, uint32_t *session, hs_error *err) {
    hs_sweep_options o = fee_options(fee, NULL);
    return hs_client_live_open_opt(c, handle, combos, n_combos, &o, session, err);
}

HS_API hs_status hs_client_live_append(hs_client *c, uint32_t session, const double *bars, size_t k, size_t n_combos,
                                       double *pnl, int64_t *trades, int8_t *position, uint8_t *crossed,
                                       hs_error *err) {
    return hs_client_live_append_opt(c, session, bars, k, n_combos, pnl, trades, position, crossed, NULL, err);
}

HS_API hs_status hs_client_live_append_stats(hs_client *c, uint32_t session, const double *bars, size_t k,
                                             size_t n_combos, double *pnl, int64_t *trades, int8_t *position,
                                             uint8_t *crossed, hs_stats *stats, hs_error *err) {
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
    o.stats = stats;
    return hs_client_live_append_opt(c, session, bars, k, n_combos, pnl, trades, position, crossed, &o, err);
}
