/* The checkpoint of a universe run: one line per finished symbol, appended and fsync'ed as it completes,
 * so a killed run resumes with --resume and recomputes nothing recorded.  Results are written as hex
 * floats (%a), so a resumed run's rows are bit-identical to an uninterrupted one.
 *
 * Nothing in it is trusted (issue 20, item 6): the header carries a hash of the run (symbols, paths, fee, P,
 * windows, variant and ISA asked for), and every record a checksum over its text seeded with that hash,
 * so a changed digit, a record of another run or of another symbol does not verify.  On --resume a record
 * that does not verify, that cannot be read, or whose copies disagree is refused with a message naming
 * its line, its symbol is recomputed, and the checkpoint is rewritten with the records that verified.
 * Each record also carries its input's identity (hs_input_id, issue 29 item 7), and a record whose input
 * changed since is refused the same way.  A checkpoint of another run is refused whole. */
#ifndef HS_MPI_CHECKPOINT_H
#define HS_MPI_CHECKPOINT_H
#include <stdio.h>

#include "universe.h"

typedef struct {
    FILE *f;
    unsigned long long run_hash;
} hs_checkpoint;

typedef struct {
    size_t recorded; /* records accepted: their symbols are not recomputed */
    size_t refused;  /* lines refused (each named on the warning stream): their symbols are recomputed */
} hs_checkpoint_stats;

/* A hash of what makes two runs the same: the symbols and paths in order, the windows, the fee, the number
 * of periods, the variant and the ISA as asked for (NULL = the default), and the checkpoint version. */
unsigned long long hs_checkpoint_hash(const hs_universe *u, const hs_universe_layout *lay, const hs_sweep_options *opt);

/* Read a checkpoint from f (named `name` in messages) for a run of n symbols, n_combos combos and hash
 * run_hash: every record that verifies goes into results[] and done[]; each refused line is named on
 * `warn` (may be NULL).  Returns 0, or -1 with a message in err when the checkpoint is not one of this run
 * (header, version). */
int hs_checkpoint_load(FILE *f, const char *name, size_t n, size_t n_combos, size_t n_periods, unsigned long long run_hash,
                       hs_symbol_result *results, char *done, hs_checkpoint_stats *stats, FILE *warn, hs_error *err);
/* The header line and one record line, as the loader reads them.  0, or -1 when writing failed. */
int hs_checkpoint_write_header(FILE *f, size_t n, size_t n_combos, unsigned long long run_hash);
int hs_checkpoint_write_record(FILE *f, unsigned long long run_hash, size_t index, const hs_symbol_result *r,
                               size_t n_combos, size_t n_periods);

/* Open for a fresh run (refuses an existing file) or for --resume (hs_checkpoint_load on the file, whose
 * refused lines are dropped by rewriting it).  With u (non-NULL), a record whose input file is no longer the
 * one it was computed from (size, mtime, content hash: hs_input_id) is refused too, and its symbol
 * recomputed.  Returns 0, or -1 with a message in err. */
int hs_checkpoint_open(hs_checkpoint *c, const char *path, int resume, size_t n, size_t n_combos, size_t n_periods,
                       unsigned long long run_hash, const hs_universe *u, hs_symbol_result *results, char *done,
                       hs_checkpoint_stats *stats, FILE *warn, hs_error *err);
/* Append one finished symbol (written whole, flushed and fsync'ed).  Returns 0 or -1. */
int hs_checkpoint_record(hs_checkpoint *c, size_t index, const hs_symbol_result *r, size_t n_combos, size_t n_periods);
int hs_checkpoint_close(hs_checkpoint *c);
#endif
