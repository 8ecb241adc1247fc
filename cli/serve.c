/* `hmasweep serve`: the engine behind a process boundary (docs/engine.md).  This file only turns the
 * command line into an engine configuration and listeners; engine/ does the rest. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "transport_shm.h"

int hs_cli_kernel_option(int argc, char **argv, int *i, hs_sweep_options *opt, int *handled); /* cli/main.c */
int hs_cli_variant_known(const char *name);                                                   /* cli/main.c */

enum { EXIT_DATA = 1, EXIT_USAGE = 2, MAX_LISTENERS = 8 };

static const char *const usage_serve =
    "usage: hmasweep serve [--unix PATH] [--tcp HOST:PORT] [--shm NAME] [--stdio] [options]\n"
    "\n"
    "Serve wire protocol v1 (docs/protocol.md: docs/spec.md §6 sweep/echo plus HELLO, LOAD, SWEEP on a handle,\n"
    "FREE) to many clients at once.  With no listener, serve stdin/stdout (like `hmasweep wire`; on a\n"
    "terminal it says so on stderr).\n"
    "\n"
    "  --unix PATH              listen on a Unix socket (file mode 0600; replaces only a stale socket of ours)\n"
    "  --shm NAME               listen for shared-memory clients (URL shm:NAME; docs/engine.md \"Shared memory\")\n"
    "  --tcp HOST:PORT          listen on TCP (TCP_NODELAY); HOST must be loopback unless --allow-remote\n"
    "  --allow-remote           allow a non-loopback --tcp address (needs --token-file)\n"
    "  --token-file FILE        tcp clients must send AUTH with this file's content first (the file must be\n"
    "                           readable by its owner only); required with --allow-remote\n"
    "  --stdio                  serve stdin/stdout (the default when no listener is given)\n"
    "  --variant NAME --isa NAME --threads N   the kernel every sweep runs (default: best, with\n"
    "                           cores / workers OpenMP threads each)\n"
    "  --workers N              sweeps running at once (default 2)\n"
    "  --max-clients N          connections at once (default 64); more are refused with an error reply\n"
    "  --max-frame-bytes N      bytes of one request body (default 67108864)\n"
    "  --max-work N             work of one sweep or live append: bars × Σ over combos of (windows + 256)\n"
    "                           (default 68719476736); a computation also stops at the frame deadline\n"
    "  --max-loaded-per-client N  bytes of LOADed series per connection (default 268435456)\n"
    "  --max-loaded-total N     … all connections together (default 1073741824)\n"
    "  --max-handles N          LOAD handles per connection (default 1024)\n"
    "  --idle-timeout-ms N      close a connection idle this long (default 300000)\n"
    "  --admit-timeout-ms N     a new connection must send its first frame (AUTH where needed) within this\n"
    "                           (default 5000); until then it holds no --max-clients slot\n"
    "  --max-pending N          connections per listener still waiting for that first frame (default 16)\n"
    "  --frame-deadline-ms N    a started frame must arrive, and its reply leave, within this (default 30000)\n"
    "  --ready                  print one line 'ready URL...' on stdout once listening\n"
    "  --ready-fd N             write that line to file descriptor N instead, then close it\n"
    "  --verbose                one stderr line per connection event\n"
    "\n"
    "SIGTERM or SIGINT: stop accepting, finish the frames in flight, close, remove the socket file.\n";

static hs_engine *volatile g_engine;

static void on_signal(int sig) {
    (void)sig;
    if (g_engine) hs_engine_stop(g_engine);
}

static int fail(int code, const char *fmt, const char *a) {
    fputs("hmasweep: serve: ", stderr);
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return code;
}

static int parse_u64(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out) {
    char *end;
    if (!s || !*s || *s == '-') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

/* The token file must be a regular file owned by us that nobody else can read. */
static int read_token(const char *path, unsigned char *tok, size_t cap, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0) return fail(EXIT_USAGE, "--token-file %s: cannot open it", path);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return fail(EXIT_USAGE, "--token-file %s: must be a regular file of ours, readable by its owner only (chmod 600)", path);
    }
    ssize_t n = read(fd, tok, cap);
    close(fd);
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == '\r')) n--;
    if (n < 16) return fail(EXIT_USAGE, "--token-file %s: the token must have at least 16 bytes", path);
    *len = (size_t)n;
    return 0;
}

typedef struct {
    const char *unix_paths[MAX_LISTENERS], *tcp_addrs[MAX_LISTENERS], *token_file, *shm_name;
    int n_unix, n_tcp, stdio, allow_remote, ready, ready_fd;
} serve_args;

