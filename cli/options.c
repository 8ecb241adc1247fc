/* The CLI's option parsing, apart from execution so that fuzz/fuzz_cli.c reaches it: every function here
 * reads argv words, fills cli_options, and on a bad option names the problem on stderr and returns the
 * exit status (EXIT_USAGE); none writes stdout, exits or sweeps.  (The SIGINT flag the sweeping
 * commands share is interrupt.c.) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmasweep.h"
#include "options.h"
#include "rows.h" /* the period options every front end parses */

int cli_fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("hmasweep: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

/* ---- strict number parsing: the library's one parser (hs_parse_i64/f64, issue 29 item 10) ------------- */
int cli_parse_i64(const char *s, long long *out) {
    int64_t v;
    hs_error err;
    if (!s || hs_parse_i64(s, &v, &err) != HS_OK) return 0;
    *out = (long long)v;
    return 1;
}

int cli_parse_u64(const char *s, unsigned long long *out) {
    long long v;
    if (!cli_parse_i64(s, &v) || v < 0) return 0;
    *out = (unsigned long long)v;
    return 1;
}

int cli_parse_f64(const char *s, double *out) {
    hs_error err;
    return s && hs_parse_f64(s, out, &err) == HS_OK;
}

/* ---- options ---------------------------------------------------------------------------------------- */

cli_options cli_default_options(void) {
    cli_options o = {0};
    o.seed = HS_DEFAULT_SEED;
    o.bars = HS_DEFAULT_BARS;
    o.vol = HS_DEFAULT_VOL;
    o.start = HS_DEFAULT_START;
    o.format = NULL;
    o.repeat = 1;
    o.kernel.fee = HS_DEFAULT_FEE;
    o.groups = CLI_DEFAULT_GROUPS;
    return o;
}

/* Parse "--name value" and "--name=value".  Returns 1 and sets *value when argv[*i] is that option. */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing) {
    return hs_arg_value(argc, argv, i, name, value, missing);
}

/* ---- the grid and the fee: grid_args.c, the one parser of every front end (issue 28 item 9) ---- */
static int grid_fail(hs_status st, const hs_error *err) {
    return cli_fail(st == HS_ERR_NOMEM ? EXIT_DATA : EXIT_USAGE, "%s", err->msg);
}

int cli_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n) {
    hs_error err;
    hs_status st = hs_grid_lengths(lengths, grid, out, n, &err);
    return st == HS_OK ? 0 : grid_fail(st, &err);
}

int cli_make_grid(const cli_options *o, hs_combo_grid *g) {
    hs_error err;
    hs_status st = hs_grid_make(&o->kernel, g, &err);
    return st == HS_OK ? 0 : grid_fail(st, &err);
}

int cli_parse_grid_option(int argc, char **argv, int *i, cli_options *o, int *rc) {
    hs_status st;
    hs_error err;
    *rc = 0;
    if (!hs_grid_option(argc, argv, i, &o->kernel, &st, &err)) return 0;
    if (st != HS_OK) *rc = grid_fail(st, &err);
    return 1;
}

int cli_parse_common(int argc, char **argv, int *i, cli_options *o, int *handled) {
    const char *v = NULL;
    int missing = 0;
    *handled = 1;
    if (cli_option_value(argc, argv, i, "--seed", &v, &missing)) {
        if (missing || !cli_parse_u64(v, &o->seed)) return cli_fail(EXIT_USAGE, "--seed needs a non-negative integer");
    } else if (cli_option_value(argc, argv, i, "--bars", &v, &missing)) {
        if (missing || !cli_parse_i64(v, &o->bars) || o->bars < 1) return cli_fail(EXIT_USAGE, "--bars needs an integer >= 1");
    } else if (cli_option_value(argc, argv, i, "--vol", &v, &missing)) {
        if (missing || !cli_parse_f64(v, &o->vol)) return cli_fail(EXIT_USAGE, "--vol needs a finite number");
    } else if (cli_option_value(argc, argv, i, "--start", &v, &missing)) {
        if (missing || !cli_parse_f64(v, &o->start) || o->start <= 0)
            return cli_fail(EXIT_USAGE, "--start needs a finite number > 0");
    } else if (cli_option_value(argc, argv, i, "--format", &v, &missing)) {
        if (missing) return cli_fail(EXIT_USAGE, "--format needs a value");
        o->format = v;
    } else if (cli_option_value(argc, argv, i, "--output", &v, &missing)) {
        if (missing) return cli_fail(EXIT_USAGE, "--output needs a file name");
        o->output = v;
    } else if (cli_option_value(argc, argv, i, "--max-bytes", &v, &missing)) {
        if (missing || !cli_parse_u64(v, &o->max_bytes) || o->max_bytes == 0)
            return cli_fail(EXIT_USAGE, "--max-bytes needs an integer >= 1 (the largest input read, in bytes)");
    } else {
        *handled = 0;
    }
    return 0;
}

