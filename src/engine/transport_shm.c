/* The shared-memory transport (src/engine/transport_shm.h; design and measurements in docs/engine.md).
 *
 * Why a memfd passed over a Unix socket rather than shm_open(name, 0600):
 *  - the segment has no name: no other process (of any uid) can open it, race to create it, or find a
 *    leftover of a crashed server in /dev/shm; it vanishes with the last mapping;
 *  - the server sends it only after checking the client's uid (SO_PEERCRED), and the socket's file is
 *    mode 0600 in a 0700 folder;
 *  - it is sealed against shrinking or growing, so a peer cannot truncate it and SIGBUS the other side;
 *  - the socket that carried it stays open as the liveness channel: a peer that dies closes it, and a
 *    sleeping wait (poll on doorbell + socket) sees POLLHUP at once.  No pid polling, no pid reuse race,
 *    no timeout to tune.
 */
#define _GNU_SOURCE
#include "transport.h"
#include "transport_shm.h"
#include "cpu_relax.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x4d485348u /* "HSHM" */
#define SHM_VERSION 1u
#define SHM_MIN_RING ((size_t)4096)
#define SHM_MAX_RING ((size_t)64 << 20)
#define SHM_HEADER_BYTES ((size_t)4096)
#define SHM_N_EVENTFDS 4 /* ring r: doorbell 2r = "data arrived", 2r+1 = "space freed" */
#define SHM_REQ_RING 0   /* client -> server */
#define SHM_REP_RING 1   /* server -> client */
/* A big message is published in chunks so that a spinning peer on the other vCPU copies at the same
 * time (pipelined); the doorbell rings once per call, at the end, since a wake-up per chunk preempts the
 * copier when both sides share a vCPU.  Published only at the end, a 1.2 MB echo over two vCPUs measured
 * 911 us median (the waiting side's spin ran out during the other side's 1 MiB copy, and it slept). */
/* A wait spins only within this long of this side's last read or write.  An idle connection (the
 * server's session loop re-reads every 100 ms to see a stop) then sleeps at once, costing no CPU. */
#define SHM_SPIN_AFTER_MOVE_NS 10000000
#ifndef SHM_CHUNK
#define SHM_CHUNK ((size_t)64 << 10)
#endif

/* One direction.  Counters are bytes ever moved (they never wrap in practice: 2^64 bytes); each lives
 * on its own cache line so the producer and consumer do not false-share. */
typedef struct {
    _Alignas(64) _Atomic uint64_t head; /* written by the producer */
    _Alignas(64) _Atomic uint64_t tail; /* written by the consumer */
    _Alignas(64) _Atomic uint32_t reader_sleeping;
    _Atomic uint32_t writer_sleeping;
    _Atomic uint32_t writer_closed; /* the producer closed cleanly: EOF after the bytes up to head */
    _Atomic uint32_t reader_closed; /* the consumer closed: writing more is an error */
} shm_ring;

/* Where each side last waited (sched_getcpu), on its own cache line: spinning pays only when the peer
 * runs on another vCPU; on our own vCPU the peer cannot run while we spin. */
typedef struct {
    _Alignas(64) _Atomic int32_t cpu;
} shm_side;

typedef struct {
    uint32_t magic, version;
    uint64_t ring_bytes;
    shm_ring ring[2];
    shm_side side[2]; /* 0 = server, 1 = client */
} shm_header;
_Static_assert(sizeof(shm_header) <= SHM_HEADER_BYTES, "the segment header fits its page");

/* What the server sends with the fds: enough for the client to check the segment before mapping it. */
typedef struct {
    uint32_t magic, version;
    uint64_t ring_bytes, map_bytes;
} shm_hello;

typedef struct {
    hs_stream stream; /* first: the caller holds &stream, close frees the whole endpoint */
    shm_header *hdr;
    size_t map_bytes;
    uint64_t cap;
    int rx, tx; /* ring indexes */
    int me;     /* side index: 0 = server, 1 = client */
    unsigned char *data[2];
    int sock;
    int efd[SHM_N_EVENTFDS];
    long spin_ns;
    _Atomic int64_t last_move_ns; /* when this side last moved bytes: only a busy stream spins */
    uint64_t tx_tail;             /* the writer's last read of the tx ring's tail (see shm_writev) */
    pid_t peer_pid;
    atomic_int peer_gone;
    /* A reader and a writer thread may fail at once: each direction has its own text (0 = read,
     * 1 = write), and `last` says which failed most recently. */
    char error[2][160];
    atomic_int last;
} shm_end;

struct hs_shm_listener {
    int fd;
    ino_t ino;
    dev_t dev;
    hs_shm_options opt;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* ---- small helpers -------------------------------------------------------------------------------- */

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}


static int64_t deadline_after(int timeout_ms) { return timeout_ms < 0 ? INT64_MAX : now_ns() + (int64_t)timeout_ms * 1000000; }

