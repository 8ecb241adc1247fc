/* hmasweep-mpi: a universe sweep across MPI ranks (docs/universe.md).
 *
 *   mpirun -np N hmasweep-mpi --inputs SPEC [--grid ...] [--checkpoint FILE [--resume]] [--format ...]
 *
 * Rank 0 lists the universe and hands out symbols one at a time to whichever worker asks (symbols differ
 * in length, so a static split would leave ranks idle).  A worker reads its symbol's file where it is
 * and sends back only the results.  Rank 0 records each finished symbol in the checkpoint as it arrives
 * and writes rows in universe order as soon as every symbol before them has finished, so the output is
 * byte-identical to `hmasweep run --inputs` whatever N and whatever order the work completes in.  With N = 1, rank 0 does
 * the work itself.  Built on the public API (include/) and the universe's shared half (cli/, hmasweep_universe).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inputs_options.h"
#include "checkpoint.h"

enum { TAG_TASK = 1, TAG_RESULT = 2 };
#define NO_TASK UINT64_MAX
#define TASK_PATH_MAX 4096

/* What a worker sends back: this header, then the symbol's block of n_combos hs_result, their n_combos
 * hs_stats and, with periods, their mtm_max_drawdown and E (universe.h; ranks share one architecture). */
typedef struct {
    uint64_t index, n_bars;
    int32_t status;
    char error[sizeof(hs_error)];
    hs_input_id input; /* the file as the worker read it (recorded in the checkpoint) */
} result_header;

/* A task: the symbol's index, then its path (NUL-terminated); only the bytes of the path travel. */
typedef struct {
    uint64_t index;
    char path[TASK_PATH_MAX];
} task;

/* Tests kill a rank on purpose: HS_MPI_FAIL_AFTER=k makes a computing rank exit after k symbols. */
static long fail_after(void) {
    const char *s = getenv("HS_MPI_FAIL_AFTER");
    return s && *s ? strtol(s, NULL, 10) : -1;
}

static void compute(const char *path, const hs_universe_layout *lay, const hs_sweep_options *opt, hs_symbol_result *r) {
    memset(r, 0, sizeof *r);
    double *close = hs_universe_read(path, r);
    if (close) hs_universe_sweep_one(close, lay, opt, r);
    free(close);
}

/* ---- worker ---------------------------------------------------------------------------------------- */
static void send_result(uint64_t index, const hs_symbol_result *r, const hs_universe_layout *lay, char *buf) {
    result_header h = {index, r->n_bars, (int32_t)r->status, {0}, r->input};
    if (r->status != HS_OK && r->error) snprintf(h.error, sizeof h.error, "%s", r->error);
    memcpy(buf, &h, sizeof h);
    size_t len = sizeof h;
    if (r->status == HS_OK && index != NO_TASK) {
        memcpy(buf + len, r->rows, hs_symbol_block_bytes(lay->n_combos, lay->n_periods));
        len += hs_symbol_block_bytes(lay->n_combos, lay->n_periods);
    }
    MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
}

static void worker(const hs_universe_layout *lay, const hs_sweep_options *opt) {
    char *buf = malloc(sizeof(result_header) + hs_symbol_block_bytes(lay->n_combos, lay->n_periods));
    task *t = malloc(sizeof *t);
    hs_symbol_result r = {0};
    long done = 0, limit = fail_after();
    send_result(NO_TASK, &r, lay, buf); /* "ready" */
    for (;;) {
        MPI_Recv(t, (int)sizeof *t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t->index == NO_TASK) break;
        t->path[TASK_PATH_MAX - 1] = '\0';
        compute(t->path, lay, opt, &r);
        send_result(t->index, &r, lay, buf);
        hs_symbol_clear(&r);
        if (++done == limit) _exit(3);
    }
    free(t);
    free(buf);
}

/* ---- rank 0 ---------------------------------------------------------------------------------------- */
typedef struct {
    const hs_universe *u;
    size_t n;
    const hs_universe_layout *lay;
    hs_symbol_result *results; /* finished and not yet written (the rest are zero) */
    char *done;
    size_t written; /* rows of symbols [0, written) are out: the frontier */
    hs_universe_writer *out;
    hs_checkpoint ckpt;
    size_t computed;
    size_t *per_rank; /* symbols each rank computed: the imbalance, in the summary line */
} coordinator;

