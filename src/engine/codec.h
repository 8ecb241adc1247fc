/* The frame codec of the wire protocol, versions 1 to HS_PROTOCOL_VERSION (docs/protocol.md; docs/spec.md
 * §6 plus extensions), on memory buffers only: no stdio, no sockets.  `hmasweep wire`, `hmasweep serve`,
 * the C client and fuzz/fuzz_codec.c all use this one parser, so a frame means the same thing everywhere.
 *
 * Requests are parsed in place: the arrays of a parsed request point into the body buffer.  A body whose
 * arrays are not 8-byte aligned is refused (an internal error of the caller, not the client's), so the
 * reader places the body at hs_codec_body_pad(opcode) bytes past an aligned address; see
 * hs_codec_array_offset.  Little-endian hosts only: f64/i64 arrays are used as they arrive. */
#ifndef HS_ENGINE_CODEC_H
#define HS_ENGINE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the wire protocol's arrays are used in place: little-endian hosts only"
#endif

/* The newest protocol this code speaks.  Version 2 adds the fee and the statistics of docs/spec.md §8
 * (ops 10-12), version 3 the equity at period ends of §9 (ops 13-14); a HELLO that asks for an older
 * version is answered exactly as before (docs/protocol.md). */
#define HS_PROTOCOL_VERSION 3u
#define HS_PROTOCOL_STATS_VERSION 2u
#define HS_PROTOCOL_EQUITY_VERSION 3u

enum hs_opcode {
    HS_OP_SWEEP = 0,
    HS_OP_ECHO = 1,
    HS_OP_HELLO = 2,
    HS_OP_LOAD = 3,
    HS_OP_SWEEP_HANDLE = 4,
    HS_OP_FREE = 5,
    HS_OP_LIVE_OPEN = 6,
    HS_OP_LIVE_APPEND = 7,
    HS_OP_LIVE_CLOSE = 8,
    HS_OP_AUTH = 9,
    HS_OP_SWEEP_STATS = 10,        /* protocol 2: SWEEP with a fee, replying with the six statistics   */
    HS_OP_SWEEP_HANDLE_STATS = 11, /* protocol 2: SWEEP_HANDLE with a fee, the same reply               */
    HS_OP_LIVE_OPEN_STATS = 12,    /* protocol 2: LIVE_OPEN with a fee; its appends carry the statistics */
    HS_OP_SWEEP_EQUITY = 13,        /* protocol 3: SWEEP_STATS with P periods, replying with E and mtm too */
    HS_OP_SWEEP_HANDLE_EQUITY = 14, /* protocol 3: SWEEP_HANDLE_STATS with P periods, the same reply     */
    HS_OP_COUNT = 15
};

/* Error reply codes (docs/protocol.md "Error replies").  0 means no error. */
typedef enum {
    HS_WIRE_OK = 0,
    HS_WIRE_BAD_DATA = 1,
    HS_WIRE_BAD_REQUEST = 2,
    HS_WIRE_NOMEM = 3,
    HS_WIRE_LIMIT = 16,
    HS_WIRE_UNKNOWN_HANDLE = 17,
    HS_WIRE_AUTH = 18
} hs_wire_code;

#define HS_WIRE_ERROR_BIT 0x80000000u
#define HS_FRAME_PREFIX_BYTES 4u
/* The largest frame any side may accept: bit 31 of a length prefix marks an error reply. */
#define HS_MAX_FRAME_BYTES_CAP 0x7fffffffu

/* The limits a parse enforces (the server's flags; HELLO reports them). */
typedef struct {
    uint32_t max_frame_bytes; /* body bytes of one request */
    uint64_t max_work;        /* n_bars × Σ(hs_codec_combo_work) of one sweep request */
} hs_codec_limits;

/* A parsed request.  Only the fields of its opcode are set; arrays point into the body. */
typedef struct {
    unsigned op;
    uint32_t n_bars;            /* SWEEP, ECHO, LOAD */
    uint32_t n_combos;          /* SWEEP, ECHO, SWEEP_HANDLE, LIVE_OPEN */
    uint32_t handle;            /* SWEEP_HANDLE, FREE, LIVE_OPEN; the session for LIVE_APPEND/LIVE_CLOSE */
    uint32_t k;                 /* LIVE_APPEND: bars appended */
    uint32_t client_version;    /* HELLO */
    const double *close;        /* SWEEP, ECHO, LOAD (n_bars), LIVE_APPEND (k) */
    const hs_windows *windows;  /* SWEEP, ECHO, SWEEP_HANDLE, LIVE_OPEN (n_combos) */
    const unsigned char *token; /* AUTH */
    size_t token_len;
    double fee;                 /* the *_STATS and *_EQUITY ops: checked by the parse (hs_check_fee) */
    uint32_t n_periods;         /* the *_EQUITY ops (protocol 3): P >= 1 (P <= n_bars: the sweep checks it) */
} hs_request;

