/* Options of a universe sweep (args.h). */
#define _POSIX_C_SOURCE 200809L
#include "args.h"

#include <stdlib.h>
#include <string.h>

const char *const hs_universe_usage =
    "  --inputs SPEC       a directory, a glob ('data/*.npy') or a manifest file (`PATH` or `SYMBOL PATH`\n"
    "                      per line); every reader format, mixed\n"
    "  --grid LO:HI:COUNT  lengths = trunc(linspace(LO, HI, COUNT)) (default " HS_DEFAULT_GRID_SPEC ")\n"
    "  --lengths A,B,...   explicit lengths (each >= 2)\n"
    "  --variant NAME --isa NAME --threads N   as for one series\n"
    "  --fee X             the round-trip cost, a fraction 0 <= X < 1 (default 0.0009; docs/spec.md §8)\n"
    "  --format FMT        table (default), csv or jsonl: one row per (symbol, combo), an error row per bad\n"
    "                      symbol; the per-symbol summary follows a table, or goes to stderr\n"
    "  --output FILE       write the rows there instead of stdout; rows are flushed as symbols finish\n"
    "  --progress, --no-progress   `k/N symbols, rate, ETA` on stderr (default: when stderr is a terminal)\n"
    "  --periods P         per combo also mtm_max_drawdown and the equity at the ends of P equal periods of\n"
    "                      each series (csv equity_1..equity_P, jsonl equity; docs/spec.md §9); a series with\n"
    "                      fewer than P bars is that symbol's error\n"
    "  --validate          with --periods: per combo period_sharpe, sortino, skew, kurtosis (the grid's PBO, DSR\n"
    "                      and walk-forward are `run`'s, on one series)\n"
    "  --periods-per-year N  with --validate: annualised_sharpe, annual_return, calmar\n";


/* --grid / --lengths through the library's parser, the one the CLI uses, its message with the option's "--". */
static hs_status parse_grid_or_lengths(const char *grid, const char *lengths, hs_universe_args *a, hs_error *err) {
    hs_error why;
    hs_status st = hs_parse_combo_lengths(lengths, grid, &a->lengths, &a->n_combos, &why);
    if (st == HS_ERR_USAGE) snprintf(err->msg, sizeof err->msg, "--%.*s", (int)sizeof err->msg - 3, why.msg);
    else if (st != HS_OK) *err = why;
    return st;
}

/* --threads: a whole decimal integer in [1, 4096]. */
static int parse_threads(const char *v, int *threads) {
    int64_t n;
    hs_error why;
    if (hs_parse_i64(v, &n, &why) != HS_OK || n < 1 || n > 4096) return 0;
    *threads = (int)n;
    return 1;
}

/* "--name VALUE" or "--name=VALUE". */
static int option(int argc, char **argv, int *i, const char *name, const char **value, hs_status *st, hs_error *err) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0 || (argv[*i][len] != '\0' && argv[*i][len] != '=')) return 0;
    if (argv[*i][len] == '=') *value = argv[*i] + len + 1;
    else if (*i + 1 < argc) *value = argv[++*i];
    else *st = hs_rows_usage(err, "%s needs a value", name);
    return 1;
}

/* --fee X: one number, checked by the library (hs_check_fee), with the CLI's messages. */
static int fee_option(int argc, char **argv, int *i, hs_universe_args *a, hs_status *st, hs_error *err) {
    const char *v = NULL;
    if (!option(argc, argv, i, "--fee", &v, st, err)) return 0;
    if (*st != HS_OK) return 1;
    double fee = 0.0;
    hs_error why;
    if (hs_parse_f64(v, &fee, &why) != HS_OK)
        *st = hs_rows_usage(err, "--fee needs a number (the round-trip cost as a fraction, 0 <= fee < 1): %s", why.msg);
    else if (hs_check_fee(fee, &why) != HS_OK)
        *st = hs_rows_usage(err, "--fee '%s': %s", v, why.msg);
    else
        a->sweep.fee = fee, a->sweep.has_fee = 1;
    return 1;
}

static hs_status parse_one(int argc, char **argv, int *i, int mpi, hs_universe_args *a, const char **grid,
                           const char **lengths, hs_error *err) {
    const char *v = NULL;
    hs_status st = HS_OK;
    if (option(argc, argv, i, "--inputs", &v, &st, err)) a->inputs = v;
    else if (option(argc, argv, i, "--grid", &v, &st, err)) *grid = v;
    else if (option(argc, argv, i, "--lengths", &v, &st, err)) *lengths = v;
    else if (option(argc, argv, i, "--format", &v, &st, err)) a->format = v;
    else if (option(argc, argv, i, "--output", &v, &st, err)) a->output = v;
    else if (option(argc, argv, i, "--variant", &v, &st, err)) a->sweep.variant = v;
    else if (option(argc, argv, i, "--isa", &v, &st, err)) a->sweep.isa = v;
    else if (fee_option(argc, argv, i, a, &st, err)) (void)0;
    else if (option(argc, argv, i, "--periods", &v, &st, err)) {
        if (st == HS_OK) st = hs_rows_parse_periods(v, &a->periods, err);
    } else if (option(argc, argv, i, "--periods-per-year", &v, &st, err)) {
        if (st == HS_OK) st = hs_rows_parse_periods_per_year(v, &a->periods_per_year, err);
    } else if (!strcmp(argv[*i], "--validate")) a->validate = 1;
    else if (option(argc, argv, i, "--threads", &v, &st, err)) {
        if (st == HS_OK && !parse_threads(v, &a->sweep.threads))
            st = hs_rows_usage(err, "--threads needs an integer between 1 and 4096");
    } else if (mpi && option(argc, argv, i, "--checkpoint", &v, &st, err)) a->checkpoint = v;
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
    const char *grid = NULL, *lengths = NULL;
    hs_status st = HS_OK;
    for (int i = 0; st == HS_OK && i < argc; i++) st = parse_one(argc, argv, &i, mpi, a, &grid, &lengths, err);
    if (st != HS_OK || a->help) return st;
    if (!a->inputs) return hs_rows_usage(err, "--inputs is required (a directory, a glob or a manifest)");
    if (grid && lengths) return hs_rows_usage(err, "--grid and --lengths are alternatives; give one");
    if (a->resume && !a->checkpoint) return hs_rows_usage(err, "--resume needs --checkpoint FILE");
    if ((st = hs_rows_check_period_options(a->periods, a->validate, a->periods_per_year, err)) != HS_OK) return st;
    if ((st = hs_universe_check_format(a->format, err)) != HS_OK) return st;
    if ((st = parse_grid_or_lengths(grid, lengths, a, err)) != HS_OK) return st;
    a->windows = malloc((a->n_combos ? a->n_combos : 1) * sizeof *a->windows);
    if (!a->windows) return hs_rows_usage(err, "out of memory");
    for (size_t c = 0; st == HS_OK && c < a->n_combos; c++) st = hs_windows_from_length(a->lengths[c], &a->windows[c], err);
    return st;
}

void hs_universe_args_free(hs_universe_args *a) {
    free(a->lengths);
    free(a->windows);
    a->lengths = NULL, a->windows = NULL;
}
