/* `hmasweep serve`: the engine behind a process boundary (docs/engine.md).  This file only turns the
 * command line into an engine configuration and listeners; the server (cli/server/) does the rest. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "server.h"

enum { MAX_LISTENERS = 8, URL_MAX = 320 };

static const char *const usage_serve =
    "usage: hmasweep serve [--listen URL]... [options]\n"
    "\n"
    "Serve the wire protocol (docs/protocol.md: docs/spec.md §6 sweep/echo plus HELLO, LOAD, SWEEP on a handle,\n"
    "FREE) to many clients at once.  With no listener, serve stdin/stdout (like `hmasweep wire`; on a\n"
    "terminal it says so on stderr).\n"
    "\n"
    "  --listen URL             listen there; up to 8 listeners, of any transports (docs/engine.md \"Transports\"):\n"
    "      unix:PATH            a Unix socket (file mode 0600; replaces only a stale socket of ours)\n"
    "      tcp://HOST:PORT      TCP (TCP_NODELAY); HOST must be loopback unless --allow-remote; port 0: any\n"
    "      shm:NAME             shared-memory rings (docs/engine.md \"Shared memory\")\n"
    "      stdio:               stdin/stdout, one connection, alone (the default when no listener is given)\n"
    "  --unix PATH, --tcp HOST:PORT, --shm NAME, --stdio   the same as --listen unix:PATH, tcp://HOST:PORT,\n"
    "                           shm:NAME, stdio:\n"
    "  --allow-remote           allow a non-loopback --tcp address (needs --token-file)\n"
    "  --token-file FILE        tcp clients must send AUTH with this file's content first (the file must be\n"
    "                           readable by its owner only); required with --allow-remote\n"
    "  --variant NAME --isa NAME --threads N   the kernel every sweep runs (default: best, with\n"
    "                           cores / workers OpenMP threads each)\n"
    "  --workers N              sweeps running at once (default 2)\n"
    "  --max-clients N          connections at once per listener (default 64; each listener its own budget);\n"
    "                           more are refused with an error reply\n"
    "  --max-frame-bytes N      bytes of one request body (default 67108864)\n"
    "  --max-work N             work of one sweep or live append: bars × Σ over combos of (windows + 256)\n"
    "                           (default 68719476736); a computation also stops at the frame deadline\n"
    "  --max-loaded-per-client N  bytes of LOADed series per connection (default 268435456)\n"
    "  --max-loaded-total N     … all connections together (default 1073741824)\n"
    "  --max-handles N          LOAD handles per connection (default 1024)\n"
    "  --idle-timeout-ms N      close a connection idle this long (default 300000)\n"
    "  --admit-timeout-ms N     a new connection must send its first frame (AUTH where needed) within this\n"
    "                           (default 2000); until then it holds no --max-clients slot\n"
    "  --max-pending N          connections per listener still waiting for that first frame (default 16);\n"
    "                           while full, new ones wait in the listener's backlog\n"
    "  --max-pending-per-peer N … of them from one TCP peer other than the server's user (a uid, or a host\n"
    "                           where the uid is unknown); past it refused at once (default 4)\n"
    "  --frame-deadline-ms N    a started frame must arrive, and its reply leave, within this (default 30000)\n"
    "  --cost-margin N          refuse, before it runs, a sweep or live work whose worst-case cost (each\n"
    "                           variant's measured cost on adversarial prices) times N exceeds the frame\n"
    "                           deadline (default 3; 0: never, the deadline still stops it)\n"
    "  --ready                  print one line 'ready URL...' on stdout once listening (refused with stdio:,\n"
    "                           where stdout carries the replies: use --ready-fd there)\n"
    "  --ready-fd N             write that line to file descriptor N instead, then close it (N must be open\n"
    "                           at start; 2 is written to and stays open for the logs; with stdio:, N must\n"
    "                           not be 0 or 1, the connection itself)\n"
    "  --verbose                one stderr line per connection event\n"
    "\n"
    "SIGTERM or SIGINT: stop accepting, finish the frames in flight, close, remove the socket file.\n";

static hs_engine *volatile g_engine;

static void on_signal(int sig) {
    (void)sig;
    if (g_engine) hs_engine_stop(g_engine);
}

/* Numbers in [lo, hi] only: the CLI's parser (cli/options.c) and the range of the option. */
static int parse_in(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out) {
    return cli_parse_u64(v, out) && *out >= lo && *out <= hi;
}

