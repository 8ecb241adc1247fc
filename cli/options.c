/* The CLI's option parsing, apart from execution so that fuzz/fuzz_cli.c reaches it: every function here
 * reads argv words, fills cli_options, and on a bad option names the problem on stderr and returns the
 * exit status (EXIT_USAGE); none writes stdout, exits or sweeps.  (The SIGINT flag the sweeping
 * commands share is universe/interrupt.c.) */
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
    o.fee = HS_DEFAULT_FEE;
    return o;
}

/* Parse "--name value" and "--name=value".  Returns 1 and sets *value when argv[*i] is that option. */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0) return 0;
    if (argv[*i][len] == '=') {
        *value = argv[*i] + len + 1;
        return 1;
    }
    if (argv[*i][len] != '\0') return 0;
    if (*i + 1 >= argc) {
        *missing = 1;
        return 1;
    }
    *value = argv[++*i];
    return 1;
}

/* ---- the grid ----------------------------------------------------------------------------------------- */
/* The lengths' texts through the library's parser (hs_parse_combo_lengths, shared with the universe).  Its
 * message names the text by its kind ("lengths: ...", "grid '...': ..."); here the option takes that word's
 * place: "--lengths: ...", "--grid '6:5': ...", "--hma-lengths '6:5': ...". */
static int lengths_fail(hs_status st, const hs_error *err, const char *name) {
    if (st == HS_ERR_NOMEM) return cli_fail(EXIT_DATA, "%s", err->msg);
    return cli_fail(EXIT_USAGE, "%s%s", name, err->msg + strcspn(err->msg, " :"));
}

int cli_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n) {
    hs_error err;
    hs_status st = hs_parse_combo_lengths(lengths, grid, out, n, &err);
    return st == HS_OK ? 0 : lengths_fail(st, &err, lengths ? "--lengths" : "--grid");
}

int cli_parse_length_axis(const char *name, const char *spec, int64_t **out, size_t *n) {
    if (!*spec) return cli_fail(EXIT_USAGE, "%s is empty (expected A,B,... or LO:HI:COUNT)", name);
    hs_error err;
    int range = strchr(spec, ':') != NULL;
    hs_status st = hs_parse_combo_lengths(range ? NULL : spec, range ? spec : NULL, out, n, &err);
    return st == HS_OK ? 0 : lengths_fail(st, &err, name);
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

/* The options that choose the kernel: --variant, --isa, --threads (run and wire). */
int cli_parse_kernel_choice(int argc, char **argv, int *i, cli_options *o, int *handled) {
    const char *v = NULL;
    int missing = 0;
    *handled = 1;
    if (cli_option_value(argc, argv, i, "--variant", &v, &missing)) {
        if (missing) return cli_fail(EXIT_USAGE, "--variant needs a name");
        o->variant = v;
    } else if (cli_option_value(argc, argv, i, "--isa", &v, &missing)) {
        if (missing) return cli_fail(EXIT_USAGE, "--isa needs a name");
        o->isa = v;
    } else if (cli_option_value(argc, argv, i, "--threads", &v, &missing)) {
        if (missing || !cli_parse_i64(v, &o->threads) || o->threads < 1 || o->threads > 4096)
            return cli_fail(EXIT_USAGE, "--threads needs an integer between 1 and 4096");
    } else {
        *handled = 0;
    }
    return 0;
}

int cli_parse_fee(int argc, char **argv, int *i, cli_options *o, int *rc) {
    const char *v = NULL;
    int missing = 0;
    *rc = 0;
    if (!cli_option_value(argc, argv, i, "--fee", &v, &missing)) return 0;
    double fee = NAN;
    hs_error err;
    if (missing || hs_parse_f64(v, &fee, &err) != HS_OK) {
        *rc = cli_fail(EXIT_USAGE, "--fee needs a number (the round-trip cost as a fraction, 0 <= fee < 1): %s",
                       missing ? "''" : err.msg);
    } else if (hs_check_fee(fee, &err) != HS_OK) {
        *rc = cli_fail(EXIT_USAGE, "--fee '%s': %s", v, err.msg);
    } else {
        o->fee = fee;
        o->has_fee = 1;
    }
    return 1;
}

/* `run`'s options (without --inputs, which cli/main.c hands to the universe sweep): 0 with *o filled (or
 * *help set at --help/-h), else the exit status after naming the problem on stderr.  Pure otherwise:
 * no output on stdout, no sweep; the grid/lengths text is checked later by cli_parse_combo_lengths. */
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
        if (cli_parse_fee(argc, argv, &i, o, &rc)) {
            if (rc) return rc;
        } else if (cli_option_value(argc, argv, &i, "--input", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--input needs a file name");
            o->input = v;
        } else if (cli_option_value(argc, argv, &i, "--grid", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--grid needs LO:HI:COUNT");
            o->grid = v;
        } else if (cli_option_value(argc, argv, &i, "--lengths", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--lengths needs A,B,...");
            o->lengths = v;
        } else if (cli_option_value(argc, argv, &i, "--hma-lengths", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--hma-lengths needs A,B,... or LO:HI:COUNT");
            o->hma_lengths = v;
        } else if (cli_option_value(argc, argv, &i, "--hma3-lengths", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--hma3-lengths needs A,B,... or LO:HI:COUNT");
            o->hma3_lengths = v;
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
    if (o->grid && o->lengths) return cli_fail(EXIT_USAGE, "--grid and --lengths are alternatives; give one");
    if (!o->hma_lengths != !o->hma3_lengths)
        return cli_fail(EXIT_USAGE, "%s needs %s too: the 2-D grid sweeps every (HMA length, HMA3 length) pair",
                        o->hma_lengths ? "--hma-lengths" : "--hma3-lengths",
                        o->hma_lengths ? "--hma3-lengths" : "--hma-lengths");
    if (o->hma_lengths && (o->grid || o->lengths))
        return cli_fail(EXIT_USAGE, "--hma-lengths/--hma3-lengths (the 2-D grid) replace %s; give one grid",
                        o->grid ? "--grid" : "--lengths");
    if (o->input && (o->seed != HS_DEFAULT_SEED || o->bars != HS_DEFAULT_BARS))
        return cli_fail(EXIT_USAGE, "--input replaces the synthetic series; --seed/--bars do not apply");
    if (o->output) return cli_fail(EXIT_USAGE, "run: --output is for `gen`; redirect stdout instead");
    return 0;
}
