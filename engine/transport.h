/* The byte-stream transports over file descriptors (Unix socket, TCP, stdin/stdout) and their listeners.
 * Each accepted or connected stream is an hs_stream (stream.h), the same interface the shared-memory
 * transport implements, so the server's session loop and the C client never see which one it is. */
#ifndef HS_ENGINE_TRANSPORT_H
#define HS_ENGINE_TRANSPORT_H

#include "hmasweep.h"
#include "stream.h"

/* A stream over fds (read from rfd, write to wfd; a socket has rfd == wfd).  Sockets are written with
 * sendmsg(MSG_NOSIGNAL), so a vanished peer is an error, never SIGPIPE.  close() closes the fds (unless
 * own_fds is 0) and frees the stream.  NULL when out of memory. */
hs_stream *hs_fd_stream(int rfd, int wfd, int own_fds, const char *transport, const char *peer);

/* ---- listeners (engine/transport_unix.c, transport_tcp.c) -------------------------------------------- */
typedef struct {
    int fd;             /* the listening socket (non-blocking), -1 when closed */
    const char *kind;   /* "unix" or "tcp" */
    char url[128];      /* unix:PATH or tcp://HOST:PORT (the real port when 0 was asked) */
    char path[108];     /* unix: the socket file, removed by hs_listener_close */
    unsigned long long ino; /* unix: the inode we created, so we only ever remove our own file */
} hs_listener;

/* Listen on a Unix socket at path, mode 0600.  An existing path is replaced only when it is a stale
 * socket of this user (nobody accepts on it); anything else there is refused. */
hs_status hs_listen_unix(const char *path, hs_listener *l, hs_error *err);
/* Listen on TCP host:port (host empty = 127.0.0.1).  A non-loopback address is refused unless
 * allow_remote is set.  *is_loopback tells the caller whether a token must be demanded. */
hs_status hs_listen_tcp(const char *hostport, int allow_remote, hs_listener *l, int *is_loopback, hs_error *err);
/* Accept one waiting client: HS_OK with *out set, or HS_OK with *out NULL when none is waiting;
 * HS_ERR_NOMEM when out of file descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM: back off). */
hs_status hs_listener_accept(hs_listener *l, hs_stream **out, hs_error *err);
/* Close the socket and (unix) remove its file if it is still ours. */
void hs_listener_close(hs_listener *l);

/* Socket buffers for a connected Unix stream socket (both ends): big enough for a 1.2 MB frame. */
void hs_unix_socket_buffers(int fd);

/* ---- connecting (the C client) ------------------------------------------------------------------ */
hs_status hs_connect_unix(const char *path, int timeout_ms, hs_stream **out, hs_error *err);
hs_status hs_connect_tcp(const char *hostport, int timeout_ms, hs_stream **out, hs_error *err);

/* Split "HOST:PORT" ("[v6]:PORT" too); host may come back empty. */
hs_status hs_split_hostport(const char *hostport, char *host, size_t host_cap, char *port, size_t port_cap,
                            hs_error *err);

/* Read exactly n bytes / write every byte of iov, each call waiting at most until deadline_ms on the
 * CLOCK_MONOTONIC millisecond clock (hs_now_ms; < 0: no deadline).  Return 0, HS_STREAM_TIMEOUT,
 * HS_STREAM_ERROR, or 1 when the peer closed (read: *got says how many bytes came first). */
int hs_stream_read_full(hs_stream *s, void *buf, size_t n, long long deadline_ms, size_t *got);
int hs_stream_write_full(hs_stream *s, struct iovec *iov, int iovcnt, long long deadline_ms);
long long hs_now_ms(void);

#endif