/* The token file must be a regular file owned by us that nobody else can read. */
static int read_token(const char *path, unsigned char *tok, size_t cap, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0) return cli_fail(EXIT_USAGE, "serve: --token-file %s: cannot open it", path);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return cli_fail(EXIT_USAGE, "serve: --token-file %s: must be a regular file of ours, readable by its owner only (chmod 600)", path);
    }
    ssize_t n = read(fd, tok, cap);
    close(fd);
    while (n > 0 && (tok[n - 1] == '\n' || tok[n - 1] == '\r')) n--;
    if (n < 16) return cli_fail(EXIT_USAGE, "serve: --token-file %s: the token must have at least 16 bytes", path);
    *len = (size_t)n;
    return 0;
}

typedef struct {
    char urls[MAX_LISTENERS][URL_MAX];
    char given[MAX_LISTENERS][4 * URL_MAX + 32]; /* the words on the command line each came from (escaped: shown), for messages */
    int n_urls;
    const char *token_file;
    int allow_remote, ready, ready_fd;
} serve_args;

/* --listen URL and its sugar: --unix PATH is --listen unix:PATH, and so on (--stdio takes no value). */
static const struct {
    const char *flag, *scheme;
} listen_flags[] = {{"--listen", ""}, {"--unix", "unix:"}, {"--tcp", "tcp://"}, {"--shm", "shm:"}};

/* `v` as messages show it: a control byte as \n, \t, \r or \xNN, a backslash doubled, so that a value
 * holding a newline (`--listen 'unix:/tmp/a<newline>ready forged'`) cannot split the error line or forge
 * a second one (issue 29 item 10); cut to fit `cap`. */
static const char *shown(const char *v, char *out, size_t cap) {
    size_t used = 0;
    for (; *v && used + 5 < cap; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\' || c == '\n' || c == '\t' || c == '\r')
            out[used++] = '\\', out[used++] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\';
        else if (c < 0x20 || c == 0x7f) used += (size_t)snprintf(out + used, cap - used, "\\x%02x", c);
        else out[used++] = (char)c;
    }
    out[used] = '\0';
    return out;
}

static int add_listener(serve_args *a, const char *flag, const char *scheme, const char *v) {
    char forms[128], v_shown[4 * URL_MAX + 8];
    shown(v, v_shown, sizeof v_shown);
    if (a->n_urls == MAX_LISTENERS)
        return cli_fail(EXIT_USAGE, "serve: %s '%s': at most %d listeners (--listen, --unix, --tcp, --shm and --stdio together)",
                        flag, v_shown, MAX_LISTENERS);
    char *url = a->urls[a->n_urls];
    if ((size_t)snprintf(url, URL_MAX, "%s%s", scheme, v) >= URL_MAX)
        return cli_fail(EXIT_USAGE, "serve: %s %.40s...: longer than %d bytes", flag, v_shown, URL_MAX - 1);
    if (!hs_transport_find(url, NULL))
        return cli_fail(EXIT_USAGE, "serve: %s '%s': unknown scheme (expected %s)", flag, v_shown,
                        hs_transport_forms(forms, sizeof forms));
    snprintf(a->given[a->n_urls], sizeof a->given[0], *v ? "%s '%s'" : "%s", flag, v_shown);
    a->n_urls++;
    return 0;
}

static int listen_option(const char *arg, const char *v, serve_args *a, int *handled) {
    for (size_t k = 0; k < sizeof listen_flags / sizeof *listen_flags; k++)
        if (!strcmp(arg, listen_flags[k].flag)) return *handled = 1, add_listener(a, arg, listen_flags[k].scheme, v);
    return *handled = 0, 0;
}

