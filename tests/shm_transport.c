/* The shared-memory transport (src/engine/transport_shm.h): round trips of every size around the ring's,
 * messages far bigger than the ring, several clients of one listener, a peer killed mid-message in each
 * direction (a clear error, never a hang), timeouts, clean close, the segment's and socket's
 * permissions, and the ECHO relay (ring to ring: data intact while the body arrives in pieces; refused
 * with nothing moved when the reply would not fit; an error when the client closes mid-body).  No timing
 * is asserted: every wait has a generous bound and the check is which result came back (data, EOF,
 * error or timeout). */
#define _GNU_SOURCE
#include "check.h"
#include "transport.h"
#include "transport_shm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_MS 20000 /* "no hang" bound: far above any honest wait, far below ctest's timeout */
#define SMALL_RING 4096

static char g_dir[64];

/* The engine's full-read/full-write (transport.h), returning what moved: a short count first when the
 * stream ends or fails part way (the next call then returns the EOF or error itself). */
static ssize_t read_all(hs_stream *s, void *buf, size_t n, int timeout_ms) {
    size_t got = 0;
    int rc = hs_stream_read_full(s, buf, n, hs_now_ms() + timeout_ms, &got);
    return got ? (ssize_t)got : rc == 1 ? 0 : rc;
}

static ssize_t write_all(hs_stream *s, const struct iovec *iov_in, int iovcnt, int timeout_ms) {
    struct iovec iov[4];
    size_t total = 0;
    memcpy(iov, iov_in, sizeof *iov * (size_t)iovcnt);
    for (int i = 0; i < iovcnt; i++) total += iov[i].iov_len;
    int rc = hs_stream_write_full(s, iov, iovcnt, hs_now_ms() + timeout_ms);
    return rc == 0 ? (ssize_t)total : rc;
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 9));
}

static hs_shm_listener *listen_on(const char *name, const hs_shm_options *opt) {
    hs_error err = {{0}};
    hs_shm_listener *l = NULL;
    CHECK(hs_shm_listen(name, opt, &l, &err) == HS_OK, "listen %s: %s", name, err.msg);
    return l;
}

/* In one process the accept must run beside the connect: the client waits for the server's segment. */
typedef struct {
    hs_shm_listener *l;
    hs_stream *s;
    hs_status st;
    hs_error err;
} accept_job;

static void *accept_one(void *arg) {
    accept_job *a = arg;
    a->st = hs_shm_accept(a->l, WAIT_MS, &a->s, &a->err);
    return NULL;
}

static void connect_pair(hs_shm_listener *l, const char *name, const hs_shm_options *opt, hs_stream **c, hs_stream **s) {
    accept_job a = {.l = l};
    hs_error err = {{0}};
    pthread_t th;
    pthread_create(&th, NULL, accept_one, &a);
    CHECK(hs_shm_connect(name, opt, WAIT_MS, c, &err) == HS_OK, "connect: %s", err.msg);
    pthread_join(th, NULL);
    CHECK(a.st == HS_OK && a.s, "accept: %s", a.err.msg);
    *s = a.s;
}

/* ---- a framed echo server, as the real server reads: the whole request, then the whole reply ------- */

typedef struct {
    hs_stream *s;
    int frames;       /* echoed */
    int ended_clean;  /* read 0 at a frame boundary */
    ssize_t last;     /* the read/write result that ended the loop */
    char error[160];
} echo_job;

static void *echo_frames(void *arg) {
    echo_job *j = arg;
    for (;;) {
        uint32_t len;
        ssize_t r = read_all(j->s, &len, 4, WAIT_MS);
        if (r != 4) {
            j->ended_clean = r == 0;
            j->last = r;
            break;
        }
        unsigned char *body = malloc(len ? len : 1);
        r = body ? read_all(j->s, body, len, WAIT_MS) : HS_STREAM_ERROR;
        if (r != (ssize_t)len) {
            j->last = r;
            free(body);
            break;
        }
        struct iovec iov[2] = {{&len, 4}, {body, len}};
        r = write_all(j->s, iov, 2, WAIT_MS);
        free(body);
        if (r != (ssize_t)len + 4) {
            j->last = r;
            break;
        }
        j->frames++;
    }
    snprintf(j->error, sizeof j->error, "%s", hs_shm_stream_error(j->s));
    j->s->close(j->s->ctx);
    return NULL;
}

