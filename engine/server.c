/* The listening server (server.h): one poll() loop accepts on every listener; each connection gets its
 * own thread running the session loop, so a slow, stalled or vanished client blocks only its own thread,
 * and the sweeps of all connections share `workers` slots (engine/session.c).  Why threads and not one
 * event loop: every transport, the shared-memory rings included, is an hs_stream with blocking reads that
 * take a timeout (engine/stream.h), and the per-connection cost is a parked thread, bounded by
 * --max-clients. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

#define HS_ACCEPT_POLL_MS 100
#define HS_CONN_STACK_BYTES (1u << 20)
/* Accept failing for want of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM): the listener is left out of
 * the poll for a back-off that doubles from 20 ms to 1 s (reset by a good accept), and the log says so
 * at most once per 10 s with the count since.  Issue 20 §4: without it the loop spun at 99% CPU and
 * wrote 10 GB of the same line in 115 s. */
#define HS_BACKOFF_FIRST_MS 20
#define HS_BACKOFF_MAX_MS 1000
#define HS_LOG_EVERY_MS 10000

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t idle;
    unsigned active;   /* admitted connections (--max-clients) */
    unsigned *pending; /* per listener: connections not admitted yet (--max-pending each) */
    unsigned pending_total;
    unsigned max_clients;
} conn_count;

typedef struct {
    hs_engine *e;
    hs_stream *s;
    int need_auth;
    int listener;
    conn_count *count;
    hs_admission adm;
} conn;

/* hs_admission.admit: the pending connection takes a --max-clients slot, if one is free. */
static int admit_conn(void *ctx) {
    conn *c = ctx;
    conn_count *n = c->count;
    pthread_mutex_lock(&n->lock);
    int ok = n->active < n->max_clients;
    if (ok) n->active++, n->pending[c->listener]--, n->pending_total--;
    pthread_mutex_unlock(&n->lock);
    return ok;
}

static void *conn_main(void *arg) {
    conn *c = arg;
    hs_session_stats st;
    hs_engine_serve_admitted(c->e, c->s, c->need_auth, &c->adm, &st);
    c->s->close(c->s->ctx);
    pthread_mutex_lock(&c->count->lock);
    if (st.admitted) c->count->active--;
    else c->count->pending[c->listener]--, c->count->pending_total--;
    if (c->count->active + c->count->pending_total == 0) pthread_cond_broadcast(&c->count->idle);
    pthread_mutex_unlock(&c->count->lock);
    free(c);
    return NULL;
}

static void refuse(hs_stream *s, hs_wire_code code, const char *msg) {
    unsigned char buf[200];
    struct iovec iov = {buf, hs_codec_encode_error(code, msg, buf, sizeof buf)};
    hs_stream_write_full(s, &iov, 1, hs_now_ms() + 100);
    s->close(s->ctx);
}

static void start_connection(hs_engine *e, const hs_engine_config *cfg, conn_count *count, hs_stream *s, int need_auth,
                             int listener) {
    pthread_mutex_lock(&count->lock);
    int full = count->pending[listener] >= cfg->max_pending;
    if (!full) count->pending[listener]++, count->pending_total++;
    pthread_mutex_unlock(&count->lock);
    if (full) {
        if (cfg->verbose) fprintf(cfg->log, "hmasweep serve: %s %s: refused: too many connections not yet admitted\n", s->transport, s->peer);
        refuse(s, HS_WIRE_LIMIT, "too many connections on this listener that have not sent their first frame "
                                 "(the server's --max-pending limit): try again");
        return;
    }
    conn *c = malloc(sizeof *c);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, HS_CONN_STACK_BYTES);
    if (c) *c = (conn){e, s, need_auth, listener, count, {cfg->admit_timeout_ms, admit_conn, NULL}}, c->adm.ctx = c;
    if (!c || pthread_create(&t, &attr, conn_main, c) != 0) {
        free(c);
        refuse(s, HS_WIRE_NOMEM, "the server cannot start a thread for this connection");
        pthread_mutex_lock(&count->lock);
        count->pending[listener]--, count->pending_total--;
        pthread_mutex_unlock(&count->lock);
    }
    pthread_attr_destroy(&attr);
}

