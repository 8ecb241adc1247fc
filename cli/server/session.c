/* One connection's frame loop (server.h): read a frame, parse it with the codec, do it, reply.
 *
 * Deadlines: waiting for a new frame is bounded by the idle timeout (checked in short slices so a stop is
 * seen within HS_STOP_SLICE_MS); once the first byte of a frame has arrived, reading the rest and writing
 * the reply are bounded by the frame deadline, so a client sending one byte per second or not reading its
 * reply costs only its own thread.  Sweeps take one of `workers` slots, held only while computing.
 *
 * Memory: a request body is read into one buffer placed so its arrays are 8-byte aligned (the codec
 * parses in place; nothing is copied), reused by the connection's next frame.  A LOADed series keeps
 * the LOAD frame's buffer as its storage when that buffer is its own size, else a copy (issue 20 §1).
 *
 * Cost: every computation a frame starts (sweep, live open, live append) is bounded three times: its work
 * (hs_codec_combo_work: bar-combos and windows) by --max-work before it starts, its worst-case time by
 * the cost model (below: refused when it may not finish in the frame deadline, issue 29 item 2), and its
 * time by the frame deadline while it runs (the sweep's progress hook; live work in chunks), so no frame
 * holds a worker slot past its deadline (issue 20 §2).  It runs in slices of the model's ~3 ms, each under
 * a worker slot given to the least-served waiting frame (issue 29 item 2).
 *
 * Admission (server.h hs_admission): a new connection is pending until its first frame is in and, where
 * needed, authenticated; it must get there within the admission deadline, and only then takes a
 * --max-clients slot (issue 20 §3). */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "live.h"
#include "server.h"

#define HS_STOP_SLICE_MS 100
/* Before AUTH a peer may send only this much: an unauthenticated client cannot make the server allocate. */
#define HS_PREAUTH_FRAME_BYTES 4096u

/* ---- the cost model (issue 29 item 2) ------------------------------------------------------------ */
/* What a computation costs at worst, in ns of one core.  Each variant's cost was measured by
 * prof/fair/cost_probe on the adversarial series (prof/adversarial.h: flat, ulp, out-of-range, spike,
 * vol-0.3) and a normal walk, 20,000 bars, one thread, CPU time, at every ISA this CPU runs (Sapphire
 * Rapids: AVX-512, AVX2, SSE2, scalar), and each coefficient is the worst of them (reports/fair.md "The
 * cost model"):
 *   a  ns per bar-combo (every window 1)
 *   b  ns per window-bar: what each unit of a combo's Σ windows adds
 *   c  ns per bar per call: the series' own passes, paid once by every slice
 * One call over n_bars bars and combos w costs n_bars × (c + Σ over w of (a + b Σw)) (call_ns).  A
 * frame is refused before it runs when --cost-margin (default 3) times that exceeds the frame deadline:
 * 1.5 for another CPU or a noisy run, times 2 for a frame sharing its core with one other (the deadline
 * is wall time).  Normal prices cost 10-1000 times less than this (a walk at the default grid: ~2 ns per
 * bar-combo), so the model is an upper bound, never a forecast.
 * One copy: the refusal before a frame runs, the slices of a sweep and the chunks of live work all
 * call call_ns. */
typedef struct {
    const char *name;
    double a, b, c;
} cost_model;

static const cost_model cost_models[] = {
    {"naive", 26, 0.62, 3},          {"unchecked", 23, 0.57, 3},         {"prealloc", 16, 0.59, 18},
    {"simd_wma", 14, 0.05, 3},       {"simd_wma_omp", 14, 0.05, 3},      {"simd_wma_dot", 36, 1.12, 5},
    {"sliding", 23, 0.58, 3},        {"sliding_omp", 25, 0.60, 3},       {"sliding_lanes", 34, 0.96, 20},
    {"sliding_lanes_omp", 34, 0.96, 20}, {"segments", 38, 0.91, 20},     {"segments_omp", 38, 0.91, 20},
};
/* Live mode (hs_live_open, hs_live_append), measured the same way. */
static const cost_model live_cost_model = {"live", 64, 0.71, 58};
/* A sweep with periods (ops 13, 14) keeps the equity: 1.38-1.60x the sweep (reports/equity.md). */
#define HS_COST_EQUITY 1.6

/* The server's variant's row (an alias resolved; NULL: the default); a variant not measured gets the
 * worst row, coefficient by coefficient. */
static cost_model cost_model_of(const char *variant) {
    const char *target = hs_variant_alias(variant ? variant : HS_DEFAULT_VARIANT, NULL);
    if (!target) target = variant ? variant : HS_DEFAULT_VARIANT;
    cost_model worst = {"(not measured: the worst row)", 0, 0, 0};
    for (size_t k = 0; k < sizeof cost_models / sizeof *cost_models; k++) {
        const cost_model *m = &cost_models[k];
        if (strcmp(m->name, target) == 0) return *m;
        worst.a = fmax(worst.a, m->a), worst.b = fmax(worst.b, m->b), worst.c = fmax(worst.c, m->c);
    }
    return worst;
}

/* One combo's ns per bar at worst (before the margin). */
static double combo_ns(const cost_model *m, const hs_windows *w) {
    double sum = 0;
    for (int k = 0; k < 6; k++) sum += (double)w->w[k];
    return m->a + m->b * sum;
}

/* One call over n_bars bars whose combos cost combos_ns ns per bar together: ns at worst. */
static double call_ns(const cost_model *m, size_t n_bars, double combos_ns) {
    return (double)n_bars * (m->c + combos_ns);
}

struct hs_engine {
    hs_engine_config cfg;
    atomic_int stop;
    atomic_ullong loaded_total;
    pthread_mutex_t slot_lock;
    int slots_free;
    struct slot_waiter *queue_head; /* the frames waiting for a worker slot, least served first (slot_take) */
    cost_model sweep_cost, live_cost; /* the cost model's rows for this server's variant and live mode */
    char variants[256];
};

void hs_engine_config_defaults(hs_engine_config *c) {
    memset(c, 0, sizeof *c);
    c->lim.max_frame_bytes = 64u << 20;           /* 8 M bars per SWEEP/ECHO/LOAD */
    c->lim.max_work = 1ull << 36; /* 11× the golden run (150,000 bars × Σ(windows + 256) of 80 combos) */
    c->max_loaded_per_client = 256ull << 20;
    c->max_loaded_total = 1ull << 30;
    c->max_handles_per_client = 1024;
    c->max_clients = 64;
    c->workers = 2;
    c->idle_timeout_ms = 300000;
    c->frame_deadline_ms = 30000;
    c->cost_margin = 3; /* the cost model's (issue 29 item 2) */
    c->admit_timeout_ms = 2000; /* issue 29 item 3: a short pre-auth deadline (it was 5 s) */
    c->max_pending = 16;
    c->max_pending_per_peer = 4;
    c->log = stderr;
}

/* HELLO's names: the variant this server runs first, then the rest of the registry as the public API lists
 * it (as many as fit): product variants only, since the gap study's instruments are not in the library. */
