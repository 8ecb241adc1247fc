/* The frame codec (codec.h): the wire protocol, versions 1 to 3, on memory buffers. */
#include "codec.h"

#include <stdio.h>
#include <string.h>

#include "error.h"

/* hs_fail carries the message; the wire code says which error reply it becomes. */
#define CODEC_FAIL(err, code, ...) (hs_fail((err), HS_ERR_USAGE, __VA_ARGS__), (code))

/* The 4-byte header fields after the opcode, per opcode (docs/protocol.md's request table); the *_STATS
 * ops' f64 fee counts as two, and the *_EQUITY ops add n_periods after it. */
static const unsigned char header_fields[HS_OP_COUNT] = {2, 2, 1, 1, 2, 1, 2, 2, 1, 0, 4, 4, 4, 5, 5};
static const char *const op_names[HS_OP_COUNT] = {"SWEEP",      "ECHO",        "HELLO",        "LOAD",
                                                  "SWEEP_HANDLE", "FREE",      "LIVE_OPEN",    "LIVE_APPEND",
                                                  "LIVE_CLOSE", "AUTH",        "SWEEP_STATS", "SWEEP_HANDLE_STATS",
                                                  "LIVE_OPEN_STATS", "SWEEP_EQUITY", "SWEEP_HANDLE_EQUITY"};
/* Largest n_bars a request may name: keeps every byte count in 64 bits with room to spare. */
#define CODEC_MAX_BARS (1u << 28)

const char *hs_codec_op_name(unsigned op) { return op < HS_OP_COUNT ? op_names[op] : "unknown"; }

uint32_t hs_codec_get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
uint64_t hs_codec_get_u64(const unsigned char *p) {
    return (uint64_t)hs_codec_get_u32(p) | (uint64_t)hs_codec_get_u32(p + 4) << 32;
}
void hs_codec_put_u32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
void hs_codec_put_u64(unsigned char *p, uint64_t v) {
    hs_codec_put_u32(p, (uint32_t)v);
    hs_codec_put_u32(p + 4, (uint32_t)(v >> 32));
}

static int has_array(unsigned op) {
    return op == HS_OP_SWEEP || op == HS_OP_ECHO || op == HS_OP_LOAD || op == HS_OP_SWEEP_HANDLE ||
           op == HS_OP_LIVE_OPEN || op == HS_OP_LIVE_APPEND || hs_codec_is_stats_op(op);
}

size_t hs_codec_array_offset(unsigned op) { return op < HS_OP_COUNT && has_array(op) ? 1u + 4u * header_fields[op] : 0; }

size_t hs_codec_body_pad(unsigned op) { return (8 - hs_codec_array_offset(op) % 8) % 8; }

hs_wire_code hs_codec_check_prefix(uint32_t body_len, const hs_codec_limits *lim, hs_error *err) {
    if (body_len == 0) return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "empty request body (no opcode)");
    if (body_len > lim->max_frame_bytes)
        return CODEC_FAIL(err, HS_WIRE_LIMIT, "request of %u bytes exceeds the frame limit of %u bytes", body_len,
                          lim->max_frame_bytes);
    return HS_WIRE_OK;
}

hs_wire_code hs_codec_check_windows(const hs_windows *w, size_t n_combos, size_t n_bars, uint64_t max_work,
                                    hs_error *err) {
    uint64_t sum = 0; /* ≤ (6 × 2^31 + 256) × 2^31/48 combos: fits */
    for (size_t c = 0; c < n_combos; c++)
        for (int k = 0; k < 6; k++) {
            int64_t v = w[c].w[k];
            if (v < 1 || (uint64_t)v > n_bars)
                return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "combo %zu: w%d = %lld is not a window from 1 to n_bars = %zu",
                                  c, k, (long long)v, n_bars);
            sum += (uint64_t)v;
        }
    sum += (uint64_t)HS_WORK_PER_COMBO_BAR * n_combos; /* hs_codec_combo_work, summed */
    if (n_bars && sum > max_work / n_bars)
        return CODEC_FAIL(err, HS_WIRE_LIMIT,
                          "work n_bars × Σ(windows + %u per combo) = %zu × %llu exceeds the limit of %llu (--max-work)",
                          HS_WORK_PER_COMBO_BAR, n_bars, (unsigned long long)sum, (unsigned long long)max_work);
    return HS_WIRE_OK;
}