static int ms_until(int64_t deadline) {
    if (deadline == INT64_MAX) return -1;
    int64_t left = deadline - now_ns();
    if (left <= 0) return 0;
    return left / 1000000 >= INT32_MAX ? INT32_MAX : (int)((left + 999999) / 1000000);
}

static void close_fds(int *fd, int n) {
    for (int i = 0; i < n; i++)
        if (fd[i] >= 0) close(fd[i]), fd[i] = -1;
}

static hs_status resolve_options(const hs_shm_options *opt, hs_shm_options *out, hs_error *err) {
    out->ring_bytes = opt && opt->ring_bytes ? opt->ring_bytes : HS_SHM_DEFAULT_RING_BYTES;
    out->spin_us = opt && opt->spin_us >= 0 ? opt->spin_us : HS_SHM_DEFAULT_SPIN_US;
    size_t r = out->ring_bytes;
    if (r < SHM_MIN_RING || r > SHM_MAX_RING || (r & (r - 1)))
        return hs_fail(err, HS_ERR_USAGE, "shm: ring size %zu bytes is not a power of two in [%zu, %zu]", r,
                       SHM_MIN_RING, SHM_MAX_RING);
    if (out->spin_us > 1000000) return hs_fail(err, HS_ERR_USAGE, "shm: spin time %d us is over 1 s", out->spin_us);
    return HS_OK;
}

/* ---- rendezvous path ------------------------------------------------------------------------------- */

static int name_is_plain(const char *name) {
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '_' || *c == '-'))
            return 0;
    return name[0] != '.';
}

/* The folder must be ours and closed to everyone else: it is what keeps other users off the socket. */
static hs_status check_private_dir(const char *dir, int make_dir, hs_error *err) {
    if (make_dir && mkdir(dir, 0700) != 0 && errno != EEXIST)
        return hs_fail(err, HS_ERR_USAGE, "shm: cannot create %s: %s", dir, strerror(errno));
    struct stat st;
    if (lstat(dir, &st) != 0) return hs_fail(err, HS_ERR_USAGE, "shm: %s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
        return hs_fail(err, HS_ERR_USAGE, "shm: %s is not a folder of ours closed to others (mode %03o)", dir,
                       (unsigned)(st.st_mode & 0777));
    return HS_OK;
}

hs_status hs_shm_path(const char *name, char *path, size_t path_size, int make_dir, hs_error *err) {
    size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);
    if (path_size < max) max = path_size;
    if (!name || !*name) return hs_fail(err, HS_ERR_USAGE, "shm: empty rendezvous name");
    if (strchr(name, '/')) {
        if (strlen(name) >= max) return hs_fail(err, HS_ERR_USAGE, "shm: path '%s' is too long for a socket", name);
        memcpy(path, name, strlen(name) + 1);
        return HS_OK;
    }
    if (!name_is_plain(name))
        return hs_fail(err, HS_ERR_USAGE, "shm: name '%s' may hold only letters, digits, '.', '_', '-'", name);
    char dir[96];
    const char *run = getenv("XDG_RUNTIME_DIR");
    if (run && *run == '/' && strlen(run) < 64)
        snprintf(dir, sizeof dir, "%s/hmasweep-shm", run);
    else
        snprintf(dir, sizeof dir, "/tmp/hmasweep-shm-%u", (unsigned)geteuid());
    hs_status st = check_private_dir(dir, make_dir, err);
    if (st != HS_OK) return st;
    int n = snprintf(path, max, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= max) return hs_fail(err, HS_ERR_USAGE, "shm: name '%s' is too long for a socket", name);
    return HS_OK;
}

/* ---- the ring's wait: spin, yield, then sleep on the doorbell and the liveness socket --------------- */

enum { WAIT_READY, WAIT_TIMEOUT, WAIT_PEER_GONE, WAIT_ERROR };

__attribute__((format(printf, 3, 4))) static void set_error(shm_end *e, int dir, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(e->error[dir], sizeof e->error[dir], "shm: ");
    vsnprintf(e->error[dir] + n, sizeof e->error[dir] - (size_t)n, fmt, ap);
    va_end(ap);
    atomic_store_explicit(&e->last, dir, memory_order_release);
}

/* Ready when *word moved from old or *closed was set. */
static int wait_ready(_Atomic uint64_t *word, uint64_t old, _Atomic uint32_t *closed) {
    return atomic_load_explicit(word, memory_order_acquire) != old || atomic_load_explicit(closed, memory_order_acquire);
}

/* Record the vCPU this side waits on, storing only when it changed.  The peer reads this line at every
 * wait; a store, even of the same value, takes the line away from the peer's cache, and across vCPUs
 * each such hand-over costs 120-400 ns on this VM (a bare two-thread ping-pong of one line, vCPU 0/1,
 * measured 121-130 ns per round trip in some runs and 351-401 ns in others: the host's placement of the
 * two vCPUs).  Storing every wait cost two extra hand-overs per echo round trip. */