static void list_variants(const char *running, char *out, size_t cap) {
    size_t used = (size_t)snprintf(out, cap, "%s", running);
    for (size_t k = 0, n = hs_variant_count(); k < n && used < cap; k++) {
        hs_variant_info v;
        hs_variant_describe_sized(k, &v, sizeof v, NULL); /* name and role are filled even when the default ISA is refused */
        if (strcmp(v.name, running) == 0) continue;
        size_t len = strlen(v.name);
        if (used + 1 + len >= cap) break;
        out[used++] = ',';
        memcpy(out + used, v.name, len + 1);
        used += len;
    }
}

hs_status hs_engine_create(const hs_engine_config *cfg, hs_engine **out, hs_error *err) {
    *out = NULL;
    if (cfg->workers < 1) return hs_fail(err, HS_ERR_USAGE, "workers = %d: need at least 1", cfg->workers);
    if (cfg->lim.max_frame_bytes < 64 || cfg->lim.max_frame_bytes > HS_MAX_FRAME_BYTES_CAP)
        return hs_fail(err, HS_ERR_USAGE, "max frame bytes %u: need 64 to %u", cfg->lim.max_frame_bytes,
                       HS_MAX_FRAME_BYTES_CAP);
    hs_engine *e = calloc(1, sizeof *e);
    if (!e) return hs_fail(err, HS_ERR_NOMEM, "out of memory creating the engine");
    e->cfg = *cfg;
    if (!e->cfg.log) e->cfg.log = stderr;
    atomic_init(&e->stop, 0);
    atomic_init(&e->loaded_total, 0);
    pthread_mutex_init(&e->slot_lock, NULL);
    e->slots_free = cfg->workers;
    e->sweep_cost = cost_model_of(cfg->sweep.variant);
    e->live_cost = live_cost_model;
    list_variants(cfg->sweep.variant ? cfg->sweep.variant : HS_DEFAULT_VARIANT, e->variants, sizeof e->variants);
    /* OpenMP variants (the default `best` is one): `workers` sweeps at once share the cores rather than
     * each starting a team as wide as the machine. */
    if (e->cfg.sweep.threads <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        e->cfg.sweep.threads = cores > cfg->workers ? (int)(cores / cfg->workers) : 1;
    }
    *out = e;
    return HS_OK;
}

void hs_engine_destroy(hs_engine *e) {
    if (!e) return;
    pthread_mutex_destroy(&e->slot_lock);
    free(e);
}

void hs_engine_stop(hs_engine *e) { atomic_store(&e->stop, 1); }
int hs_engine_stopping(const hs_engine *e) { return atomic_load(&((hs_engine *)e)->stop); }
const hs_engine_config *hs_engine_config_of(const hs_engine *e) { return &e->cfg; }
uint64_t hs_engine_loaded_total(const hs_engine *e) { return atomic_load(&((hs_engine *)e)->loaded_total); }

/* ---- per-connection state ------------------------------------------------------------------------ */
typedef struct {
    uint32_t id;
    uint32_t n_bars;
    const double *close; /* points into buf */
    void *buf;
} loaded_series;

/* A live session (ops 6-8, docs/live.md).  Its reply buffer is made once at LIVE_OPEN: the prefix at
 * +4 and the body at +8, so the library writes the pnl and trades arrays aligned, in place. */
typedef struct {
    uint32_t id;
    uint32_t n_combos;
    hs_live *live;
    uint64_t bytes; /* charged to the loaded-bytes limits */
    uint64_t work_per_bar; /* Σ over combos of hs_codec_combo_work: one appended bar's work */
    double combos_ns;      /* Σ over combos of combo_ns (live mode's cost model): one appended bar's cost */
    unsigned char *reply;
    hs_stats *stats; /* opened by LIVE_OPEN_STATS (protocol 2): each append's reply carries them; else NULL */
} live_session;

typedef struct {
    hs_engine *e;
    hs_stream *s;
    hs_session_stats *st;
    loaded_series *handles;
    uint32_t n_handles, cap_handles, next_id;
    live_session *lives;
    uint32_t n_lives, cap_lives, next_live;
    uint64_t loaded_bytes; /* LOADed series and live sessions */
    int authed;
    uint32_t hello_version; /* what this connection's HELLO settled (0: no HELLO yet) */
    void *rx; /* the receive buffer, kept between frames (see take_rx) */
    size_t rx_cap;
    long long deadline;      /* the frame in hand's deadline (hs_now_ms clock) */
    long long full_deadline; /* … once admitted: its start + --frame-deadline-ms */
    const hs_admission *adm; /* NULL: admitted from the start */
    int admitted;
    long long admit_by;      /* while not admitted: the first frame must be in (and AUTH passed) by then */
} session;

/* A fresh 1.2 MB buffer per frame costs ~300 µs of page faults on this VM (issue 7 §4), more than the
 * round trip itself: the connection keeps its receive buffer for the next frame, up to this size (so an
 * idle connection holds at most this much, 2 MiB: the golden frame fits; larger frames get a buffer of
 * their own, freed after the frame: issue 20 §1, a 16 MiB ECHO must not stay pinned by a connection). */
#define HS_KEEP_RX_BYTES ((size_t)2 << 20)

static void *take_rx(session *ss, size_t n) {
    if (ss->rx && n <= ss->rx_cap) return ss->rx;
    free(ss->rx);
    ss->rx = malloc(n);
    ss->rx_cap = ss->rx ? n : 0;
    return ss->rx;
}

/* After the frame: keep the buffer unless LOAD took it (*buf NULL) or it is too big to keep idle. */
static void give_rx(session *ss, void *buf) {
    if (!buf) {
        ss->rx = NULL, ss->rx_cap = 0;
    } else if (ss->rx_cap > HS_KEEP_RX_BYTES) {
        free(ss->rx);
        ss->rx = NULL, ss->rx_cap = 0;
    }
}

/* One fprintf per line: stdio locks the stream per call, so lines of concurrent connections never mix. */
static void log_event(const session *ss, const char *fmt, const char *detail) {
    if (!ss->e->cfg.verbose) return;
    char what[512];
    snprintf(what, sizeof what, fmt, detail);
    fprintf(ss->e->cfg.log, "hmasweep serve: %s %s: %s\n", ss->s->transport, ss->s->peer, what);
}

static int send_iov(session *ss, struct iovec *iov, int n) {
    long long deadline = hs_now_ms() + ss->e->cfg.frame_deadline_ms;
    errno = 0;
    int rc = hs_stream_write_full(ss->s, iov, n, deadline);
    /* A reply that did not go out is said (issue 20 §8: `wire` > /dev/full exited 0): the first cause. */
    if (rc && !ss->st->write_error) ss->st->write_error = rc == (int)HS_STREAM_TIMEOUT ? ETIMEDOUT : errno ? errno : EIO;
    return rc;
}

static int send_error(session *ss, hs_wire_code code, const char *msg) {
    unsigned char buf[8 + sizeof(hs_error)];
    size_t n = hs_codec_encode_error(code, msg, buf, sizeof buf);
    struct iovec iov = {buf, n};
    ss->st->errors++;
    if (ss->e->cfg.log_errors && !ss->e->cfg.verbose)
        fprintf(ss->e->cfg.log, "hmasweep: frame %ld: error reply %d: %s\n", ss->st->frames - 1 + ss->st->lost_boundary,
                (int)code, msg);
    log_event(ss, "error reply: %s", msg);
    return send_iov(ss, &iov, 1);
}

