/* shm_relay NAME: carry bytes between stdin/stdout and `hmasweep serve --shm NAME`, so that a test client
 * written in a language without the shared-memory transport (tests/engine/test_conformance.py, from
 * SPEC §6 alone) can send its frames over it.  It reads every request from stdin first, writes them to
 * the server from a second thread while it copies the replies to stdout, one reply per request (each
 * counted by its u32 length prefix; bit 31 marks an error reply, docs/protocol.md), then closes.
 * Exit 0 when every reply came, 1 when the server closed or failed first (what came is still written). */
#define _GNU_SOURCE
#include "transport.h"
#include "transport_shm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INPUT ((size_t)1 << 30)
#define MAX_REPLY ((size_t)1 << 28)

typedef struct {
    hs_stream *s;
    unsigned char *data;
    size_t n;
    int rc;
} pump;

static void *send_all(void *arg) {
    pump *p = arg;
    struct iovec iov = {p->data, p->n};
    p->rc = hs_stream_write_full(p->s, &iov, 1, hs_now_ms() + 60000); /* ends when the server stops reading */
    return NULL;
}

static unsigned char *slurp_stdin(size_t *n) {
    size_t cap = 1 << 16;
    unsigned char *b = malloc(cap);
    *n = 0;
    for (ssize_t r; b; *n += (size_t)r) {
        if (*n == cap) {
            unsigned char *g = cap < MAX_INPUT ? realloc(b, cap *= 2) : NULL;
            if (!g) return free(b), NULL;
            b = g;
        }
        if ((r = read(0, b + *n, cap - *n)) <= 0) return r < 0 ? (free(b), NULL) : b;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: shm_relay NAME  (frames on stdin, replies on stdout)\n"), 2;
    pump p = {0};
    if (!(p.data = slurp_stdin(&p.n))) return fprintf(stderr, "shm_relay: cannot read stdin\n"), 2;
    size_t frames = 0;
    for (size_t off = 0; off + 4 <= p.n; frames++) {
        uint32_t len;
        memcpy(&len, p.data + off, 4);
        off += 4 + (size_t)len;
    }
    hs_error err;
    if (hs_shm_connect(argv[1], NULL, 10000, &p.s, &err) != HS_OK) return fprintf(stderr, "shm_relay: %s\n", err.msg), 1;
    pthread_t th;
    pthread_create(&th, NULL, send_all, &p);
    unsigned char *body = malloc(MAX_REPLY);
    int rc = body ? 0 : 1;
    for (size_t k = 0; k < frames && rc == 0; k++) {
        uint32_t prefix;
        size_t got = 0, len;
        rc = hs_stream_read_full(p.s, &prefix, 4, -1, NULL) || (len = prefix & 0x7fffffffu) > MAX_REPLY ||
             hs_stream_read_full(p.s, body, len, -1, &got);
        if (rc == 0 && (fwrite(&prefix, 4, 1, stdout) != 1 || fwrite(body, 1, len, stdout) != len)) rc = 1;
    }
    if (rc) fprintf(stderr, "shm_relay: the server closed or failed before every reply came: %s\n", hs_shm_stream_error(p.s));
    pthread_join(th, NULL); /* a server that closed or died ends the sender's wait too */
    p.s->close(p.s->ctx);
    free(body);
    free(p.data);
    return rc || fflush(stdout) != 0;
}
