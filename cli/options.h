/* The CLI's option parsing (cli/options.c), shared by cli/main.c and fuzz/fuzz_cli.c. */
#ifndef HS_CLI_OPTIONS_H
#define HS_CLI_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

enum { EXIT_DATA = 1, EXIT_USAGE = 2 }; /* EXIT_INTERRUPTED: interrupt.h */

typedef struct {
    const char *variant, *isa, *input, *grid, *lengths, *format, *output;
    const char *hma_lengths, *hma3_lengths; /* the 2-D grid (docs/spec.md §8): both or neither */
    unsigned long long seed;
    long long bars, threads, repeat;
    unsigned long long max_bytes; /* --max-bytes: input cap (0 = the library's default) */
    double vol, start;
    double fee;  /* --fee: the round-trip cost (docs/spec.md §8), HS_DEFAULT_FEE unless given */
    int has_fee; /* --fee was given */
    /* docs/spec.md §9: equity at period ends and the validation (docs/cli.md "Validation") */
    long long periods;        /* --periods P: 0 = none (the sweep as before) */
    int validate;             /* --validate: period statistics, CSCV/PBO, DSR and the walk-forward */
    long long groups;         /* --groups S (CSCV), CLI_DEFAULT_GROUPS unless given */
    int has_groups;           /* --groups was given */
    long long wf_train, wf_test; /* --walk-forward TRAIN:TEST[:anchored]; 0 = the default (cli_walk_forward_default) */
    int wf_anchored;
    double periods_per_year;  /* --periods-per-year N: annualised figures; 0 = not given */
} cli_options;

/* docs/spec.md §9.5's default number of CSCV groups (issue 27: 16, so C(16, 8) = 12,870 splits). */
#define CLI_DEFAULT_GROUPS 16
/* The walk-forward when --walk-forward is not given: rolling, TRAIN = P/2 and TEST = P/8 periods (each at
 * least 1), so P = 16 trains on 8 periods and tests on the next 2, in 4 folds. */
void cli_walk_forward_default(long long periods, long long *train, long long *test);


__attribute__((format(printf, 2, 3))) int cli_fail(int code, const char *fmt, ...);
int cli_parse_i64(const char *s, long long *out);
int cli_parse_u64(const char *s, unsigned long long *out);
int cli_parse_f64(const char *s, double *out);
cli_options cli_default_options(void);
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing);
/* The lengths a sweep runs: --lengths when given, else --grid, else the default grid HS_DEFAULT_GRID_*
 * (the one place a front end decides that default: run, the universe, fuzz_cli). */
int cli_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n);
/* One axis of the 2-D grid for option `name`: "A,B,..." (as --lengths) or "LO:HI:COUNT" (as --grid). */
int cli_parse_length_axis(const char *name, const char *spec, int64_t **out, size_t *n);
/* The most combos one 2-D grid makes (n_hma × n_hma3), as --grid's COUNT bound. */
#define CLI_MAX_COMBOS 1000000
int cli_parse_common(int argc, char **argv, int *i, cli_options *o, int *handled);
int cli_parse_kernel_choice(int argc, char **argv, int *i, cli_options *o, int *handled);
int cli_parse_run(int argc, char **argv, cli_options *o, int *help);
/* --fee X: 1 and o->fee set when argv[*i] is --fee (a bad fee: *rc = EXIT_USAGE, named on stderr). */
int cli_parse_fee(int argc, char **argv, int *i, cli_options *o, int *rc);

#endif