/* Numeric limit options: name, where it goes, bounds. */
static int limit_option(const char *name, const char *v, hs_engine_config *c, int *handled) {
    unsigned long long x;
    *handled = 1;
#define LIMIT(flag, lo, hi, field)                                                                       \
    if (strcmp(name, flag) == 0) {                                                                       \
        if (!parse_in(v, lo, hi, &x)) return cli_fail(EXIT_USAGE, "serve: " flag " needs an integer in [%llu, %llu], got '%s'", \
                                                      (unsigned long long)(lo), (unsigned long long)(hi), v ? v : ""); \
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
    LIMIT("--cost-margin", 0, 1000, cost_margin)
    LIMIT("--admit-timeout-ms", 1, 0x7fffffff, admit_timeout_ms)
    LIMIT("--max-pending", 1, 100000, max_pending)
    LIMIT("--max-pending-per-peer", 1, 100000, max_pending_per_peer)
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
        if (!strcmp(arg, "--stdio")) {
            if ((rc = add_listener(a, "--stdio", "stdio:", ""))) return rc;
        } else if (!strcmp(arg, "--allow-remote")) a->allow_remote = 1;
        else if (!strcmp(arg, "--ready")) a->ready = 1;
        else if (!strcmp(arg, "--verbose")) c->verbose = 1;
        else if (!v && arg[0] == '-' && arg[1] == '-') return cli_fail(EXIT_USAGE, "serve: %s needs a value (or is unknown; see --help)", arg);
        else if ((rc = listen_option(arg, v, a, &handled)) || handled) {
            if (rc) return rc;
            i++;
        } else if (!strcmp(arg, "--token-file")) a->token_file = v, i++;
        else if (!strcmp(arg, "--ready-fd")) {
            unsigned long long fd;
            if (!parse_in(v, 0, 1 << 20, &fd)) return cli_fail(EXIT_USAGE, "serve: --ready-fd needs a file descriptor, got '%s'", v);
            a->ready_fd = (int)fd, i++;
        } else {
            if ((rc = limit_option(arg, v, c, &handled))) return rc;
            if (!handled) return cli_fail(EXIT_USAGE, "serve: unknown option '%s' (see `hmasweep serve --help`)", arg);
            i++;
        }
    }
    return 0;
}

static void announce(const serve_args *a, const hs_listener *ls, int n) {
    char line[1200];
    size_t used = (size_t)snprintf(line, sizeof line, "ready");
    for (int i = 0; i < n && used < sizeof line; i++) used += (size_t)snprintf(line + used, sizeof line - used, " %s", ls[i].url);
    if (used > sizeof line - 1) used = sizeof line - 1;
    if (used < sizeof line - 1) line[used++] = '\n';
    if (a->ready_fd >= 0) {
        ssize_t w = write(a->ready_fd, line, used);
        (void)w;
        /* 0-2 are the standard streams: closing 2 sent every later log line to /dev/null (issue 29 item
         * 5), so they stay open; any other descriptor is closed, so a parent reading it sees EOF. */
        if (a->ready_fd > STDERR_FILENO) close(a->ready_fd);
    } else if (a->ready) {
        fwrite(line, 1, used, stdout);
        fflush(stdout);
    }
}

/* With stdio: stdin and stdout are the connection: a ready line on stdout would reach the client as the
 * start of a reply (a length prefix of "read"), and --ready-fd 0 or 1 would write into, then close, the
 * connection.  Refused before anything is served, so a client never sees a corrupted stream. */
static int check_ready(const serve_args *a) {
    /* Checked before any listener opens: a descriptor not open at start would be the number the first
     * listener gets, and the ready line went into that socket, which was then closed (issue 29 item 5:
     * the Unix listener died, and the server ran on and exited 0). */
    if (a->ready_fd >= 0 && fcntl(a->ready_fd, F_GETFD) < 0)
        return cli_fail(EXIT_USAGE, "serve: --ready-fd %d: file descriptor %d is not open (the parent must pass it "
                                    "open, e.g. a pipe's write end)", a->ready_fd, a->ready_fd);
    if (hs_transport_find(a->urls[0], NULL) != &hs_transport_stdio) return 0;
    if (a->ready && a->ready_fd < 0)
        return cli_fail(EXIT_USAGE, "serve: --ready prints on stdout, which carries the replies when serving stdin/stdout "
                                    "(stdio:, the default with no listener), so its line would corrupt them; "
                                    "use --ready-fd N (another descriptor) or a listener (--unix, --tcp, --shm)");
    if (a->ready_fd == STDIN_FILENO || a->ready_fd == STDOUT_FILENO)
        return cli_fail(EXIT_USAGE, "serve: --ready-fd %d: when serving stdin/stdout (stdio:) fd %d is the connection "
                                    "itself; use another descriptor", a->ready_fd, a->ready_fd);
    return 0;
}

