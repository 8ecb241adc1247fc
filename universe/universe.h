/* A universe sweep, shared by `hmasweep run --inputs` and `hmasweep-mpi`: reading one symbol, writing the
 * rows and the summary, and the checkpoint format.  Built on the public API only. */
#ifndef HS_UNIVERSE_H
#define HS_UNIVERSE_H
#include <stdio.h>

#include "hmasweep.h"

/* One symbol's outcome.  rows has n_combos entries when status is HS_OK. */
typedef struct {
    size_t n_bars;
    hs_status status;
    char error[sizeof(hs_error)];
    hs_result *rows;
} hs_symbol_result;

/* What the rows are about: the grid, and how to print. */
typedef struct {
    const char *format; /* table, csv or jsonl */
    const int64_t *lengths;
    const hs_windows *windows;
    size_t n_combos;
} hs_universe_layout;

/* "table", "csv" or "jsonl"; anything else is a usage error naming the choices. */
hs_status hs_universe_check_format(const char *format, hs_error *err);

/* Read one symbol's series (a failure becomes its status and message; never fatal). */
double *hs_universe_read(const hs_universe_entry *e, hs_symbol_result *r);

/* Sweep one already read series into r->rows (allocated here); a failure becomes r's status. */
void hs_universe_sweep_one(const double *close, const hs_universe_layout *lay, const hs_sweep_options *opt,
                           hs_symbol_result *r);

/* Rows of every symbol, in universe order, then the per-symbol summary (to `summary`; for table format
 * the summary follows the rows on `out`).  Returns 0, or -1 when a write failed. */
int hs_universe_write(FILE *out, FILE *summary, const hs_universe_layout *lay, const hs_universe_entry *entries,
                      const hs_symbol_result *results, size_t n_symbols);

/* The whole universe in this process: read in memory-bounded chunks, hs_sweep_many on each chunk.
 * results[] (n_symbols) is filled; returns HS_OK unless the request itself was bad. */
hs_status hs_universe_run_local(const hs_universe_entry *entries, size_t n_symbols, const hs_universe_layout *lay,
                                const hs_sweep_options *opt, hs_symbol_result *results, hs_error *err);

size_t hs_universe_failed(const hs_symbol_result *results, size_t n_symbols);
void hs_universe_free(hs_symbol_result *results, size_t n_symbols);
#endif