/* Write every finished symbol at the frontier, in universe order, and forget its rows: a killed run keeps
 * the rows it could write, and rank 0 holds only results that finished ahead of an unfinished one. */
static void advance(coordinator *co) {
    size_t from = co->written;
    while (co->written < co->n && co->done[co->written]) {
        hs_universe_write_symbol(co->out, hs_universe_symbol(co->u, co->written), &co->results[co->written]);
        hs_symbol_clear(&co->results[co->written]);
        co->written++;
    }
    if (co->written != from) hs_universe_writer_flush(co->out);
}

static int finish(coordinator *co, size_t index) {
    co->done[index] = 1;
    co->computed++;
    int rc = hs_checkpoint_record(&co->ckpt, index, &co->results[index], co->lay->n_combos, co->lay->n_periods);
    if (rc != 0) fprintf(stderr, "hmasweep-mpi: writing the checkpoint failed\n");
    advance(co);
    return rc;
}

static size_t next_pending(const coordinator *co, size_t from) {
    while (from < co->n && co->done[from]) from++;
    return from;
}

static int run_alone(coordinator *co, const hs_sweep_options *opt) {
    long limit = fail_after();
    for (size_t s = next_pending(co, 0); s < co->n; s = next_pending(co, s + 1)) {
        compute(hs_universe_path(co->u, s), co->lay, opt, &co->results[s]);
        if (finish(co, s) != 0) return -1;
        co->per_rank[0]++;
        if ((long)co->computed == limit) _exit(3);
    }
    return 0;
}

/* Wait for a message without spinning a core: MPI_Recv busy-polls in Open MPI, and rank 0 shares the
 * machine with the workers (measured: a polling rank 0 took half of one core of two). */
static void wait_request(MPI_Request *req, MPI_Status *st) {
    int flag = 0;
    struct timespec nap = {0, 200000};
    for (MPI_Test(req, &flag, st); !flag; MPI_Test(req, &flag, st)) nanosleep(&nap, NULL);
}

static void store_result(coordinator *co, const char *buf) {
    result_header h;
    memcpy(&h, buf, sizeof h);
    hs_symbol_result *r = &co->results[h.index];
    r->n_bars = h.n_bars, r->status = (hs_status)h.status, r->input = h.input;
    if (r->status != HS_OK) {
        h.error[sizeof h.error - 1] = '\0';
        hs_symbol_fail(r, r->status, h.error);
        return;
    }
    size_t bytes = hs_symbol_block_bytes(co->lay->n_combos, co->lay->n_periods);
    if (hs_symbol_alloc_rows(r, co->lay->n_combos, co->lay->n_periods)) memcpy(r->rows, buf + sizeof h, bytes);
    else hs_symbol_fail(r, HS_ERR_NOMEM, "rank 0: out of memory for the rows");
}