/* Send one frame of n bytes and check the echo, bit for bit. */
static void round_trip(hs_stream *c, size_t n, unsigned seed) {
    unsigned char *out = malloc(n + 1), *back = malloc(n + 1);
    fill(out, n, seed);
    uint32_t len = (uint32_t)n, rlen = 0;
    struct iovec iov[2] = {{&len, 4}, {out, n}};
    CHECK_EQ_I(write_all(c, iov, 2, WAIT_MS), n + 4);
    CHECK_EQ_I(read_all(c, &rlen, 4, WAIT_MS), 4);
    CHECK_EQ_I(rlen, n);
    CHECK_EQ_I(read_all(c, back, n, WAIT_MS), (ssize_t)n);
    CHECK(memcmp(out, back, n) == 0, "echo of %zu bytes differs", n);
    free(out);
    free(back);
}

static void test_round_trips(void) {
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 20};
    hs_shm_listener *l = listen_on("rt", &opt);
    if (!l) return;
    enum { N_CLIENTS = 3 };
    hs_stream *c[N_CLIENTS] = {0};
    echo_job job[N_CLIENTS] = {{0}};
    pthread_t th[N_CLIENTS];
    for (int i = 0; i < N_CLIENTS; i++) {
        connect_pair(l, "rt", &opt, &c[i], &job[i].s);
        if (!c[i] || !job[i].s) return;
        CHECK(strcmp(c[i]->transport, "shm") == 0 && strstr(job[i].s->peer, "pid"), "peer '%s'", job[i].s->peer);
        pthread_create(&th[i], NULL, echo_frames, &job[i]);
    }
    /* Sizes around the ring's (4 KiB, with the 4-byte prefix) and far past it: 1.2 MB is the default
     * series' echo.  Clients interleave so the listener's streams are independent. */
    size_t sizes[] = {0, 1, 8, 4091, 4092, 4093, 4096, 8191, 65537, 1200000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int i = 0; i < N_CLIENTS; i++) round_trip(c[i], sizes[k], (unsigned)(k * 10 + i));
    for (int i = 0; i < 200; i++) round_trip(c[i % N_CLIENTS], 8, (unsigned)i); /* the 8-byte floor, many times */
    for (int i = 0; i < N_CLIENTS; i++) {
        c[i]->close(c[i]->ctx);
        pthread_join(th[i], NULL);
        CHECK(job[i].ended_clean, "client %d: the server saw %zd (%s), not a clean EOF", i, job[i].last, job[i].error);
        CHECK_EQ_I(job[i].frames, (int)(sizeof sizes / sizeof *sizes) + 200 / N_CLIENTS + (i < 200 % N_CLIENTS));
    }
    hs_shm_listener_close(l);
}