/* Worker slots go to the waiting frame that has been served least (issue 29 item 2): `served` is what
 * the frame's slices (or live chunks) have run so far, in the cost model's ns, so a new frame (0) goes
 * before the next slice of a big one, and big ones take turns, slice by slice, whatever their arrival
 * order; equal ones first come, first served.  A condition variable had let a big sweep's next slice,
 * or any waiter, overtake a witness that had waited longer; a plain FIFO still put a witness behind the
 * slices of every big frame queued before it.  A waiter queues with its own condition variable;
 * slot_give hands the freed slot straight to the queue's head. */
struct slot_waiter {
    pthread_cond_t cv;
    int granted;
    double served;
    struct slot_waiter *next;
};

static void queue_unlink(hs_engine *e, struct slot_waiter *w) {
    struct slot_waiter **p = &e->queue_head;
    while (*p && *p != w) p = &(*p)->next;
    if (*p) *p = w->next;
}

/* After every waiter served no more than w (the queue stays ordered by served, then arrival). */
static void queue_insert(hs_engine *e, struct slot_waiter *w) {
    struct slot_waiter **p = &e->queue_head;
    while (*p && (*p)->served <= w->served) p = &(*p)->next;
    w->next = *p;
    *p = w;
}

/* Wait for a worker slot until `deadline` (hs_now_ms clock), least served first: 1 taken, 0 the
 * deadline came first. */
static int slot_take(hs_engine *e, long long deadline, double served) {
    struct timespec until = {(time_t)(deadline / 1000), (long)(deadline % 1000) * 1000000L};
    pthread_mutex_lock(&e->slot_lock);
    if (e->slots_free > 0 && !e->queue_head) {
        e->slots_free--;
        pthread_mutex_unlock(&e->slot_lock);
        return 1;
    }
    struct slot_waiter w = {.granted = 0, .served = served, .next = NULL};
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* slot waits end at the frame deadline (hs_now_ms) */
    pthread_cond_init(&w.cv, &ca);
    pthread_condattr_destroy(&ca);
    queue_insert(e, &w);
    int timed_out = 0;
    while (!w.granted && !timed_out) timed_out = pthread_cond_timedwait(&w.cv, &e->slot_lock, &until) == ETIMEDOUT;
    if (!w.granted) queue_unlink(e, &w);
    pthread_mutex_unlock(&e->slot_lock);
    pthread_cond_destroy(&w.cv);
    return w.granted;
}

static int no_slot(session *ss) {
    char msg[160];
    snprintf(msg, sizeof msg, "all %d workers stayed busy until the frame deadline (%d ms): try again later",
             ss->e->cfg.workers, ss->e->cfg.frame_deadline_ms);
    return send_error(ss, HS_WIRE_LIMIT, msg);
}

/* The progress hook of a server sweep (hs_sweep_options.progress): stop at the frame deadline, so a
 * started sweep never holds its worker slot past it (issue 20 §2). */
typedef struct {
    long long deadline;
    size_t done;
} deadline_watch;

static int past_deadline(void *user, size_t done, size_t total) {
    deadline_watch *w = user;
    (void)total;
    w->done = done;
    return hs_now_ms() >= w->deadline;
}

static int deadline_error(session *ss, const char *what, size_t done, size_t total, const char *unit) {
    char msg[240];
    snprintf(msg, sizeof msg, "%s did not finish within the frame deadline (%d ms): stopped after %zu of %zu %s",
             what, ss->e->cfg.frame_deadline_ms, done, total, unit);
    return send_error(ss, HS_WIRE_LIMIT, msg);
}

static void slot_give(hs_engine *e) {
    pthread_mutex_lock(&e->slot_lock);
    struct slot_waiter *w = e->queue_head;
    if (w) { /* the slot goes to the least served waiter, not to whoever asks next */
        e->queue_head = w->next;
        w->granted = 1;
        pthread_cond_signal(&w->cv);
    } else {
        e->slots_free++;
    }
    pthread_mutex_unlock(&e->slot_lock);
}

/* Subnormal prices (below DBL_MIN) are refused by the server as bad data (issue 29 item 2): they make
 * every variant slow, unchecked included (0.8-4.5 s for 3,000 bars, against ~0.02 s for normal prices),
 * which no work limit can price, and no market quotes 1e-308.  The library still sweeps them, bit for bit
 * (test_certify_range); only the shared server refuses them.  0, or the error reply's send status. */
static int refuse_subnormal(session *ss, const double *x, size_t n, int *refused) {
    *refused = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != 0.0 && fabs(x[i]) < DBL_MIN) {
            char msg[200];
            snprintf(msg, sizeof msg, "price %g at bar %zu is subnormal (below %g): refused by the server, whose work "
                     "limit cannot price such arithmetic (docs/engine.md)", x[i], i, DBL_MIN);
            *refused = 1;
            return send_error(ss, HS_WIRE_BAD_DATA, msg);
        }
    }
    return 0;
}

/* The end of the slice of combos that starts at `from`: combos up to about HS_SLICE_NS of the cost
 * model (at least one), whose cost goes to *ns.  A queued frame waits at most about one slice for a
 * busy worker, however big the sweeps ahead of it.  3 ms on the worst prices measured is well under 1 ms
 * on normal ones (~2 ns per bar-combo); the slices' own cost, c per bar and slice, is in the model.
 * (It was 2^24 units of --max-work.) */
#define HS_SLICE_NS 3e6
static size_t slice_end(const cost_model *m, const hs_windows *w, size_t n_combos, size_t n_bars, size_t from,
                        double *ns) {
    double combos = 0;
    size_t c = from;
    do combos += combo_ns(m, &w[c++]);
    while (c < n_combos && call_ns(m, n_bars, combos) < HS_SLICE_NS);
    *ns = call_ns(m, n_bars, combos);
    return c;
}

/* A sweep's cost at worst, slice by slice as do_sweep runs it (ns). */
static double sweep_ns(const cost_model *m, const hs_windows *w, size_t n_combos, size_t n_bars) {
    double total = 0, ns;
    for (size_t from = 0; from < n_combos; total += ns) from = slice_end(m, w, n_combos, n_bars, from, &ns);
    return total;
}

/* Refuse, before it runs, a computation the cost model says may not finish within the frame deadline
 * (issue 29 item 2: 100,000 bars x 2,500 combos of windows 1 passed --max-work and ran until the
 * deadline stopped it, 30 s of a worker for nothing).  0: it fits; else *refused = 1 and the error
 * reply's send status. */
static int refuse_over_deadline(session *ss, const char *what, double ns, const cost_model *m, int *refused) {
    *refused = 0;
    double limit = 1e6 * (double)ss->e->cfg.frame_deadline_ms, margin = ss->e->cfg.cost_margin;
    if (margin * ns <= limit) return 0;
    char msg[512]; /* what + numbers: under 320 bytes (hs_error) in practice */
    snprintf(msg, sizeof msg, "%s: estimated %.3g s (%g x %.3g s at worst) exceeds the frame deadline of %.3g s "
             "(--frame-deadline-ms, --cost-margin); cost model '%s': bars x (%.0f + per combo (%.0f + %.2f x Σwindows)) ns: "
             "send fewer bars or combos per frame",
             what, margin * ns / 1e9, margin, ns / 1e9, limit / 1e9, m->name, m->c, m->a, m->b);
    *refused = 1;
    return send_error(ss, HS_WIRE_LIMIT, msg);
}