/* The body length the header fields imply, or 0 when they are out of range (*why says which). */
static uint64_t implied_length(const hs_request *r, size_t body_len, const char **why) {
    uint64_t base = hs_codec_array_offset(r->op);
    switch (r->op) {
    case HS_OP_SWEEP:
    case HS_OP_ECHO:
    case HS_OP_SWEEP_STATS:
    case HS_OP_SWEEP_EQUITY:
        if (r->n_bars == 0 || r->n_bars > CODEC_MAX_BARS) return *why = "n_bars", 0;
        return base + 8ull * r->n_bars + 48ull * r->n_combos;
    case HS_OP_LOAD:
        if (r->n_bars == 0 || r->n_bars > CODEC_MAX_BARS) return *why = "n_bars", 0;
        return base + 8ull * r->n_bars;
    case HS_OP_SWEEP_HANDLE:
    case HS_OP_LIVE_OPEN:
    case HS_OP_SWEEP_HANDLE_STATS:
    case HS_OP_SWEEP_HANDLE_EQUITY:
    case HS_OP_LIVE_OPEN_STATS: return base + 48ull * r->n_combos;
    case HS_OP_LIVE_APPEND:
        if (r->k == 0) return *why = "k", 0;
        return base + 8ull * r->k;
    case HS_OP_AUTH: return body_len; /* the token is the rest of the body */
    default: return 1u + 4u * header_fields[r->op];
    }
}

static void read_fields(const unsigned char *body, hs_request *r) {
    uint32_t a = header_fields[r->op] > 0 ? hs_codec_get_u32(body + 1) : 0;
    uint32_t b = header_fields[r->op] > 1 ? hs_codec_get_u32(body + 5) : 0;
    if (hs_codec_is_stats_op(r->op)) {
        uint64_t bits = hs_codec_get_u64(body + 9);
        memcpy(&r->fee, &bits, 8);
    }
    if (hs_codec_is_equity_op(r->op)) r->n_periods = hs_codec_get_u32(body + 17);
    switch (r->op) {
    case HS_OP_SWEEP:
    case HS_OP_ECHO:
    case HS_OP_SWEEP_STATS:
    case HS_OP_SWEEP_EQUITY: r->n_bars = a, r->n_combos = b; break;
    case HS_OP_HELLO: r->client_version = a; break;
    case HS_OP_LOAD: r->n_bars = a; break;
    case HS_OP_SWEEP_HANDLE:
    case HS_OP_LIVE_OPEN:
    case HS_OP_SWEEP_HANDLE_STATS:
    case HS_OP_SWEEP_HANDLE_EQUITY:
    case HS_OP_LIVE_OPEN_STATS: r->handle = a, r->n_combos = b; break;
    case HS_OP_LIVE_APPEND: r->handle = a, r->k = b; break;
    default: r->handle = a; break; /* FREE, LIVE_CLOSE */
    }
}

static void point_arrays(const unsigned char *body, size_t body_len, hs_request *r) {
    const unsigned char *a = body + hs_codec_array_offset(r->op);
    switch (r->op) {
    case HS_OP_SWEEP:
    case HS_OP_ECHO:
    case HS_OP_SWEEP_STATS:
    case HS_OP_SWEEP_EQUITY:
        r->close = (const double *)(const void *)a;
        r->windows = (const hs_windows *)(const void *)(a + 8ull * r->n_bars);
        break;
    case HS_OP_LOAD: r->close = (const double *)(const void *)a; break;
    case HS_OP_LIVE_APPEND: r->close = (const double *)(const void *)a; break;
    case HS_OP_SWEEP_HANDLE:
    case HS_OP_LIVE_OPEN:
    case HS_OP_SWEEP_HANDLE_STATS:
    case HS_OP_SWEEP_HANDLE_EQUITY:
    case HS_OP_LIVE_OPEN_STATS: r->windows = (const hs_windows *)(const void *)a; break;
    case HS_OP_AUTH: r->token = body + 1, r->token_len = body_len - 1; break;
    default: break;
    }
}