/* Numeric limit options: name, where it goes, bounds. */
static int limit_option(const char *name, const char *v, hs_engine_config *c, int *handled) {
    unsigned long long x;
    *handled = 1;
#define LIMIT(flag, lo, hi, field)                                                                       \
    if (strcmp(name, flag) == 0) {                                                                       \
        if (!parse_u64(v, lo, hi, &x)) return fail(EXIT_USAGE, flag " needs an integer in range, got '%s'", v ? v : ""); \
        c->field = x;                                                                                    \
        return 0;                                                                                        \
    }
    LIMIT("--workers", 1, 1024, workers)
    LIMIT("--max-clients", 1, 100000, max_clients)
    LIMIT("--max-frame-bytes", 64, HS_MAX_FRAME_BYTES_CAP, lim.max_frame_bytes)
    LIMIT("--max-work", 1, UINT64_MAX, lim.max_work)
    LIMIT("--max-loaded-per-client", 0, UINT64_MAX, max_loaded_per_client)
    LIMIT("--max-loaded-total", 0, UINT64_MAX, max_loaded_total)
    LIMIT("--max-handles", 0, 1u << 30, max_handles_per_client)
    LIMIT("--idle-timeout-ms", 1, 0x7fffffff, idle_timeout_ms)
    LIMIT("--frame-deadline-ms", 1, 0x7fffffff, frame_deadline_ms)
    LIMIT("--admit-timeout-ms", 1, 0x7fffffff, admit_timeout_ms)
    LIMIT("--max-pending", 1, 100000, max_pending)
#undef LIMIT
    *handled = 0;
    return 0;
}

static int parse_args(int argc, char **argv, serve_args *a, hs_engine_config *c) {
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int handled, rc;
        if ((rc = hs_cli_kernel_option(argc, argv, &i, &c->sweep, &handled))) return rc;
        if (handled) continue;
        if (!strcmp(arg, "--stdio")) a->stdio = 1;
        else if (!strcmp(arg, "--allow-remote")) a->allow_remote = 1;
        else if (!strcmp(arg, "--ready")) a->ready = 1;
        else if (!strcmp(arg, "--verbose")) c->verbose = 1;
        else if (!v && arg[0] == '-' && arg[1] == '-') return fail(EXIT_USAGE, "%s needs a value (or is unknown; see --help)", arg);
        else if (!strcmp(arg, "--unix") && a->n_unix < MAX_LISTENERS) a->unix_paths[a->n_unix++] = v, i++;
        else if (!strcmp(arg, "--tcp") && a->n_tcp < MAX_LISTENERS) a->tcp_addrs[a->n_tcp++] = v, i++;
        else if (!strcmp(arg, "--token-file")) a->token_file = v, i++;
        else if (!strcmp(arg, "--shm")) a->shm_name = v, i++;
        else if (!strcmp(arg, "--ready-fd")) {
            unsigned long long fd;
            if (!parse_u64(v, 0, 1 << 20, &fd)) return fail(EXIT_USAGE, "--ready-fd needs a file descriptor, got '%s'", v);
            a->ready_fd = (int)fd, i++;
        } else {
            if ((rc = limit_option(arg, v, c, &handled))) return rc;
            if (!handled) return fail(EXIT_USAGE, "unknown option '%s' (see `hmasweep serve --help`)", arg);
            i++;
        }
    }
    return 0;
}

static void announce(const serve_args *a, hs_listener *ls, int n) {
    char line[1200];
    size_t used = (size_t)snprintf(line, sizeof line, "ready");
    for (int i = 0; i < n && used < sizeof line; i++) used += (size_t)snprintf(line + used, sizeof line - used, " %s", ls[i].url);
    if (a->shm_name && used < sizeof line) used += (size_t)snprintf(line + used, sizeof line - used, " shm:%s", a->shm_name);
    if (used > sizeof line - 1) used = sizeof line - 1;
    if (used < sizeof line - 1) line[used++] = '\n';
    if (a->ready_fd >= 0) {
        ssize_t w = write(a->ready_fd, line, used);
        (void)w;
        close(a->ready_fd);
    } else if (a->ready) {
        fwrite(line, 1, used, stdout);
        fflush(stdout);
    }
}

/* With no listener, stdin/stdout are the connection.  On a terminal that looks like a hang (issue 20
 * §12), so it is said on stderr; a reply that could not be written (stdout closed or full) is an error
 * (§8), not exit 0. */
static int serve_stdio(hs_engine *e) {
    if (isatty(STDIN_FILENO))
        fputs("hmasweep serve: no --unix/--tcp/--shm given: serving wire protocol frames on stdin/stdout "
              "(binary; end with Ctrl-D; see `hmasweep serve --help` for listeners)\n", stderr);
    hs_stream *s = hs_fd_stream(STDIN_FILENO, STDOUT_FILENO, 0, "stdio", "stdin");
    if (!s) return fail(EXIT_DATA, "%s", "out of memory");
    hs_session_stats st;
    hs_engine_serve_stream(e, s, 0, &st);
    s->close(s->ctx);
    if (st.write_error) return fail(EXIT_DATA, "writing a reply to stdout failed: %s", strerror(st.write_error));
    return st.lost_boundary ? EXIT_DATA : 0;
}