static int note_cpu(shm_end *e) {
    int mine = sched_getcpu();
    _Atomic int32_t *cpu = &e->hdr->side[e->me].cpu;
    if (atomic_load_explicit(cpu, memory_order_relaxed) != mine) atomic_store_explicit(cpu, mine, memory_order_relaxed);
    return mine;
}

/* Spin (pause) while the peer last ran on another vCPU, at most spin_ns.  A cross-vCPU hand-over of a
 * cache line costs 0.1-0.6 us here, a cross-vCPU wake-up from sleep 50-100 us (docs/engine.md), so a
 * bounded spin wins whenever the peer answers within the budget.  No sched_yield: on a shared machine a
 * yield hands the vCPU to a CPU-bound neighbour for a whole slice (a 64 KiB echo measured 12 ms with a
 * yielding spin while a compiler ran on both vCPUs, 96 us over a Unix socket). */
static int spin_wait(shm_end *e, _Atomic uint64_t *word, uint64_t old, _Atomic uint32_t *closed, int64_t deadline) {
    _Atomic int32_t *peer_cpu = &e->hdr->side[1 - e->me].cpu;
    int64_t stop = now_ns() + e->spin_ns;
    if (stop > deadline) stop = deadline;
    for (unsigned i = 1;; i++) {
        if (wait_ready(word, old, closed)) return 1;
        hs_cpu_relax();
        if ((i & 31) == 0) {
            int mine = note_cpu(e);
            if (mine == atomic_load_explicit(peer_cpu, memory_order_relaxed) || now_ns() >= stop)
                return wait_ready(word, old, closed);
        }
    }
}

/* Dekker pairing with ring_bell(): the sleeper stores its flag then re-reads the word; the waker stores
 * the word then reads the flag (both seq_cst), so one of them always sees the other. */
static int wait_for(shm_end *e, _Atomic uint64_t *word, uint64_t old, _Atomic uint32_t *closed,
                    _Atomic uint32_t *sleeping, int bell, int64_t deadline) {
    if (atomic_load_explicit(&e->peer_gone, memory_order_relaxed)) return wait_ready(word, old, closed) ? WAIT_READY : WAIT_PEER_GONE;
    int mine = note_cpu(e);
    int64_t t = now_ns();
    if (e->spin_ns > 0 && t - atomic_load_explicit(&e->last_move_ns, memory_order_relaxed) < SHM_SPIN_AFTER_MOVE_NS &&
        mine != atomic_load_explicit(&e->hdr->side[1 - e->me].cpu, memory_order_relaxed) &&
        spin_wait(e, word, old, closed, deadline))
        return WAIT_READY;
    for (;;) {
        atomic_store_explicit(sleeping, 1, memory_order_seq_cst);
        atomic_thread_fence(memory_order_seq_cst);
        if (wait_ready(word, old, closed)) {
            atomic_store_explicit(sleeping, 0, memory_order_relaxed);
            return WAIT_READY;
        }
        struct pollfd p[2] = {{.fd = e->efd[bell], .events = POLLIN}, {.fd = e->sock, .events = POLLIN | POLLRDHUP}};
        int left = ms_until(deadline);
        int r = left == 0 ? 0 : poll(p, 2, left);
        atomic_store_explicit(sleeping, 0, memory_order_relaxed);
        if (r < 0 && errno != EINTR) {
            set_error(e, bell & 1, "poll: %s", strerror(errno));
            return WAIT_ERROR;
        }
        if (r > 0 && (p[0].revents & POLLIN)) {
            uint64_t drained;
            if (read(e->efd[bell], &drained, sizeof drained) < 0 && errno != EAGAIN) {
                set_error(e, bell & 1, "doorbell: %s", strerror(errno));
                return WAIT_ERROR;
            }
        }
        if (wait_ready(word, old, closed)) return WAIT_READY;
        if (r > 0 && p[1].revents) { /* the peer never writes to the socket: readable means it is gone */
            atomic_store_explicit(&e->peer_gone, 1, memory_order_relaxed);
            return wait_ready(word, old, closed) ? WAIT_READY : WAIT_PEER_GONE;
        }
        if (r == 0 && ms_until(deadline) == 0) return WAIT_TIMEOUT;
    }
}

static void ring_bell(shm_end *e, _Atomic uint32_t *sleeping, int bell) {
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(sleeping, memory_order_seq_cst)) {
        uint64_t one = 1;
        ssize_t w = write(e->efd[bell], &one, sizeof one); /* EAGAIN only if 2^64-2 rings are pending */
        (void)w;
    }
}

static ssize_t fail_stream(shm_end *e, int dir, const char *what) {
    set_error(e, dir, "%s", what);
    return HS_STREAM_ERROR;
}

