/* The transport table (transport.h): the one place a URL's scheme is looked up, for `serve --listen` and
 * the C client alike; and the stdio transport, the server's own stdin/stdout. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "transport.h"

/* stdio: one connection, stdin/stdout, with no accept loop: accept hands the stream out once. */
static hs_status stdio_listen(const char *addr, const hs_listen_options *opt, hs_listener *l, hs_error *err) {
    (void)opt;
    memset(l, 0, sizeof *l);
    l->fd = -1;
    if (*addr) return hs_fail(err, HS_ERR_USAGE, "stdio:%s: stdio takes no address (write stdio:)", addr);
    l->t = &hs_transport_stdio;
    l->same_user = 1; /* the pipes our parent gave us */
    snprintf(l->url, sizeof l->url, "stdio:");
    return HS_OK;
}

static hs_status stdio_accept(hs_listener *l, hs_stream **out, hs_error *err) {
    *out = NULL;
    if (l->impl) return HS_OK; /* handed out already */
    *out = hs_fd_stream(STDIN_FILENO, STDOUT_FILENO, 0, "stdio", "stdin");
    if (!*out) return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    l->impl = *out;
    return HS_OK;
}

static void stdio_close(hs_listener *l) { l->impl = NULL; }

const hs_transport hs_transport_stdio = {"stdio:", "stdio:", stdio_listen, stdio_accept, stdio_close, NULL};

static const hs_transport *const transports[] = {&hs_transport_unix, &hs_transport_tcp, &hs_transport_shm,
                                                 &hs_transport_stdio};
enum { N_TRANSPORTS = sizeof transports / sizeof *transports };

const hs_transport *hs_transport_find(const char *url, const char **addr) {
    for (int i = 0; url && i < N_TRANSPORTS; i++) {
        size_t n = strlen(transports[i]->scheme);
        if (strncmp(url, transports[i]->scheme, n) == 0) {
            if (addr) *addr = url + n;
            return transports[i];
        }
    }
    return NULL;
}

const char *hs_transport_forms(char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < N_TRANSPORTS && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i == 0 ? "" : i == N_TRANSPORTS - 1 ? " or " : ", ",
                                 transports[i]->form);
    return buf;
}

static hs_status unknown_scheme(const char *url, hs_error *err) {
    char forms[128];
    return hs_fail(err, HS_ERR_USAGE, "URL '%s': unknown scheme (expected %s)", url ? url : "",
                   hs_transport_forms(forms, sizeof forms));
}

hs_status hs_listen_url(const char *url, const hs_listen_options *opt, hs_listener *l, hs_error *err) {
    const char *addr;
    const hs_transport *t = hs_transport_find(url, &addr);
    memset(l, 0, sizeof *l);
    l->fd = -1;
    return t ? t->listen(addr, opt, l, err) : unknown_scheme(url, err);
}

hs_status hs_connect_url(const char *url, int timeout_ms, hs_stream **out, hs_error *err) {
    const char *addr;
    const hs_transport *t = hs_transport_find(url, &addr);
    *out = NULL;
    if (!t) return unknown_scheme(url, err);
    if (!t->connect)
        return hs_fail(err, HS_ERR_USAGE,
                       "URL '%s': a %s server is reached through the pipes its parent made (hs_client_from_fds), not by URL",
                       url, t->scheme);
    return t->connect(addr, timeout_ms, out, err);
}

void hs_listener_close(hs_listener *l) {
    if (l && l->t) l->t->close(l);
}
