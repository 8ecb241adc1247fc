/* hs_stream over file descriptors: the Unix-socket, TCP and stdin/stdout transports share it.  Each call
 * waits in poll() for at most its timeout, then moves what the kernel has: the session loop above owns
 * framing and deadlines (transport.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport.h"

typedef struct {
    hs_stream s;
    int rfd, wfd, own, is_socket;
} fd_stream;

/* 1 ready, 0 timed out, -1 error.  EINTR counts as "not yet" so a signal is seen by the caller's loop. */
static int wait_fd(int fd, short events, int timeout_ms) {
    struct pollfd p = {fd, events, 0};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0) return errno == EINTR ? 0 : -1;
    return r > 0;
}

/* Try the read first and poll only when nothing is there: on a busy connection the data is usually
 * already waiting, and the poll would be a second syscall per read. */
static ssize_t try_read(fd_stream *f, void *buf, size_t n) {
    ssize_t r = f->is_socket ? recv(f->rfd, buf, n, MSG_DONTWAIT) : read(f->rfd, buf, n);
    if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? HS_STREAM_TIMEOUT : HS_STREAM_ERROR;
    return r;
}

static ssize_t fd_read(void *ctx, void *buf, size_t n, int timeout_ms) {
    fd_stream *f = ctx;
    if (f->is_socket) {
        ssize_t r = try_read(f, buf, n);
        if (r != HS_STREAM_TIMEOUT || timeout_ms == 0) return r;
    }
    int w = wait_fd(f->rfd, POLLIN, timeout_ms);
    if (w == 0) return HS_STREAM_TIMEOUT;
    if (w < 0) return HS_STREAM_ERROR;
    return try_read(f, buf, n);
}

static ssize_t try_writev(fd_stream *f, const struct iovec *iov, int iovcnt) {
    ssize_t r;
    if (f->is_socket) {
        struct msghdr m = {0};
        m.msg_iov = (struct iovec *)iov;
        m.msg_iovlen = (size_t)iovcnt;
        r = sendmsg(f->wfd, &m, MSG_NOSIGNAL | MSG_DONTWAIT); /* never block past the deadline */
    } else {
        r = writev(f->wfd, iov, iovcnt);
    }
    if (r < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? HS_STREAM_TIMEOUT : HS_STREAM_ERROR;
    return r;
}

static ssize_t fd_writev(void *ctx, const struct iovec *iov, int iovcnt, int timeout_ms) {
    fd_stream *f = ctx;
    if (f->is_socket) {
        ssize_t r = try_writev(f, iov, iovcnt);
        if (r != HS_STREAM_TIMEOUT || timeout_ms == 0) return r;
    }
    int w = wait_fd(f->wfd, POLLOUT, timeout_ms);
    if (w == 0) return HS_STREAM_TIMEOUT;
    if (w < 0) return HS_STREAM_ERROR;
    return try_writev(f, iov, iovcnt);
}

static void fd_close(void *ctx) {
    fd_stream *f = ctx;
    if (f->own) {
        close(f->rfd);
        if (f->wfd != f->rfd) close(f->wfd);
    }
    free(f);
}

hs_stream *hs_fd_stream(int rfd, int wfd, int own_fds, const char *transport, const char *peer) {
    fd_stream *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    struct stat st;
    f->rfd = rfd, f->wfd = wfd, f->own = own_fds;
    f->is_socket = fstat(wfd, &st) == 0 && S_ISSOCK(st.st_mode);
    f->s.ctx = f;
    f->s.read = fd_read;
    f->s.writev = fd_writev;
    f->s.close = fd_close;
    f->s.transport = transport;
    snprintf(f->s.peer, sizeof f->s.peer, "%s", peer ? peer : "");
    f->s.peer_uid = -1;
    return &f->s;
}