static ssize_t wait_result(shm_end *e, int dir, int w) {
    if (w == WAIT_TIMEOUT) return HS_STREAM_TIMEOUT;
    if (w == WAIT_PEER_GONE)
        set_error(e, dir, "the peer (pid %d) went away without closing the stream (killed or crashed mid-stream)",
                  (int)e->peer_pid);
    return HS_STREAM_ERROR; /* WAIT_ERROR: the error is set */
}

/* ---- the stream ----------------------------------------------------------------------------------- */

/* Copies in and out of a ring, wrapping at its end. */
static void ring_get(const shm_end *e, uint64_t pos, void *dst, size_t len) {
    size_t at = (size_t)(pos & (e->cap - 1)), first = len < e->cap - at ? len : e->cap - at;
    memcpy(dst, e->data[e->rx] + at, first);
    memcpy((unsigned char *)dst + first, e->data[e->rx], len - first);
}

static void ring_put(shm_end *e, uint64_t pos, const void *src, size_t len) {
    size_t at = (size_t)(pos & (e->cap - 1)), first = len < e->cap - at ? len : e->cap - at;
    memcpy(e->data[e->tx] + at, src, first);
    memcpy(e->data[e->tx], (const unsigned char *)src + first, len - first);
}

static ssize_t shm_read(void *ctx, void *buf, size_t n, int timeout_ms) {
    shm_end *e = ctx;
    shm_ring *r = &e->hdr->ring[e->rx];
    int64_t deadline = deadline_after(timeout_ms);
    if (n == 0) return 0;
    for (;;) {
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed); /* ours */
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        uint64_t avail = head - tail;
        if (avail > e->cap) return fail_stream(e, 0, "the ring's counters are corrupt (more bytes than the ring holds)");
        if (avail > 0) {
            size_t k = avail < n ? (size_t)avail : n;
            for (size_t done = 0, c; done < k; done += c) { /* free space chunk by chunk: the writer overlaps */
                c = k - done < SHM_CHUNK ? k - done : SHM_CHUNK;
                ring_get(e, tail + done, (unsigned char *)buf + done, c);
                atomic_store_explicit(&r->tail, tail + done + c, memory_order_release);
            }
            ring_bell(e, &r->writer_sleeping, 2 * e->rx + 1);
            atomic_store_explicit(&e->last_move_ns, now_ns(), memory_order_relaxed);
            return (ssize_t)k;
        }
        if (atomic_load_explicit(&r->writer_closed, memory_order_acquire)) {
            if (atomic_load_explicit(&r->head, memory_order_acquire) == head) return 0; /* clean EOF */
            continue;
        }
        int w = wait_for(e, &r->head, head, &r->writer_closed, &r->reader_sleeping, 2 * e->rx, deadline);
        if (w != WAIT_READY) return wait_result(e, 0, w);
    }
}

static ssize_t shm_writev(void *ctx, const struct iovec *iov, int iovcnt, int timeout_ms) {
    shm_end *e = ctx;
    shm_ring *r = &e->hdr->ring[e->tx];
    int64_t deadline = deadline_after(timeout_ms);
    size_t want = 0;
    for (int i = 0; i < iovcnt; i++) want += iov[i].iov_len;
    if (want == 0) return 0;
    for (;;) {
        if (atomic_load_explicit(&r->reader_closed, memory_order_acquire))
            return fail_stream(e, 1, "the peer closed the stream; it reads no more");
        uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed); /* ours */
        /* The reader's tail only grows, so a stale copy under-states the space: re-read it (a cache-line
         * hand-over from the reader's vCPU) only when the cached space is short of this write. */
        uint64_t tail = e->tx_tail;
        if (e->cap - (head - tail) < want) tail = e->tx_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - tail > e->cap) return fail_stream(e, 1, "the ring's counters are corrupt (more bytes than the ring holds)");
        uint64_t space = e->cap - (head - tail);
        if (space > 0) {
            size_t k = space < want ? (size_t)space : want, done = 0, published = 0;
            for (int i = 0; i < iovcnt && done < k; i++) /* publish chunk by chunk: the reader overlaps */
                for (size_t off = 0, len = iov[i].iov_len < k - done ? iov[i].iov_len : k - done, c; off < len; off += c) {
                    c = len - off < SHM_CHUNK - (done - published) ? len - off : SHM_CHUNK - (done - published);
                    ring_put(e, head + done, (const unsigned char *)iov[i].iov_base + off, c);
                    done += c;
                    if (done - published == SHM_CHUNK)
                        atomic_store_explicit(&r->head, head + (published = done), memory_order_release);
                }
            atomic_store_explicit(&r->head, head + done, memory_order_release);
            ring_bell(e, &r->reader_sleeping, 2 * e->tx);
            atomic_store_explicit(&e->last_move_ns, now_ns(), memory_order_relaxed);
            return (ssize_t)k;
        }
        int w = wait_for(e, &r->tail, tail, &r->reader_closed, &r->writer_sleeping, 2 * e->tx + 1, deadline);
        if (w != WAIT_READY) return wait_result(e, 1, w);
    }
}

