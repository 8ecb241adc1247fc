/* The CLI's option parsing (cli/options.c), shared by cli/main.c and fuzz/fuzz_cli.c. */
#ifndef HS_CLI_OPTIONS_H
#define HS_CLI_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

#include "grid_args.h" /* the kernel's options every front end parses */
#include "hmasweep.h"

enum { EXIT_DATA = 1, EXIT_USAGE = 2 }; /* EXIT_INTERRUPTED: interrupt.h */

typedef struct {
    const char *variant, *isa, *input, *format, *output;
    hs_grid_options kernel; /* --grid/--lengths/--hma-lengths/--hma3-lengths and --fee (grid_args.h) */
    unsigned long long seed;
    long long bars, threads, repeat;
    unsigned long long max_bytes; /* --max-bytes: input cap (0 = the library's default) */
    double vol, start;
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
/* The lengths a 1-D sweep runs (hs_grid_lengths, named on stderr): seg_profile's --grid. */
int cli_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n);
/* The combos of `run` (hs_grid_make): 0, or the exit status after naming the problem on stderr. */
int cli_make_grid(const cli_options *o, hs_combo_grid *g);
int cli_parse_common(int argc, char **argv, int *i, cli_options *o, int *handled);
int cli_parse_kernel_choice(int argc, char **argv, int *i, cli_options *o, int *handled);
int cli_parse_run(int argc, char **argv, cli_options *o, int *help);
/* The grid and fee options (hs_grid_option): 1 when argv[*i] is one of them (a bad value: *rc = EXIT_USAGE,
 * named on stderr). */
int cli_parse_grid_option(int argc, char **argv, int *i, cli_options *o, int *rc);
/* --variant/--isa/--threads into a sweep's options (`serve`; *handled 1 when argv[*i] was one of them;
 * non-zero: the exit status of a bad value, already reported), and whether `name` is a registered variant
 * or alias (`run`, `wire`, `serve`). */
int hs_cli_kernel_option(int argc, char **argv, int *i, hs_sweep_options *opt, int *handled);
int hs_cli_variant_known(const char *name);

#endif
