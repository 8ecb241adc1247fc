/* The checkpoint of a universe run: one line per finished symbol, appended and fsync'ed as it completes,
 * so a killed run resumes with --resume and recomputes nothing recorded.  Results are written as hex
 * floats (%a), so a resumed run's rows are bit-identical to an uninterrupted one. */
#ifndef HS_MPI_CHECKPOINT_H
#define HS_MPI_CHECKPOINT_H
#include <stdio.h>

#include "universe.h"

typedef struct {
    FILE *f;
    unsigned long long universe_hash;
} hs_checkpoint;

/* A hash of what makes two runs the same universe: symbols, paths, windows, variant. */
unsigned long long hs_checkpoint_hash(const hs_universe_entry *e, size_t n, const hs_universe_layout *lay);

/* Open for a fresh run (refuses an existing file) or for --resume (loads every complete record into
 * results[] and done[]; *recorded counts them).  Returns 0, or -1 with a message in err. */
int hs_checkpoint_open(hs_checkpoint *c, const char *path, int resume, size_t n, const hs_universe_layout *lay,
                       unsigned long long hash, hs_symbol_result *results, char *done, size_t *recorded,
                       hs_error *err);
/* Append one finished symbol (written whole, flushed and fsync'ed).  Returns 0 or -1. */
int hs_checkpoint_record(hs_checkpoint *c, size_t index, const hs_symbol_result *r, size_t n_combos);
int hs_checkpoint_close(hs_checkpoint *c);
#endif