/* Is this one of protocol 3's equity ops (13-14)? */
static inline int hs_codec_is_equity_op(unsigned op) {
    return op == HS_OP_SWEEP_EQUITY || op == HS_OP_SWEEP_HANDLE_EQUITY;
}
/* Does this op carry the fee and reply with the statistics: protocol 2's ops (10-12) and protocol 3's? */
static inline int hs_codec_is_stats_op(unsigned op) {
    return op == HS_OP_SWEEP_STATS || op == HS_OP_SWEEP_HANDLE_STATS || op == HS_OP_LIVE_OPEN_STATS ||
           hs_codec_is_equity_op(op);
}
/* The protocol version that introduced this op: a connection whose HELLO asked for less is refused it. */
static inline uint32_t hs_codec_op_version(unsigned op) {
    return hs_codec_is_equity_op(op) ? HS_PROTOCOL_EQUITY_VERSION : hs_codec_is_stats_op(op) ? HS_PROTOCOL_STATS_VERSION : 1u;
}

/* The 48-byte window record on the wire is hs_windows itself. */
_Static_assert(sizeof(hs_windows) == 48, "a combo's six windows are 6 × i64 = 48 bytes on the wire");
_Static_assert(sizeof(double) == 8 && sizeof(int64_t) == 8, "f64 and i64 are 8 bytes");

/* Where the first array starts inside a request body of this opcode (0: the opcode has none), and how
 * many bytes a reader puts before the body so that this array lands 8-byte aligned. */
size_t hs_codec_array_offset(unsigned op);
size_t hs_codec_body_pad(unsigned op);

/* A request's length prefix: HS_WIRE_OK, or HS_WIRE_LIMIT when it exceeds max_frame_bytes (the frame
 * boundary is then lost: reply and close), or HS_WIRE_BAD_REQUEST for an empty body. */
hs_wire_code hs_codec_check_prefix(uint32_t body_len, const hs_codec_limits *lim, hs_error *err);

/* Parse one request body (without its length prefix).  Structure, lengths, opcode, windows against
 * n_bars and the work limit of a SWEEP are checked here; prices are checked by whoever uses them
 * (hs_sweep, LOAD via hs_check_series), so no array is walked twice. */
hs_wire_code hs_codec_parse_request(const unsigned char *body, size_t body_len, const hs_codec_limits *lim,
                                    hs_request *req, hs_error *err);

/* The first part of hs_codec_parse_request, for a reader that has only the start of a body (`have` >=
 * hs_codec_header_bytes(op) of body_len bytes): the opcode and its header fields, checked against
 * body_len and the limits exactly as the full parse checks them.  No array is pointed at or checked.
 * The server uses it to start an ECHO reply before the body has arrived (cli/server/session.c). */
size_t hs_codec_header_bytes(unsigned op);
hs_wire_code hs_codec_parse_header(const unsigned char *body, size_t have, size_t body_len, const hs_codec_limits *lim,
                                   hs_request *req, hs_error *err);

/* The work of one combo over one bar, in the unit of --max-work: its windows' sum (what the reference
 * kernel's WMAs cost per bar) plus HS_WORK_PER_COMBO_BAR for the bar-combo itself, whatever its windows.
 * Issue 20 §2: n_bars × Σwindows alone let 100,000 bars × 2,500 combos of windows 1 through (1.5·10^9)
 * and that sweep held a worker 49 s, ~196 ns per bar-combo on the recompute path, against ~1 ns per
 * window-bar of the reference kernel: so a bar-combo counts 256 window-bars. */
#define HS_WORK_PER_COMBO_BAR 256u
static inline uint64_t hs_codec_combo_work(const hs_windows *w) {
    uint64_t sum = HS_WORK_PER_COMBO_BAR;
    for (int k = 0; k < 6; k++) sum += (uint64_t)w->w[k];
    return sum;
}

/* Windows from 1 to n_bars, and n_bars × Σ(combo work) ≤ max_work (for SWEEP_HANDLE / LIVE_OPEN, whose
 * n_bars is the loaded series'). */
hs_wire_code hs_codec_check_windows(const hs_windows *w, size_t n_combos, size_t n_bars, uint64_t max_work,
                                    hs_error *err);

/* ---- encoding ---------------------------------------------------------------------------------- */
void hs_codec_put_u32(unsigned char *p, uint32_t v);
void hs_codec_put_u64(unsigned char *p, uint64_t v);
uint32_t hs_codec_get_u32(const unsigned char *p);
uint64_t hs_codec_get_u64(const unsigned char *p);

