/* The listening server (server.h): one poll() loop accepts on every listener; each connection gets its
 * own thread running the session loop, so a slow, stalled or vanished client blocks only its own thread,
 * and the sweeps of all connections share `workers` slots (cli/server/session.c).  Why threads and not one
 * event loop: every transport, the shared-memory rings included, is an hs_stream with blocking reads that
 * take a timeout (src/engine/stream.h), and the per-connection cost is a parked thread, bounded by
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
#define HS_PENDING_POLL_MS 10 /* a listener with a full pending budget is looked at again this soon */
#define HS_CONN_STACK_BYTES (1u << 20)
/* Accept failing for want of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM): the listener is left out of
 * the poll for a back-off that doubles from 20 ms to 1 s (reset by a good accept), and the log says so
 * at most once per 10 s with the count since.  Issue 20 §4: without it the loop spun at 99% CPU and
 * wrote 10 GB of the same line in 115 s. */
#define HS_BACKOFF_FIRST_MS 20
#define HS_BACKOFF_MAX_MS 1000
#define HS_LOG_EVERY_MS 10000

/* Admission budgets (issue 29 item 3: 64 loopback TCP connections of another user took every --max-clients
 * slot and the owner's Unix and shm clients were refused 10 of 10 times; on a token server ~20 idle TCP
 * peers kept --max-pending full and token holders were served 1 of 15; a burst of 250 got 16 served):
 *  - each listener has its own --max-clients (active) and --max-pending (pending), so TCP cannot take
 *    what Unix and shm clients need;
 *  - while a listener's pending budget is full it is not accepted on: new peers wait in its backlog
 *    (SOMAXCONN) and are taken as pending ones finish, so a burst within --max-clients queues;
 *  - a TCP peer other than the server's own user (its uid, or its host when the uid is unknown) holds at
 *    most --max-pending-per-peer pending connections; past that it is refused at once;
 *  - a loopback TCP peer of another uid is refused outright on a listener without a token. */
typedef struct {
    int listener;   /* -1: free */
    char key[64];   /* "uid N" or the host */
    unsigned pending;
} peer_entry;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t idle;
    unsigned *active;  /* per listener: admitted connections (--max-clients each) */
    unsigned *pending; /* per listener: connections not admitted yet (--max-pending each) */
    unsigned active_total, pending_total;
    unsigned max_clients;
    peer_entry *peers; /* n_peers entries: the TCP peers with pending connections */
    size_t n_peers;
} conn_count;

typedef struct {
    hs_engine *e;
    hs_stream *s;
    int need_auth;
    int listener;
    conn_count *count;
    hs_admission adm;
    peer_entry *peer; /* the per-peer budget it holds while pending (NULL: none) */
} conn;

/* The pending connection stops counting as pending (admitted or closed); the caller holds the lock. */
static void leave_pending(conn *c) {
    c->count->pending[c->listener]--, c->count->pending_total--;
    if (c->peer && --c->peer->pending == 0) c->peer->listener = -1;
    c->peer = NULL;
}

/* hs_admission.admit: the pending connection takes one of its listener's --max-clients slots, if free. */
static int admit_conn(void *ctx) {
    conn *c = ctx;
    conn_count *n = c->count;
    pthread_mutex_lock(&n->lock);
    int ok = n->active[c->listener] < n->max_clients;
    if (ok) n->active[c->listener]++, n->active_total++, leave_pending(c);
    pthread_mutex_unlock(&n->lock);
    return ok;
}