size_t hs_codec_header_bytes(unsigned op) { return op < HS_OP_COUNT ? 1u + 4u * header_fields[op] : 1u; }

hs_wire_code hs_codec_parse_header(const unsigned char *body, size_t have, size_t body_len, const hs_codec_limits *lim,
                                   hs_request *req, hs_error *err) {
    memset(req, 0, sizeof *req);
    if (body_len == 0) return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "empty request body (no opcode)");
    if (body_len > lim->max_frame_bytes)
        return CODEC_FAIL(err, HS_WIRE_LIMIT, "request of %zu bytes exceeds the frame limit of %u bytes", body_len,
                          lim->max_frame_bytes);
    req->op = body[0];
    if (req->op >= HS_OP_COUNT)
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "unknown opcode %u (docs/protocol.md lists 0 to %d)", req->op,
                          HS_OP_COUNT - 1);
    size_t header = hs_codec_header_bytes(req->op);
    if (body_len < header)
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "%s body of %zu bytes is shorter than its %zu-byte header",
                          op_names[req->op], body_len, header);
    if (have < header) return CODEC_FAIL(err, HS_WIRE_NOMEM, "internal: %zu of the %zu header bytes given", have, header);
    read_fields(body, req);
    if (hs_codec_is_equity_op(req->op) && (req->n_periods == 0 || req->n_periods > CODEC_MAX_BARS))
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "%s: n_periods = %u out of range (1 to n_bars)", op_names[req->op],
                          req->n_periods);
    const char *why = NULL;
    uint64_t want = implied_length(req, body_len, &why);
    if (why)
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "%s: %s = %u out of range", op_names[req->op], why,
                          why[0] == 'k' ? req->k : req->n_bars);
    if (want != body_len)
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST,
                          "%s: body_len %zu does not match its header (n_bars = %u, n_combos = %u, k = %u: expected %llu)",
                          op_names[req->op], body_len, req->n_bars, req->n_combos, req->k, (unsigned long long)want);
    return HS_WIRE_OK;
}

hs_wire_code hs_codec_parse_request(const unsigned char *body, size_t body_len, const hs_codec_limits *lim,
                                    hs_request *req, hs_error *err) {
    hs_wire_code code = hs_codec_parse_header(body, body_len, body_len, lim, req, err);
    if (code) return code;
    size_t off = hs_codec_array_offset(req->op);
    if (off && req->op != HS_OP_AUTH && ((uintptr_t)(body + off) & 7u))
        return CODEC_FAIL(err, HS_WIRE_NOMEM, "internal: request arrays not 8-byte aligned (reader must pad by %zu)",
                          hs_codec_body_pad(req->op));
    point_arrays(body, body_len, req);
    if (hs_codec_is_stats_op(req->op) && hs_check_fee(req->fee, err) != HS_OK) return HS_WIRE_BAD_REQUEST;
    if (req->op == HS_OP_SWEEP || req->op == HS_OP_SWEEP_STATS || req->op == HS_OP_SWEEP_EQUITY)
        return hs_codec_check_windows(req->windows, req->n_combos, req->n_bars, lim->max_work, err);
    return HS_WIRE_OK;
}

/* ---- replies ----------------------------------------------------------------------------------- */
size_t hs_codec_sweep_reply_bytes(size_t n) { return HS_FRAME_PREFIX_BYTES + 16 * n; }