static hs_wire_code wire_code_of(hs_status st) {
    return st == HS_ERR_DATA         ? HS_WIRE_BAD_DATA
           : st == HS_ERR_NOMEM     ? HS_WIRE_NOMEM
           : st == HS_ERR_CANCELLED ? HS_WIRE_LIMIT
                                    : HS_WIRE_BAD_REQUEST;
}

/* What a sweep request asks for beyond op 0's results: none (ops 0 and 4, the library's default fee and
 * docs/spec.md §6's reply), the fee and the six statistics (ops 10 and 11, protocol 2), or those and the
 * equity at n_periods period ends with each combo's mtm_max_drawdown (ops 13 and 14, protocol 3). */
typedef struct {
    const double *fee;  /* NULL: ops 0 and 4 */
    uint32_t n_periods; /* 0: no equity */
} sweep_extras;

static sweep_extras extras_of(const hs_request *r) {
    return (sweep_extras){hs_codec_is_stats_op(r->op) ? &r->fee : NULL, hs_codec_is_equity_op(r->op) ? r->n_periods : 0};
}

/* The reply's size for n combos (0: it would not fit one frame). */
static uint64_t reply_bytes(const sweep_extras *x, size_t n) {
    return x->n_periods ? hs_codec_equity_reply_bytes(n, x->n_periods)
           : x->fee     ? hs_codec_stats_reply_bytes(n)
                        : hs_codec_sweep_reply_bytes(n);
}

/* Sweep and send the reply; the reply buffer holds results first, then the encoded frame. */
static int do_sweep(session *ss, const double *close, uint32_t n_bars, const hs_windows *w, uint32_t n_combos,
                    const sweep_extras *x) {
    int refused, rc0 = refuse_subnormal(ss, close, n_bars, &refused);
    if (refused) return rc0;
    size_t n = n_combos ? n_combos : 1, P = x->n_periods;
    cost_model m = ss->e->sweep_cost;
    if (P) m.a *= HS_COST_EQUITY, m.b *= HS_COST_EQUITY, m.c *= HS_COST_EQUITY;
    char what[96];
    snprintf(what, sizeof what, "the sweep of %u bars x %u combos", n_bars, n_combos);
    rc0 = refuse_over_deadline(ss, what, sweep_ns(&m, w, n_combos, n_bars), &m, &refused);
    if (refused) return rc0;
    uint64_t bytes = reply_bytes(x, n_combos);
    if (!bytes) {
        char msg[160];
        snprintf(msg, sizeof msg, "the reply for %u combos x %u periods would exceed one frame (%u bytes)", n_combos,
                 x->n_periods, HS_MAX_FRAME_BYTES_CAP);
        return send_error(ss, HS_WIRE_LIMIT, msg);
    }
    hs_result *res = malloc(n * sizeof *res);
    hs_stats *stats = x->fee ? malloc(n * sizeof *stats) : NULL;
    double *mtm = P ? malloc(n * sizeof *mtm) : NULL, *equity = P ? malloc(n * P * sizeof *equity) : NULL;
    unsigned char *reply = malloc((size_t)bytes);
    if (!res || !reply || (x->fee && !stats) || (P && (!mtm || !equity))) {
        free(res), free(reply), free(stats), free(mtm), free(equity);
        return send_error(ss, HS_WIRE_NOMEM, "out of memory for the sweep's results");
    }
    hs_error err;
    hs_sweep_options opt = ss->e->cfg.sweep;
    opt.struct_size = sizeof opt;
    deadline_watch watch = {ss->deadline, 0};
    opt.progress = past_deadline, opt.progress_user = &watch;
    if (x->fee) opt.fee = *x->fee, opt.has_fee = 1;
    /* In slices of about HS_SLICE_NS, each under its own worker slot, so frames queued meanwhile (least
     * served first, slot_take) run between two slices of a big sweep instead of after all of it (issue 29 item 2).  Each
     * combo is swept alone, so the results are the whole sweep's, bit for bit.  With periods a slice's E
     * (P x its combos) goes to slice_equity, then into its columns of E (P x n_combos). */
    double *slice_equity = P ? malloc(n * P * sizeof *slice_equity) : NULL;
    if (P && !slice_equity) {
        free(res), free(reply), free(stats), free(mtm), free(equity);
        return send_error(ss, HS_WIRE_NOMEM, "out of memory for the sweep's results");
    }
    hs_status st = HS_OK;
    size_t done = 0;
    double served = 0, slice;
    while (st == HS_OK && done < n_combos) {
        size_t end = slice_end(&m, w, n_combos, n_bars, done, &slice), k = end - done;
        if (done && hs_now_ms() >= ss->deadline) {
            st = HS_ERR_CANCELLED, watch.done = done;
            break;
        }
        if (!slot_take(ss->e, ss->deadline, served)) {
            free(res), free(reply), free(stats), free(mtm), free(equity), free(slice_equity);
            return no_slot(ss);
        }
        if (x->fee) opt.stats = stats + done;
        if (P) opt.n_periods = P, opt.period_ends = NULL, opt.equity = slice_equity, opt.mtm_max_drawdown = mtm + done;
        st = hs_sweep(close, n_bars, w + done, k, res + done, &opt, &err);
        slot_give(ss->e);
        if (st == HS_OK && P)
            for (size_t p = 0; p < P; p++) memcpy(equity + p * n_combos + done, slice_equity + p * k, k * sizeof *equity);
        if (st == HS_ERR_CANCELLED) watch.done += done;
        done = end, served += slice;
    }
    free(slice_equity);
    int rc;
    if (st == HS_ERR_CANCELLED) {
        rc = deadline_error(ss, "the sweep", watch.done, n_combos, "combos");
    } else if (st != HS_OK) {
        rc = send_error(ss, wire_code_of(st), err.msg);
    } else {
        if (P) hs_codec_encode_equity_reply(res, stats, mtm, equity, n_combos, P, reply);
        else if (x->fee) hs_codec_encode_stats_reply(res, stats, n_combos, reply);
        else hs_codec_encode_sweep_reply(res, n_combos, reply);
        struct iovec iov = {reply, (size_t)bytes};
        rc = send_iov(ss, &iov, 1);
    }
    free(res), free(reply), free(stats), free(mtm), free(equity);
    return rc;
}

static loaded_series *find_handle(session *ss, uint32_t id) {
    for (uint32_t i = 0; i < ss->n_handles; i++)
        if (ss->handles[i].id == id) return &ss->handles[i];
    return NULL;
}

static int unknown_id(session *ss, const char *kind, uint32_t id, const char *why) {
    char msg[128];
    snprintf(msg, sizeof msg, "unknown %s %u (%s)", kind, id, why);
    return send_error(ss, HS_WIRE_UNKNOWN_HANDLE, msg);
}

static int unknown_handle(session *ss, uint32_t id) {
    return unknown_id(ss, "handle", id, "not loaded on this connection, or freed");
}

/* The loaded series a SWEEP_HANDLE or LIVE_OPEN names, with its windows checked against it (from 1 to
 * its n_bars, the work limit); NULL once the error reply is sent (its send status in *rc). */
