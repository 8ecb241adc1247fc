/* `hmasweep wire`: the study's wire protocol (SPEC §6) over stdin/stdout, one frame after another until
 * EOF — the "spawn the binary per sweep, request on stdin" architecture, and a harness for anything that
 * speaks the protocol.  Every frame is validated before anything is allocated for it. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

enum { OP_SWEEP = 0, OP_ECHO = 1, HEADER_BYTES = 9 };
#define WIRE_MAX_BARS (1u << 28)
#define WIRE_MAX_COMBOS (1u << 20)

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}

/* Little-endian hosts only (x86-64, aarch64): f64/i64 payloads are copied as bytes. */
static int read_exact(FILE *in, void *buf, size_t n) { return fread(buf, 1, n, in) == n; }

static int frame_error(hs_error *err, long frame, const char *what) {
    snprintf(err->msg, sizeof err->msg, "wire frame %ld: %.280s", frame, what);
    return 1;
}

/* One frame: 0 done, -1 clean EOF before a frame, 1 error (err says why). */
static int serve_frame(FILE *in, FILE *out, long frame, const hs_sweep_options *opt, hs_error *err) {
    unsigned char len_bytes[4], header[HEADER_BYTES];
    size_t got = fread(len_bytes, 1, 4, in);
    if (got == 0 && feof(in)) return -1;
    if (got != 4) return frame_error(err, frame, "truncated length prefix");
    uint32_t body_len = le32(len_bytes);
    if (body_len < HEADER_BYTES) return frame_error(err, frame, "body shorter than the 9-byte request header");
    if (!read_exact(in, header, HEADER_BYTES)) return frame_error(err, frame, "truncated request header");
    unsigned op = header[0];
    uint32_t n_bars = le32(header + 1), n_combos = le32(header + 5);
    char msg[200];
    if (op != OP_SWEEP && op != OP_ECHO) {
        snprintf(msg, sizeof msg, "unknown opcode %u (0 = sweep, 1 = echo)", op);
        return frame_error(err, frame, msg);
    }
    if (n_bars == 0 || n_bars > WIRE_MAX_BARS || n_combos > WIRE_MAX_COMBOS) {
        snprintf(msg, sizeof msg, "n_bars = %u, n_combos = %u out of range (1..%u bars, 0..%u combos)", n_bars,
                 n_combos, WIRE_MAX_BARS, WIRE_MAX_COMBOS);
        return frame_error(err, frame, msg);
    }
    uint64_t want = HEADER_BYTES + 8ull * n_bars + 48ull * n_combos;
    if (want != body_len) {
        snprintf(msg, sizeof msg, "body_len %u does not match n_bars = %u and n_combos = %u (expected %llu)", body_len,
                 n_bars, n_combos, (unsigned long long)want);
        return frame_error(err, frame, msg);
    }
    double *close = malloc((size_t)n_bars * sizeof *close);
    hs_windows *win = malloc((n_combos ? n_combos : 1) * sizeof *win);
    hs_result *res = malloc((n_combos ? n_combos : 1) * sizeof *res);
    int rc = 0;
    if (!close || !win || !res) {
        rc = frame_error(err, frame, "out of memory");
    } else if (!read_exact(in, close, (size_t)n_bars * 8) || !read_exact(in, win, (size_t)n_combos * 48)) {
        rc = frame_error(err, frame, "truncated body");
    } else if (op == OP_ECHO) {
        put_le32(len_bytes, n_bars * 8u);
        fwrite(len_bytes, 1, 4, out);
        fwrite(close, 8, n_bars, out);
    } else {
        hs_error e;
        if (hs_sweep(close, n_bars, win, n_combos, res, opt, &e) != HS_OK) {
            rc = frame_error(err, frame, e.msg);
        } else {
            put_le32(len_bytes, n_combos * 16u);
            fwrite(len_bytes, 1, 4, out);
            for (uint32_t c = 0; c < n_combos; c++) fwrite(&res[c].pnl, 8, 1, out);
            for (uint32_t c = 0; c < n_combos; c++) fwrite(&res[c].trades, 8, 1, out);
        }
    }
    fflush(out);
    free(close);
    free(win);
    free(res);
    return rc;
}

int hs_wire_serve(FILE *in, FILE *out, const hs_sweep_options *opt, hs_error *err) {
    for (long frame = 0;; frame++) {
        int rc = serve_frame(in, out, frame, opt, err);
        if (rc < 0) return frame == 0 ? frame_error(err, 0, "no frame on input (empty stream)") : 0;
        if (rc) return rc;
    }
}
