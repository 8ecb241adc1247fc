/* The transports, one table keyed by URL scheme (as nng's transport table: scheme, listener, dialer; the
 * pipe is the hs_stream of stream.h).  `hmasweep serve --listen URL` and hs_client_connect both look the
 * URL up here and nowhere else:
 *
 *   unix:PATH        Unix socket, file mode 0600          src/engine/transport_unix.c
 *   tcp://HOST:PORT  TCP (loopback unless allowed)        src/engine/transport_tcp.c
 *   shm:NAME         shared-memory rings                  src/engine/transport_shm.c
 *   stdio:           the server's stdin/stdout, one connection (a client reaches it through the pipes its
 *                    parent made: hs_client_from_fds)    src/engine/transport.c
 *
 * Each accepted or connected stream is an hs_stream, so the server's session loop and the C client never
 * see which transport carries it. */
#ifndef HS_ENGINE_TRANSPORT_H
#define HS_ENGINE_TRANSPORT_H

#include "hmasweep.h"
#include "stream.h"

typedef struct hs_transport hs_transport;

/* What a caller allows a listener. */
typedef struct {
    int allow_remote; /* tcp: a non-loopback address may be listened on (the caller demands a token) */
} hs_listen_options;

/* One listening endpoint of any transport. */
typedef struct {
    const hs_transport *t;
    int fd;             /* readable when a client waits to be accepted; -1: none (stdio: its one stream) */
    int same_user;      /* only our own user can connect (unix: file mode 0600; shm: the peer's uid is
                         * checked): no token is needed there */
    int needs_auth;     /* set by the caller: the first frame must be AUTH with the server's token */
    char url[128];      /* the URL clients connect to (tcp: the real port when 0 was asked) */
    char path[108];     /* unix: the socket file, removed by close */
    unsigned long long ino; /* unix: the inode we created, so we only ever remove our own file */
    void *impl;         /* the transport's own state (shm: its listener) */
} hs_listener;

struct hs_transport {
    const char *scheme; /* the URL starts with it: "unix:", "tcp://", "shm:", "stdio:" */
    const char *form;   /* the URL's shape, for messages: "unix:PATH" */
    /* Listen on the address (the URL after the scheme).  HS_ERR_USAGE names what is wrong with it. */
    hs_status (*listen)(const char *addr, const hs_listen_options *opt, hs_listener *l, hs_error *err);
    /* Accept one waiting client: HS_OK with *out set, or HS_OK with *out NULL when none is waiting (never
     * blocks); HS_ERR_NOMEM when out of file descriptors or memory (back off); another status when one
     * client was refused (its handshake failed). */
    hs_status (*accept)(hs_listener *l, hs_stream **out, hs_error *err);
    /* Stop listening (unix and shm: remove the socket file if it is still ours).  Safe to call twice. */
    void (*close)(hs_listener *l);
    /* Connect as a client, waiting at most timeout_ms; NULL when the transport has no client side.  A
     * malformed address is HS_ERR_USAGE; a server that is not there or does not answer, HS_ERR_IO. */
    hs_status (*connect)(const char *addr, int timeout_ms, hs_stream **out, hs_error *err);
};

extern const hs_transport hs_transport_unix, hs_transport_tcp, hs_transport_shm, hs_transport_stdio;

/* The transport whose scheme starts url (*addr: the rest), or NULL. */
const hs_transport *hs_transport_find(const char *url, const char **addr);
/* "unix:PATH, tcp://HOST:PORT, shm:NAME or stdio:" (every form of the table, for messages) into buf. */
const char *hs_transport_forms(char *buf, size_t cap);
/* Look url up and listen there / connect there; an unknown scheme is HS_ERR_USAGE naming the forms. */
hs_status hs_listen_url(const char *url, const hs_listen_options *opt, hs_listener *l, hs_error *err);
hs_status hs_connect_url(const char *url, int timeout_ms, hs_stream **out, hs_error *err);
/* l->t->close(l) when l is listening. */
void hs_listener_close(hs_listener *l);

/* ---- the pieces the transports share ------------------------------------------------------------- */

/* A stream over fds (read from rfd, write to wfd; a socket has rfd == wfd).  Sockets are written with
 * sendmsg(MSG_NOSIGNAL), so a vanished peer is an error, never SIGPIPE.  close() closes the fds (unless
 * own_fds is 0) and frees the stream.  NULL when out of memory. */
hs_stream *hs_fd_stream(int rfd, int wfd, int own_fds, const char *transport, const char *peer);

/* Accept on a unix or tcp listener's socket (src/engine/transport_tcp.c): the table's accept for both. */
hs_status hs_socket_accept(hs_listener *l, hs_stream **out, hs_error *err);
/* Close a unix or tcp listener's socket; remove its file (unix) if it is still ours. */
void hs_socket_listener_close(hs_listener *l);

/* Socket buffers for a connected Unix stream socket (both ends): big enough for a 1.2 MB frame. */
void hs_unix_socket_buffers(int fd);

/* Split "HOST:PORT" ("[v6]:PORT" too); host may come back empty. */
hs_status hs_split_hostport(const char *hostport, char *host, size_t host_cap, char *port, size_t port_cap,
                            hs_error *err);

#endif
