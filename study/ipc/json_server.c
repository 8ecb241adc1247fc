/* The "microservice" the study warns about, built for real: requests and replies as JSON text, parsed and
 * written by a real JSON library (jansson) on the server and by json/orjson in the Python client.
 *
 *   hs_json_server --unix PATH [--variant NAME] [--isa NAME]
 *
 * Frames are `[u32 body_len][UTF-8 JSON]` (the study's framing, with text inside; HTTP would only add
 * headers).  Request: the article's body, `{"op": "sweep", "close": [f, ...], "params": [[w0..w5], ...]}`;
 * reply `{"pnl": [...], "trades": [...]}` with every double printed to 17 significant digits, so PnL
 * round-trips exactly and the equivalence gate can demand bit-identity.  `{"op": "echo", "close": [...]}`
 * answers `{"close": [...]}`.  A bad request (not JSON, wrong types, bad prices or windows) gets
 * `{"error": "..."}` and the connection goes on; an oversized or truncated frame closes it.  One client
 * at a time: this is a timing tool for study/ipc/run.py, not a server to deploy. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hmasweep.h"

#define MAX_BODY (256u << 20) /* 150,000 prices as JSON text are about 3 MB */

static int read_full(int fd, void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k == 0) return 1;
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n) {
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Serialise `reply` (stolen) and send it as one frame. */
static int send_json(int fd, json_t *reply) {
    char *text = json_dumps(reply, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(reply);
    if (!text) return -1;
    size_t n = strlen(text);
    unsigned char head[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                             (unsigned char)(n >> 24)};
    int rc = write_full(fd, head, 4) || write_full(fd, text, n);
    free(text);
    return rc;
}

static json_t *error_reply(const char *msg) { return json_pack("{s:s}", "error", msg); }

/* Room for one element per member of a non-empty JSON array (malloc'ed), or NULL with msg set:
 * `shape` names what the array must be, `unit` what one member is. */
static void *alloc_per_member(json_t *arr, size_t elem, size_t *n, const char *shape, const char *unit,
                              char *msg, size_t cap) {
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        snprintf(msg, cap, "%s", shape);
        return NULL;
    }
    *n = json_array_size(arr);
    void *p = malloc(*n * elem);
    if (!p) snprintf(msg, cap, "out of memory for %zu %s", *n, unit);
    return p;
}

/* The close array as doubles (malloc'ed), or NULL with msg set. */
static double *parse_close(json_t *arr, size_t *n, char *msg, size_t cap) {
    double *x = alloc_per_member(arr, sizeof *x, n, "\"close\" must be a non-empty array of numbers", "prices",
                                 msg, cap);
    for (size_t i = 0; x && i < *n; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_number(v)) {
            snprintf(msg, cap, "close[%zu] is not a number", i);
            free(x);
            return NULL;
        }
        x[i] = json_number_value(v);
    }
    return x;
}

/* One combo's six integers from params[k] into w, or -1 with msg set. */
static int parse_combo(json_t *c, size_t k, hs_windows *w, char *msg, size_t cap) {
    if (!json_is_array(c) || json_array_size(c) != 6) {
        snprintf(msg, cap, "params[%zu] is not an array of six integers", k);
        return -1;
    }
    for (size_t j = 0; j < 6; j++) {
        json_t *v = json_array_get(c, j);
        if (!json_is_integer(v)) {
            snprintf(msg, cap, "params[%zu][%zu] is not an integer", k, j);
            return -1;
        }
        w->w[j] = json_integer_value(v);
    }
    return 0;
}

static hs_windows *parse_params(json_t *arr, size_t *n, char *msg, size_t cap) {
    hs_windows *w = alloc_per_member(arr, sizeof *w, n, "\"params\" must be a non-empty array of six-integer arrays",
                                     "combos", msg, cap);
    for (size_t k = 0; w && k < *n; k++) {
        if (parse_combo(json_array_get(arr, k), k, &w[k], msg, cap) != 0) {
            free(w);
            return NULL;
        }
    }
    return w;
}

static json_t *answer(const char *text, size_t len, const hs_sweep_options *opt) {
    char msg[400];
    json_error_t jerr;
    json_t *req = json_loadb(text, len, 0, &jerr);
    if (!req) {
        snprintf(msg, sizeof msg, "not JSON: %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
        return error_reply(msg);
    }
    const char *op = json_string_value(json_object_get(req, "op"));
    size_t n_bars = 0, n_combos = 0;
    double *close = NULL;
    hs_windows *w = NULL;
    hs_result *res = NULL;
    json_t *reply = NULL;
    if (!op || (strcmp(op, "sweep") != 0 && strcmp(op, "echo") != 0)) {
        reply = error_reply("\"op\" must be \"sweep\" or \"echo\"");
    } else if (!(close = parse_close(json_object_get(req, "close"), &n_bars, msg, sizeof msg))) {
        reply = error_reply(msg);
    } else if (strcmp(op, "echo") == 0) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n_bars; i++) json_array_append_new(arr, json_real(close[i]));
        reply = json_pack("{s:o}", "close", arr);
    } else if (!(w = parse_params(json_object_get(req, "params"), &n_combos, msg, sizeof msg))) {
        reply = error_reply(msg);
    } else if (!(res = malloc(n_combos * sizeof *res))) {
        reply = error_reply("out of memory for the results");
    } else {
        hs_error err;
        if (hs_sweep(close, n_bars, w, n_combos, res, opt, &err) != HS_OK) {
            reply = error_reply(err.msg);
        } else {
            json_t *pnl = json_array(), *trades = json_array();
            for (size_t k = 0; k < n_combos; k++) {
                json_array_append_new(pnl, json_real(res[k].pnl));
                json_array_append_new(trades, json_integer(res[k].trades));
            }
            reply = json_pack("{s:o,s:o}", "pnl", pnl, "trades", trades);
        }
    }
    free(close);
    free(w);
    free(res);
    json_decref(req);
    return reply;
}

static void serve_client(int fd, const hs_sweep_options *opt) {
    for (;;) {
        unsigned char head[4];
        if (read_full(fd, head, 4) != 0) return; /* closed (or broken) between frames */
        uint32_t n = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24;
        if (n > MAX_BODY) {
            send_json(fd, error_reply("frame exceeds the 256 MiB limit"));
            return;
        }
        char *body = malloc(n ? n : 1);
        if (!body) {
            send_json(fd, error_reply("out of memory for the request"));
            return;
        }
        if (read_full(fd, body, n) != 0) {
            free(body);
            return; /* truncated: the client is gone */
        }
        json_t *reply = answer(body, n, opt);
        free(body);
        if (!reply || send_json(fd, reply) != 0) return;
    }
}

int main(int argc, char **argv) {
    const char *path = NULL;
    hs_sweep_options opt = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--unix") == 0 && i + 1 < argc) path = argv[++i];
        else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) opt.variant = argv[++i];
        else if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) opt.isa = argv[++i];
        else {
            fprintf(stderr, "usage: hs_json_server --unix PATH [--variant NAME] [--isa NAME]\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "hs_json_server: --unix PATH is required\n");
        return 2;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "hs_json_server: socket path too long: %s\n", path);
        return 2;
    }
    strcpy(sa.sun_path, path);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    unlink(path);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 8) != 0) {
        fprintf(stderr, "hs_json_server: cannot listen on %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(stderr, "listening on unix:%s\n", path);
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            fprintf(stderr, "hs_json_server: accept: %s\n", strerror(errno));
            return 1;
        }
        serve_client(fd, &opt);
        close(fd);
    }
}