/* Copy len bytes from the rx ring at pos_in to the tx ring at pos_out, splitting at either ring's end. */
static void ring_move(shm_end *e, uint64_t pos_in, uint64_t pos_out, size_t len) {
    while (len > 0) {
        size_t in = (size_t)(pos_in & (e->cap - 1)), out = (size_t)(pos_out & (e->cap - 1));
        size_t c = len < e->cap - in ? len : e->cap - in;
        if (c > e->cap - out) c = e->cap - out;
        memcpy(e->data[e->tx] + out, e->data[e->rx] + in, c);
        pos_in += c, pos_out += c, len -= c;
    }
}

/* Free space in the tx ring now (a fresh read of the reader's tail), or 0 when the reader has closed. */
static uint64_t tx_space(shm_end *e) {
    shm_ring *r = &e->hdr->ring[e->tx];
    if (atomic_load_explicit(&r->reader_closed, memory_order_acquire)) return 0;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    e->tx_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    return head - e->tx_tail > e->cap ? 0 : e->cap - (head - e->tx_tail);
}

/* The ECHO reply without the server's own copy of the body (stream.h): each chunk is copied from the
 * request ring straight into the reply ring, published to the reader and freed to the writer, so on two
 * vCPUs the client's write, this copy and the client's read overlap.  A 1.2 MB echo measured 4 copies
 * per round trip through a receive buffer before this (client -> ring -> buffer -> ring -> client). */
static ssize_t shm_relay(void *ctx, const void *lead, size_t lead_len, size_t n, int timeout_ms) {
    shm_end *e = ctx;
    shm_ring *in = &e->hdr->ring[e->rx], *out = &e->hdr->ring[e->tx];
    if (tx_space(e) < (uint64_t)lead_len + n) return 0;
    int64_t deadline = deadline_after(timeout_ms);
    uint64_t out_head = atomic_load_explicit(&out->head, memory_order_relaxed);
    ring_put(e, out_head, lead, lead_len);
    out_head += lead_len;
    atomic_store_explicit(&out->head, out_head, memory_order_release);
    for (size_t done = 0; done < n;) {
        uint64_t tail = atomic_load_explicit(&in->tail, memory_order_relaxed); /* ours */
        uint64_t head = atomic_load_explicit(&in->head, memory_order_acquire);
        if (head - tail > e->cap) return fail_stream(e, 0, "the ring's counters are corrupt (more bytes than the ring holds)");
        if (head == tail) {
            /* Both bells before waiting: the peer may be asleep writing (ring full) or reading. */
            ring_bell(e, &in->writer_sleeping, 2 * e->rx + 1);
            ring_bell(e, &out->reader_sleeping, 2 * e->tx);
            if (atomic_load_explicit(&in->writer_closed, memory_order_acquire) &&
                atomic_load_explicit(&in->head, memory_order_acquire) == head)
                return fail_stream(e, 0, "the peer closed the stream in the middle of a frame");
            int w = wait_for(e, &in->head, head, &in->writer_closed, &in->reader_sleeping, 2 * e->rx, deadline);
            if (w != WAIT_READY) return wait_result(e, 0, w);
            continue;
        }
        size_t c = head - tail < n - done ? (size_t)(head - tail) : n - done;
        if (c > SHM_CHUNK) c = SHM_CHUNK;
        ring_move(e, tail, out_head + done, c);
        done += c;
        atomic_store_explicit(&out->head, out_head + done, memory_order_release);
        atomic_store_explicit(&in->tail, tail + c, memory_order_release);
    }
    ring_bell(e, &in->writer_sleeping, 2 * e->rx + 1);
    ring_bell(e, &out->reader_sleeping, 2 * e->tx);
    atomic_store_explicit(&e->last_move_ns, now_ns(), memory_order_relaxed);
    return (ssize_t)(lead_len + n);
}

/* A clean close: mark both directions closed (the peer's reads end in EOF, its writes fail), ring both
 * of the peer's doorbells, then drop the segment.  The socket closes last, so the peer that sees its
 * HUP also sees the closed flags and tells a close from a death. */
static void shm_close(void *ctx) {
    shm_end *e = ctx;
    if (!e) return;
    if (e->hdr) {
        shm_ring *tx = &e->hdr->ring[e->tx], *rx = &e->hdr->ring[e->rx];
        atomic_store_explicit(&tx->writer_closed, 1, memory_order_release);
        atomic_store_explicit(&rx->reader_closed, 1, memory_order_release);
        ring_bell(e, &tx->reader_sleeping, 2 * e->tx);
        ring_bell(e, &rx->writer_sleeping, 2 * e->rx + 1);
        munmap(e->hdr, e->map_bytes);
    }
    close_fds(e->efd, SHM_N_EVENTFDS);
    close_fds(&e->sock, 1);
    free(e);
}

