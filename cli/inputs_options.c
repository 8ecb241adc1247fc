/* Options of a universe sweep (inputs_options.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs_options.h"

#include <stdlib.h>
#include <string.h>

const char *const hs_universe_usage =
    "  --inputs SPEC       a directory, a glob ('data/*.npy') or a manifest file (`PATH` or `SYMBOL PATH`\n"
    "                      per line); every reader format, mixed\n"
    HS_GRID_USAGE
    "  --variant NAME --isa NAME --threads N   as for one series\n"
    "  --format FMT        table (default), csv or jsonl: one row per (symbol, combo), an error row per bad\n"
    "                      symbol; the per-symbol summary follows a table, or goes to stderr; with the\n"
    "                      2-D grid each row has hma_length and hma3_length (the table Lh and L3)\n"
    "  --output FILE       write the rows there instead of stdout; rows are flushed as symbols finish\n"
    "  --progress, --no-progress   `k/N symbols, rate, ETA` on stderr (default: when stderr is a terminal)\n"
    "  --periods P         per combo also mtm_max_drawdown and the equity at the ends of P equal periods of\n"
    "                      each series (csv equity_1..equity_P, jsonl equity; docs/spec.md §9); a series with\n"
    "                      fewer than P bars is that symbol's error\n"
    "  --validate          with --periods: per combo period_sharpe, sortino, skew, kurtosis (the grid's PBO, DSR\n"
    "                      and walk-forward are `run`'s, on one series)\n"
    "  --periods-per-year N  with --validate: annualised_sharpe, annual_return, calmar\n";


/* "--name VALUE" or "--name=VALUE" (hs_arg_value). */
static int option(int argc, char **argv, int *i, const char *name, const char **value, hs_status *st, hs_error *err) {
    int missing = 0;
    if (!hs_arg_value(argc, argv, i, name, value, &missing)) return 0;
    if (missing) *st = hs_rows_usage(err, "%s needs a value", name);
    return 1;
}

static hs_status parse_one(int argc, char **argv, int *i, int mpi, hs_universe_args *a, hs_error *err) {
    const char *v = NULL;
    hs_status st = HS_OK;
    if (option(argc, argv, i, "--inputs", &v, &st, err)) a->inputs = v;
    else if (hs_grid_option(argc, argv, i, &a->kernel, &st, err)) (void)0;
    else if (hs_kernel_choice_option(argc, argv, i, &a->choice, &st, err)) (void)0;
    else if (option(argc, argv, i, "--format", &v, &st, err)) a->format = v;
    else if (option(argc, argv, i, "--output", &v, &st, err)) a->output = v;
    else if (option(argc, argv, i, "--periods", &v, &st, err)) {
        if (st == HS_OK) st = hs_rows_parse_periods(v, &a->periods, err);
    } else if (option(argc, argv, i, "--periods-per-year", &v, &st, err)) {
        if (st == HS_OK) st = hs_rows_parse_periods_per_year(v, &a->periods_per_year, err);
    } else if (!strcmp(argv[*i], "--validate")) a->validate = 1;
    else if (mpi && option(argc, argv, i, "--checkpoint", &v, &st, err)) a->checkpoint = v;
    else if (mpi && !strcmp(argv[*i], "--resume")) a->resume = 1;
    else if (!strcmp(argv[*i], "--progress")) a->progress = 1;
    else if (!strcmp(argv[*i], "--no-progress")) a->progress = 0;
    else if (!strcmp(argv[*i], "--help") || !strcmp(argv[*i], "-h")) a->help = 1;
    else st = hs_rows_usage(err, "unknown option '%s' for a universe sweep", argv[*i]);
    return st;
}

hs_status hs_universe_parse(int argc, char **argv, int mpi, hs_universe_args *a, hs_error *err) {
    memset(a, 0, sizeof *a);
    a->sweep = (hs_sweep_options)HS_SWEEP_OPTIONS_INIT;
    a->format = "table";
    a->progress = -1;
    hs_status st = HS_OK;
    for (int i = 0; st == HS_OK && i < argc; i++) st = parse_one(argc, argv, &i, mpi, a, err);
    if (st != HS_OK || a->help) return st;
    if (!a->inputs) return hs_rows_usage(err, "--inputs is required (a directory, a glob or a manifest)");
    if ((st = hs_grid_check(&a->kernel, err)) != HS_OK) return st;
    if (a->resume && !a->checkpoint) return hs_rows_usage(err, "--resume needs --checkpoint FILE");
    if ((st = hs_rows_check_period_options(a->periods, a->validate, a->periods_per_year, err)) != HS_OK) return st;
    if ((st = hs_universe_check_format(a->format, err)) != HS_OK) return st;
    a->sweep.fee = a->kernel.fee, a->sweep.has_fee = a->kernel.has_fee;
    a->sweep.variant = a->choice.variant, a->sweep.isa = a->choice.isa, a->sweep.threads = a->choice.threads;
    return hs_grid_make(&a->kernel, &a->grid, err);
}

void hs_universe_args_free(hs_universe_args *a) { hs_combo_grid_free(&a->grid); }

hs_universe_layout hs_universe_layout_of(const hs_universe_args *a) {
    hs_universe_layout lay = {a->format, a->grid.lengths, a->grid.hma3_lengths, a->grid.windows, a->grid.n_combos,
                              (size_t)a->periods, a->validate, a->periods_per_year};
    return lay;
}