static loaded_series *windows_on_handle(session *ss, const hs_request *r, int *rc) {
    loaded_series *h = find_handle(ss, r->handle);
    if (!h) return *rc = unknown_handle(ss, r->handle), NULL;
    hs_error err;
    hs_wire_code c = hs_codec_check_windows(r->windows, r->n_combos, h->n_bars, ss->e->cfg.lim.max_work, &err);
    if (c) return *rc = send_error(ss, c, err.msg), NULL;
    return h;
}

/* Charge `bytes` held by the `held`-th object of a kind (handles, live sessions) to this connection's and
 * the server's loaded-bytes limits.  0 on success; else the limit's message is in msg. */
static int charge(session *ss, const char *what, uint64_t bytes, uint32_t held, char *msg, size_t cap) {
    if (ss->loaded_bytes + bytes > ss->e->cfg.max_loaded_per_client || held >= ss->e->cfg.max_handles_per_client) {
        snprintf(msg, cap, "%s of %llu bytes: this connection holds %llu bytes, %u of this kind (limits %llu bytes, %u each)",
                 what, (unsigned long long)bytes, (unsigned long long)ss->loaded_bytes, held,
                 (unsigned long long)ss->e->cfg.max_loaded_per_client, ss->e->cfg.max_handles_per_client);
        return 1;
    }
    unsigned long long total = atomic_fetch_add(&ss->e->loaded_total, bytes) + bytes;
    if (total > ss->e->cfg.max_loaded_total) {
        atomic_fetch_sub(&ss->e->loaded_total, bytes);
        snprintf(msg, cap, "%s of %llu bytes: the server's total of loaded series and live sessions would exceed %llu bytes",
                 what, (unsigned long long)bytes, (unsigned long long)ss->e->cfg.max_loaded_total);
        return 1;
    }
    ss->loaded_bytes += bytes;
    return 0;
}

static void uncharge(session *ss, uint64_t bytes) {
    atomic_fetch_sub(&ss->e->loaded_total, bytes);
    ss->loaded_bytes -= bytes;
}

/* A reply whose body is one u32 (a handle or a session). */
static int send_u32(session *ss, uint32_t v) {
    unsigned char reply[8];
    hs_codec_put_u32(reply, 4);
    hs_codec_put_u32(reply + 4, v);
    struct iovec iov = {reply, 8};
    return send_iov(ss, &iov, 1);
}

static int send_empty(session *ss) {
    unsigned char reply[4] = {0};
    struct iovec iov = {reply, 4};
    return send_iov(ss, &iov, 1);
}

/* LOAD keeps the frame buffer (*buf) as the series' storage when it is the series' size (then *buf is
 * taken), else a copy of just the series: what is kept is what is charged. */
static int do_load(session *ss, const hs_request *r, void **buf) {
    hs_error err;
    if (hs_check_series(r->close, r->n_bars, &err) != HS_OK) return send_error(ss, HS_WIRE_BAD_DATA, err.msg);
    int refused, rc0 = refuse_subnormal(ss, r->close, r->n_bars, &refused);
    if (refused) return rc0;
    uint64_t bytes = 8ull * r->n_bars;
    char msg[200];
    if (charge(ss, "LOAD", bytes, ss->n_handles, msg, sizeof msg)) return send_error(ss, HS_WIRE_LIMIT, msg);
    if (ss->n_handles == ss->cap_handles) {
        uint32_t cap = ss->cap_handles ? 2 * ss->cap_handles : 8;
        loaded_series *h = realloc(ss->handles, cap * sizeof *h);
        if (!h) {
            uncharge(ss, bytes);
            return send_error(ss, HS_WIRE_NOMEM, "out of memory for a handle");
        }
        ss->handles = h, ss->cap_handles = cap;
    }
    /* Keep only what is charged (issue 20 §1): the frame buffer may be the connection's receive buffer,
     * reused from an earlier and bigger frame (a 16 MiB ECHO, then LOAD 1 bar, pinned 16 MiB per handle).
     * Take it as the storage only when it is the series' own size; else copy the series out. */
    void *store = *buf;
    const double *series = r->close;
    if (ss->rx_cap > bytes + 64) {
        store = malloc(bytes);
        if (!store) {
            uncharge(ss, bytes);
            return send_error(ss, HS_WIRE_NOMEM, "out of memory for a loaded series");
        }
        memcpy(store, r->close, bytes);
        series = store;
    } else {
        *buf = NULL;
    }
    uint32_t id = ++ss->next_id;
    ss->handles[ss->n_handles++] = (loaded_series){id, r->n_bars, series, store};
    return send_u32(ss, id);
}

static void drop_handle(session *ss, loaded_series *h) {
    uncharge(ss, 8ull * h->n_bars);
    free(h->buf);
    *h = ss->handles[--ss->n_handles];
}

static int do_free(session *ss, uint32_t id) {
    loaded_series *h = find_handle(ss, id);
    if (!h) return unknown_handle(ss, id);
    drop_handle(ss, h);
    return send_empty(ss);
}

/* ---- live mode (ops 6-8, docs/live.md) ----------------------------------------------------------- */
/* An append whose cost at worst is at most one slice's (HS_SLICE_NS) runs on the connection's thread
 * without a worker slot: on normal prices it is microseconds (~10 ns per bar-combo), and a trading loop's
 * append must not wait behind a batch sweep holding every slot.  Larger appends (and every LIVE_OPEN,
 * which replays the history) take a slot for each chunk of about one slice, like a sweep's slices, so
 * a big append takes turns with the other frames (issue 29 item 2: 10k combos x 10k bars held a worker
 * 17 s).  (It was 65536 bar-combos of small windows, by --max-work's units.) */
#define HS_LIVE_INLINE_NS HS_SLICE_NS

/* [pnl][trades][position][crossed], and for a LIVE_OPEN_STATS session the six statistics' arrays after
 * them (hs_codec_encode_stats_arrays). */
static size_t live_reply_body(uint32_t n_combos, int stats) {
    return (18u + (stats ? HS_STATS_REPLY_PER_COMBO - 16u : 0u)) * (size_t)n_combos;
}

static live_session *find_live(session *ss, uint32_t id) {
    for (uint32_t i = 0; i < ss->n_lives; i++)
        if (ss->lives[i].id == id) return &ss->lives[i];
    return NULL;
}

static int unknown_live(session *ss, uint32_t id) {
    return unknown_id(ss, "live session", id, "not opened on this connection, or closed");
}

static void drop_live(session *ss, live_session *l) {
    uncharge(ss, l->bytes);
    hs_live_free(l->live);
    free(l->reply);
    free(l->stats);
    *l = ss->lives[--ss->n_lives];
}

static int grow_lives(session *ss) {
    if (ss->n_lives < ss->cap_lives) return 1;
    uint32_t cap = ss->cap_lives ? 2 * ss->cap_lives : 4;
    live_session *l = realloc(ss->lives, cap * sizeof *l);
    if (!l) return 0;
    ss->lives = l, ss->cap_lives = cap;
    return 1;
}

/* Bars per chunk of live work: about one slice of the cost model (HS_SLICE_NS, at least one bar), so
 * the frame deadline is checked that often and a chunk holds a worker no longer than a sweep's slice. */