static int coordinate(coordinator *co, int ranks) {
    size_t len = sizeof(result_header) + hs_symbol_block_bytes(co->lay->n_combos, co->lay->n_periods);
    size_t next = next_pending(co, 0);
    char *buf = malloc(len);
    task *t = malloc(sizeof *t);
    int active = ranks - 1, rc = 0;
    while (active > 0) {
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(buf, (int)len, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_request(&req, &st);
        result_header h;
        memcpy(&h, buf, sizeof h);
        if (h.index != NO_TASK && h.index < co->n) {
            store_result(co, buf);
            if (finish(co, h.index) != 0) rc = -1;
            co->per_rank[st.MPI_SOURCE]++;
        }
        size_t size = sizeof t->index;
        t->index = NO_TASK;
        if (next < co->n && rc == 0) {
            t->index = next;
            size_t plen = strlen(hs_universe_path(co->u, next)) + 1;
            memcpy(t->path, hs_universe_path(co->u, next), plen); /* at most 4,096 (hs_universe_open) */
            size += plen;
            next = next_pending(co, next + 1);
        } else {
            active--;
        }
        MPI_Send(t, (int)size, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
    }
    free(t);
    free(buf);
    return rc;
}

static void say(const char *msg) {
    char buf[2048];
    hs_universe_escape(msg, buf, sizeof buf);
    fprintf(stderr, "hmasweep-mpi: %s\n", buf);
}

static int rank0(const hs_universe_args *a, const hs_universe_layout *lay, int ranks) {
    hs_error err;
    hs_universe *u = NULL;
    if (hs_universe_open(a->inputs, &u, &err) != HS_OK) {
        say(err.msg);
        if (ranks > 1) {
            coordinator none = {0};
            none.lay = lay;
            coordinate(&none, ranks); /* release the workers */
        }
        return -1;
    }
    size_t n = hs_universe_count(u);
    hs_universe_writer writer;
    coordinator co = {u, n, lay, calloc(n, sizeof(hs_symbol_result)), calloc(n, 1), 0, &writer, {NULL, 0}, 0,
                      calloc((size_t)ranks, sizeof(size_t))};
    hs_checkpoint_stats stats = {0, 0};
    int rc = co.results && co.done && co.per_rank ? 0 : (say("out of memory"), -1);
    if (rc == 0 && a->checkpoint &&
        hs_checkpoint_open(&co.ckpt, a->checkpoint, a->resume, n, lay->n_combos, lay->n_periods,
                           hs_checkpoint_hash(u, lay, &a->sweep), u,
                           co.results, co.done, &stats, stderr, &err) != 0)
        rc = -1, say(err.msg);
    if (rc == 0 && stats.refused)
        fprintf(stderr, "hmasweep-mpi: %zu checkpoint line%s refused (named above): their symbols are recomputed\n",
                stats.refused, stats.refused == 1 ? "" : "s");
    FILE *out = rc == 0 && a->output ? fopen(a->output, "w") : stdout;
    if (rc == 0 && !out) rc = -1, say("cannot open --output for writing");
    if (rc == 0 && hs_universe_writer_open(&writer, out, stderr, lay) != 0) rc = -1, say("out of memory");
    if (rc == 0) {
        advance(&co);
        rc = ranks == 1 ? run_alone(&co, &a->sweep) : coordinate(&co, ranks);
        if (hs_universe_writer_close(&writer) != 0 && rc == 0) rc = -1, say("writing the rows failed");
    } else if (ranks > 1) {
        co.n = 0, coordinate(&co, ranks); /* release the workers */
    }
    if (hs_checkpoint_close(&co.ckpt) != 0) rc = -1;
    if (out && out != stdout && fclose(out) != 0 && rc == 0) rc = -1, say("closing --output failed");
    if (rc == 0) {
        fprintf(stderr, "hmasweep-mpi: %zu symbols on %d rank%s: %zu from the checkpoint, %zu computed, %zu failed;"
                        " per rank:", n, ranks, ranks == 1 ? "" : "s", stats.recorded, co.computed, writer.failed);
        for (int r = 0; r < ranks; r++) fprintf(stderr, " %zu", co.per_rank[r]);
        fputc('\n', stderr);
        if (writer.failed) rc = 1;
    }
    for (size_t s = 0; co.results && s < n; s++) hs_symbol_clear(&co.results[s]);
    free(co.results);
    free(co.done);
    free(co.per_rank);
    hs_universe_close(u);
    return rc;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    hs_universe_args a;
    hs_error err;
    hs_status st = hs_universe_parse(argc - 1, argv + 1, 1, &a, &err);
    if (st == HS_OK && a.help) {
        if (rank == 0)
            printf("usage: mpirun -np N hmasweep-mpi --inputs SPEC [options]\n\n%s"
                   "  --checkpoint FILE   record each finished symbol there as it completes\n"
                   "  --resume            continue the run recorded in --checkpoint, recomputing nothing in it\n",
                   hs_universe_usage);
        MPI_Finalize();
        return 0;
    }
    if (st != HS_OK) {
        if (rank == 0) fprintf(stderr, "hmasweep-mpi: %s\n", err.msg);
        MPI_Finalize();
        return 2;
    }
    hs_universe_layout lay = hs_universe_layout_of(&a);
    if (sizeof(result_header) + hs_symbol_block_bytes(lay.n_combos, lay.n_periods) > INT_MAX) {
        /* a symbol's result travels as one MPI message, whose count is an int */
        if (rank == 0)
            fprintf(stderr, "hmasweep-mpi: --periods %zu x %zu combos: a symbol's rows would be over 2 GiB, more than one "
                            "MPI message carries\n", lay.n_periods, lay.n_combos);
        hs_universe_args_free(&a);
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    if (rank == 0) rc = rank0(&a, &lay, ranks);
    else worker(&lay, &a.sweep);
    hs_universe_args_free(&a);
    MPI_Finalize();
    return rc < 0 ? 1 : rc;
}
