/* The kernel's options (the grid, the fee, the variant, ISA and threads), parsed once for every front end:
 * `hmasweep run` (options.c), `run --inputs` and hmasweep-mpi (inputs_options.c) (issue 28 item 9, issue
 * 30 §1): one parser with one set of messages. */
#ifndef HS_UNIVERSE_GRID_ARGS_H
#define HS_UNIVERSE_GRID_ARGS_H
#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

/* The options' texts as given, and the fee (checked when parsed). */
typedef struct {
    const char *grid, *lengths;            /* the 1-D grid: --grid LO:HI:COUNT or --lengths A,B,... */
    const char *hma_lengths, *hma3_lengths; /* the 2-D grid (docs/spec.md §8): both or neither */
    double fee;                            /* --fee: the round-trip cost (docs/spec.md §8) when has_fee */
    int has_fee;
} hs_grid_options;

/* The most combos one 2-D grid makes (n_hma × n_hma3), as --grid's COUNT bound. */
#define HS_GRID_2D_MAX_COMBOS 1000000

/* The combos a run sweeps: lengths[c] is L (1-D) or Lh (2-D), hma3_lengths[c] is L3 (NULL for the 1-D
 * grid); every array malloc'ed (hs_combo_grid_free). */
typedef struct {
    int64_t *lengths, *hma3_lengths;
    hs_windows *windows;
    size_t n_combos;
} hs_combo_grid;

/* The help lines of these options, the same in every front end's --help (a literal: no '%', as some
 * front ends print their help as a printf format). */
#define HS_GRID_USAGE                                                                                          \
    "  --grid LO:HI:COUNT  lengths = trunc(linspace(LO, HI, COUNT)) (default " HS_DEFAULT_GRID_SPEC ")\n"      \
    "  --lengths A,B,...   explicit lengths (each >= 2)\n"                                                    \
    "  --hma-lengths A,B,... --hma3-lengths C,D,...\n"                                                        \
    "                      the 2-D grid (docs/spec.md §8): every (HMA length, HMA3 length) pair, HMA length\n" \
    "                      outer; w0-w2 from the first, w3-w5 from the second; each list may be LO:HI:COUNT\n" \
    "  --fee X             the round-trip cost, a fraction 0 <= X < 1 (default 0.0009; docs/spec.md §8)\n"

/* "--name VALUE" or "--name=VALUE": 1 when argv[*i] is option `name` (then *value is its value, or
 * *missing is set when none follows); 0 otherwise.  The one reader of an option's value. */
int hs_arg_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing);

/* 1 when argv[*i] is --grid, --lengths, --hma-lengths, --hma3-lengths or --fee (its value consumed): *st
 * HS_OK, or HS_ERR_USAGE with err naming the value (a missing value, a fee that is no number or out of
 * [0, 1)).  0 for any other word. */
int hs_grid_option(int argc, char **argv, int *i, hs_grid_options *g, hs_status *st, hs_error *err);
/* The kernel's choice: --variant NAME, --isa NAME, --threads N (1 to HS_THREADS_MAX, the library's limit). */
typedef struct {
    const char *variant, *isa;
    int threads; /* 0: not given */
} hs_kernel_choice;
/* 1 when argv[*i] is --variant, --isa or --threads (its value consumed into k): *st HS_OK, or HS_ERR_USAGE
 * with err naming the value.  0 for any other word.  The one parser of these options (`run`, `wire`,
 * `run --inputs`, hmasweep-mpi). */
int hs_kernel_choice_option(int argc, char **argv, int *i, hs_kernel_choice *k, hs_status *st, hs_error *err);
/* What the options need of each other: one grid (--grid or --lengths, or both 2-D lists). */
hs_status hs_grid_check(const hs_grid_options *g, hs_error *err);
/* The 1-D grid's lengths: --lengths, else --grid, else the default grid HS_DEFAULT_GRID_* (the one place
 * a front end decides that default).  A bad text is HS_ERR_USAGE naming the option ("--grid '6:5': ..."). */
hs_status hs_grid_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n, hs_error *err);
/* The combos of g (after hs_grid_check): the 2-D grid when its lists are given (HMA length outer, c =
 * i * n_hma3 + j), else the 1-D grid.  HS_ERR_USAGE naming the option, or HS_ERR_NOMEM; *out is empty
 * then. */
hs_status hs_grid_make(const hs_grid_options *g, hs_combo_grid *out, hs_error *err);
void hs_combo_grid_free(hs_combo_grid *g);
#endif