static void test_timeout_and_close(void) {
    hs_error err = {{0}};
    hs_stream *c = NULL, *s = NULL;
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 0};
    hs_shm_listener *l = listen_on("tc", &opt);
    if (!l) return;
    connect_pair(l, "tc", &opt, &c, &s);
    if (!c || !s) return;
    char b[16];
    CHECK_EQ_I(s->read(s->ctx, b, sizeof b, 30), HS_STREAM_TIMEOUT);
    /* A full ring and a reader that never reads: the writer times out instead of blocking. */
    static unsigned char big[3 * SMALL_RING];
    struct iovec iov = {big, sizeof big};
    CHECK_EQ_I(c->writev(c->ctx, &iov, 1, 30), SMALL_RING);
    CHECK_EQ_I(c->writev(c->ctx, &iov, 1, 30), HS_STREAM_TIMEOUT);
    /* A clean close: the peer reads what was sent, then EOF; its writes then fail, naming why. */
    c->close(c->ctx);
    CHECK_EQ_I(read_all(s, big, SMALL_RING, WAIT_MS), SMALL_RING);
    CHECK_EQ_I(s->read(s->ctx, b, sizeof b, WAIT_MS), 0);
    iov.iov_len = 8;
    CHECK_EQ_I(s->writev(s->ctx, &iov, 1, WAIT_MS), HS_STREAM_ERROR);
    CHECK(strstr(hs_shm_stream_error(s), "closed"), "'%s'", hs_shm_stream_error(s));
    s->close(s->ctx);
    /* No accept waiting: the timeout gives no stream and no error. */
    hs_stream *none = (hs_stream *)1;
    CHECK(hs_shm_accept(l, 10, &none, &err) == HS_OK && none == NULL, "accept with nobody waiting");
    hs_shm_listener_close(l);
}

/* ---- a peer killed mid-message ---------------------------------------------------------------------- */

static void wait_child(pid_t pid) {
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
          "the child %d was to die of SIGKILL (status %d)", (int)pid, status);
}

/* The client sends half of a frame and is killed: the server reads the half, then gets an error that
 * names the dead peer (not EOF, not a timeout, not a hang). */
static void test_client_killed_mid_request(void) {
    hs_error err = {{0}};
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 20};
    hs_shm_listener *l = listen_on("kc", &opt);
    if (!l) return;
    pid_t pid = fork();
    if (pid == 0) {
        hs_stream *c = NULL;
        if (hs_shm_connect("kc", &opt, WAIT_MS, &c, &err) != HS_OK) _exit(3);
        static unsigned char half[50000];
        uint32_t len = 100000;
        struct iovec iov[2] = {{&len, 4}, {half, sizeof half}};
        write_all(c, iov, 2, WAIT_MS);
        raise(SIGKILL);
        _exit(4);
    }
    hs_stream *s = NULL;
    CHECK(hs_shm_accept(l, WAIT_MS, &s, &err) == HS_OK && s, "%s", err.msg);
    if (s) {
        uint32_t len = 0;
        static unsigned char body[100000];
        CHECK_EQ_I(read_all(s, &len, 4, WAIT_MS), 4);
        ssize_t r = read_all(s, body, len, WAIT_MS);
        CHECK_EQ_I(r, 50000); /* the bytes that were sent arrive; then the error */
        CHECK_EQ_I(s->read(s->ctx, body, 1, WAIT_MS), HS_STREAM_ERROR);
        CHECK(strstr(hs_shm_stream_error(s), "went away"), "'%s'", hs_shm_stream_error(s));
        /* A write towards the dead peer: taken while the ring has room, then an error, never a hang. */
        struct iovec iov = {body, sizeof body};
        ssize_t w = write_all(s, &iov, 1, WAIT_MS);
        CHECK_EQ_I(w, HS_STREAM_ERROR);
        s->close(s->ctx);
    }
    wait_child(pid);
    hs_shm_listener_close(l);
}

/* The server dies in each of two places: halfway through a reply (the client's read fails), and while
 * the client is blocked on a full request ring (the client's write fails). */