static size_t live_chunk_bars(const hs_engine *e, double combos_ns) {
    double bars = HS_SLICE_NS / call_ns(&e->live_cost, 1, combos_ns);
    return bars >= 1 ? (bars < 1e9 ? (size_t)bars : (size_t)1e9) : 1;
}

/* What an append's chunks write: pnl, trades, position by the last chunk (NULL: nothing), crossed by
 * every chunk, OR-ed into `any` over them (NULL: not wanted, or one chunk). */
typedef struct {
    double *pnl;
    int64_t *trades;
    int8_t *position;
    uint8_t *crossed, *any;
} live_outputs;

/* Append bars[*done, to) to a live session in chunks of about one slice, each under its own worker
 * slot when `slotted` (least served first, like a sweep's slices: *served counts the chunks' cost), until
 * the deadline (HS_ERR_CANCELLED; the first chunk always starts, once it has a slot); *done counts what
 * went in. */
static hs_status live_feed(session *ss, const live_session *l, const double *bars, size_t *done, size_t to, int slotted,
                           double *served, const live_outputs *o, hs_error *err) {
    size_t chunk = live_chunk_bars(ss->e, l->combos_ns), from = *done;
    while (*done < to) {
        if (*done > from && hs_now_ms() >= ss->deadline) return hs_fail(err, HS_ERR_CANCELLED, "stopped at the frame deadline");
        size_t k = to - *done < chunk ? to - *done : chunk;
        int last = *done + k == to;
        if (slotted && !slot_take(ss->e, ss->deadline, *served))
            return hs_fail(err, HS_ERR_CANCELLED, "no worker slot before the frame deadline");
        hs_status st = hs_live_append(l->live, bars + *done, k, last && o ? o->pnl : NULL, last && o ? o->trades : NULL,
                                      last && o ? o->position : NULL, o ? o->crossed : NULL, err);
        if (slotted) slot_give(ss->e);
        if (st != HS_OK) return st;
        for (size_t c = 0; o && o->any && c < l->n_combos; c++) o->any[c] |= o->crossed[c];
        *done += k, *served += call_ns(&ss->e->live_cost, k, l->combos_ns);
    }
    return HS_OK;
}

static int do_live_open(session *ss, const hs_request *r) {
    int rc;
    loaded_series *h = windows_on_handle(ss, r, &rc);
    if (!h) return rc;
    hs_error err;
    int with_stats = r->op == HS_OP_LIVE_OPEN_STATS;
    live_session l = {0, r->n_combos, NULL, 0, 0, 0, NULL, NULL};
    size_t stats_bytes = with_stats ? (r->n_combos ? r->n_combos : 1) * sizeof(hs_stats) : 0;
    l.bytes = hs_live_bytes_for(r->windows, r->n_combos) + 8 + live_reply_body(r->n_combos, with_stats) + stats_bytes;
    for (uint32_t c = 0; c < r->n_combos; c++) l.work_per_bar += hs_codec_combo_work(&r->windows[c]);
    if (l.work_per_bar == 0) l.work_per_bar = 1; /* no combos: an append still costs its loop */
    for (uint32_t c = 0; c < r->n_combos; c++) l.combos_ns += combo_ns(&ss->e->live_cost, &r->windows[c]);
    char msg[200];
    snprintf(msg, sizeof msg, "LIVE_OPEN's history replay of %u bars x %u combos", h->n_bars, r->n_combos);
    int refused, rc0 = refuse_over_deadline(ss, msg, call_ns(&ss->e->live_cost, h->n_bars, l.combos_ns), &ss->e->live_cost,
                                            &refused);
    if (refused) return rc0;
    if (charge(ss, "LIVE_OPEN", l.bytes, ss->n_lives, msg, sizeof msg)) return send_error(ss, HS_WIRE_LIMIT, msg);
    l.reply = malloc(8 + live_reply_body(r->n_combos, with_stats));
    if (with_stats) l.stats = malloc(stats_bytes);
    if (!l.reply || (with_stats && !l.stats) || !grow_lives(ss)) {
        free(l.reply), free(l.stats);
        uncharge(ss, l.bytes);
        return send_error(ss, HS_WIRE_NOMEM, "out of memory for a live session");
    }
    if (!slot_take(ss->e, ss->deadline, 0)) {
        free(l.reply), free(l.stats);
        uncharge(ss, l.bytes);
        return no_slot(ss);
    }
    /* The history is replayed in chunks (the first bars at open, the rest as appends: the same state,
     * docs/live.md), each under its own slot, so the frame deadline is checked between them and the
     * replay takes turns with other frames. */
    size_t chunk = live_chunk_bars(ss->e, l.combos_ns), first = h->n_bars < chunk ? h->n_bars : chunk;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    if (with_stats) opt.fee = r->fee, opt.has_fee = 1;
    hs_status st = hs_live_open_opt(h->close, first, r->windows, r->n_combos, &opt, &l.live, &err);
    slot_give(ss->e);
    size_t done = first;
    double served = call_ns(&ss->e->live_cost, first, l.combos_ns);
    if (st == HS_OK) st = live_feed(ss, &l, h->close, &done, h->n_bars, 1, &served, NULL, &err);
    if (st != HS_OK) {
        hs_live_free(l.live);
        free(l.reply), free(l.stats);
        uncharge(ss, l.bytes);
        if (st == HS_ERR_CANCELLED) return deadline_error(ss, "LIVE_OPEN's history replay", done, h->n_bars, "bars");
        return send_error(ss, wire_code_of(st), err.msg);
    }
    l.id = ++ss->next_live;
    ss->lives[ss->n_lives++] = l;
    return send_u32(ss, l.id);
}

/* The reply is written by the library straight into the session's reply buffer (struct of arrays).  The
 * append's work is bounded by --max-work before it starts, and its time by the frame deadline: it runs
 * in chunks, and one stopped at the deadline closes the session (its bars are partly in, so its state is
 * no longer what the client holds). */
