/* A universe sweep, shared by `hmasweep run --inputs` and `hmasweep-mpi`: reading one symbol, writing the
 * rows and the summary as symbols finish, and the one escaping rule of every output.  Built on the public
 * API only. */
#ifndef HS_UNIVERSE_H
#define HS_UNIVERSE_H
#include <stdio.h>

#include "hmasweep.h"
#include "rows.h"

/* The input a symbol was computed from (issue 29 item 7: a data file regenerated under the same path reused
 * its stale checkpoint rows): the file's size and mtime when it was read, and the first 64 bits of the
 * SHA-256 of the series read (hs_series_sha256: the prices that were swept).  All zero when unreadable. */
typedef struct {
    uint64_t size;
    int64_t mtime_ns;
    uint64_t content;
} hs_input_id;

/* One symbol's outcome.  rows has n_combos entries when status is HS_OK, followed in the same block by
 * their n_combos statistics (docs/spec.md §8; hs_symbol_stats) and, in a run with P periods (docs/spec.md
 * §9), their n_combos mtm_max_drawdown and the P x n_combos equity matrix E (hs_symbol_mtm,
 * hs_symbol_equity); error is malloc'ed otherwise.
 * Small on purpose (56 bytes): hmasweep-mpi's rank 0 keeps one per symbol of the universe. */
typedef struct {
    size_t n_bars;
    hs_status status;
    char *error;
    hs_result *rows;
    hs_input_id input;
} hs_symbol_result;

/* The bytes of one combo in a symbol's block: its result and its statistics. */
#define HS_SYMBOL_COMBO_BYTES (sizeof(hs_result) + sizeof(hs_stats))
/* The bytes of a symbol's block: n_combos rows and statistics, and with n_periods > 0 the mtm_max_drawdown
 * and E of docs/spec.md §9 (8 + 8 P bytes a combo more). */
static inline size_t hs_symbol_block_bytes(size_t n_combos, size_t n_periods) {
    return n_combos * (HS_SYMBOL_COMBO_BYTES + (n_periods ? 8 * (1 + n_periods) : 0));
}
/* A block of hs_symbol_block_bytes into r->rows; NULL when memory ran out. */
hs_result *hs_symbol_alloc_rows(hs_symbol_result *r, size_t n_combos, size_t n_periods);
/* The statistics of r's rows (r->rows must be a block of hs_symbol_alloc_rows). */
static inline hs_stats *hs_symbol_stats(const hs_symbol_result *r, size_t n_combos) {
    return (hs_stats *)(void *)(r->rows + n_combos);
}
/* With periods: each combo's mtm_max_drawdown (n_combos), then E (E[k][c] at [k * n_combos + c]). */
static inline double *hs_symbol_mtm(const hs_symbol_result *r, size_t n_combos) {
    return (double *)(void *)(hs_symbol_stats(r, n_combos) + n_combos);
}
static inline double *hs_symbol_equity(const hs_symbol_result *r, size_t n_combos) {
    return hs_symbol_mtm(r, n_combos) + n_combos;
}

/* What the rows are about: the grid, and how to print. */
typedef struct {
    const char *format; /* table, csv or jsonl */
    const int64_t *lengths;      /* L per combo, or Lh in a 2-D grid */
    const int64_t *hma3_lengths; /* L3 per combo in a 2-D grid (docs/spec.md §8); NULL: the 1-D grid */
    const hs_windows *windows;
    size_t n_combos;
    /* docs/spec.md §9 (--periods, --validate, --periods-per-year; docs/universe.md): 0 = none */
    size_t n_periods;
    int validate;
    double periods_per_year;
} hs_universe_layout;

/* ---- the one escaping rule (docs/universe.md, "Escaping") ---------------------------------------------
 * Every symbol and message a universe writes (table, csv, jsonl, the summary, stderr, the checkpoint)
 * passes through hs_universe_escape first, so a file named "EVIL\nFAKE 6 999999 1e9" can never forge a
 * row: a backslash becomes "\\", newline, tab and carriage return "\n", "\t", "\r", every other control
 * byte (0x00-0x1f, 0x7f), a C1 control (U+0080-U+009F) and every byte that is not part of valid UTF-8
 * "\xHH".  Valid UTF-8 and spaces pass unchanged.  csv and jsonl then quote the escaped text as their own
 * syntax requires.  Writes at most cap bytes (NUL-terminated when cap > 0) and returns the length the
 * whole escaped text needs, as snprintf does. */