static void *conn_main(void *arg) {
    conn *c = arg;
    hs_session_stats st;
    hs_engine_serve_admitted(c->e, c->s, c->need_auth, &c->adm, &st);
    c->s->close(c->s->ctx);
    pthread_mutex_lock(&c->count->lock);
    if (st.admitted) c->count->active[c->listener]--, c->count->active_total--;
    else leave_pending(c);
    if (c->count->active_total + c->count->pending_total == 0) pthread_cond_broadcast(&c->count->idle);
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

/* The per-peer budget of a TCP peer other than the server's user (NULL for the server's own user and
 * for other transports, whose sockets only the owner can open); the caller holds the lock. */
static peer_entry *peer_budget(conn_count *count, const hs_stream *s, int listener) {
    if (strcmp(s->transport, "tcp") != 0 || (s->peer_uid >= 0 && s->peer_uid == (long)geteuid())) return NULL;
    char key[64];
    if (s->peer_uid >= 0) snprintf(key, sizeof key, "uid %ld", s->peer_uid);
    else snprintf(key, sizeof key, "host %s", s->peer_host);
    peer_entry *free_slot = NULL;
    for (size_t i = 0; i < count->n_peers; i++) {
        peer_entry *p = &count->peers[i];
        if (p->listener == listener && !strcmp(p->key, key)) return p;
        if (p->listener < 0 && !free_slot) free_slot = p;
    }
    if (free_slot) { /* there is always one: at most max_pending peers pend per listener */
        free_slot->listener = listener, free_slot->pending = 0;
        snprintf(free_slot->key, sizeof free_slot->key, "%s", key);
    }
    return free_slot;
}

static void start_connection(hs_engine *e, const hs_engine_config *cfg, conn_count *count, hs_stream *s, int need_auth,
                             int listener) {
    if (!need_auth && !strcmp(s->transport, "tcp") && s->peer_uid >= 0 && s->peer_uid != (long)geteuid()) {
        if (cfg->verbose) fprintf(cfg->log, "hmasweep serve: tcp %s: refused: uid %ld, not the server's\n", s->peer, s->peer_uid);
        refuse(s, HS_WIRE_AUTH, "this server has no token, so its TCP listener serves only the user it runs as; "
                                "another user's connection is refused (serve with --token-file to let others in)");
        return;
    }
    pthread_mutex_lock(&count->lock);
    int full = count->pending[listener] >= cfg->max_pending;
    peer_entry *peer = full ? NULL : peer_budget(count, s, listener);
    int peer_full = peer && peer->pending >= cfg->max_pending_per_peer;
    if (!full && !peer_full) {
        count->pending[listener]++, count->pending_total++;
        if (peer) peer->pending++;
    } else if (peer && !peer->pending) {
        peer->listener = -1;
    }
    pthread_mutex_unlock(&count->lock);
    if (full || peer_full) {
        if (cfg->verbose) fprintf(cfg->log, "hmasweep serve: %s %s: refused: too many connections not yet admitted\n", s->transport, s->peer);
        refuse(s, HS_WIRE_LIMIT, peer_full ? "this peer has too many connections that have not sent their first frame "
                                             "(the server's --max-pending-per-peer limit): try again"
                                           : "too many connections on this listener that have not sent their first frame "
                                             "(the server's --max-pending limit): try again");
        return;
    }
    conn *c = malloc(sizeof *c);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, HS_CONN_STACK_BYTES);
    if (c) *c = (conn){e, s, need_auth, listener, count, {cfg->admit_timeout_ms, admit_conn, NULL}, peer}, c->adm.ctx = c;
    if (!c || pthread_create(&t, &attr, conn_main, c) != 0) {
        free(c);
        refuse(s, HS_WIRE_NOMEM, "the server cannot start a thread for this connection");
        pthread_mutex_lock(&count->lock);
        count->pending[listener]--, count->pending_total--;
        if (peer && --peer->pending == 0) peer->listener = -1;
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
    conn_count count = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, cfg->max_clients, NULL, 0};
    struct pollfd *pf = calloc((size_t)n, sizeof *pf);
    accept_state *as = calloc((size_t)n, sizeof *as);
    count.active = calloc((size_t)n, sizeof *count.active);
    count.pending = calloc((size_t)n, sizeof *count.pending);
    count.n_peers = (size_t)n * cfg->max_pending;
    count.peers = calloc(count.n_peers, sizeof *count.peers);
    if (!pf || !as || !count.active || !count.pending || !count.peers)
        return free(pf), free(as), free(count.active), free(count.pending), free(count.peers), 1;
    for (size_t i = 0; i < count.n_peers; i++) count.peers[i].listener = -1;
    int spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    while (!hs_engine_stopping(e)) {
        long long now = hs_now_ms();
        int wait = HS_ACCEPT_POLL_MS;
        pthread_mutex_lock(&count.lock);
        for (int i = 0; i < n; i++) {
            int resting = as[i].resume_at > now;
            /* a full pending budget: not accepted on, the peers wait in the backlog (polled again in 100 ms) */
            int full = count.pending[i] >= cfg->max_pending;
            pf[i] = (struct pollfd){resting || full ? -1 : ls->listeners[i].fd, POLLIN, 0}; /* a negative fd is left out */
            if (resting && as[i].resume_at - now < wait) wait = (int)(as[i].resume_at - now);
            if (full && wait > HS_PENDING_POLL_MS) wait = HS_PENDING_POLL_MS;
        }
        pthread_mutex_unlock(&count.lock);
        if (poll(pf, (nfds_t)n, wait) <= 0) continue;
        for (int i = 0; i < n; i++)
            if (pf[i].revents & POLLIN) accept_one(e, cfg, &count, &ls->listeners[i], i, &as[i], &spare);
    }
    /* Stop: no new clients; each connection finishes its frame in flight (bounded by the frame
     * deadline), sees the stop at its next idle wait and closes. */
    for (int i = 0; i < ls->n_listeners; i++) hs_listener_close(&ls->listeners[i]);
    pthread_mutex_lock(&count.lock);
    while (count.active_total + count.pending_total) pthread_cond_wait(&count.idle, &count.lock);
    pthread_mutex_unlock(&count.lock);
    if (spare >= 0) close(spare);
    free(pf), free(as), free(count.active), free(count.pending), free(count.peers);
    return 0;
}
