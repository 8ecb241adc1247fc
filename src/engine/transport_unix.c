/* Unix-socket transport: the listener (socket file mode 0600, never replacing what is not a stale socket
 * of ours) and the client's connect. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "error.h"
#include "transport.h"

static hs_status unix_address(const char *path, struct sockaddr_un *a, hs_error *err) {
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (!path || !*path) return hs_fail(err, HS_ERR_USAGE, "unix socket: empty path");
    /* A control byte (a newline above all) would split `serve --ready`'s line and the logs that print the
     * URL, so that a path could forge a second ready line (issue 29 item 10): refused, by position. */
    for (size_t i = 0; path[i]; i++)
        if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
            return hs_fail(err, HS_ERR_USAGE, "unix socket path holds a control character (byte 0x%02x at offset %zu): "
                           "refused", (unsigned char)path[i], i);
    if (strlen(path) >= sizeof a->sun_path)
        return hs_fail(err, HS_ERR_USAGE, "unix socket path '%s' is longer than %zu bytes", path, sizeof a->sun_path - 1);
    memcpy(a->sun_path, path, strlen(path));
    return HS_OK;
}

/* An existing path may be replaced only when it is a socket of this user that nobody accepts on. */
static hs_status clear_stale(const char *path, const struct sockaddr_un *a, hs_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? HS_OK : hs_fail(err, HS_ERR_USAGE, "%s: %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return hs_fail(err, HS_ERR_USAGE, "%s exists and is not a socket: refusing to replace it", path);
    if (st.st_uid != geteuid())
        return hs_fail(err, HS_ERR_USAGE, "%s is a socket of another user: refusing to replace it", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return hs_fail(err, HS_ERR_USAGE, "socket: %s", strerror(errno));
    int live = connect(fd, (const struct sockaddr *)a, sizeof *a) == 0;
    close(fd);
    if (live) return hs_fail(err, HS_ERR_USAGE, "%s: another server is listening there", path);
    if (unlink(path) != 0) return hs_fail(err, HS_ERR_USAGE, "removing stale socket %s: %s", path, strerror(errno));
    return HS_OK;
}

static hs_status unix_listen(const char *path, const hs_listen_options *opt, hs_listener *l, hs_error *err) {
    (void)opt;
    memset(l, 0, sizeof *l);
    l->fd = -1;
    struct sockaddr_un a;
    hs_status st = unix_address(path, &a, err);
    if (st == HS_OK) st = clear_stale(path, &a, err);
    if (st != HS_OK) return st;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return hs_fail(err, HS_ERR_USAGE, "socket: %s", strerror(errno));
    /* The file is created by bind() with the umask's mode: make it 0600 from the first instant. */
    mode_t old = umask(0177);
    int b = bind(fd, (const struct sockaddr *)&a, sizeof a);
    umask(old);
    struct stat st_file;
    if (b != 0 || listen(fd, SOMAXCONN) != 0 || stat(path, &st_file) != 0) {
        int e = errno;
        close(fd);
        return hs_fail(err, HS_ERR_USAGE, "listening on unix socket %s: %s", path, strerror(e));
    }
    l->t = &hs_transport_unix;
    l->fd = fd;
    l->same_user = 1; /* the file is 0600: only our own user can connect */
    l->ino = (unsigned long long)st_file.st_ino;
    snprintf(l->path, sizeof l->path, "%s", path);
    snprintf(l->url, sizeof l->url, "unix:%s", path);
    return HS_OK;
}

/* A Unix stream socket's in-flight bytes are bounded by the sender's SO_SNDBUF (default 208 KiB here):
 * a 1.2 MB ECHO then crosses in ~6 pieces each way, each a wake-up of the other side.  4 MiB (capped by
 * the kernel at net.core.wmem_max) lets a whole frame of the default series sit in the socket.  It is a
 * limit, not an allocation: an idle connection holds nothing more. */
#define HS_UNIX_SNDBUF (4 << 20)

void hs_unix_socket_buffers(int fd) {
    int bytes = HS_UNIX_SNDBUF;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes); /* best effort: the default still works */
}

static hs_status unix_connect(const char *path, int timeout_ms, hs_stream **out, hs_error *err) {
    *out = NULL;
    struct sockaddr_un a;
    hs_status st = unix_address(path, &a, err);
    if (st != HS_OK) return st;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return hs_fail(err, HS_ERR_IO, "socket: %s", strerror(errno));
    /* A Unix-socket connect does not block on a listening server (it fails at once if none). */
    if (connect(fd, (const struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        close(fd);
        return hs_fail(err, HS_ERR_IO, "connecting to unix:%s: %s", path, strerror(e));
    }
    (void)timeout_ms;
    hs_unix_socket_buffers(fd);
    *out = hs_fd_stream(fd, fd, 1, "unix", path);
    if (!*out) {
        close(fd);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    return HS_OK;
}

const hs_transport hs_transport_unix = {"unix:", "unix:PATH", unix_listen, hs_socket_accept, hs_socket_listener_close,
                                        unix_connect};