size_t hs_universe_escape(const char *s, char *out, size_t cap);
/* The inverse, for the checkpoint reader: 0, or -1 when s is not something hs_universe_escape writes (a
 * raw control byte, a bad escape) or does not fit in cap. */
int hs_universe_unescape(const char *s, char *out, size_t cap);

/* "table", "csv" or "jsonl"; anything else is a usage error naming the choices. */
hs_status hs_universe_check_format(const char *format, hs_error *err);

/* Read one symbol's series (a failure becomes its status and message; never fatal).  Only a regular file
 * is read: a FIFO would block the run forever, so it is that symbol's error.  r->input gets the file's
 * identity (size and mtime before the read, the series' hash after). */
double *hs_universe_read(const char *path, hs_symbol_result *r);

/* Sweep one already read series into r->rows (allocated here); a failure becomes r's status. */
void hs_universe_sweep_one(const double *close, const hs_universe_layout *lay, const hs_sweep_options *opt,
                           hs_symbol_result *r);

/* A failed symbol: status and a copy of msg (rows freed). */
void hs_symbol_fail(hs_symbol_result *r, hs_status st, const char *msg);
/* Free rows and error; the result is zeroed. */
void hs_symbol_clear(hs_symbol_result *r);

/* ---- output, as symbols finish ------------------------------------------------------------------------ *
 * Rows are written in universe order, one symbol at a time, and flushed by hs_universe_writer_flush, so a
 * killed run keeps every row it wrote.  The summary (per symbol: bars, status, best length by PnL, total
 * trades) is collected as text and written by hs_universe_writer_close: after the rows of a table, or to
 * `summary` for csv and jsonl. */
typedef struct {
    FILE *out, *summary;
    const hs_universe_layout *lay;
    FILE *lines; /* the summary's lines so far (a memory stream) */
    char *lines_buf;
    size_t lines_len, symbols, failed;
    int broken; /* a write failed */
    hs_period_row *period_rows;     /* with periods: one symbol's §9 rows (rows.h), scratch */
    hs_period_stats *period_stats;  /* with --validate: its §9.4 statistics, scratch */
} hs_universe_writer;

int hs_universe_writer_open(hs_universe_writer *w, FILE *out, FILE *summary, const hs_universe_layout *lay);
void hs_universe_write_symbol(hs_universe_writer *w, const char *symbol, const hs_symbol_result *r);
/* 0, or -1 when a write has failed so far. */
int hs_universe_writer_flush(hs_universe_writer *w);
/* Writes the summary, releases the writer; 0, or -1 when any write failed. */
int hs_universe_writer_close(hs_universe_writer *w);

/* ---- progress (`run --inputs --progress`): "k/N symbols, rate, ETA" on one rewritten stderr line ---- */
typedef struct {
    FILE *to; /* NULL: off */
    size_t total, done, bars;
    double started, last;
} hs_universe_progress;
void hs_universe_progress_start(hs_universe_progress *p, FILE *to, size_t total);
void hs_universe_progress_add(hs_universe_progress *p, size_t symbols, size_t bars);
void hs_universe_progress_end(hs_universe_progress *p);

/* The whole universe in this process: read in memory-bounded chunks, each swept in batches of consecutive
 * symbols (a long series alone, short ones pooled: universe.c), one hs_sweep_many per batch, its rows
 * written and flushed as soon as it finishes.  opt->progress (when struct_size covers it) is also asked
 * between batches; its stop gives HS_ERR_CANCELLED with every finished symbol written.  Returns HS_OK unless the request itself was bad or
 * a write failed (then err says which). */
hs_status hs_universe_run_local(const hs_universe *u, const hs_universe_layout *lay, const hs_sweep_options *opt,
                                hs_universe_writer *w, hs_universe_progress *progress, hs_error *err);
#endif
