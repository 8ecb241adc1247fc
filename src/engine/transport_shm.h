/* The shared-memory transport: one hs_stream (src/engine/stream.h) per client over two byte rings in a
 * segment that only the two processes hold.  docs/engine.md "Shared memory" has the design and figures.
 *
 * Rendezvous: `hmasweep serve --shm NAME` listens on a Unix socket (NAME resolved by hs_shm_path).  For
 * each client it accepts, it checks the peer's uid (SO_PEERCRED), creates a sealed memfd holding a
 * request ring and a reply ring, plus four eventfd doorbells, and passes them over the socket
 * (SCM_RIGHTS).  After that the socket carries nothing: it stays open only as the liveness channel (a
 * peer that dies closes it, and the other side's wait sees POLLHUP at once, with no timeout to pick).
 *
 * Waiting: spin (pause) for a bounded time while the peer last ran on another vCPU, then sleep in poll()
 * on the doorbell and the socket.  A sleeping side costs no CPU.
 *
 * Threads: at most one reader and one writer per side at a time (the server's one thread per connection
 * and the C client both qualify). */
#ifndef HS_ENGINE_TRANSPORT_SHM_H
#define HS_ENGINE_TRANSPORT_SHM_H

#include "hmasweep.h"
#include "stream.h"

#include <stddef.h>

typedef struct {
    size_t ring_bytes; /* bytes of each ring, a power of two in [4 KiB, 64 MiB]; 0 = HS_SHM_DEFAULT_RING_BYTES */
    int spin_us;       /* how long a wait spins before it sleeps; < 0 = HS_SHM_DEFAULT_SPIN_US */
} hs_shm_options;

/* 2 MiB: the default series' close array (150,000 bars, 1.2 MB) fits one ring, so the server can relay
 * a 1.2 MB ECHO ring to ring (stream.h `relay`); with 1 MiB it fell back to a receive buffer (4 copies
 * per round trip instead of 3).  A connection maps 2 rings, populated at connect: 4 MiB. */
#define HS_SHM_DEFAULT_RING_BYTES ((size_t)2 << 20)
#define HS_SHM_DEFAULT_SPIN_US 50

typedef struct hs_shm_listener hs_shm_listener;

/* The rendezvous socket's path for NAME: NAME itself when it contains '/', otherwise
 * $XDG_RUNTIME_DIR/hmasweep-shm/NAME, or /tmp/hmasweep-shm-<uid>/NAME (the folder is made mode 0700). */
hs_status hs_shm_path(const char *name, char *path, size_t path_size, int make_dir, hs_error *err);

/* Listen on NAME (socket file mode 0600).  A stale socket of our own at that path is replaced; anything
 * else there is refused. */
hs_status hs_shm_listen(const char *name, const hs_shm_options *opt, hs_shm_listener **out, hs_error *err);
/* The listening fd, for the server's poll loop (readable = a client is waiting in accept). */
int hs_shm_listener_fd(const hs_shm_listener *l);
/* Accept one client: *out is a new stream, or NULL when timeout_ms passed first (< 0: wait). */
hs_status hs_shm_accept(hs_shm_listener *l, int timeout_ms, hs_stream **out, hs_error *err);
/* Close the listening socket and remove its file.  Streams already accepted stay usable. */
void hs_shm_listener_close(hs_shm_listener *l);

/* Connect to the server listening on NAME; waits at most timeout_ms (< 0: no limit) for its segment. */
hs_status hs_shm_connect(const char *name, const hs_shm_options *opt, int timeout_ms, hs_stream **out,
                         hs_error *err);

/* An accepted or connected stream is released with s->close(s->ctx); that frees s too. */

/* The detail of the stream's most recent HS_STREAM_ERROR, read or write ("" for a stream of another
 * transport, or before any error). */
const char *hs_shm_stream_error(const hs_stream *s);

#endif