typedef struct {
    hs_shm_listener *l;
    FILE *log;
    long long logged_at;
} shm_accept_ctx;

/* The accept loop's hook for the shm listener: the handshake never blocks (the segment goes out with
 * MSG_DONTWAIT), so a slow client cannot stall the loop; a refused one is logged and dropped. */
static hs_stream *accept_shm(void *ctx, int i) {
    shm_accept_ctx *c = ctx;
    hs_stream *s = NULL;
    hs_error err;
    (void)i;
    if (hs_shm_accept(c->l, 0, &s, &err) != HS_OK) {
        /* at most one line per 10 s (out of fds, every attempt fails the same way: issue 20 §4) */
        long long now = hs_now_ms();
        if (!c->logged_at || now - c->logged_at >= 10000) {
            fprintf(c->log, "hmasweep serve: %s\n", err.msg);
            c->logged_at = now;
        }
    }
    return s;
}

static int run(serve_args *a, hs_engine_config *cfg, unsigned char *token, size_t token_len) {
    hs_listener ls[2 * MAX_LISTENERS];
    int needs_auth[2 * MAX_LISTENERS], n = 0, rc = 0;
    hs_error err;
    for (int i = 0; i < a->n_unix && !rc; i++, n++) {
        needs_auth[n] = 0; /* the socket file is 0600: only our own user can connect */
        if (hs_listen_unix(a->unix_paths[i], &ls[n], &err) != HS_OK) rc = fail(EXIT_USAGE, "%s", err.msg), n--;
    }
    for (int i = 0; i < a->n_tcp && !rc; i++, n++) {
        int loopback;
        if (hs_listen_tcp(a->tcp_addrs[i], a->allow_remote, &ls[n], &loopback, &err) != HS_OK)
            rc = fail(EXIT_USAGE, "%s", err.msg), n--;
        else needs_auth[n] = token_len > 0;
    }
    /* `--shm NAME`: the shared-memory listener joins the accept loop as an extra fd (engine/server.h). */
    shm_accept_ctx shm = {NULL, cfg->log, 0};
    int shm_fd = -1;
    if (!rc && a->shm_name && hs_shm_listen(a->shm_name, NULL, &shm.l, &err) != HS_OK) rc = fail(EXIT_USAGE, "%s", err.msg);
    if (shm.l) shm_fd = hs_shm_listener_fd(shm.l);
    hs_engine *e = NULL;
    cfg->token = token, cfg->token_len = token_len;
    if (!rc && hs_engine_create(cfg, &e, &err) != HS_OK) rc = fail(EXIT_USAGE, "%s", err.msg);
    if (rc) {
        for (int i = 0; i < n; i++) hs_listener_close(&ls[i]);
        hs_shm_listener_close(shm.l);
        return rc;
    }
    g_engine = e;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    announce(a, ls, n);
    if (cfg->verbose)
        for (int i = 0; i < n; i++) fprintf(stderr, "hmasweep serve: listening on %s\n", ls[i].url);
    if (cfg->verbose && shm.l) fprintf(stderr, "hmasweep serve: listening on shm:%s\n", a->shm_name);
    if (n == 0 && !shm.l) {
        rc = serve_stdio(e);
    } else {
        hs_server_listeners sl = {ls, n, needs_auth, shm.l ? 1 : 0, &shm_fd, accept_shm, &shm};
        rc = hs_server_run(e, &sl);
    }
    hs_shm_listener_close(shm.l); /* after the drain: its socket file goes like the others' */
    if (cfg->verbose) fprintf(stderr, "hmasweep serve: stopped\n");
    g_engine = NULL;
    hs_engine_destroy(e);
    return rc;
}

int hs_serve_cli(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return fputs(usage_serve, stdout), 0;
    serve_args a = {0};
    a.ready_fd = -1;
    hs_engine_config cfg;
    hs_engine_config_defaults(&cfg);
    int rc = parse_args(argc, argv, &a, &cfg);
    if (rc) return rc;
    if (cfg.sweep.variant && !hs_cli_variant_known(cfg.sweep.variant))
        return fail(EXIT_USAGE, "unknown variant '%s' (see `hmasweep variants`)", cfg.sweep.variant);
    int remote = a.allow_remote;
    if (remote && !a.token_file) return fail(EXIT_USAGE, "%s", "--allow-remote needs --token-file FILE");
    if (a.stdio && (a.n_unix || a.n_tcp || a.shm_name))
        return fail(EXIT_USAGE, "%s", "--stdio cannot be combined with --unix/--tcp/--shm");
    static unsigned char token[4096];
    size_t token_len = 0;
    if (a.token_file && (rc = read_token(a.token_file, token, sizeof token, &token_len))) return rc;
    return run(&a, &cfg, token_len ? token : NULL, token_len);
}