const char *hs_shm_stream_error(const hs_stream *s) {
    if (!s || !s->transport || strcmp(s->transport, "shm") != 0) return "";
    shm_end *e = s->ctx;
    return e->error[atomic_load_explicit(&e->last, memory_order_acquire)];
}

static shm_end *new_end(int sock, int is_server, const hs_shm_options *opt) {
    shm_end *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->sock = sock;
    for (int i = 0; i < SHM_N_EVENTFDS; i++) e->efd[i] = -1;
    e->me = is_server ? 0 : 1;
    e->rx = is_server ? SHM_REQ_RING : SHM_REP_RING;
    e->tx = is_server ? SHM_REP_RING : SHM_REQ_RING;
    e->spin_ns = (long)opt->spin_us * 1000;
    e->stream = (hs_stream){
        .ctx = e, .read = shm_read, .writev = shm_writev, .relay = shm_relay, .close = shm_close, .transport = "shm"};
    return e;
}

static hs_status map_segment(shm_end *e, int memfd, uint64_t ring_bytes, hs_error *err) {
    e->map_bytes = SHM_HEADER_BYTES + 2 * ring_bytes;
    /* Populated up front: a ring page first touched mid-message costs a fault on each side (a 64 KiB echo
     * measured 189 us instead of ~50 while the 1 MiB ring was still being faulted in). */
    void *m = mmap(NULL, e->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, memfd, 0);
    if (m == MAP_FAILED) return hs_fail(err, HS_ERR_NOMEM, "shm: mmap of %zu bytes: %s", e->map_bytes, strerror(errno));
    e->hdr = m;
    e->cap = ring_bytes;
    e->data[0] = (unsigned char *)m + SHM_HEADER_BYTES;
    e->data[1] = e->data[0] + ring_bytes;
    return HS_OK;
}

static hs_status peer_uid_check(int sock, pid_t *pid, hs_error *err) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return hs_fail(err, HS_ERR_USAGE, "shm: SO_PEERCRED: %s", strerror(errno));
    if (cred.uid != geteuid())
        return hs_fail(err, HS_ERR_USAGE, "shm: refused a peer of uid %u (pid %d): only uid %u may connect",
                       (unsigned)cred.uid, (int)cred.pid, (unsigned)geteuid());
    *pid = cred.pid;
    return HS_OK;
}

/* ---- server side ---------------------------------------------------------------------------------- */