static void test_server_killed(int mid_reply) {
    hs_error err = {{0}};
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 20};
    const char *name = mid_reply ? "ks1" : "ks2";
    hs_shm_listener *l = listen_on(name, &opt);
    if (!l) return;
    int go[2];
    CHECK(pipe(go) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        hs_stream *s = NULL;
        if (hs_shm_accept(l, WAIT_MS, &s, &err) != HS_OK || !s) _exit(3);
        if (mid_reply) {
            uint32_t len;
            static unsigned char half[30000];
            if (read_all(s, &len, 4, WAIT_MS) != 4) _exit(5);
            len = 60000;
            struct iovec iov[2] = {{&len, 4}, {half, sizeof half}};
            write_all(s, iov, 2, WAIT_MS);
        } else {
            char c;
            if (read(go[0], &c, 1) != 1) _exit(6); /* the client is now blocked on the full ring */
        }
        raise(SIGKILL);
        _exit(4);
    }
    close(go[0]);
    hs_stream *c = NULL;
    CHECK(hs_shm_connect(name, &opt, WAIT_MS, &c, &err) == HS_OK, "%s", err.msg);
    hs_shm_listener_close(l);
    if (c) {
        if (mid_reply) {
            uint32_t len = 0, rlen = 0;
            static unsigned char body[60000];
            struct iovec iov = {&len, 4};
            CHECK_EQ_I(write_all(c, &iov, 1, WAIT_MS), 4);
            CHECK_EQ_I(read_all(c, &rlen, 4, WAIT_MS), 4);
            CHECK_EQ_I(read_all(c, body, rlen, WAIT_MS), 30000);
            CHECK_EQ_I(c->read(c->ctx, body, 1, WAIT_MS), HS_STREAM_ERROR);
        } else {
            static unsigned char big[1 << 20];
            struct iovec iov = {big, SMALL_RING};
            CHECK_EQ_I(write_all(c, &iov, 1, WAIT_MS), SMALL_RING); /* fills the ring */
            CHECK(write(go[1], "x", 1) == 1, "pipe");
            iov.iov_len = sizeof big;
            CHECK_EQ_I(write_all(c, &iov, 1, WAIT_MS), HS_STREAM_ERROR);
        }
        CHECK(strstr(hs_shm_stream_error(c), "went away"), "'%s'", hs_shm_stream_error(c));
        c->close(c->ctx);
    }
    close(go[1]);
    wait_child(pid);
}

/* ---- permissions, names, options -------------------------------------------------------------------- */

/* How many memfd segments this process holds open as fds (each side closes its fd once mapped). */
static int count_memfd_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int found = 0;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char link[300], target[128];
        snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) target[n] = 0;
        found += n > 0 && strstr(target, "memfd:hmasweep-shm") != NULL;
    }
    if (d) closedir(d);
    return found;
}

static void test_permissions(void) {
    hs_error err = {{0}};
    char path[128];
    CHECK(hs_shm_path("perm", path, sizeof path, 1, &err) == HS_OK, "%s", err.msg);
    struct stat st;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/hmasweep-shm", g_dir);
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "the rendezvous folder's mode %03o", (unsigned)(st.st_mode & 0777));
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 0};
    hs_shm_listener *l = listen_on("perm", &opt);
    if (!l) return;
    CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0600, "socket mode %03o",
          (unsigned)(st.st_mode & 0777));
    hs_stream *c = NULL, *s = NULL;
    connect_pair(l, "perm", &opt, &c, &s);
    CHECK_EQ_I(count_memfd_fds(), 0); /* no segment fd left open on either side: only the mappings */
    /* Another user cannot reach the socket (checked when we can become one: as root). */
    if (geteuid() == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            hs_stream *x = NULL;
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(9);
            _exit(hs_shm_connect("perm", &opt, 2000, &x, &err) == HS_OK ? 1 : 0);
        }
        int status = -1;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "another uid connected (status %d)", status);
    } else {
        printf("shm_transport: not root, so the other-uid refusal is not exercised\n");
    }
    if (c) c->close(c->ctx);
    if (s) s->close(s->ctx);
    hs_shm_listener_close(l);
    CHECK(lstat(path, &st) != 0, "the listener's socket file must be gone after close");
}

/* The segment is a memfd of mode 0600, sealed against resizing (a peer cannot truncate it and SIGBUS
 * the other side).  No fd of it is left open, so reach it through /proc/self/map_files (root only). */
