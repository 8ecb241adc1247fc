/* libFuzzer target for a whole server session (cli/server/session.c): the input is everything one client
 * sends on one connection — any sequence of frames, whole, cut, lying or garbage — served by the real
 * session loop (hs_engine_serve_admitted) over an in-memory stream.  What must hold, per session:
 *   - no crash, hang, leak or sanitizer report (LOAD, SWEEP_HANDLE, FREE, live sessions, AUTH, admission,
 *     limits, the deadline hook, in any order and any state);
 *   - the bytes written back are whole reply frames, one after another: every length prefix fits in what
 *     was written, an error reply has its code and a NUL-free message, and no reply follows one that
 *     closed the connection for a lost frame boundary;
 *   - at the end the engine's loaded-bytes total is back to zero: every LOAD and live session charged is
 *     uncharged, whatever the session did.
 * Byte 0 chooses the connection's flags (AUTH needed, admission on, admission refused); the rest is the
 * client's byte stream, delivered in reads of sizes taken from byte 1 so frames split anywhere.
 * Limits are small (64 KiB frames, 2^22 work, 1 MiB loaded) so each session is quick.
 *
 * Seeds (fuzz/corpus/fuzz_session): HELLO; LOAD then SWEEP_HANDLE, FREE; LIVE_OPEN, APPENDs, CLOSE;
 * AUTH then SWEEP; a cut frame; an oversized prefix; HELLO(3) then SWEEP_EQUITY, LOAD, SWEEP_HANDLE_EQUITY and a
 * SWEEP_EQUITY with n_periods 0 (hello3_equity).
 * hs:fuzz-links hmasweep_engine
 * hs:fuzz-max-len 16384 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

typedef struct {
    const uint8_t *in;
    size_t len, pos, step;
    unsigned char *out;
    size_t out_len, out_cap;
} mem_stream;

static ssize_t mem_read(void *ctx, void *buf, size_t n, int timeout_ms) {
    mem_stream *m = ctx;
    (void)timeout_ms;
    if (m->pos == m->len) return 0; /* the client closed */
    size_t k = m->len - m->pos;
    if (k > n) k = n;
    if (k > m->step) k = m->step;
    memcpy(buf, m->in + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

static ssize_t mem_writev(void *ctx, const struct iovec *iov, int iovcnt, int timeout_ms) {
    mem_stream *m = ctx;
    (void)timeout_ms;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        size_t n = iov[i].iov_len;
        if (m->out_len + n > m->out_cap) {
            size_t cap = (m->out_len + n) * 2;
            unsigned char *b = realloc(m->out, cap);
            if (!b) return HS_STREAM_ERROR;
            m->out = b, m->out_cap = cap;
        }
        memcpy(m->out + m->out_len, iov[i].iov_base, n);
        m->out_len += n, total += n;
    }
    return (ssize_t)total;
}

static void mem_close(void *ctx) { (void)ctx; }

static int refuse_all(void *ctx) {
    (void)ctx;
    return 0;
}

static int admit_all(void *ctx) {
    (void)ctx;
    return 1;
}

static hs_engine *engine(void) {
    static hs_engine *e;
    if (e) return e;
    static const unsigned char token[] = "fuzz-session-token-0123";
    hs_engine_config c;
    hs_engine_config_defaults(&c);
    c.lim.max_frame_bytes = 64u << 10;
    c.lim.max_work = 1ull << 22;
    c.max_loaded_per_client = 1u << 20;
    c.max_loaded_total = 1u << 20;
    c.max_handles_per_client = 16;
    c.workers = 1;
    c.sweep.threads = 1;
    c.frame_deadline_ms = 2000;
    c.idle_timeout_ms = 2000;
    c.token = token, c.token_len = sizeof token - 1;
    hs_error err;
    if (hs_engine_create(&c, &e, &err) != HS_OK) abort();
    return e;
}

/* The reply stream: whole frames, error replies well formed, nothing after a lost boundary. */
static void check_replies(const unsigned char *out, size_t n, const hs_session_stats *st) {
    size_t off = 0;
    long frames = 0;
    while (off < n) {
        if (n - off < 4) abort();
        uint32_t prefix = hs_codec_get_u32(out + off);
        size_t body = prefix & ~HS_WIRE_ERROR_BIT;
        if (body > n - off - 4) abort();
        if (prefix & HS_WIRE_ERROR_BIT) {
            if (body < 4) abort();
            uint32_t code = hs_codec_get_u32(out + off + 4);
            if (code == 0) abort();
            if (memchr(out + off + 8, 0, body - 4)) abort();
        }
        off += 4 + body, frames++;
    }
    /* one reply per frame served, plus one for a lost boundary; a refused AUTH/admission closes too */
    if (frames > st->frames + st->lost_boundary + 1) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    hs_engine *e = engine();
    mem_stream m = {data + 2, size - 2, 0, (size_t)data[1] % 64 + 1, NULL, 0, 0};
    hs_stream s = {&m, mem_read, mem_writev, NULL, mem_close, "fuzz", "fuzz", NULL, NULL, "", -1};
    int need_auth = data[0] & 1, admission = data[0] & 2, refused = data[0] & 4;
    hs_admission adm = {1000, refused ? refuse_all : admit_all, NULL};
    hs_session_stats st;
    hs_engine_serve_admitted(e, &s, need_auth, admission ? &adm : NULL, &st);
    check_replies(m.out, m.out_len, &st);
    if (hs_engine_loaded_total(e) != 0) abort(); /* a charge was left behind */
    free(m.out);
    return 0;
}
