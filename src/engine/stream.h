/* A byte stream between one client and the server, whatever carries it (Unix socket, TCP, stdin/stdout,
 * the shared-memory rings).  The server runs one thread per connection over this interface, so a
 * transport only has to move bytes with a timeout; framing lives in the codec (src/engine/codec.h).
 *
 * Return values of read/write: the number of bytes moved (> 0), 0 = the peer closed the stream (read)
 * or cannot take more (write), HS_STREAM_TIMEOUT, or HS_STREAM_ERROR (errno-style detail in the
 * stream's last_error text). */
#ifndef HS_ENGINE_STREAM_H
#define HS_ENGINE_STREAM_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#define HS_STREAM_TIMEOUT ((ssize_t)-2)
#define HS_STREAM_ERROR ((ssize_t)-1)
#define HS_STREAM_CANCELLED ((ssize_t)-3) /* hs_stream_read_full/write_full only: the stream's stop() said so */
/* How long one wait of hs_stream_read_full/write_full lasts at most when the stream has a stop(): the
 * latency of a Ctrl-C on a transport whose wait does not return on a signal (the shm rings retry EINTR). */
#define HS_STREAM_POLL_MS 50

typedef struct hs_stream {
    void *ctx;
    /* Read up to n bytes; waits at most timeout_ms (< 0: no limit). */
    ssize_t (*read)(void *ctx, void *buf, size_t n, int timeout_ms);
    /* Write from iov (gather); may write fewer bytes than asked; waits at most timeout_ms. */
    ssize_t (*writev)(void *ctx, const struct iovec *iov, int iovcnt, int timeout_ms);
    /* Optional (NULL: the transport has none).  Write lead[0..lead_len), then copy n bytes of this
     * stream's input straight into its output, with no buffer in between: the server's ECHO reply.
     * It starts only when the output has room for all lead_len + n bytes now, so it never waits on the
     * peer reading while the peer may be waiting on us to read.  Returns lead_len + n (done), 0 (not
     * now: nothing moved; read and write instead), HS_STREAM_TIMEOUT or HS_STREAM_ERROR (part may have
     * moved: the frame is lost). */
    ssize_t (*relay)(void *ctx, const void *lead, size_t lead_len, size_t n, int timeout_ms);
    /* Release the stream (close the fd, detach the ring).  Safe to call once. */
    void (*close)(void *ctx);
    const char *transport; /* "unix", "tcp", "stdio", "shm" */
    char peer[64];         /* who is on the other side, for --verbose logs */
    /* Optional, set by the stream's user (NULL: never stop): asked while hs_stream_read_full/write_full
     * wait, after a wait cut short by a signal and at least every HS_STREAM_POLL_MS; non-zero ends them
     * with HS_STREAM_CANCELLED (the frame is lost).  The C client's hs_client_set_interrupt. */
    int (*stop)(void *user);
    void *stop_user;
    /* tcp only (set by hs_socket_accept; the server's admission, cli/server/server.c): the peer's address
     * without its port, and the uid of the connecting socket where the kernel tells (a loopback peer,
     * /proc/net/tcp), else -1 (0 in a stream zeroed by its maker: read only for "tcp"). */
    char peer_host[48];
    long peer_uid;
} hs_stream;

/* ---- helpers over any stream (src/engine/stream.c) ------------------------------------------------------ */

/* Read exactly n bytes / write every byte of iov, each call waiting at most until deadline_ms on the
 * CLOCK_MONOTONIC millisecond clock (hs_now_ms; < 0: no deadline).  Return 0, HS_STREAM_TIMEOUT,
 * HS_STREAM_ERROR, HS_STREAM_CANCELLED, or 1 when the peer closed (read: *got says how many bytes came
 * first). */
int hs_stream_read_full(hs_stream *s, void *buf, size_t n, long long deadline_ms, size_t *got);
int hs_stream_write_full(hs_stream *s, struct iovec *iov, int iovcnt, long long deadline_ms);
long long hs_now_ms(void);

#endif