/* A sweep reply: prefix + [n × f64 pnl][n × i64 trades] into out (4 + 16 n bytes). */
void hs_codec_encode_sweep_reply(const hs_result *res, size_t n, unsigned char *out);
size_t hs_codec_sweep_reply_bytes(size_t n);
/* A statistics reply (ops 10 and 11): prefix + struct-of-arrays [pnl][trades] then one array per field of
 * HS_STATS_FIELDS in its order ([wins][gross_profit][gross_loss][sum_sq][max_drawdown][bars_held]), n of
 * each, 8 bytes each (4 + 64 n bytes).  Protocol 2 fixes these bytes: a field added to the list changes
 * them, so it fails the assertion below until it comes with a new protocol version and op. */
#define HS_STATS_REPLY_PER_COMBO 64u
#define HS_STATS_WIRE_FIELD_(name, kind, doc) +8u
_Static_assert(16u HS_STATS_FIELDS(HS_STATS_WIRE_FIELD_) == HS_STATS_REPLY_PER_COMBO,
               "ops 10-12 carry pnl, trades and the six statistics of protocol 2: 64 bytes per combo");
_Static_assert(sizeof(hs_stats) == 48, "hs_stats is the six 8-byte statistics, no padding (the API 1.2 ABI)");
size_t hs_codec_stats_reply_bytes(size_t n);
void hs_codec_encode_stats_reply(const hs_result *res, const hs_stats *stats, size_t n, unsigned char *out);
/* An equity reply (ops 13 and 14, protocol 3): the statistics reply's arrays, then [n x f64
 * mtm_max_drawdown][P x n x f64 E], E row-major (period k's n values at k n): 4 + (72 + 8 P) n bytes.
 * 0 when that does not fit one frame (HS_MAX_FRAME_BYTES_CAP). */
uint64_t hs_codec_equity_reply_bytes(size_t n, size_t n_periods);
void hs_codec_encode_equity_reply(const hs_result *res, const hs_stats *stats, const double *mtm_max_drawdown,
                                  const double *equity, size_t n, size_t n_periods, unsigned char *out);
/* The six statistics' arrays alone (48 n bytes, from [wins] on), for a live append's reply tail. */
void hs_codec_encode_stats_arrays(const hs_stats *stats, size_t n, unsigned char *out);
void hs_codec_decode_stats_arrays(const unsigned char *body, size_t n, hs_stats *out);
/* An error reply: prefix with bit 31 + [u32 code][message] into out (cap bytes); returns its length. */
size_t hs_codec_encode_error(hs_wire_code code, const char *msg, unsigned char *out, size_t cap);
/* HELLO reply (prefix included) into out (cap bytes); returns its length, 0 when cap is too small.
 * `version` is the protocol the reply announces: hs_codec_hello_version of the client's. */
size_t hs_codec_encode_hello(uint32_t version, const hs_codec_limits *lim, uint64_t max_loaded_per_client,
                             const char *variants, unsigned char *out, size_t cap);
/* The version a HELLO reply announces to a client that asked for `client_version`: the client's own, up
 * to HS_PROTOCOL_VERSION (at least 1), so that a v1 or v2 client's HELLO reply stays byte for byte what
 * it was. */
static inline uint32_t hs_codec_hello_version(uint32_t client_version) {
    return client_version >= HS_PROTOCOL_VERSION ? HS_PROTOCOL_VERSION : client_version >= 1u ? client_version : 1u;
}

/* The fixed part of a request (prefix, opcode and header fields; the arrays follow in their own iovecs).
 * Returns its length (at most HS_REQUEST_HEADER_MAX), 0 when the sizes cannot fit one frame. */
#define HS_REQUEST_HEADER_MAX 32u
size_t hs_codec_request_header(unsigned op, uint32_t a, uint32_t b, size_t array_bytes, unsigned char *out);
/* The same for the *_STATS ops, whose header carries the f64 fee after a and b. */
size_t hs_codec_request_header_fee(unsigned op, uint32_t a, uint32_t b, double fee, size_t array_bytes,
                                   unsigned char *out);
/* The same for the *_EQUITY ops, whose header carries the u32 n_periods after the fee. */
size_t hs_codec_request_header_equity(unsigned op, uint32_t a, uint32_t b, double fee, uint32_t n_periods,
                                      size_t array_bytes, unsigned char *out);

/* A reply prefix: *is_error and *body_len. */
void hs_codec_parse_reply_prefix(uint32_t prefix, int *is_error, uint32_t *body_len);
/* An error reply body: its code, and the message copied NUL-terminated into msg. */
hs_wire_code hs_codec_parse_error(const unsigned char *body, size_t len, char *msg, size_t msg_cap);
/* A HELLO reply body. */
typedef struct {
    uint32_t version, max_frame_bytes;
    uint64_t max_work, max_loaded_per_client;
    char variants[256];
} hs_hello;
hs_wire_code hs_codec_parse_hello(const unsigned char *body, size_t len, hs_hello *out, hs_error *err);

/* The name of an opcode, for messages ("SWEEP", …; "unknown"). */
const char *hs_codec_op_name(unsigned op);

#endif
