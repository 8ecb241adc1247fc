/* prof/shm_bench: the shared-memory transport against a Unix socket, in the same run, pinned.
 *
 *   shm_bench [--reps R] [--n N] [--big BYTES] [--quick]
 *
 * Two processes: a framed echo server (fork) and this client, each pinned with sched_setaffinity to a
 * placement: "same vCPU" (both on cpu A) or "two vCPUs" (client A, server B).  For each repetition the
 * placements and transports are interleaved, so a noisy neighbour hits every row alike.  Rows:
 *   shm           the transport as shipped (spin HS_SHM_DEFAULT_SPIN_US, then sleep on the doorbell)
 *   shm-nospin    spin 0: every wait sleeps, every message is a wake-up (the VM's trap, measured)
 *   unix          a SOCK_STREAM Unix socket (socketpair), plain blocking read/writev: the best case
 *   unix-engine   the same socket through the engine's fd stream (transport.h: poll, then read), as
 *                 `hmasweep serve --unix` runs it
 * The same through `hmasweep serve` and the C client, shm beside unix and tcp: prof/engine_bench.
 * Figures: the 8-byte echo's round trip p50/p99 (medians over repetitions, with min-max), the big
 * echo's round trip and effective bandwidth (2 x BYTES moved per round trip), memcpy of BYTES for
 * scale, and the CPU an idle shm wait costs.  reports/shm.md has a run and how to read it. */
#define _GNU_SOURCE
#include "transport.h"
#include "transport_shm.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 30000

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s);
}

/* ---- a blocking fd stream (the Unix-socket row) ----------------------------------------------------- */

static ssize_t fd_read(void *ctx, void *buf, size_t n, int timeout_ms) {
    ssize_t r;
    do r = read(*(int *)ctx, buf, n);
    while (r < 0 && errno == EINTR);
    return r < 0 ? HS_STREAM_ERROR : r;
}
static ssize_t fd_writev(void *ctx, const struct iovec *iov, int iovcnt, int timeout_ms) {
    ssize_t r;
    do r = writev(*(int *)ctx, iov, iovcnt);
    while (r < 0 && errno == EINTR);
    return r < 0 ? HS_STREAM_ERROR : r;
}
static void fd_close(void *ctx) { close(*(int *)ctx); }

/* ---- framing over any hs_stream --------------------------------------------------------------------- */

static int read_all(hs_stream *s, void *buf, size_t n) { return hs_stream_read_full(s, buf, n, -1, NULL) ? -1 : 0; }

static int write_all(hs_stream *s, struct iovec *iov, int iovcnt) { return hs_stream_write_full(s, iov, iovcnt, -1) ? -1 : 0; }

/* The server: echo frames into one preallocated buffer until EOF. */
static void echo_server(hs_stream *s, size_t max) {
    unsigned char *body = malloc(max);
    uint32_t len;
    while (body && read_all(s, &len, 4) == 0 && len <= max && read_all(s, body, len) == 0) {
        struct iovec iov[2] = {{&len, 4}, {body, len}};
        if (write_all(s, iov, 2) != 0) break;
    }
    free(body);
    s->close(s->ctx);
}

static int echo_once(hs_stream *c, const unsigned char *out, unsigned char *back, uint32_t n) {
    uint32_t len = n, rlen;
    struct iovec iov[2] = {{&len, 4}, {(void *)out, n}};
    if (write_all(c, iov, 2) || read_all(c, &rlen, 4) || rlen != n || read_all(c, back, n)) return -1;
    return 0;
}

/* ---- one measurement: fork a pinned server, run the client pinned, collect round trips -------------- */

typedef enum { T_SHM, T_SHM_NOSPIN, T_UNIX, T_UNIX_ENGINE, T_COUNT } transport;
static const char *t_name[T_COUNT] = {"shm", "shm-nospin", "unix", "unix-engine"};