void hs_codec_encode_sweep_reply(const hs_result *res, size_t n, unsigned char *out) {
    hs_codec_put_u32(out, (uint32_t)(16 * n));
    unsigned char *pnl = out + 4, *trades = pnl + 8 * n;
    for (size_t c = 0; c < n; c++) {
        memcpy(pnl + 8 * c, &res[c].pnl, 8);
        memcpy(trades + 8 * c, &res[c].trades, 8);
    }
}

size_t hs_codec_stats_reply_bytes(size_t n) { return HS_FRAME_PREFIX_BYTES + HS_STATS_REPLY_PER_COMBO * n; }

/* One array per statistic, in HS_STATS_FIELDS's order (the wire order of ops 10-12), n values of 8 bytes
 * each: an i64 or an f64 as the host holds it (little-endian, codec.h). */
void hs_codec_encode_stats_arrays(const hs_stats *stats, size_t n, unsigned char *out) {
#define PUT_ARRAY(name, kind, doc)                                               \
    for (size_t c = 0; c < n; c++) memcpy(out + 8 * c, &stats[c].name, 8);     \
    out += 8 * n;
    HS_STATS_FIELDS(PUT_ARRAY)
#undef PUT_ARRAY
}

void hs_codec_decode_stats_arrays(const unsigned char *body, size_t n, hs_stats *out) {
#define GET_ARRAY(name, kind, doc)                                               \
    for (size_t c = 0; c < n; c++) memcpy(&out[c].name, body + 8 * c, 8);      \
    body += 8 * n;
    HS_STATS_FIELDS(GET_ARRAY)
#undef GET_ARRAY
}

/* The sweep reply's two arrays, then the six statistics': one layout, so a v1 decoder of the first 16 n
 * bytes reads the same pnl and trades. */
void hs_codec_encode_stats_reply(const hs_result *res, const hs_stats *stats, size_t n, unsigned char *out) {
    hs_codec_encode_sweep_reply(res, n, out);
    hs_codec_put_u32(out, (uint32_t)(HS_STATS_REPLY_PER_COMBO * n));
    hs_codec_encode_stats_arrays(stats, n, out + 4 + 16 * n);
}

uint64_t hs_codec_equity_reply_bytes(size_t n, size_t n_periods) {
    uint64_t per_combo = HS_STATS_REPLY_PER_COMBO + 8u + 8ull * n_periods; /* n_periods <= 2^28: no overflow */
    if (n_periods > CODEC_MAX_BARS || (n && per_combo > (HS_MAX_FRAME_BYTES_CAP - HS_FRAME_PREFIX_BYTES) / n)) return 0;
    return HS_FRAME_PREFIX_BYTES + per_combo * n;
}

void hs_codec_encode_equity_reply(const hs_result *res, const hs_stats *stats, const double *mtm_max_drawdown,
                                  const double *equity, size_t n, size_t n_periods, unsigned char *out) {
    hs_codec_encode_stats_reply(res, stats, n, out);
    hs_codec_put_u32(out, (uint32_t)(hs_codec_equity_reply_bytes(n, n_periods) - HS_FRAME_PREFIX_BYTES));
    unsigned char *tail = out + 4 + HS_STATS_REPLY_PER_COMBO * n;
    memcpy(tail, mtm_max_drawdown, 8 * n);
    memcpy(tail + 8 * n, equity, 8 * n * n_periods);
}

size_t hs_codec_encode_error(hs_wire_code code, const char *msg, unsigned char *out, size_t cap) {
    if (cap < 8) return 0;
    size_t n = strlen(msg);
    if (n > cap - 8) n = cap - 8;
    hs_codec_put_u32(out, HS_WIRE_ERROR_BIT | (uint32_t)(4 + n));
    hs_codec_put_u32(out + 4, (uint32_t)code);
    memcpy(out + 8, msg, n);
    return 8 + n;
}