static void test_segment_is_private(void) {
    hs_error err = {{0}};
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 0};
    hs_shm_listener *l = listen_on("seg", &opt);
    if (!l) return;
    pid_t pid = fork();
    if (pid == 0) {
        hs_stream *c = NULL;
        if (hs_shm_connect("seg", &opt, WAIT_MS, &c, &err) != HS_OK) _exit(3);
        char b;
        c->read(c->ctx, &b, 1, WAIT_MS); /* until the parent closes */
        _exit(0);
    }
    hs_stream *s = NULL;
    CHECK(hs_shm_accept(l, WAIT_MS, &s, &err) == HS_OK && s, "%s", err.msg);
    FILE *m = fopen("/proc/self/maps", "r");
    char line[512], mapped[64] = "";
    while (m && fgets(line, sizeof line, m))
        if (strstr(line, "memfd:hmasweep-shm")) {
            unsigned long a, b;
            if (sscanf(line, "%lx-%lx", &a, &b) == 2) snprintf(mapped, sizeof mapped, "/proc/self/map_files/%lx-%lx", a, b);
            break;
        }
    if (m) fclose(m);
    CHECK(mapped[0], "the segment is mapped as a memfd");
    int fd = mapped[0] ? open(mapped, O_RDWR) : -1;
    if (fd >= 0) {
        struct stat st;
        CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600, "segment mode %03o", (unsigned)(st.st_mode & 0777));
        int seals = fcntl(fd, F_GET_SEALS);
        CHECK(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL), "seals %d", seals);
        CHECK(ftruncate(fd, 4096) != 0, "the segment must refuse to shrink");
        close(fd);
    } else {
        printf("shm_transport: %s not openable here (%s); mode and seals not inspected\n", mapped, strerror(errno));
    }
    if (s) s->close(s->ctx);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client status %d", status);
    hs_shm_listener_close(l);
}

static void test_bad_input(void) {
    hs_error err = {{0}};
    hs_shm_listener *l = NULL, *l2 = NULL;
    hs_stream *c = NULL;
    hs_shm_options bad = {.ring_bytes = 5000, .spin_us = 0};
    CHECK(hs_shm_listen("bad", &bad, &l, &err) == HS_ERR_USAGE && strstr(err.msg, "power of two"), "%s", err.msg);
    CHECK(hs_shm_listen("a b", NULL, &l, &err) == HS_ERR_USAGE && strstr(err.msg, "letters"), "%s", err.msg);
    CHECK(hs_shm_listen("", NULL, &l, &err) == HS_ERR_USAGE, "empty name");
    CHECK(hs_shm_connect("nobody", NULL, 100, &c, &err) == HS_ERR_IO && strstr(err.msg, "connect"), "%s", err.msg);
    /* A path that is not a socket of ours is never replaced. */
    char file[128];
    snprintf(file, sizeof file, "%s/plain-file", g_dir);
    FILE *f = fopen(file, "w");
    if (f) fclose(f);
    CHECK(hs_shm_listen(file, NULL, &l, &err) == HS_ERR_USAGE && strstr(err.msg, "refusing"), "%s", err.msg);
    CHECK(access(file, F_OK) == 0, "the file is still there");
    /* A live listener is not replaced; a stale one (its server gone) is. */
    CHECK(hs_shm_listen("twice", NULL, &l, &err) == HS_OK, "%s", err.msg);
    CHECK(hs_shm_listen("twice", NULL, &l2, &err) == HS_ERR_USAGE && strstr(err.msg, "already listening"), "%s", err.msg);
    hs_shm_listener_close(l);
    pid_t pid = fork(); /* a server killed without cleaning up: its socket file stays behind */
    if (pid == 0) {
        if (hs_shm_listen("stale", NULL, &l, &err) == HS_OK) raise(SIGKILL);
        _exit(3);
    }
    wait_child(pid);
    CHECK(hs_shm_listen("stale", NULL, &l2, &err) == HS_OK, "a stale socket is replaced: %s", err.msg);
    hs_shm_listener_close(l2);
}

/* ---- relay: the server's ECHO reply copied ring to ring (stream.h) ---------------------------------- */