typedef struct {
    int client_cpu, server_cpu;
    const char *name;
} placement;

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Runs n echoes of `size` bytes; lat[i] = each round trip in ns.  Returns 0 on success. */
static int measure(transport t, placement p, size_t size, int n, int64_t *lat) {
    hs_error err = {{0}};
    hs_stream *c = NULL;
    hs_shm_listener *l = NULL;
    int sv[2] = {-1, -1};
    hs_shm_options opt = {.ring_bytes = 0, .spin_us = t == T_SHM_NOSPIN ? 0 : -1};
    char name[64];
    snprintf(name, sizeof name, "bench-%d", (int)getpid());
    int is_unix = t == T_UNIX || t == T_UNIX_ENGINE;
    if (is_unix ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0
                    : hs_shm_listen(name, &opt, &l, &err) != HS_OK) {
        fprintf(stderr, "shm_bench: setup: %s\n", is_unix ? strerror(errno) : err.msg);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        hs_stream *s = NULL, fs = {.ctx = &sv[1], .read = fd_read, .writev = fd_writev, .close = fd_close};
        pin(p.server_cpu);
        if (is_unix) {
            close(sv[0]);
            s = t == T_UNIX ? &fs : hs_fd_stream(sv[1], sv[1], 1, "unix", "");
        } else if (hs_shm_accept(l, WAIT_MS, &s, &err) != HS_OK || !s) {
            _exit(3);
        }
        echo_server(s, size);
        _exit(0);
    }
    pin(p.client_cpu);
    hs_stream fc = {.ctx = &sv[0], .read = fd_read, .writev = fd_writev, .close = fd_close};
    if (is_unix) {
        close(sv[1]);
        c = t == T_UNIX ? &fc : hs_fd_stream(sv[0], sv[0], 1, "unix", "");
    } else if (hs_shm_connect(name, &opt, WAIT_MS, &c, &err) != HS_OK) {
        fprintf(stderr, "shm_bench: connect: %s\n", err.msg);
    }
    if (l) hs_shm_listener_close(l);
    int rc = c ? 0 : -1;
    unsigned char *out = malloc(size), *back = malloc(size);
    for (size_t i = 0; i < size; i++) out[i] = (unsigned char)(i * 7);
    for (int i = 0; rc == 0 && i < n / 10 + 1; i++) rc = echo_once(c, out, back, (uint32_t)size); /* warm-up */
    for (int i = 0; rc == 0 && i < n; i++) {
        int64_t t0 = now_ns();
        rc = echo_once(c, out, back, (uint32_t)size);
        lat[i] = now_ns() - t0;
    }
    if (rc == 0 && memcmp(out, back, size) != 0) rc = -1, fprintf(stderr, "shm_bench: echo differs\n");
    if (c) c->close(c->ctx);
    int status;
    waitpid(pid, &status, 0);
    free(out);
    free(back);
    return rc;
}

static double pct(int64_t *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    int i = (int)(q * (n - 1) + 0.5);
    return (double)v[i];
}

typedef struct {
    double v[64];
    int n;
} series;

static void add(series *s, double x) {
    if (s->n < 64) s->v[s->n++] = x;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "median [min-max]" */
static void fmt(char *buf, size_t n, series *s, double scale, const char *f) {
    if (!s->n) return (void)snprintf(buf, n, "failed");
    qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_d);
    char m[24], lo[24], hi[24];
    snprintf(m, sizeof m, f, s->v[s->n / 2] * scale);
    snprintf(lo, sizeof lo, f, s->v[0] * scale);
    snprintf(hi, sizeof hi, f, s->v[s->n - 1] * scale);
    snprintf(buf, n, "%s [%s–%s]", m, lo, hi);
}

static double memcpy_ns(size_t size, int reps) {
    unsigned char *a = malloc(size), *b = malloc(size);
    memset(a, 1, size);
    memset(b, 2, size);
    int64_t *t = malloc(sizeof *t * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        int64_t t0 = now_ns();
        memcpy(i & 1 ? a : b, i & 1 ? b : a, size);
        __asm__ __volatile__("" ::"r"(a), "r"(b) : "memory");
        t[i] = now_ns() - t0;
    }
    double m = pct(t, reps, 0.5);
    free(a), free(b), free(t);
    return m;
}

/* ---- the idle cost: a server thread waiting 300 ms for a request that never comes ------------------- */

typedef struct {
    hs_shm_listener *l;
    hs_stream *s;
} acc;

static void *accept_thread(void *arg) {
    acc *a = arg;
    hs_error err;
    hs_shm_accept(a->l, WAIT_MS, &a->s, &err);
    return NULL;
}