size_t hs_codec_encode_hello(uint32_t version, const hs_codec_limits *lim, uint64_t max_loaded_per_client,
                             const char *variants, unsigned char *out, size_t cap) {
    size_t names = strlen(variants), body = 4 + 4 + 8 + 8 + 4 + names;
    if (cap < 4 + body) return 0;
    unsigned char *p = out;
    hs_codec_put_u32(p, (uint32_t)body), p += 4;
    hs_codec_put_u32(p, version), p += 4;
    hs_codec_put_u32(p, lim->max_frame_bytes), p += 4;
    hs_codec_put_u64(p, lim->max_work), p += 8;
    hs_codec_put_u64(p, max_loaded_per_client), p += 8;
    hs_codec_put_u32(p, (uint32_t)names), p += 4;
    memcpy(p, variants, names);
    return 4 + body;
}

size_t hs_codec_request_header(unsigned op, uint32_t a, uint32_t b, size_t array_bytes, unsigned char *out) {
    if (op >= HS_OP_COUNT) return 0;
    size_t header = 1u + 4u * header_fields[op];
    if (array_bytes > HS_MAX_FRAME_BYTES_CAP - header) return 0;
    hs_codec_put_u32(out, (uint32_t)(header + array_bytes));
    out[4] = (unsigned char)op;
    if (header_fields[op] > 0) hs_codec_put_u32(out + 5, a);
    if (header_fields[op] > 1) hs_codec_put_u32(out + 9, b);
    return 4 + header;
}

size_t hs_codec_request_header_fee(unsigned op, uint32_t a, uint32_t b, double fee, size_t array_bytes,
                                   unsigned char *out) {
    if (!hs_codec_is_stats_op(op)) return 0;
    size_t n = hs_codec_request_header(op, a, b, array_bytes, out);
    uint64_t bits;
    memcpy(&bits, &fee, 8);
    if (n) hs_codec_put_u64(out + 13, bits);
    return n;
}

size_t hs_codec_request_header_equity(unsigned op, uint32_t a, uint32_t b, double fee, uint32_t n_periods,
                                      size_t array_bytes, unsigned char *out) {
    if (!hs_codec_is_equity_op(op)) return 0;
    size_t n = hs_codec_request_header_fee(op, a, b, fee, array_bytes, out);
    if (n) hs_codec_put_u32(out + 21, n_periods);
    return n;
}

void hs_codec_parse_reply_prefix(uint32_t prefix, int *is_error, uint32_t *body_len) {
    *is_error = (prefix & HS_WIRE_ERROR_BIT) != 0;
    *body_len = prefix & ~HS_WIRE_ERROR_BIT;
}

hs_wire_code hs_codec_parse_error(const unsigned char *body, size_t len, char *msg, size_t msg_cap) {
    if (msg_cap == 0) return len >= 4 ? (hs_wire_code)hs_codec_get_u32(body) : HS_WIRE_BAD_REQUEST;
    if (len < 4) {
        snprintf(msg, msg_cap, "malformed error reply (%zu bytes)", len);
        return HS_WIRE_BAD_REQUEST;
    }
    size_t n = len - 4 < msg_cap - 1 ? len - 4 : msg_cap - 1;
    memcpy(msg, body + 4, n);
    msg[n] = 0;
    return (hs_wire_code)hs_codec_get_u32(body);
}

hs_wire_code hs_codec_parse_hello(const unsigned char *body, size_t len, hs_hello *out, hs_error *err) {
    memset(out, 0, sizeof *out);
    if (len < 28) return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "HELLO reply of %zu bytes is shorter than 28", len);
    out->version = hs_codec_get_u32(body);
    out->max_frame_bytes = hs_codec_get_u32(body + 4);
    out->max_work = hs_codec_get_u64(body + 8);
    out->max_loaded_per_client = hs_codec_get_u64(body + 16);
    uint32_t names = hs_codec_get_u32(body + 24);
    if (names != len - 28)
        return CODEC_FAIL(err, HS_WIRE_BAD_REQUEST, "HELLO reply: names_len %u does not match %zu bytes", names, len - 28);
    size_t n = names < sizeof out->variants - 1 ? names : sizeof out->variants - 1;
    memcpy(out->variants, body + 28, n);
    out->variants[n] = 0;
    return HS_WIRE_OK;
}