static int do_live_append(session *ss, const hs_request *r) {
    live_session *l = find_live(ss, r->handle);
    if (!l) return unknown_live(ss, r->handle);
    size_t n = l->n_combos;
    unsigned char *body = l->reply + 8;
    uint8_t *crossed = body + 17 * n;
    hs_error err;
    if (r->k > ss->e->cfg.lim.max_work / l->work_per_bar) {
        char msg[240];
        snprintf(msg, sizeof msg, "LIVE_APPEND of %u bars: work %u × %llu exceeds the limit of %llu (--max-work): send fewer bars per append",
                 r->k, r->k, (unsigned long long)l->work_per_bar, (unsigned long long)ss->e->cfg.lim.max_work);
        return send_error(ss, HS_WIRE_LIMIT, msg);
    }
    int refused, rc0 = refuse_subnormal(ss, r->close, r->k, &refused);
    if (refused) return rc0;
    char what[96];
    snprintf(what, sizeof what, "LIVE_APPEND of %u bars x %u combos", r->k, l->n_combos);
    double ns = call_ns(&ss->e->live_cost, r->k, l->combos_ns);
    if ((rc0 = refuse_over_deadline(ss, what, ns, &ss->e->live_cost, &refused)), refused) return rc0;
    /* Every price first: a chunked append must not leave half of a bad append in (docs/live.md: a bad
     * price leaves the session unchanged). */
    if (hs_check_series(r->close, r->k, &err) != HS_OK) return send_error(ss, HS_WIRE_BAD_DATA, err.msg);
    size_t chunk = live_chunk_bars(ss->e, l->combos_ns), done = 0, k = r->k;
    uint8_t *any = k > chunk ? calloc(n ? n : 1, 1) : NULL; /* crossed over every chunk */
    if (k > chunk && !any) return send_error(ss, HS_WIRE_NOMEM, "out of memory for a live append");
    live_outputs o = {(double *)(void *)body, (int64_t *)(void *)(body + 8 * n), (int8_t *)(body + 16 * n), crossed, any};
    double served = 0;
    hs_status st = live_feed(ss, l, r->close, &done, k, ns > HS_LIVE_INLINE_NS, &served, &o, &err);
    if (any) memcpy(crossed, any, n);
    free(any);
    if (st == HS_ERR_CANCELLED && done == 0) return no_slot(ss); /* nothing went in: the session is as it was */
    if (st == HS_ERR_CANCELLED) {
        snprintf(what, sizeof what, "LIVE_APPEND (live session %u, now closed)", l->id);
        drop_live(ss, l);
        return deadline_error(ss, what, done, k, "bars");
    }
    if (st == HS_OK && l->stats && (st = hs_live_stats(l->live, l->stats, &err)) == HS_OK)
        hs_codec_encode_stats_arrays(l->stats, n, body + 18 * n);
    if (st != HS_OK) return send_error(ss, wire_code_of(st), err.msg);
    size_t bytes = live_reply_body(l->n_combos, l->stats != NULL);
    hs_codec_put_u32(l->reply + 4, (uint32_t)bytes);
    struct iovec iov = {l->reply + 4, 4 + bytes};
    return send_iov(ss, &iov, 1);
}

static int do_live_close(session *ss, uint32_t id) {
    live_session *l = find_live(ss, id);
    if (!l) return unknown_live(ss, id);
    drop_live(ss, l);
    return send_empty(ss);
}

static int do_sweep_handle(session *ss, const hs_request *r) {
    int rc;
    loaded_series *h = windows_on_handle(ss, r, &rc);
    sweep_extras x = extras_of(r);
    return h ? do_sweep(ss, h->close, h->n_bars, r->windows, r->n_combos, &x) : rc;
}

/* HELLO settles the connection's protocol: a v1 client's reply is byte for byte what it was, and its
 * connection then refuses the protocol-2 ops with a message saying so (docs/protocol.md "Version 2"). */
static int do_hello(session *ss, const hs_request *r) {
    unsigned char reply[64 + sizeof ss->e->variants];
    ss->hello_version = hs_codec_hello_version(r->client_version);
    size_t n = hs_codec_encode_hello(ss->hello_version, &ss->e->cfg.lim, ss->e->cfg.max_loaded_per_client,
                                     ss->e->variants, reply, sizeof reply);
    struct iovec iov = {reply, n};
    return send_iov(ss, &iov, 1);
}

/* Constant-time token comparison: the time taken does not say how many bytes matched. */
static int token_matches(const hs_engine *e, const unsigned char *t, size_t n) {
    unsigned char diff = (unsigned char)(n != e->cfg.token_len);
    for (size_t i = 0; i < e->cfg.token_len; i++) diff |= (unsigned char)(e->cfg.token[i] ^ (i < n ? t[i] : 0));
    return diff == 0;
}

/* A pending connection whose first frame is in (authenticated where needed) asks for a --max-clients
 * slot: 1 admitted, 0 refused (the error reply is sent; close). */
static int admit(session *ss) {
    if (ss->admitted) return 1;
    if (!ss->adm->admit(ss->adm->ctx)) {
        log_event(ss, "%s", "refused: too many clients");
        send_error(ss, HS_WIRE_LIMIT, "too many clients (the server's --max-clients limit)");
        return 0;
    }
    ss->admitted = 1;
    ss->deadline = ss->full_deadline; /* its first frame's work gets the whole frame deadline */
    return 1;
}

/* Returns 0 to keep serving, non-zero to close the connection. */
static int dispatch(session *ss, const hs_request *r, void **buf) {
    if (!ss->authed) {
        if (r->op != HS_OP_AUTH || !token_matches(ss->e, r->token, r->token_len)) {
            send_error(ss, HS_WIRE_AUTH, r->op == HS_OP_AUTH ? "authentication refused: wrong token"
                                                             : "authentication required: send AUTH first");
            return 1;
        }
        ss->authed = 1;
        log_event(ss, "%s", "authenticated");
        if (!admit(ss)) return 1;
        return send_empty(ss);
    }
    if (!admit(ss)) return 1;
    uint32_t needs = hs_codec_op_version(r->op);
    if (ss->hello_version && ss->hello_version < needs) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s (%s) needs protocol version %u: this connection's HELLO asked for version %u",
                 hs_codec_op_name(r->op), needs == HS_PROTOCOL_EQUITY_VERSION ? "the equity at period ends" : "the fee and the statistics",
                 needs, ss->hello_version);
        return send_error(ss, HS_WIRE_BAD_REQUEST, msg);
    }
    sweep_extras x = extras_of(r);
    switch (r->op) {
    case HS_OP_SWEEP:
    case HS_OP_SWEEP_STATS:
    case HS_OP_SWEEP_EQUITY: return do_sweep(ss, r->close, r->n_bars, r->windows, r->n_combos, &x);
    case HS_OP_SWEEP_HANDLE_STATS:
    case HS_OP_SWEEP_HANDLE_EQUITY: return do_sweep_handle(ss, r);
    case HS_OP_LIVE_OPEN_STATS: return do_live_open(ss, r);
    case HS_OP_ECHO: {
        /* The reply is the request's own close array: prefix + a pointer into the body, no copy. */
        unsigned char prefix[4];
        hs_codec_put_u32(prefix, 8u * r->n_bars);
        struct iovec iov[2] = {{prefix, 4}, {(void *)r->close, 8u * (size_t)r->n_bars}};
        return send_iov(ss, iov, 2);
    }
    case HS_OP_HELLO: return do_hello(ss, r);
    case HS_OP_LOAD: return do_load(ss, r, buf);
    case HS_OP_SWEEP_HANDLE: return do_sweep_handle(ss, r);
    case HS_OP_FREE: return do_free(ss, r->handle);
    case HS_OP_AUTH: return send_empty(ss); /* already authenticated (or no token needed): a no-op */
    case HS_OP_LIVE_OPEN: return do_live_open(ss, r);
    case HS_OP_LIVE_APPEND: return do_live_append(ss, r);
    case HS_OP_LIVE_CLOSE: return do_live_close(ss, r->handle);
    default: {
        char msg[96];
        snprintf(msg, sizeof msg, "opcode %u (%s) is not supported by this server", r->op, hs_codec_op_name(r->op));
        return send_error(ss, HS_WIRE_BAD_REQUEST, msg);
    }
    }
}

/* Wait for the start of a frame and take up to `n` bytes of it in one read: >0 bytes got, 0 peer
 * closed, -1 idle timeout / stop / error. */