static hs_status stale_socket_check(const char *path, hs_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? HS_OK : hs_fail(err, HS_ERR_USAGE, "shm: %s: %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
        return hs_fail(err, HS_ERR_USAGE, "shm: %s exists and is not a socket of ours; refusing to replace it", path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return hs_fail(err, HS_ERR_USAGE, "shm: socket: %s", strerror(errno));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    int rc = connect(s, (struct sockaddr *)&a, sizeof a), why = errno;
    close(s);
    if (rc == 0) return hs_fail(err, HS_ERR_USAGE, "shm: a server is already listening on %s", path);
    if (why != ECONNREFUSED)
        return hs_fail(err, HS_ERR_USAGE, "shm: %s: cannot tell whether it is stale (%s)", path, strerror(why));
    unlink(path); /* a stale socket of our own: its server is gone */
    return HS_OK;
}

hs_status hs_shm_listen(const char *name, const hs_shm_options *opt, hs_shm_listener **out, hs_error *err) {
    *out = NULL;
    hs_shm_listener *l = calloc(1, sizeof *l);
    if (!l) return hs_fail(err, HS_ERR_NOMEM, "shm: out of memory");
    l->fd = -1;
    hs_status st = resolve_options(opt, &l->opt, err);
    if (st == HS_OK) st = hs_shm_path(name, l->path, sizeof l->path, 1, err);
    if (st == HS_OK) st = stale_socket_check(l->path, err);
    if (st != HS_OK) return free(l), st;
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, l->path, strlen(l->path) + 1);
    /* Linux creates the socket file with the socket inode's mode (minus umask): set 0600 before bind so
     * the file is never open to others, not even for a moment. */
    struct stat sb;
    if (l->fd < 0 || fchmod(l->fd, 0600) != 0 || bind(l->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        chmod(l->path, 0600) != 0 || listen(l->fd, SOMAXCONN) != 0 || lstat(l->path, &sb) != 0) {
        st = hs_fail(err, HS_ERR_USAGE, "shm: cannot listen on %s: %s", l->path, strerror(errno));
        close_fds(&l->fd, 1);
        free(l);
        return st;
    }
    l->ino = sb.st_ino;
    l->dev = sb.st_dev;
    *out = l;
    return HS_OK;
}

int hs_shm_listener_fd(const hs_shm_listener *l) { return l ? l->fd : -1; }

void hs_shm_listener_close(hs_shm_listener *l) {
    if (!l) return;
    struct stat st; /* remove the file only if it is still ours (not a later server's) */
    if (lstat(l->path, &st) == 0 && st.st_ino == l->ino && st.st_dev == l->dev) unlink(l->path);
    close_fds(&l->fd, 1);
    free(l);
}

static hs_status make_segment(shm_end *e, uint64_t ring_bytes, int *memfd, hs_error *err) {
    *memfd = memfd_create("hmasweep-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (*memfd < 0) return hs_fail(err, HS_ERR_NOMEM, "shm: memfd_create: %s", strerror(errno));
    size_t bytes = SHM_HEADER_BYTES + 2 * ring_bytes;
    if (fchmod(*memfd, 0600) != 0 || ftruncate(*memfd, (off_t)bytes) != 0 ||
        fcntl(*memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        return hs_fail(err, HS_ERR_NOMEM, "shm: sizing and sealing the segment (%zu bytes): %s", bytes, strerror(errno));
    hs_status st = map_segment(e, *memfd, ring_bytes, err);
    if (st != HS_OK) return st;
    e->hdr->magic = SHM_MAGIC;
    e->hdr->version = SHM_VERSION;
    e->hdr->ring_bytes = ring_bytes;
    for (int i = 0; i < 2; i++) atomic_init(&e->hdr->side[i].cpu, -1);
    for (int i = 0; i < SHM_N_EVENTFDS; i++)
        if ((e->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
            return hs_fail(err, HS_ERR_NOMEM, "shm: eventfd: %s", strerror(errno));
    return HS_OK;
}

static hs_status send_segment(shm_end *e, int memfd, uint64_t ring_bytes, hs_error *err) {
    shm_hello h = {.magic = SHM_MAGIC, .version = SHM_VERSION, .ring_bytes = ring_bytes, .map_bytes = e->map_bytes};
    int fds[1 + SHM_N_EVENTFDS] = {memfd};
    memcpy(fds + 1, e->efd, sizeof e->efd);
    union {
        char buf[CMSG_SPACE(sizeof fds)];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = {.iov_base = &h, .iov_len = sizeof h};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(e->sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof h)
        return hs_fail(err, HS_ERR_USAGE, "shm: sending the segment to pid %d: %s", (int)e->peer_pid, strerror(errno));
    return HS_OK;
}

hs_status hs_shm_accept(hs_shm_listener *l, int timeout_ms, hs_stream **out, hs_error *err) {
    *out = NULL;
    struct pollfd p = {.fd = l->fd, .events = POLLIN};
    int r = poll(&p, 1, timeout_ms);
    if (r == 0 || (r < 0 && errno == EINTR)) return HS_OK;
    if (r < 0) return hs_fail(err, HS_ERR_USAGE, "shm: poll on %s: %s", l->path, strerror(errno));
    int sock = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return errno == EAGAIN || errno == ECONNABORTED || errno == EINTR
                   ? HS_OK
                   : hs_fail(err, HS_ERR_USAGE, "shm: accept on %s: %s", l->path, strerror(errno));
    shm_end *e = new_end(sock, 1, &l->opt);
    if (!e) return close(sock), hs_fail(err, HS_ERR_NOMEM, "shm: out of memory");
    int memfd = -1;
    hs_status st = peer_uid_check(sock, &e->peer_pid, err);
    if (st == HS_OK) st = make_segment(e, l->opt.ring_bytes, &memfd, err);
    if (st == HS_OK) st = send_segment(e, memfd, l->opt.ring_bytes, err);
    close_fds(&memfd, 1); /* the mapping keeps the segment alive */
    if (st != HS_OK) return shm_close(e), st;
    snprintf(e->stream.peer, sizeof e->stream.peer, "shm pid %d", (int)e->peer_pid);
    *out = &e->stream;
    return HS_OK;
}

/* ---- client side ---------------------------------------------------------------------------------- */

/* Receive the hello and its fds; every fd that came is either kept or closed, whatever goes wrong. */
static hs_status receive_segment(shm_end *e, int timeout_ms, int *memfd, shm_hello *h, hs_error *err) {
    struct pollfd p = {.fd = e->sock, .events = POLLIN};
    int r;
    do r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    if (r == 0) return hs_fail(err, HS_ERR_IO, "shm: the server sent no segment within %d ms", timeout_ms);
    union {
        char buf[CMSG_SPACE(sizeof(int) * (1 + SHM_N_EVENTFDS + 4))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = h, .iov_len = sizeof *h};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t got = recvmsg(e->sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    int fds[1 + SHM_N_EVENTFDS + 4], nfds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k && nfds < (int)(sizeof fds / sizeof *fds); i++)
                memcpy(&fds[nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        }
    if (got != (ssize_t)sizeof *h || nfds != 1 + SHM_N_EVENTFDS || (m.msg_flags & MSG_CTRUNC) || h->magic != SHM_MAGIC ||
        h->version != SHM_VERSION) {
        close_fds(fds, nfds);
        if (got < 0) return hs_fail(err, HS_ERR_IO, "shm: receiving the segment: %s", strerror(errno));
        return hs_fail(err, HS_ERR_USAGE, "shm: the server's hello is not an hmasweep shm v%u segment (%zd bytes, %d fds)",
                       SHM_VERSION, got, nfds);
    }
    *memfd = fds[0];
    memcpy(e->efd, fds + 1, sizeof e->efd);
    return HS_OK;
}

/* Trust nothing in the hello that the kernel can check: the size, the seals, the header. */
static hs_status check_segment(int memfd, const shm_hello *h, hs_error *err) {
    struct stat st;
    uint64_t r = h->ring_bytes;
    if (r < SHM_MIN_RING || r > SHM_MAX_RING || (r & (r - 1)) || h->map_bytes != SHM_HEADER_BYTES + 2 * r)
        return hs_fail(err, HS_ERR_USAGE, "shm: the server's ring size %llu is impossible", (unsigned long long)r);
    if (fstat(memfd, &st) != 0 || (uint64_t)st.st_size != h->map_bytes)
        return hs_fail(err, HS_ERR_USAGE, "shm: the segment is not %llu bytes", (unsigned long long)h->map_bytes);
    int seals = fcntl(memfd, F_GET_SEALS);
    if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
        return hs_fail(err, HS_ERR_USAGE, "shm: the segment is not sealed against resizing");
    return HS_OK;
}

hs_status hs_shm_connect(const char *name, const hs_shm_options *opt, int timeout_ms, hs_stream **out, hs_error *err) {
    *out = NULL;
    hs_shm_options o;
    hs_shm_options copt = {.ring_bytes = 0, .spin_us = opt ? opt->spin_us : -1};
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    hs_status st = resolve_options(&copt, &o, err);
    if (st == HS_OK) st = hs_shm_path(name, path, sizeof path, 0, err);
    if (st != HS_OK) return st;
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return hs_fail(err, HS_ERR_IO, "shm: socket: %s", strerror(errno));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) + 1);
    if (connect(sock, (struct sockaddr *)&a, sizeof a) != 0) {
        st = hs_fail(err, HS_ERR_IO, "shm: cannot connect to %s: %s", path, strerror(errno));
        return close(sock), st;
    }
    shm_end *e = new_end(sock, 0, &o);
    if (!e) return close(sock), hs_fail(err, HS_ERR_NOMEM, "shm: out of memory");
    int memfd = -1;
    shm_hello h;
    st = peer_uid_check(sock, &e->peer_pid, err);
    if (st == HS_OK) st = receive_segment(e, timeout_ms, &memfd, &h, err);
    if (st == HS_OK) st = check_segment(memfd, &h, err);
    if (st == HS_OK) st = map_segment(e, memfd, h.ring_bytes, err);
    close_fds(&memfd, 1);
    if (st == HS_OK && (e->hdr->magic != SHM_MAGIC || e->hdr->ring_bytes != h.ring_bytes))
        st = hs_fail(err, HS_ERR_USAGE, "shm: the segment's header does not match the server's hello");
    if (st != HS_OK) {
        if (e->hdr) munmap(e->hdr, e->map_bytes), e->hdr = NULL;
        return shm_close(e), st;
    }
    snprintf(e->stream.peer, sizeof e->stream.peer, "shm server pid %d", (int)e->peer_pid);
    *out = &e->stream;
    return HS_OK;
}

/* ---- the transport table's entry (transport.h): shm:NAME with the default ring and spin ------------ */

static hs_status shm_listen_entry(const char *name, const hs_listen_options *opt, hs_listener *l, hs_error *err) {
    (void)opt;
    memset(l, 0, sizeof *l);
    l->fd = -1;
    hs_shm_listener *sl;
    hs_status st = hs_shm_listen(name, NULL, &sl, err);
    if (st != HS_OK) return st;
    l->t = &hs_transport_shm;
    l->impl = sl;
    l->fd = sl->fd;
    l->same_user = 1; /* accept checks the peer's uid (SO_PEERCRED) */
    snprintf(l->url, sizeof l->url, "shm:%s", name);
    return HS_OK;
}

/* The handshake never blocks (the segment goes out with MSG_DONTWAIT), so a slow client cannot stall
 * the server's accept loop. */
static hs_status shm_accept_entry(hs_listener *l, hs_stream **out, hs_error *err) {
    return hs_shm_accept(l->impl, 0, out, err);
}

static void shm_close_entry(hs_listener *l) {
    hs_shm_listener_close(l->impl);
    l->impl = NULL, l->fd = -1;
}

static hs_status shm_connect_entry(const char *name, int timeout_ms, hs_stream **out, hs_error *err) {
    return hs_shm_connect(name, NULL, timeout_ms, out, err);
}

const hs_transport hs_transport_shm = {"shm:", "shm:NAME", shm_listen_entry, shm_accept_entry, shm_close_entry,
                                       shm_connect_entry};
