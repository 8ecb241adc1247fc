/* hmasweep-mpi: a universe sweep across MPI ranks (docs/universe.md).
 *
 *   mpirun -np N hmasweep-mpi --inputs SPEC [--grid ...] [--checkpoint FILE [--resume]] [--format ...]
 *
 * Rank 0 lists the universe and hands out symbols one at a time to whichever worker asks (symbols differ
 * in length, so a static split would leave ranks idle).  A worker reads its symbol's file where it is
 * and sends back only the results.  Rank 0 records each finished symbol in the checkpoint as it arrives
 * and prints every row at the end, in universe order, so the output is byte-identical to
 * `hmasweep run --inputs` whatever N and whatever order the work completes in.  With N = 1, rank 0 does
 * the work itself.  Built on the public API (include/) and the universe's shared half (universe/).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "checkpoint.h"

enum { TAG_TASK = 1, TAG_RESULT = 2 };
#define NO_TASK UINT64_MAX

/* What a worker sends back: this header, then n_combos hs_result (ranks share one architecture). */
typedef struct {
    uint64_t index, n_bars;
    int32_t status;
    char error[sizeof(hs_error)];
} result_header;

typedef struct {
    uint64_t index;
    hs_universe_entry entry;
} task;

/* Tests kill a rank on purpose: HS_MPI_FAIL_AFTER=k makes a computing rank exit after k symbols. */
static long fail_after(void) {
    const char *s = getenv("HS_MPI_FAIL_AFTER");
    return s && *s ? strtol(s, NULL, 10) : -1;
}

static void compute(const hs_universe_entry *e, const hs_universe_layout *lay, const hs_sweep_options *opt,
                    hs_symbol_result *r) {
    memset(r, 0, sizeof *r);
    double *close = hs_universe_read(e, r);
    if (close) hs_universe_sweep_one(close, lay, opt, r);
    free(close);
}

/* ---- worker ---------------------------------------------------------------------------------------- */
static void send_result(uint64_t index, const hs_symbol_result *r, size_t n_combos, char *buf) {
    result_header h = {index, r->n_bars, (int32_t)r->status, {0}};
    memcpy(h.error, r->error, sizeof h.error);
    memcpy(buf, &h, sizeof h);
    size_t len = sizeof h;
    if (r->status == HS_OK && index != NO_TASK) {
        memcpy(buf + len, r->rows, n_combos * sizeof *r->rows);
        len += n_combos * sizeof *r->rows;
    }
    MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
}

static void worker(const hs_universe_layout *lay, const hs_sweep_options *opt) {
    char *buf = malloc(sizeof(result_header) + lay->n_combos * sizeof(hs_result));
    hs_symbol_result r = {0};
    long done = 0, limit = fail_after();
    send_result(NO_TASK, &r, lay->n_combos, buf); /* "ready" */
    for (;;) {
        task t;
        MPI_Recv(&t, sizeof t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t.index == NO_TASK) break;
        compute(&t.entry, lay, opt, &r);
        send_result(t.index, &r, lay->n_combos, buf);
        free(r.rows);
        if (++done == limit) _exit(3);
    }
    free(buf);
}

/* ---- rank 0 ---------------------------------------------------------------------------------------- */
typedef struct {
    const hs_universe_entry *entries;
    size_t n;
    const hs_universe_layout *lay;
    hs_symbol_result *results;
    char *done;
    hs_checkpoint ckpt;
    size_t computed;
    size_t *per_rank; /* symbols each rank computed: the imbalance, in the summary line */
} coordinator;

static int finish(coordinator *co, size_t index) {
    co->done[index] = 1;
    co->computed++;
    if (hs_checkpoint_record(&co->ckpt, index, &co->results[index], co->lay->n_combos) != 0) {
        fprintf(stderr, "hmasweep-mpi: writing the checkpoint failed\n");
        return -1;
    }
    return 0;
}

static size_t next_pending(const coordinator *co, size_t from) {
    while (from < co->n && co->done[from]) from++;
    return from;
}

