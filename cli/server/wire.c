/* `hmasweep wire`: the wire protocol (docs/protocol.md; docs/spec.md §6 ops byte for byte) over stdin/stdout,
 * one frame after another until EOF — the "spawn the binary per sweep, request on stdin" architecture.
 * It is the engine's session loop (cli/server/session.c) on the stdio transport, so every frame is parsed by
 * the one codec (src/engine/codec.c): a bad frame gets an error reply and the next frame is served; only a
 * frame whose boundary is lost (truncated, or a length prefix over the limit) ends the stream. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h" /* hs_fail: the library's one failure helper (src/spec) */
#include "server.h"
#include "wire.h"

int hs_wire_serve(const hs_sweep_options *opt, hs_error *err) {
    hs_engine_config cfg;
    hs_engine_config_defaults(&cfg);
    cfg.sweep = *opt;
    /* A local pipe from the process that spawned us: the limits are the protocol's own. */
    cfg.lim.max_frame_bytes = HS_MAX_FRAME_BYTES_CAP;
    /* The work of one frame stays bounded by the engine's default (n_bars × Σ over combos of (windows +
     * 256) <= 2^36, 11x the golden run; docs/protocol.md): issue 10, defect 9, a 320 KB frame had asked
     * for 15-17 s. */
    cfg.max_loaded_per_client = cfg.max_loaded_total = UINT64_MAX;
    cfg.idle_timeout_ms = cfg.frame_deadline_ms = 0x7fffffff;
    cfg.workers = 1;
    cfg.log_errors = 1;
    signal(SIGPIPE, SIG_IGN);
    hs_engine *e;
    if (hs_engine_create(&cfg, &e, err) != HS_OK) return 1;
    hs_stream *s = hs_fd_stream(STDIN_FILENO, STDOUT_FILENO, 0, "stdio", "stdin");
    if (!s) {
        hs_engine_destroy(e);
        hs_fail(err, HS_ERR_NOMEM, "out of memory");
        return 1;
    }
    hs_session_stats st;
    hs_engine_serve_stream(e, s, 0, &st);
    s->close(s->ctx);
    hs_engine_destroy(e);
    if (st.write_error) { /* issue 20 §8: replies lost to a closed or full stdout are an error, named */
        hs_fail(err, HS_ERR_IO, "wire: writing a reply to stdout failed: %s", strerror(st.write_error));
        return 1;
    }
    if (st.frames == 0 && !st.lost_boundary) {
        hs_fail(err, HS_ERR_USAGE, "wire: no frame on input (empty stream)");
        return 1;
    }
    if (st.errors) {
        hs_fail(err, HS_ERR_DATA, "wire: %ld of %ld frames got an error reply%s", st.errors,
                st.frames + st.lost_boundary, st.lost_boundary ? "; the stream ended at a lost frame boundary" : "");
        return 1;
    }
    return 0;
}