/* stdio: stdin/stdout are the one connection.  On a terminal that looks like a hang (issue 20 §12), so
 * it is said on stderr; a reply that could not be written (stdout closed or full) is an error (§8), not
 * exit 0. */
static int serve_stdio(hs_engine *e, hs_listener *l) {
    if (isatty(STDIN_FILENO))
        fputs("hmasweep serve: no --listen given: serving wire protocol frames on stdin/stdout "
              "(binary; end with Ctrl-D; see `hmasweep serve --help` for listeners)\n", stderr);
    hs_stream *s;
    hs_error err;
    if (l->t->accept(l, &s, &err) != HS_OK || !s) return cli_fail(EXIT_DATA, "serve: %s", err.msg);
    hs_session_stats st;
    hs_engine_serve_stream(e, s, 0, &st);
    s->close(s->ctx);
    if (st.write_error) return cli_fail(EXIT_DATA, "serve: writing a reply to stdout failed: %s", strerror(st.write_error));
    return st.lost_boundary ? EXIT_DATA : 0;
}

/* Listen on every URL (a failure closes the ones before it).  A listener that admits only our own user
 * (unix, shm) needs no token; the others do when the server has one. */
static int listen_all(const serve_args *a, hs_listener *ls, int token, int *n) {
    hs_listen_options opt = {a->allow_remote};
    hs_error err;
    for (*n = 0; *n < a->n_urls; ++*n) {
        if (hs_listen_url(a->urls[*n], &opt, &ls[*n], &err) != HS_OK) {
            while (*n > 0) hs_listener_close(&ls[--*n]);
            return cli_fail(EXIT_USAGE, "serve: %s: %s", a->given[*n], err.msg);
        }
        ls[*n].needs_auth = token && !ls[*n].same_user;
    }
    return 0;
}

static int run(serve_args *a, hs_engine_config *cfg, unsigned char *token, size_t token_len) {
    hs_listener ls[MAX_LISTENERS];
    int n, rc = listen_all(a, ls, token_len > 0, &n);
    if (rc) return rc;
    hs_engine *e = NULL;
    hs_error err;
    cfg->token = token, cfg->token_len = token_len;
    if (hs_engine_create(cfg, &e, &err) != HS_OK) {
        for (int i = 0; i < n; i++) hs_listener_close(&ls[i]);
        return cli_fail(EXIT_USAGE, "serve: %s", err.msg);
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
    if (ls[0].t == &hs_transport_stdio) {
        rc = serve_stdio(e, &ls[0]);
        hs_listener_close(&ls[0]);
    } else {
        hs_server_listeners sl = {ls, n};
        rc = hs_server_run(e, &sl); /* closes the listeners (their socket files removed) */
    }
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
        return cli_fail(EXIT_USAGE, "serve: unknown variant '%s' (see `hmasweep variants`)", cfg.sweep.variant);
    if (a.allow_remote && !a.token_file) return cli_fail(EXIT_USAGE, "serve: --allow-remote needs --token-file FILE");
    for (int i = 0; i < a.n_urls && a.n_urls > 1; i++)
        if (hs_transport_find(a.urls[i], NULL) == &hs_transport_stdio)
            return cli_fail(EXIT_USAGE, "serve: %s: stdin/stdout is one connection and cannot be combined with other listeners",
                            a.given[i]);
    if (a.n_urls == 0 && (rc = add_listener(&a, "(no --listen)", "stdio:", ""))) return rc;
    if ((rc = check_ready(&a))) return rc;
    static unsigned char token[4096];
    size_t token_len = 0;
    if (a.token_file && (rc = read_token(a.token_file, token, sizeof token, &token_len))) return rc;
    return run(&a, &cfg, token_len ? token : NULL, token_len);
}
