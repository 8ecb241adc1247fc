/* The listening server (server.h): one poll() loop accepts on every listener; each connection gets its
 * own thread running the session loop, so a slow, stalled or vanished client blocks only its own thread,
 * and the sweeps of all connections share `workers` slots (engine/session.c).  Why threads and not one
 * event loop: every transport, the shared-memory rings included, is an hs_stream with blocking reads that
 * take a timeout (engine/stream.h), and the per-connection cost is a parked thread, bounded by
 * --max-clients. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

#define HS_ACCEPT_POLL_MS 100
#define HS_CONN_STACK_BYTES (1u << 20)

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t idle;
    unsigned active;
} conn_count;

typedef struct {
    hs_engine *e;
    hs_stream *s;
    int need_auth;
    conn_count *count;
} conn;

static void *conn_main(void *arg) {
    conn *c = arg;
    hs_engine_serve_stream(c->e, c->s, c->need_auth, NULL);
    c->s->close(c->s->ctx);
    pthread_mutex_lock(&c->count->lock);
    if (--c->count->active == 0) pthread_cond_broadcast(&c->count->idle);
    pthread_mutex_unlock(&c->count->lock);
    free(c);
    return NULL;
}

static void refuse(hs_stream *s, hs_wire_code code, const char *msg) {
    unsigned char buf[160];
    struct iovec iov = {buf, hs_codec_encode_error(code, msg, buf, sizeof buf)};
    hs_stream_write_full(s, &iov, 1, hs_now_ms() + 100);
    s->close(s->ctx);
}

static void start_connection(hs_engine *e, const hs_engine_config *cfg, conn_count *count, hs_stream *s, int need_auth) {
    pthread_mutex_lock(&count->lock);
    int full = count->active >= cfg->max_clients;
    if (!full) count->active++;
    pthread_mutex_unlock(&count->lock);
    if (full) {
        if (cfg->verbose) fprintf(cfg->log, "hmasweep serve: %s %s: refused: too many clients\n", s->transport, s->peer);
        refuse(s, HS_WIRE_LIMIT, "too many clients (the server's --max-clients limit)");
        return;
    }
    conn *c = malloc(sizeof *c);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, HS_CONN_STACK_BYTES);
    if (c) *c = (conn){e, s, need_auth, count};
    if (!c || pthread_create(&t, &attr, conn_main, c) != 0) {
        free(c);
        refuse(s, HS_WIRE_NOMEM, "the server cannot start a thread for this connection");
        pthread_mutex_lock(&count->lock);
        count->active--;
        pthread_mutex_unlock(&count->lock);
    }
    pthread_attr_destroy(&attr);
}

int hs_server_run(hs_engine *e, hs_server_listeners *ls) {
    const hs_engine_config *cfg = hs_engine_config_of(e);
    conn_count count = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int n = ls->n_listeners + ls->n_extra;
    struct pollfd *pf = calloc((size_t)n, sizeof *pf);
    if (!pf) return 1;
    for (int i = 0; i < ls->n_listeners; i++) pf[i] = (struct pollfd){ls->listeners[i].fd, POLLIN, 0};
    for (int i = 0; i < ls->n_extra; i++) pf[ls->n_listeners + i] = (struct pollfd){ls->extra_fds[i], POLLIN, 0};
    while (!hs_engine_stopping(e)) {
        if (poll(pf, (nfds_t)n, HS_ACCEPT_POLL_MS) <= 0) continue;
        for (int i = 0; i < n; i++) {
            if (!(pf[i].revents & POLLIN)) continue;
            hs_stream *s = NULL;
            int need_auth = 0;
            if (i < ls->n_listeners) {
                hs_error err;
                if (hs_listener_accept(&ls->listeners[i], &s, &err) != HS_OK)
                    fprintf(cfg->log, "hmasweep serve: %s\n", err.msg);
                need_auth = ls->needs_auth ? ls->needs_auth[i] : 0;
            } else {
                s = ls->accept_extra(ls->extra_ctx, i - ls->n_listeners);
            }
            if (s) start_connection(e, cfg, &count, s, need_auth);
        }
    }
    /* Stop: no new clients; each connection finishes its frame in flight (bounded by the frame
     * deadline), sees the stop at its next idle wait and closes. */
    for (int i = 0; i < ls->n_listeners; i++) hs_listener_close(&ls->listeners[i]);
    pthread_mutex_lock(&count.lock);
    while (count.active) pthread_cond_wait(&count.idle, &count.lock);
    pthread_mutex_unlock(&count.lock);
    free(pf);
    return 0;
}
