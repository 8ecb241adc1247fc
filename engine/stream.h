/* A byte stream between one client and the server, whatever carries it (Unix socket, TCP, stdin/stdout,
 * the shared-memory rings).  The server runs one thread per connection over this interface, so a
 * transport only has to move bytes with a timeout; framing lives in the codec (engine/codec.h).
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
} hs_stream;

#endif