/* The threads below only record what happened; main checks it (the check counters are not atomic). */
typedef struct {
    hs_stream *c;
    const unsigned char *p;
    size_t n;
    int failed;
} pieces_job;

/* The client writes its body in three pieces, pausing between them: the relay must wait for each. */
static void *write_pieces(void *arg) {
    pieces_job *j = arg;
    for (size_t at = 0, step = j->n / 3 + 1; at < j->n; at += step) {
        struct iovec iov = {(void *)(j->p + at), at + step < j->n ? step : j->n - at};
        j->failed += write_all(j->c, &iov, 1, WAIT_MS) != (ssize_t)iov.iov_len;
        usleep(2000);
    }
    return NULL;
}

/* Once the relay has started (its lead bytes arrived), send half the body and close. */
static void *write_half_then_close(void *arg) {
    pieces_job *j = arg;
    unsigned char lead[4];
    struct iovec iov = {(void *)j->p, j->n};
    j->failed += read_all(j->c, lead, 4, WAIT_MS) != 4;
    j->failed += write_all(j->c, &iov, 1, WAIT_MS) != (ssize_t)j->n;
    j->c->close(j->c->ctx);
    return NULL;
}

static void test_relay(void) {
    hs_shm_options opt = {.ring_bytes = SMALL_RING, .spin_us = 20};
    hs_shm_listener *l = listen_on("relay", &opt);
    hs_stream *c = NULL, *s = NULL;
    connect_pair(l, "relay", &opt, &c, &s);
    if (!c || !s) return;
    CHECK(s->relay != NULL, "the shm stream offers relay");
    static unsigned char out[3000], back[3000];
    unsigned char lead[4] = {1, 2, 3, 4}, got_lead[4];
    fill(out, sizeof out, 5);
    pieces_job j = {c, out, sizeof out, 0};
    pthread_t th;
    pthread_create(&th, NULL, write_pieces, &j);
    CHECK_EQ_I(s->relay(s->ctx, lead, 4, sizeof out, WAIT_MS), 4 + (ssize_t)sizeof out);
    pthread_join(th, NULL);
    CHECK(j.failed == 0, "the client's pieces were not all written");
    CHECK_EQ_I(read_all(c, got_lead, 4, WAIT_MS), 4);
    CHECK_EQ_I(read_all(c, back, sizeof back, WAIT_MS), (ssize_t)sizeof back);
    CHECK(memcmp(got_lead, lead, 4) == 0 && memcmp(back, out, sizeof out) == 0, "relayed bytes differ");
    /* no room for the whole reply: nothing moves, the caller reads and writes instead */
    CHECK_EQ_I(s->relay(s->ctx, lead, 4, SMALL_RING, WAIT_MS), 0);
    CHECK_EQ_I(c->read(c->ctx, got_lead, 1, 0), HS_STREAM_TIMEOUT);
    /* the client closes part way through its body: an error naming it, not a hang */
    pieces_job half = {c, out, 1000, 0};
    pthread_create(&th, NULL, write_half_then_close, &half);
    CHECK_EQ_I(s->relay(s->ctx, lead, 4, 2000, WAIT_MS), HS_STREAM_ERROR);
    pthread_join(th, NULL);
    CHECK(half.failed == 0, "the client's half body was not written");
    CHECK(strstr(hs_shm_stream_error(s), "middle of a frame") != NULL, "relay error: '%s'", hs_shm_stream_error(s));
    s->close(s->ctx);
    hs_shm_listener_close(l);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    snprintf(g_dir, sizeof g_dir, "/tmp/hs-shm-test-XXXXXX");
    if (!mkdtemp(g_dir)) return perror("mkdtemp"), 1;
    setenv("XDG_RUNTIME_DIR", g_dir, 1);
    test_permissions();
    test_segment_is_private();
    test_bad_input();
    test_timeout_and_close();
    test_client_killed_mid_request();
    test_server_killed(1);
    test_server_killed(0);
    test_round_trips();
    test_relay();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    return hs_check_summary("shm_transport");
}
