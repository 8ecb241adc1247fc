/* shm_relay NAME: carry bytes between stdin/stdout and `hmasweep serve --shm NAME`, so that a test client
 * written in a language without the shared-memory transport (tests/engine/wire_client.py, from docs/spec.md §6
 * alone) can talk over it.  A second thread copies stdin to the server as it comes; this one copies the
 * server's replies to stdout, flushing after each.  Each request and reply is counted by its u32 length
 * prefix (bit 31 of a reply's marks an error reply, docs/protocol.md): once stdin has ended and every
 * whole request has its reply, the relay closes the stream and exits 0.  Exit 1 when the server closed
 * or failed first (what came is still written). */
#define _GNU_SOURCE
#include "transport.h"
#include "transport_shm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPLY ((size_t)1 << 28)
#define SLICE_MS 50 /* how often a reader waiting for the next reply looks whether stdin has ended */

typedef struct {
    hs_stream *s;
    atomic_ulong requests; /* whole requests sent */
    atomic_int input_done, failed;
} relay;

/* stdin -> server, counting whole frames as their bytes pass. */
static void *pump_requests(void *arg) {
    relay *r = arg;
    static unsigned char buf[1 << 16];
    unsigned char prefix[4];
    size_t have_prefix = 0;
    uint64_t left = 0; /* body bytes of the current frame still to pass */
    for (ssize_t n; (n = read(0, buf, sizeof buf)) > 0;) {
        struct iovec iov = {buf, (size_t)n};
        if (hs_stream_write_full(r->s, &iov, 1, hs_now_ms() + 60000)) {
            atomic_store(&r->failed, 1);
            break;
        }
        for (ssize_t i = 0; i < n;) {
            if (have_prefix < 4) {
                prefix[have_prefix++] = buf[i++];
                if (have_prefix == 4) left = (uint64_t)prefix[0] | prefix[1] << 8 | prefix[2] << 16 | (uint64_t)prefix[3] << 24;
            } else {
                size_t k = (size_t)(n - i) < left ? (size_t)(n - i) : (size_t)left;
                i += (ssize_t)k, left -= k;
            }
            if (have_prefix == 4 && left == 0) atomic_fetch_add(&r->requests, 1), have_prefix = 0;
        }
    }
    atomic_store(&r->input_done, 1);
    return NULL;
}

/* Wait for the next reply's prefix; 0 = got it, 1 = nothing more is due, -1 = the stream failed. */
static int next_prefix(relay *r, unsigned long replies, uint32_t *prefix) {
    size_t got = 0;
    while (got < 4) {
        if (got == 0 && atomic_load(&r->input_done) && replies == atomic_load(&r->requests)) return 1;
        ssize_t n = r->s->read(r->s->ctx, (char *)prefix + got, 4 - got, SLICE_MS);
        if (n == HS_STREAM_TIMEOUT) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: shm_relay NAME  (requests on stdin, replies on stdout)\n"), 2;
    relay r = {0};
    hs_error err;
    if (hs_shm_connect(argv[1], NULL, 10000, &r.s, &err) != HS_OK) return fprintf(stderr, "shm_relay: %s\n", err.msg), 1;
    pthread_t th;
    pthread_create(&th, NULL, pump_requests, &r);
    unsigned char *body = malloc(MAX_REPLY);
    int rc = body ? 0 : -1;
    uint32_t prefix;
    for (unsigned long replies = 0; rc == 0; replies++) {
        if ((rc = next_prefix(&r, replies, &prefix))) break;
        size_t len = prefix & 0x7fffffffu;
        if (len > MAX_REPLY || hs_stream_read_full(r.s, body, len, -1, NULL) ||
            fwrite(&prefix, 4, 1, stdout) != 1 || fwrite(body, 1, len, stdout) != len || fflush(stdout))
            rc = -1;
    }
    if (rc < 0) fprintf(stderr, "shm_relay: the server closed or failed before every reply came: %s\n", hs_shm_stream_error(r.s));
    if (rc < 0 || atomic_load(&r.failed)) {
        free(body);
        _exit(1); /* the pump may still be blocked on stdin; the process exit closes everything */
    }
    pthread_join(th, NULL);
    r.s->close(r.s->ctx);
    free(body);
    return 0;
}