/* One listener's accept state: its back-off after a resource failure, and its log rate limit. */
typedef struct {
    long long resume_at; /* hs_now_ms: left out of the poll until then */
    int backoff_ms;
    long long logged_at;
    unsigned long suppressed;
} accept_state;

static void log_limited(const hs_engine_config *cfg, accept_state *a, const char *msg) {
    long long now = hs_now_ms();
    if (a->logged_at && now - a->logged_at < HS_LOG_EVERY_MS) {
        a->suppressed++;
        return;
    }
    if (a->suppressed)
        fprintf(cfg->log, "hmasweep serve: %s (and %lu more like it in the last %d s)\n", msg, a->suppressed,
                HS_LOG_EVERY_MS / 1000);
    else
        fprintf(cfg->log, "hmasweep serve: %s\n", msg);
    a->logged_at = now, a->suppressed = 0;
}

static void back_off(accept_state *a) {
    a->backoff_ms = a->backoff_ms ? 2 * a->backoff_ms : HS_BACKOFF_FIRST_MS;
    if (a->backoff_ms > HS_BACKOFF_MAX_MS) a->backoff_ms = HS_BACKOFF_MAX_MS;
    a->resume_at = hs_now_ms() + a->backoff_ms;
}

/* Out of fds, the waiting peer would hang in the backlog: the spare fd kept for this makes room to
 * accept it, tell it why, and close it (then the spare is taken again). */
static void shed_one(hs_listener *l, int *spare) {
    if (*spare < 0) return;
    close(*spare);
    *spare = -1;
    int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
        unsigned char buf[128];
        size_t n = hs_codec_encode_error(HS_WIRE_NOMEM, "the server is out of file descriptors: try again later", buf, sizeof buf);
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)w;
        close(fd);
    }
    *spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* A listener with a readable fd: accept through its transport.  Any failure leaves it out of the poll
 * for a back-off (a refused shm handshake, no resources), so a readable fd never makes the loop spin. */
static void accept_one(hs_engine *e, const hs_engine_config *cfg, conn_count *count, hs_listener *l, int i,
                       accept_state *a, int *spare) {
    hs_stream *s = NULL;
    hs_error err;
    hs_status st = l->t->accept(l, &s, &err);
    if (st != HS_OK) {
        log_limited(cfg, a, err.msg);
        if (st == HS_ERR_NOMEM) shed_one(l, spare); /* out of fds or memory: tell the waiting peer why */
        back_off(a);
    }
    if (s) {
        a->backoff_ms = 0;
        start_connection(e, cfg, count, s, l->needs_auth, i);
    }
}

int hs_server_run(hs_engine *e, hs_server_listeners *ls) {
    const hs_engine_config *cfg = hs_engine_config_of(e);
    int n = ls->n_listeners;
    conn_count count = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, 0, cfg->max_clients};
    struct pollfd *pf = calloc((size_t)n, sizeof *pf);
    accept_state *as = calloc((size_t)n, sizeof *as);
    count.pending = calloc((size_t)n, sizeof *count.pending);
    if (!pf || !as || !count.pending) return free(pf), free(as), free(count.pending), 1;
    int spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    while (!hs_engine_stopping(e)) {
        long long now = hs_now_ms();
        int wait = HS_ACCEPT_POLL_MS;
        for (int i = 0; i < n; i++) {
            int resting = as[i].resume_at > now;
            pf[i] = (struct pollfd){resting ? -1 : ls->listeners[i].fd, POLLIN, 0}; /* a negative fd is left out */
            if (resting && as[i].resume_at - now < wait) wait = (int)(as[i].resume_at - now);
        }
        if (poll(pf, (nfds_t)n, wait) <= 0) continue;
        for (int i = 0; i < n; i++)
            if (pf[i].revents & POLLIN) accept_one(e, cfg, &count, &ls->listeners[i], i, &as[i], &spare);
    }
    /* Stop: no new clients; each connection finishes its frame in flight (bounded by the frame
     * deadline), sees the stop at its next idle wait and closes. */
    for (int i = 0; i < ls->n_listeners; i++) hs_listener_close(&ls->listeners[i]);
    pthread_mutex_lock(&count.lock);
    while (count.active + count.pending_total) pthread_cond_wait(&count.idle, &count.lock);
    pthread_mutex_unlock(&count.lock);
    if (spare >= 0) close(spare);
    free(pf), free(as), free(count.pending);
    return 0;
}