/* The options that choose the kernel: --variant, --isa, --threads (run and wire), by the one parser
 * (grid_args.c). */
int cli_parse_kernel_choice(int argc, char **argv, int *i, cli_options *o, int *handled) {
    hs_kernel_choice k = {o->variant, o->isa, (int)o->threads};
    hs_status st;
    hs_error err;
    *handled = hs_kernel_choice_option(argc, argv, i, &k, &st, &err);
    if (!*handled) return 0;
    if (st != HS_OK) return cli_fail(EXIT_USAGE, "%s", err.msg);
    o->variant = k.variant, o->isa = k.isa, o->threads = k.threads;
    return 0;
}

/* The same --variant/--isa/--threads parsing into a sweep's options, for `hmasweep serve` (serve.c). */
int hs_cli_kernel_option(int argc, char **argv, int *i, hs_sweep_options *opt, int *handled) {
    cli_options o = cli_default_options();
    o.variant = opt->variant, o.isa = opt->isa, o.threads = opt->threads;
    int rc = cli_parse_kernel_choice(argc, argv, i, &o, handled);
    opt->variant = o.variant, opt->isa = o.isa, opt->threads = (int)o.threads;
    return rc;
}

/* Is `name` a registered variant?  (The public registry listing; the sweep would say the same.)
 * Also used by cli/serve.c, so the whole CLI checks names through the public API only. */
int hs_cli_variant_known(const char *name) {
    const char *target = hs_variant_alias(name, NULL);
    if (target) name = target;
    for (size_t k = 0, n = hs_variant_count(); k < n; k++) {
        hs_variant_info v;
        hs_variant_describe_sized(k, &v, sizeof v, NULL); /* name is filled even when the default ISA cannot be chosen */
        if (strcmp(v.name, name) == 0) return 1;
    }
    return 0;
}

/* ---- docs/spec.md §9: periods and validation --------------------------------------------------------- */
void cli_walk_forward_default(long long periods, long long *train, long long *test) {
    *train = periods / 2 > 0 ? periods / 2 : 1;
    *test = periods / 8 > 0 ? periods / 8 : 1;
}