static int run_alone(coordinator *co, const hs_sweep_options *opt) {
    long limit = fail_after();
    for (size_t s = next_pending(co, 0); s < co->n; s = next_pending(co, s + 1)) {
        compute(&co->entries[s], co->lay, opt, &co->results[s]);
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

static int coordinate(coordinator *co, int ranks) {
    size_t len = sizeof(result_header) + co->lay->n_combos * sizeof(hs_result), next = next_pending(co, 0);
    char *buf = malloc(len);
    int active = ranks - 1, rc = 0;
    while (active > 0) {
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(buf, (int)len, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_request(&req, &st);
        result_header h;
        memcpy(&h, buf, sizeof h);
        if (h.index != NO_TASK) {
            hs_symbol_result *r = &co->results[h.index];
            r->n_bars = h.n_bars, r->status = (hs_status)h.status;
            memcpy(r->error, h.error, sizeof r->error);
            r->rows = r->status == HS_OK ? malloc(co->lay->n_combos * sizeof *r->rows + 1) : NULL;
            if (r->rows) memcpy(r->rows, buf + sizeof h, co->lay->n_combos * sizeof *r->rows);
            if (finish(co, h.index) != 0) rc = -1;
            co->per_rank[st.MPI_SOURCE]++;
        }
        task t = {NO_TASK, {{0}, {0}}};
        if (next < co->n && rc == 0) {
            t.index = next;
            t.entry = co->entries[next];
            next = next_pending(co, next + 1);
        } else {
            active--;
        }
        MPI_Send(&t, sizeof t, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
    }
    free(buf);
    return rc;
}

static int rank0(const hs_universe_args *a, const hs_universe_layout *lay, int ranks) {
    hs_error err;
    hs_universe_entry *entries = NULL;
    size_t n = 0, recorded = 0;
    if (hs_universe_list(a->inputs, &entries, &n, &err) != HS_OK) {
        fprintf(stderr, "hmasweep-mpi: %s\n", err.msg);
        return -1;
    }
    coordinator co = {entries, n, lay, calloc(n, sizeof(hs_symbol_result)), calloc(n, 1), {NULL, 0}, 0,
                      calloc((size_t)ranks, sizeof(size_t))};
    int rc = co.results && co.done && co.per_rank ? 0 : -1;
    if (rc == 0 && a->checkpoint &&
        hs_checkpoint_open(&co.ckpt, a->checkpoint, a->resume, n, lay, hs_checkpoint_hash(entries, n, lay),
                           co.results, co.done, &recorded, &err) != 0) {
        fprintf(stderr, "hmasweep-mpi: %s\n", err.msg);
        rc = -1;
    }
    if (rc == 0) rc = ranks == 1 ? run_alone(&co, &a->sweep) : coordinate(&co, ranks);
    else if (ranks > 1) co.n = 0, coordinate(&co, ranks); /* release the workers */
    if (hs_checkpoint_close(&co.ckpt) != 0) rc = -1;
    FILE *out = rc == 0 && a->output ? fopen(a->output, "w") : stdout;
    if (rc == 0 && (!out || hs_universe_write(out, stderr, lay, entries, co.results, n) != 0)) rc = -1;
    if (out && out != stdout) fclose(out);
    if (rc == 0) {
        fprintf(stderr, "hmasweep-mpi: %zu symbols on %d rank%s: %zu from the checkpoint, %zu computed, %zu failed;"
                        " per rank:", n, ranks, ranks == 1 ? "" : "s", recorded, co.computed,
                hs_universe_failed(co.results, n));
        for (int r = 0; r < ranks; r++) fprintf(stderr, " %zu", co.per_rank[r]);
        fputc('\n', stderr);
        if (hs_universe_failed(co.results, n)) rc = 1;
    }
    hs_universe_free(co.results, n);
    free(co.done);
    free(co.per_rank);
    free(entries);
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
    hs_universe_layout lay = {a.format, a.lengths, a.windows, a.n_combos};
    int rc = 0;
    if (rank == 0) rc = rank0(&a, &lay, ranks);
    else worker(&lay, &a.sweep);
    hs_universe_args_free(&a);
    MPI_Finalize();
    return rc < 0 ? 1 : rc;
}