static int wait_frame_start(session *ss, unsigned char *first, size_t n) {
    long long idle_end = hs_now_ms() + ss->e->cfg.idle_timeout_ms;
    if (!ss->admitted && ss->admit_by < idle_end) idle_end = ss->admit_by;
    for (;;) {
        if (hs_engine_stopping(ss->e)) return log_event(ss, "%s", "closing: server stopping"), -1;
        long long left = idle_end - hs_now_ms();
        if (left <= 0)
            return log_event(ss, "%s", ss->admitted ? "closing: idle timeout" : "closing: no first frame within the admission deadline"), -1;
        ssize_t r = ss->s->read(ss->s->ctx, first, n, left < HS_STOP_SLICE_MS ? (int)left : HS_STOP_SLICE_MS);
        if (r > 0) return (int)r;
        if (r == 0) return 0;
        if (r != HS_STREAM_TIMEOUT) return log_event(ss, "%s", "closing: read error"), -1;
    }
}

static int lost(session *ss, hs_wire_code code, const char *msg) {
    ss->st->lost_boundary = 1;
    send_error(ss, code, msg);
    return 1;
}

static const char *read_failure(int rc) {
    return rc == 1 ? "the peer closed the connection in the middle of a frame"
           : rc == (int)HS_STREAM_TIMEOUT ? "the frame did not arrive within the frame deadline"
                                          : "read error in the middle of a frame";
}

/* ECHO on a transport that can relay (shm): the reply's prefix goes out as soon as the header is read,
 * and the close array moves from the request ring to the reply ring with one copy, chunk by chunk, while
 * the client is still writing it (stream.h `relay`).  The body's first byte (the opcode) is in body[0].
 * Returns 0 served, 1 close the connection, -1 not taken: *have body bytes are in the buffer and the
 * caller reads the rest and serves the frame as usual (a header the codec refuses gets its error there). */
static int echo_relay(session *ss, unsigned char *body, uint32_t body_len, const hs_codec_limits *lim,
                      long long deadline, size_t *have) {
    size_t header = hs_codec_header_bytes(HS_OP_ECHO);
    if (body_len < header) return -1;
    int rc = hs_stream_read_full(ss->s, body + 1, header - 1, deadline, NULL);
    if (rc) return lost(ss, HS_WIRE_LIMIT, read_failure(rc));
    *have = header;
    hs_request req;
    hs_error err;
    if (hs_codec_parse_header(body, header, body_len, lim, &req, &err) != HS_WIRE_OK) return -1;
    unsigned char prefix[4];
    size_t n = 8u * (size_t)req.n_bars;
    hs_codec_put_u32(prefix, (uint32_t)n);
    long long left = deadline - hs_now_ms();
    ssize_t moved = ss->s->relay(ss->s->ctx, prefix, 4, n, left > 0 ? (int)left : 0);
    if (moved == 0) return -1;
    if (moved < 0) { /* part of the reply may be out: no error reply can follow it */
        ss->st->lost_boundary = 1;
        return log_event(ss, "%s", "closing: ECHO relay failed mid-frame"), 1;
    }
    /* the combos' windows: read and dropped (an ECHO does not use them) */
    rc = hs_stream_read_full(ss->s, body + header + n, body_len - header - n, deadline, NULL);
    if (rc) return lost(ss, HS_WIRE_LIMIT, read_failure(rc));
    ss->st->frames++;
    return 0;
}

/* One frame: 0 served (keep going), 1 close the connection. */
static int serve_frame(session *ss) {
    /* The prefix and the opcode (which says where to place the body for alignment) in one read when
     * they are there; a zero-length frame has no opcode, so never wait for a fifth byte before checking. */
    unsigned char prefix[5];
    int got = wait_frame_start(ss, prefix, 5);
    if (got <= 0) return 1;
    long long deadline = hs_now_ms() + ss->e->cfg.frame_deadline_ms;
    ss->full_deadline = deadline;
    if (!ss->admitted && ss->admit_by < deadline) deadline = ss->admit_by; /* a pending peer's first frame in */
    ss->deadline = deadline;
    int rc = got < 4 ? hs_stream_read_full(ss->s, prefix + got, 4 - (size_t)got, deadline, NULL) : 0;
    if (rc) return lost(ss, HS_WIRE_LIMIT, read_failure(rc));
    uint32_t body_len = hs_codec_get_u32(prefix);
    hs_codec_limits lim = ss->e->cfg.lim;
    if (!ss->authed && lim.max_frame_bytes > HS_PREAUTH_FRAME_BYTES) lim.max_frame_bytes = HS_PREAUTH_FRAME_BYTES;
    hs_error err;
    hs_wire_code code = hs_codec_check_prefix(body_len, &lim, &err);
    if (code && !ss->authed) return lost(ss, HS_WIRE_AUTH, "authentication required: send AUTH first");
    if (code) return lost(ss, code, err.msg); /* a length we will not read: the boundary is lost */
    rc = got < 5 ? hs_stream_read_full(ss->s, prefix + 4, 1, deadline, NULL) : 0;
    if (rc) return lost(ss, HS_WIRE_LIMIT, read_failure(rc));
    size_t pad = hs_codec_body_pad(prefix[4]);
    void *buf = take_rx(ss, pad + body_len);
    if (!buf) return lost(ss, HS_WIRE_NOMEM, "out of memory for the request body");
    unsigned char *body = (unsigned char *)buf + pad;
    body[0] = prefix[4];
    size_t have = 1;
    if (body[0] == HS_OP_ECHO && ss->s->relay && ss->authed) {
        int served = echo_relay(ss, body, body_len, &lim, deadline, &have);
        if (served >= 0) return give_rx(ss, buf), served;
    }
    rc = hs_stream_read_full(ss->s, body + have, body_len - have, deadline, NULL);
    if (rc) return lost(ss, HS_WIRE_LIMIT, read_failure(rc));
    ss->st->frames++;
    hs_request req;
    code = hs_codec_parse_request(body, body_len, &lim, &req, &err);
    int close_now;
    if (code) {
        close_now = send_error(ss, code, err.msg) != 0 || !ss->authed;
    } else {
        close_now = dispatch(ss, &req, &buf);
    }
    give_rx(ss, buf);
    return close_now;
}

void hs_engine_serve_stream(hs_engine *e, hs_stream *s, int need_auth, hs_session_stats *st) {
    hs_engine_serve_admitted(e, s, need_auth, NULL, st);
}

void hs_engine_serve_admitted(hs_engine *e, hs_stream *s, int need_auth, const hs_admission *adm, hs_session_stats *st) {
    hs_session_stats local = {0};
    session ss = {.e = e, .s = s, .st = st ? st : &local, .authed = !need_auth, .adm = adm, .admitted = !adm};
    if (adm) ss.admit_by = hs_now_ms() + adm->deadline_ms;
    memset(ss.st, 0, sizeof *ss.st);
    log_event(&ss, "%s", "connected");
    while (!serve_frame(&ss)) {
    }
    while (ss.n_handles) drop_handle(&ss, &ss.handles[0]);
    while (ss.n_lives) drop_live(&ss, &ss.lives[0]);
    free(ss.handles);
    free(ss.rx);
    free(ss.lives);
    char detail[64];
    snprintf(detail, sizeof detail, "%ld frames, %ld errors", ss.st->frames, ss.st->errors);
    log_event(&ss, "closed (%s)", detail);
    ss.st->admitted = ss.admitted;
}