/* "TRAIN:TEST" or "TRAIN:TEST:anchored", each length an integer >= 1 (in periods). */
static int parse_walk_forward(const char *v, cli_options *o) {
    char train[32], test[32], mode[16];
    const char *a = strchr(v, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    size_t lt = a ? (size_t)(a - v) : 0, ls = a ? (b ? (size_t)(b - a - 1) : strlen(a + 1)) : 0;
    if (!a || lt >= sizeof train || ls >= sizeof test || (b && strlen(b + 1) >= sizeof mode))
        return cli_fail(EXIT_USAGE, "--walk-forward '%s': expected TRAIN:TEST or TRAIN:TEST:anchored (in periods)", v);
    memcpy(train, v, lt), train[lt] = '\0';
    memcpy(test, a + 1, ls), test[ls] = '\0';
    snprintf(mode, sizeof mode, "%s", b ? b + 1 : "");
    if (!cli_parse_i64(train, &o->wf_train) || o->wf_train < 1)
        return cli_fail(EXIT_USAGE, "--walk-forward '%s': TRAIN '%s' is not a length >= 1 (periods)", v, train);
    if (!cli_parse_i64(test, &o->wf_test) || o->wf_test < 1)
        return cli_fail(EXIT_USAGE, "--walk-forward '%s': TEST '%s' is not a length >= 1 (periods)", v, test);
    if (b && strcmp(mode, "anchored") && strcmp(mode, "rolling"))
        return cli_fail(EXIT_USAGE, "--walk-forward '%s': '%s' is neither anchored nor rolling", v, mode);
    o->wf_anchored = b && !strcmp(mode, "anchored");
    return 0;
}

/* --periods, --validate, --groups, --walk-forward, --periods-per-year: 1 when argv[*i] is one of them
 * (*rc set: 0, or EXIT_USAGE named on stderr). */
static int parse_period_option(int argc, char **argv, int *i, cli_options *o, int *rc) {
    const char *v = NULL;
    int missing = 0;
    hs_error err;
    *rc = 0;
    if (!strcmp(argv[*i], "--validate")) {
        o->validate = 1;
    } else if (cli_option_value(argc, argv, i, "--periods", &v, &missing)) {
        if (hs_rows_parse_periods(missing ? "" : v, &o->periods, &err) != HS_OK) *rc = cli_fail(EXIT_USAGE, "%s", err.msg);
    } else if (cli_option_value(argc, argv, i, "--groups", &v, &missing)) {
        if (missing || !cli_parse_i64(v, &o->groups))
            *rc = cli_fail(EXIT_USAGE, "--groups '%s': expected an even integer (the CSCV groups S)", missing ? "" : v);
        o->has_groups = 1;
    } else if (cli_option_value(argc, argv, i, "--walk-forward", &v, &missing)) {
        *rc = missing ? cli_fail(EXIT_USAGE, "--walk-forward needs TRAIN:TEST[:anchored]") : parse_walk_forward(v, o);
    } else if (cli_option_value(argc, argv, i, "--periods-per-year", &v, &missing)) {
        if (hs_rows_parse_periods_per_year(missing ? "" : v, &o->periods_per_year, &err) != HS_OK)
            *rc = cli_fail(EXIT_USAGE, "%s", err.msg);
    } else {
        return 0;
    }
    return 1;
}

/* What the §9 options need of each other, and S and the walk-forward against P (the bars come later:
 * cli_check_periods). */
static int check_period_options(cli_options *o) {
    hs_error err;
    if (hs_rows_check_period_options(o->periods, o->validate, o->periods_per_year, &err) != HS_OK)
        return cli_fail(EXIT_USAGE, "%s", err.msg);
    const char *needs_validate = o->has_groups ? "--groups" : o->wf_train ? "--walk-forward" : NULL;
    if (needs_validate && !o->validate) return cli_fail(EXIT_USAGE, "%s is an option of --validate; add --validate", needs_validate);
    if (!o->validate) return 0;
    const char *given = o->has_groups ? "" : " (the default)";
    if (o->groups < 2 || o->groups % 2 || hs_cscv_splits((size_t)o->groups) == 0)
        return cli_fail(EXIT_USAGE, "--groups %lld%s: expected an even S from 2 to %d (C(S, S/2) splits; docs/cli.md)",
                        o->groups, given, HS_CSCV_MAX_GROUPS);
    if (o->groups > o->periods)
        return cli_fail(EXIT_USAGE, "--groups %lld%s is more than --periods %lld: each CSCV group needs a period; give "
                        "--groups S with S even and <= %lld", o->groups, given, o->periods, o->periods);
    if (!o->wf_train) cli_walk_forward_default(o->periods, &o->wf_train, &o->wf_test);
    if (o->wf_train > o->periods || o->wf_test > o->periods)
        return cli_fail(EXIT_USAGE, "--walk-forward %lld:%lld: %s %lld is longer than --periods %lld", o->wf_train,
                        o->wf_test, o->wf_train > o->periods ? "TRAIN" : "TEST",
                        o->wf_train > o->periods ? o->wf_train : o->wf_test, o->periods);
    if (hs_walk_forward_folds((size_t)o->periods, (size_t)o->wf_train, (size_t)o->wf_test) == 0)
        return cli_fail(EXIT_USAGE, "--walk-forward %lld:%lld: TRAIN + TEST = %lld is more than --periods %lld: no fold fits",
                        o->wf_train, o->wf_test, o->wf_train + o->wf_test, o->periods);
    return 0;
}

/* `run`'s options (without --inputs, which cli/main.c hands to the universe sweep): 0 with *o filled (or
 * *help set at --help/-h), else the exit status after naming the problem on stderr.  Pure otherwise:
 * no output on stdout, no sweep; the grid/lengths text is checked later by cli_make_grid. */
int cli_parse_run(int argc, char **argv, cli_options *o, int *help) {
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int missing = 0, handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *help = 1;
            return 0;
        }
        if ((rc = cli_parse_common(argc, argv, &i, o, &handled))) return rc;
        if (handled) continue;
        if ((rc = cli_parse_kernel_choice(argc, argv, &i, o, &handled))) return rc;
        if (handled) continue;
        if (cli_parse_grid_option(argc, argv, &i, o, &rc) || parse_period_option(argc, argv, &i, o, &rc)) {
            if (rc) return rc;
        } else if (cli_option_value(argc, argv, &i, "--input", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--input needs a file name");
            o->input = v;
        } else if (cli_option_value(argc, argv, &i, "--repeat", &v, &missing)) {
            if (missing || !cli_parse_i64(v, &o->repeat) || o->repeat < 1 || o->repeat > 1000)
                return cli_fail(EXIT_USAGE, "--repeat needs an integer between 1 and 1000");
        } else {
            return cli_fail(EXIT_USAGE, "run: unknown option '%s' (see `hmasweep run --help`)", argv[i]);
        }
    }
    if (!o->format) o->format = "table";
    if (strcmp(o->format, "table") && strcmp(o->format, "json") && strcmp(o->format, "csv"))
        return cli_fail(EXIT_USAGE, "--format '%s': expected table, json or csv", o->format);
    hs_error err;
    if (hs_grid_check(&o->kernel, &err) != HS_OK) return cli_fail(EXIT_USAGE, "%s", err.msg);
    if (o->input && (o->seed != HS_DEFAULT_SEED || o->bars != HS_DEFAULT_BARS))
        return cli_fail(EXIT_USAGE, "--input replaces the synthetic series; --seed/--bars do not apply");
    if (o->output) return cli_fail(EXIT_USAGE, "run: --output is for `gen`; redirect stdout instead");
    return check_period_options(o);
}
