/* The options of a universe sweep, read once for `hmasweep run --inputs` and `hmasweep-mpi`. */
#ifndef HS_UNIVERSE_ARGS_H
#define HS_UNIVERSE_ARGS_H
#include "grid_args.h"
#include "universe.h"

typedef struct {
    const char *inputs, *format, *output, *checkpoint;
    int resume, help;
    int progress; /* --progress 1, --no-progress 0, -1: when stderr is a terminal */
    hs_sweep_options sweep; /* its fee from kernel (--fee) */
    hs_grid_options kernel; /* --grid/--lengths/--hma-lengths/--hma3-lengths/--fee (grid_args.h) */
    hs_kernel_choice choice; /* --variant/--isa/--threads (grid_args.h), into sweep */
    hs_combo_grid grid;           /* the combos they make */
    long long periods;       /* --periods P (docs/spec.md §9): 0 = none */
    int validate;            /* --validate: each combo's §9.4 figures */
    double periods_per_year; /* --periods-per-year N: 0 = not given */
} hs_universe_args;

/* Parse argv (without the program/command words).  `mpi` admits --checkpoint and --resume.  Returns
 * HS_OK, or HS_ERR_USAGE with a message naming the option. */
hs_status hs_universe_parse(int argc, char **argv, int mpi, hs_universe_args *a, hs_error *err);
void hs_universe_args_free(hs_universe_args *a);
/* The rows' layout of a parsed run (the grid, the format, the periods), as `run --inputs` and hmasweep-mpi
 * print them. */
hs_universe_layout hs_universe_layout_of(const hs_universe_args *a);
extern const char *const hs_universe_usage;
/* `hmasweep run --inputs ...` (inputs.c): argv after `run`; returns the exit status. */
int hs_universe_cli(int argc, char **argv);
#endif
