/* The MPI checkpoint reader (mpi/checkpoint.c) on any bytes, for a run of 4 symbols × 3 combos whose hash
 * is RUN_HASH.  Byte 0 chooses:
 *   bit 0 clear: the rest is a checkpoint file (bit 1 set: a valid header is put in front, so mutations
 *     reach the records).  hs_checkpoint_load must accept it or refuse it with a message; every accepted
 *     symbol has its rows (or its error); nothing leaks, crashes or reads out of bounds.
 *   bit 0 set: the rest describes up to 4 results (status, bars, the input's size, mtime and content hash,
 *     three (pnl bits, trades, the six statistics' bits) or an error of any bytes, control bytes and
 *     invalid UTF-8 included), written with hs_checkpoint_write_record and read back: every one accepted,
 *     equal bit for bit, its error text byte for byte (the escaping round trip of cli/universe.c).
 *   bit 2 set: the run has N_PERIODS periods (checkpoint v5: each combo also carries its mtm_max_drawdown
 *     and its equity at the period ends, docs/spec.md §9), else none.  Every v5 record carries its input's
 *     identity (hs_input_id, issue 29 item 7), any 64-bit values, a negative mtime included.
 * hs:fuzz-links hmasweep_universe
 * hs:fuzz-sources mpi/checkpoint.c
 * hs:fuzz-max-len 4096 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/checkpoint.h"

#define N_SYMBOLS 4
#define N_COMBOS 3
#define N_PERIODS 2
#define RUN_HASH 0x0123456789abcdefull

static void free_results(hs_symbol_result *r) {
    for (size_t i = 0; i < N_SYMBOLS; i++) hs_symbol_clear(&r[i]);
}

static void load_bytes(const uint8_t *data, size_t size, int with_header, size_t periods) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) abort();
    if (with_header) hs_checkpoint_write_header(m, N_SYMBOLS, N_COMBOS, RUN_HASH);
    fwrite(data, 1, size, m);
    fclose(m);
    FILE *f = fmemopen(buf, len ? len : 1, "r");
    if (!f) abort();
    hs_symbol_result results[N_SYMBOLS] = {{0}};
    char done[N_SYMBOLS] = {0};
    hs_checkpoint_stats stats;
    hs_error err;
    err.msg[0] = '\0';
    /* HS_FUZZ_VERBOSE=1: the refusals on stderr (to see what a seed reaches). */
    FILE *warn = getenv("HS_FUZZ_VERBOSE") ? stderr : NULL;
    int rc = hs_checkpoint_load(f, "fuzz", N_SYMBOLS, N_COMBOS, periods, RUN_HASH, results, done, &stats, warn, &err);
    if (warn) fprintf(stderr, "rc %d (%s): %zu recorded, %zu refused\n", rc, rc ? err.msg : "ok", stats.recorded, stats.refused);
    fclose(f);
    free(buf);
    if (rc != 0 && !err.msg[0]) abort(); /* a refusal names its reason */
    size_t accepted = 0;
    for (size_t i = 0; i < N_SYMBOLS; i++) {
        if (!done[i]) {
            if (results[i].rows || results[i].error) abort(); /* a refused symbol leaves nothing behind */
            continue;
        }
        accepted++;
        if (results[i].status == HS_OK ? !results[i].rows : !results[i].error) abort();
    }
    if (rc == 0 && accepted != stats.recorded) abort();
    free_results(results);
}

static size_t take(const uint8_t **p, const uint8_t *end, void *out, size_t n) {
    size_t k = (size_t)(end - *p) < n ? (size_t)(end - *p) : n;
    memset(out, 0, n);
    memcpy(out, *p, k);
    *p += k;
    return k;
}

static void round_trip(const uint8_t *p, const uint8_t *end, size_t periods) {
    hs_symbol_result written[N_SYMBOLS] = {{0}}, read[N_SYMBOLS] = {{0}};
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) abort();
    hs_checkpoint_write_header(m, N_SYMBOLS, N_COMBOS, RUN_HASH);
    for (size_t i = 0; i < N_SYMBOLS && p < end; i++) {
        hs_symbol_result *r = &written[i];
        uint8_t status = 0;
        uint32_t bars = 0;
        take(&p, end, &status, 1);
        take(&p, end, &bars, sizeof bars);
        take(&p, end, &r->input, sizeof r->input);
        r->n_bars = bars;
        r->status = (hs_status)(status % 5);
        if (r->status == HS_OK) {
            if (!hs_symbol_alloc_rows(r, N_COMBOS, periods)) abort();
            hs_stats *st = hs_symbol_stats(r, N_COMBOS);
            for (size_t c = 0; c < N_COMBOS; c++) {
                uint32_t trades = 0, wins = 0, held = 0;
                double *f[5] = {&r->rows[c].pnl, &st[c].gross_profit, &st[c].gross_loss, &st[c].sum_sq, &st[c].max_drawdown};
                take(&p, end, &trades, sizeof trades);
                take(&p, end, &wins, sizeof wins);
                take(&p, end, &held, sizeof held);
                for (int k = 0; k < 5; k++) {
                    take(&p, end, f[k], sizeof *f[k]);
                    if (isnan(*f[k])) *f[k] = 0; /* a sweep's figures are never NaN; %a does not keep payloads */
                }
                r->rows[c].trades = trades, st[c].wins = wins, st[c].bars_held = held;
            }
            double *e = periods ? hs_symbol_mtm(r, N_COMBOS) : NULL; /* mtm_max_drawdown, then E */
            for (size_t k = 0; k < (periods ? N_COMBOS * (1 + periods) : 0); k++) {
                take(&p, end, &e[k], sizeof e[k]);
                if (isnan(e[k])) e[k] = 0;
            }
        } else {
            char text[sizeof(hs_error)] = {0};
            uint8_t n = 0;
            take(&p, end, &n, 1);
            take(&p, end, text, n % (sizeof text - 1));
            r->error = strdup(text); /* up to its first NUL, as a C message is */
        }
        if (hs_checkpoint_write_record(m, RUN_HASH, i, r, N_COMBOS, periods) != 0) abort();
    }
    fclose(m);
    FILE *f = fmemopen(buf, len, "r");
    char done[N_SYMBOLS] = {0};
    hs_checkpoint_stats stats;
    hs_error err;
    if (!f || hs_checkpoint_load(f, "fuzz", N_SYMBOLS, N_COMBOS, periods, RUN_HASH, read, done, &stats, NULL, &err) != 0 ||
        stats.refused)
        abort(); /* what the writer wrote, the reader takes */
    fclose(f);
    for (size_t i = 0; i < N_SYMBOLS; i++) {
        const hs_symbol_result *a = &written[i], *b = &read[i];
        if (!done[i] != !(a->rows || a->error)) abort();
        if (!done[i]) continue;
        if (a->status != b->status || a->n_bars != b->n_bars || a->input.size != b->input.size ||
            a->input.mtime_ns != b->input.mtime_ns || a->input.content != b->input.content)
            abort();
        if (a->status == HS_OK ? memcmp(a->rows, b->rows, hs_symbol_block_bytes(N_COMBOS, periods)) != 0
                               : strcmp(a->error, b->error) != 0)
            abort();
    }
    free(buf);
    free_results(written);
    free_results(read);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    size_t periods = data[0] & 4 ? N_PERIODS : 0;
    if (data[0] & 1) round_trip(data + 1, data + size, periods);
    else load_bytes(data + 1, size - 1, data[0] & 2, periods);
    return 0;
}