static double idle_wait_cpu_us(int wait_ms) {
    hs_error err = {{0}};
    hs_shm_listener *l = NULL;
    hs_stream *c = NULL;
    char name[64];
    snprintf(name, sizeof name, "bench-idle-%d", (int)getpid());
    if (hs_shm_listen(name, NULL, &l, &err) != HS_OK) return -1;
    acc a = {.l = l};
    pthread_t th;
    pthread_create(&th, NULL, accept_thread, &a);
    hs_shm_connect(name, NULL, WAIT_MS, &c, &err);
    pthread_join(th, NULL);
    hs_shm_listener_close(l);
    if (!c || !a.s) return -1;
    struct timespec t0, t1;
    char b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    ssize_t r = a.s->read(a.s->ctx, &b, 1, wait_ms);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    c->close(c->ctx);
    a.s->close(a.s->ctx);
    if (r != HS_STREAM_TIMEOUT) return -1;
    return (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
}

int main(int argc, char **argv) {
    int reps = 5, n = 5000;
    size_t big = 1200000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--big") && i + 1 < argc) big = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) reps = 1, n = 200, big = 65536;
        else return fprintf(stderr, "usage: shm_bench [--reps R] [--n N] [--big BYTES] [--quick]\n"), 2;
    }
    if (reps < 1 || reps > 64 || n < 10 || n > 1000000 || big < 8 || big > ((size_t)64 << 20))
        return fprintf(stderr, "shm_bench: --reps 1..64, --n 10..1e6, --big 8..64 MiB\n"), 2;
    signal(SIGPIPE, SIG_IGN);
    cpu_set_t mine;
    sched_getaffinity(0, sizeof mine, &mine);
    int cpus[2], nc = 0;
    for (int c = 0; c < CPU_SETSIZE && nc < 2; c++)
        if (CPU_ISSET(c, &mine)) cpus[nc++] = c;
    placement pl[2] = {{cpus[0], cpus[0], "same vCPU"}, {cpus[0], nc > 1 ? cpus[1] : cpus[0], "two vCPUs"}};
    int n_pl = nc > 1 ? 2 : 1;
    int big_n = n / 100 > 20 ? n / 100 : 20;
    static series p50[2][T_COUNT], p99[2][T_COUNT], bigrt[2][T_COUNT], mc;
    int64_t *lat = malloc(sizeof *lat * (size_t)(n > big_n ? n : big_n));
    int failed = 0;
    for (int r = 0; r < reps; r++)
        for (int p = 0; p < n_pl; p++)
            for (int t = 0; t < T_COUNT; t++) {
                if (measure((transport)t, pl[p], 8, n, lat) == 0) {
                    add(&p50[p][t], pct(lat, n, 0.50));
                    add(&p99[p][t], pct(lat, n, 0.99));
                } else failed = 1;
                if (t == T_SHM_NOSPIN) continue; /* the big echo: shipped shm vs unix */
                if (measure((transport)t, pl[p], big, big_n, lat) == 0) add(&bigrt[p][t], pct(lat, big_n, 0.50));
                else failed = 1;
                pin(cpus[0]);
                add(&mc, memcpy_ns(big, 50));
            }
    char b1[96], b2[96], b3[96];
    printf("shm_bench: %d repetitions x %d round trips (8-byte echo), %d of %zu bytes; cpus %d,%d; shm spin %d us, "
           "ring %zu bytes\n\n",
           reps, n, big_n, big, cpus[0], nc > 1 ? cpus[1] : cpus[0], HS_SHM_DEFAULT_SPIN_US, HS_SHM_DEFAULT_RING_BYTES);
    printf("| placement (client/server cpu) | transport | 8-byte RTT p50 µs | 8-byte RTT p99 µs |\n|---|---|---|---|\n");
    for (int p = 0; p < n_pl; p++)
        for (int t = 0; t < T_COUNT; t++) {
            fmt(b1, sizeof b1, &p50[p][t], 1e-3, "%.2f");
            fmt(b2, sizeof b2, &p99[p][t], 1e-3, "%.2f");
            printf("| %s (%d/%d) | %s | %s | %s |\n", pl[p].name, pl[p].client_cpu, pl[p].server_cpu, t_name[t], b1, b2);
        }
    fmt(b3, sizeof b3, &mc, 1e-3, "%.1f");
    printf("\nmemcpy of %zu bytes: %s µs\n\n", big, b3);
    printf("| placement | transport | %zu-byte echo RTT µs | effective GB/s (2 x bytes / RTT) |\n|---|---|---|---|\n", big);
    for (int p = 0; p < n_pl; p++)
        for (int t = 0; t < T_COUNT; t++) {
            if (t == T_SHM_NOSPIN) continue;
            fmt(b1, sizeof b1, &bigrt[p][t], 1e-3, "%.0f");
            series bw = {.n = 0};
            for (int i = 0; i < bigrt[p][t].n; i++) add(&bw, 2.0 * (double)big / bigrt[p][t].v[i]);
            fmt(b2, sizeof b2, &bw, 1.0, "%.2f");
            printf("| %s | %s | %s | %s |\n", pl[p].name, t_name[t], b1, b2);
        }
    series mbw = {.n = 0};
    for (int i = 0; i < mc.n; i++) add(&mbw, (double)big / mc.v[i]);
    fmt(b2, sizeof b2, &mbw, 1.0, "%.2f");
    printf("| (one memcpy, same process) | memcpy | %s | %s (bytes / time) |\n", b3, b2);
    pin(cpus[0]);
    printf("\nidle: a shm read on a connection with no traffic, waiting 300 ms, used %.0f µs of CPU (no spin: asleep in poll)\n",
           idle_wait_cpu_us(300));
    free(lat);
    return failed;
}
