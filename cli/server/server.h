/* The engine: serves wire-protocol frames (docs/protocol.md) on any hs_stream.  One engine holds what
 * connections share (limits, the worker slots that bound concurrent sweeps, the loaded-bytes total, the
 * stop flag); hs_engine_serve_stream runs one connection's frame loop; hs_server_run is the listening
 * server of `hmasweep serve` (one thread per connection, sweeps bounded by the worker slots).
 * docs/engine.md describes the limits and the security model. */
#ifndef HS_ENGINE_SERVER_H
#define HS_ENGINE_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "codec.h"
#include "stream.h"
#include "transport.h"

typedef struct {
    hs_sweep_options sweep;          /* the variant every sweep runs (variant NULL: the library default) */
    hs_codec_limits lim;             /* frame bytes, work per frame */
    uint64_t max_loaded_per_client;  /* bytes of LOADed series one connection may hold */
    uint64_t max_loaded_total;       /* … all connections together */
    uint32_t max_handles_per_client;
    uint32_t max_clients;            /* admitted connections per listener (each listener its own budget) */
    int workers;                     /* sweeps running at once */
    int idle_timeout_ms;             /* a connection with no frame started for this long is closed */
    int admit_timeout_ms;            /* a new listener connection must send its first frame (AUTH) within this */
    uint32_t max_pending;            /* connections per listener not yet admitted (hs_admission) */
    uint32_t max_pending_per_peer;   /* … of them from one TCP peer other than the server's user (uid or host) */
    int frame_deadline_ms;           /* a started frame (request in, reply out) must finish within this */
    int cost_margin;                 /* refuse before it runs a frame whose worst-case cost (engine/session.c's
                                      * cost model) times this exceeds frame_deadline_ms; 0: never (the deadline
                                      * still stops it) */
    const unsigned char *token;      /* non-NULL: tcp connections must AUTH with it first */
    size_t token_len;
    int verbose;                     /* one stderr line per connection event */
    int log_errors;                  /* one stderr line per error reply even when not verbose */
    FILE *log;                       /* where logs go (stderr) */
} hs_engine_config;

/* Safe defaults (docs/engine.md "Limits"). */
void hs_engine_config_defaults(hs_engine_config *c);

typedef struct hs_engine hs_engine;
hs_status hs_engine_create(const hs_engine_config *cfg, hs_engine **out, hs_error *err);
void hs_engine_destroy(hs_engine *e);
/* Ask every connection to finish its frame in flight and close (async-signal-safe). */
void hs_engine_stop(hs_engine *e);
int hs_engine_stopping(const hs_engine *e);
const hs_engine_config *hs_engine_config_of(const hs_engine *e);
/* Bytes of LOADed series and live sessions charged now, over every connection (0 once all are closed). */
uint64_t hs_engine_loaded_total(const hs_engine *e);

typedef struct {
    long frames, errors;
    int lost_boundary; /* the connection was closed because a frame could not be delimited */
    int write_error;   /* a reply could not be written (errno value; 0: none), e.g. EPIPE, ENOSPC */
    int admitted;      /* hs_engine_serve_admitted: the connection got its --max-clients slot */
} hs_session_stats;

/* Serve one connection until the peer closes, a frame's boundary is lost, the idle timeout, or stop.
 * need_auth: the first frame must be AUTH with the engine's token.  The stream is not closed here. */
void hs_engine_serve_stream(hs_engine *e, hs_stream *s, int need_auth, hs_session_stats *st);

/* Admission of a listener's connection (issue 20 §3): it is pending until its first frame is in (and,
 * with need_auth, is a good AUTH), which must happen within deadline_ms of the start; only then does it
 * call admit(ctx), which takes a --max-clients slot (1) or refuses (0: error reply, close).  So peers
 * that never authenticate or never send a byte hold only their own listener's pending budget, for
 * deadline_ms, and never the slots of the clients of other listeners. */
typedef struct {
    int deadline_ms;
    int (*admit)(void *ctx);
    void *ctx;
} hs_admission;
void hs_engine_serve_admitted(hs_engine *e, hs_stream *s, int need_auth, const hs_admission *adm,
                              hs_session_stats *st);

/* ---- the listening server ----------------------------------------------------------------------- */
typedef struct {
    hs_listener *listeners; /* already listening, any transports (transport.h); needs_auth set per listener */
    int n_listeners;
} hs_server_listeners;

/* Accept and serve until hs_engine_stop; then finish frames in flight, close every connection and the
 * listeners (their socket files removed).  Returns 0. */
int hs_server_run(hs_engine *e, hs_server_listeners *ls);

#endif
