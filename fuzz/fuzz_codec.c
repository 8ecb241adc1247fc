/* libFuzzer target for the frame codec (src/engine/codec.c): any bytes as a request body must parse to a
 * request whose fields and arrays stay inside the body, or to an error with a message — never a crash,
 * an out-of-bounds read or UB.  The same bytes are also fed to the reply-side parsers (error, HELLO) and
 * round-tripped through the encoders.
 *
 * Build (clang): clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Ikernels -Iengine \
 *                      fuzz/fuzz_codec.c src/engine/codec.c src/spec/error.c -o fuzz_codec
 * Run:           ./fuzz_codec -max_len=4096 -runs=10000000 fuzz/corpus/fuzz_codec
 * (or fuzz/run.sh).  Seed corpus fuzz/corpus/fuzz_codec: a merged corpus of the 12,000,000-run campaign
 * (reports/engine.md) plus regression-auth-short-body, the input that found AUTH reading a header field
 * its 1-byte body does not have. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"

static void check_request(const hs_request *r, const unsigned char *body, size_t len) {
    const unsigned char *end = body + len;
    /* Touch the first and last byte of every array the parse points at: ASan catches an escape. */
    volatile unsigned char sink = 0;
    if (r->close) {
        size_t n = r->op == HS_OP_LIVE_APPEND ? r->k : r->n_bars;
        const unsigned char *a = (const unsigned char *)r->close, *z = a + 8 * n;
        if (a < body || z > end) abort();
        sink ^= a[0] ^ z[-1];
    }
    if (r->windows && r->n_combos) {
        const unsigned char *a = (const unsigned char *)r->windows, *z = a + 48ull * r->n_combos;
        if (a < body || z > end) abort();
        sink ^= a[0] ^ z[-1];
        if (r->op == HS_OP_SWEEP)
            for (uint32_t c = 0; c < r->n_combos; c++)
                for (int k = 0; k < 6; k++)
                    if (r->windows[c].w[k] < 1 || (uint64_t)r->windows[c].w[k] > r->n_bars) abort();
    }
    if (r->token && (r->token < body || r->token + r->token_len > end)) abort();
    (void)sink;
}

/* The server's other replies, from the input's bytes (the coverage report found no input reaching them):
 * a HELLO with these limits and this variant list parses back to the same fields, and a SWEEP reply puts
 * each result's pnl and trades where docs/protocol.md says; the opcode names are always printable. */
static void check_reply_encoders(const uint8_t *data, size_t size, const char *names) {
    uint8_t raw[24] = {0};
    memcpy(raw, data, size < sizeof raw ? size : sizeof raw);
    hs_codec_limits lim = {hs_codec_get_u32(raw), hs_codec_get_u64(raw + 4)};
    uint64_t loaded = hs_codec_get_u64(raw + 12);
    unsigned char out[128];
    size_t len = hs_codec_encode_hello(HS_PROTOCOL_VERSION, &lim, loaded, names, out, sizeof out);
    hs_hello h;
    hs_error err;
    int is_error;
    uint32_t body_len;
    hs_codec_parse_reply_prefix(hs_codec_get_u32(out), &is_error, &body_len);
    if (len == 0 || is_error || body_len + 4 != len || hs_codec_parse_hello(out + 4, body_len, &h, &err) != HS_WIRE_OK ||
        h.version != HS_PROTOCOL_VERSION || h.max_frame_bytes != lim.max_frame_bytes || h.max_work != lim.max_work ||
        h.max_loaded_per_client != loaded || strcmp(h.variants, names) != 0)
        abort();

    hs_result res[4];
    size_t n = size % 5;
    for (size_t c = 0; c < n; c++) res[c] = (hs_result){(double)raw[c] - 100.5, (int64_t)raw[c + 4] - 1};
    unsigned char reply[4 + 16 * 4];
    hs_codec_encode_sweep_reply(res, n, reply);
    if (hs_codec_sweep_reply_bytes(n) != 4 + 16 * n || hs_codec_get_u32(reply) != 16 * n) abort();
    for (size_t c = 0; c < n; c++) {
        uint64_t pnl_bits;
        memcpy(&pnl_bits, &res[c].pnl, 8);
        if (hs_codec_get_u64(reply + 4 + 8 * c) != pnl_bits ||
            hs_codec_get_u64(reply + 4 + 8 * n + 8 * c) != (uint64_t)res[c].trades)
            abort();
    }
    if (!hs_codec_op_name(size ? data[0] : 0)[0]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hs_codec_limits lim = {1u << 16, 1ull << 24};
    hs_error err = {{0}}; /* zeroed before each parse: a refusal must write its own message, not find an old one */
    /* The body where a reader puts it: the arrays 8-byte aligned. */
    size_t pad = size ? hs_codec_body_pad(data[0]) : 0;
    unsigned char *buf = malloc(pad + size + 1);
    if (!buf) return 0;
    memcpy(buf + pad, data, size);
    hs_request r;
    hs_wire_code code = hs_codec_parse_request(buf + pad, size, &lim, &r, &err);
    if (code == HS_WIRE_OK) {
        check_request(&r, buf + pad, size);
    } else if (!memchr(err.msg, 0, sizeof err.msg) || err.msg[0] == 0) {
        abort(); /* every refusal names its problem */
    }
    if (size >= 4) {
        err = (hs_error){{0}};
        if (hs_codec_check_prefix(hs_codec_get_u32(data), &lim, &err) != HS_WIRE_OK &&
            (!memchr(err.msg, 0, sizeof err.msg) || err.msg[0] == 0))
            abort(); /* a refused length prefix names its problem too */
    }

    /* Reply side: the same bytes as an error reply and a HELLO reply. */
    char msg[64];
    hs_codec_parse_error(data, size, msg, sizeof msg);
    hs_hello h;
    err = (hs_error){{0}};
    if (hs_codec_parse_hello(data, size, &h, &err) != HS_WIRE_OK && (!memchr(err.msg, 0, sizeof err.msg) || err.msg[0] == 0))
        abort(); /* so does a refused HELLO reply */

    /* Encoders round-trip: an error reply of these bytes as text comes back as the same code. */
    unsigned char out[128];
    char text[48];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = 0;
    size_t len = hs_codec_encode_error(HS_WIRE_BAD_REQUEST, text, out, sizeof out);
    int is_error;
    uint32_t body_len;
    hs_codec_parse_reply_prefix(hs_codec_get_u32(out), &is_error, &body_len);
    if (!is_error || body_len + 4 != len || hs_codec_parse_error(out + 4, body_len, msg, sizeof msg) != HS_WIRE_BAD_REQUEST ||
        strcmp(msg, text) != 0)
        abort();
    check_reply_encoders(data, size, text);
    free(buf);
    return 0;
}
