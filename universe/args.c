/* Options of a universe sweep (args.h). */
#define _POSIX_C_SOURCE 200809L
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const hs_universe_usage =
    "  --inputs SPEC       a directory, a glob ('data/*.npy') or a manifest file (`PATH` or `SYMBOL PATH`\n"
    "                      per line); every reader format, mixed\n"
    "  --grid LO:HI:COUNT  lengths = trunc(linspace(LO, HI, COUNT)) (default 6:200:80)\n"
    "  --lengths A,B,...   explicit lengths (each >= 2)\n"
    "  --variant NAME --isa NAME --threads N   as for one series\n"
    "  --format FMT        table (default), csv or jsonl: one row per (symbol, combo), an error row per bad\n"
    "                      symbol; the per-symbol summary follows a table, or goes to stderr\n"
    "  --output FILE       write the rows there instead of stdout\n";

__attribute__((format(printf, 2, 3))) static hs_status usage(hs_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return HS_ERR_USAGE;
}

static int whole_i64(const char *s, long long *out) {
    char *end;
    if (!s || !*s) return 0;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return !errno && !*end;
}

/* "A,B,..." each an integer >= 2; empty fields are errors. */
static hs_status parse_lengths(const char *spec, hs_universe_args *a, hs_error *err) {
    size_t count = 1;
    for (const char *p = spec; *p; p++) count += *p == ',';
    a->lengths = malloc(count * sizeof *a->lengths);
    char *copy = strdup(spec), *field = copy;
    if (!a->lengths || !copy) return free(copy), usage(err, "out of memory");
    for (a->n_combos = 0;; a->n_combos++) {
        char *comma = strchr(field, ',');
        if (comma) *comma = '\0';
        long long L;
        if (!whole_i64(field, &L) || L < 2) {
            hs_status st = usage(err, "--lengths: '%s' is not a length (integers >= 2, A,B,...)", field);
            return free(copy), st;
        }
        a->lengths[a->n_combos] = L;
        if (!comma) break;
        field = comma + 1;
    }
    a->n_combos++;
    free(copy);
    return HS_OK;
}

static hs_status parse_grid(const char *spec, hs_universe_args *a, hs_error *err) {
    char copy[96];
    if (strlen(spec) >= sizeof copy) return usage(err, "--grid '%.32s...': too long", spec);
    strcpy(copy, spec);
    char *c1 = strchr(copy, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    long long lo, hi, count;
    if (!c2 || strchr(c2 + 1, ':')) return usage(err, "--grid '%s': expected LO:HI:COUNT, e.g. 6:200:80", spec);
    *c1 = *c2 = '\0';
    if (!whole_i64(copy, &lo) || !whole_i64(c1 + 1, &hi) || !whole_i64(c2 + 1, &count) || count < 1 ||
        count > 1000000)
        return usage(err, "--grid '%s': LO, HI integers and COUNT between 1 and 1000000", spec);
    a->lengths = malloc((size_t)count * sizeof *a->lengths);
    if (!a->lengths) return usage(err, "out of memory");
    a->n_combos = (size_t)count;
    return hs_grid(lo, hi, (size_t)count, a->lengths, err);
}

/* "--name VALUE" or "--name=VALUE". */
static int option(int argc, char **argv, int *i, const char *name, const char **value, hs_status *st, hs_error *err) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0 || (argv[*i][len] != '\0' && argv[*i][len] != '=')) return 0;
    if (argv[*i][len] == '=') *value = argv[*i] + len + 1;
    else if (*i + 1 < argc) *value = argv[++*i];
    else *st = usage(err, "%s needs a value", name);
    return 1;
}

static hs_status parse_one(int argc, char **argv, int *i, int mpi, hs_universe_args *a, const char **grid,
                           const char **lengths, hs_error *err) {
    const char *v = NULL;
    hs_status st = HS_OK;
    long long n = 0;
    if (option(argc, argv, i, "--inputs", &v, &st, err)) a->inputs = v;
    else if (option(argc, argv, i, "--grid", &v, &st, err)) *grid = v;
    else if (option(argc, argv, i, "--lengths", &v, &st, err)) *lengths = v;
    else if (option(argc, argv, i, "--format", &v, &st, err)) a->format = v;
    else if (option(argc, argv, i, "--output", &v, &st, err)) a->output = v;
    else if (option(argc, argv, i, "--variant", &v, &st, err)) a->sweep.variant = v;
    else if (option(argc, argv, i, "--isa", &v, &st, err)) a->sweep.isa = v;
    else if (option(argc, argv, i, "--threads", &v, &st, err)) {
        if (st == HS_OK && (!whole_i64(v, &n) || n < 1 || n > 4096))
            st = usage(err, "--threads needs an integer between 1 and 4096");
        else a->sweep.threads = (int)n;
    } else if (mpi && option(argc, argv, i, "--checkpoint", &v, &st, err)) a->checkpoint = v;
    else if (mpi && !strcmp(argv[*i], "--resume")) a->resume = 1;
    else if (!strcmp(argv[*i], "--help") || !strcmp(argv[*i], "-h")) a->help = 1;
    else st = usage(err, "unknown option '%s' for a universe sweep", argv[*i]);
    return st;
}

hs_status hs_universe_parse(int argc, char **argv, int mpi, hs_universe_args *a, hs_error *err) {
    memset(a, 0, sizeof *a);
    a->format = "table";
    const char *grid = NULL, *lengths = NULL;
    hs_status st = HS_OK;
    for (int i = 0; st == HS_OK && i < argc; i++) st = parse_one(argc, argv, &i, mpi, a, &grid, &lengths, err);
    if (st != HS_OK || a->help) return st;
    if (!a->inputs) return usage(err, "--inputs is required (a directory, a glob or a manifest)");
    if (grid && lengths) return usage(err, "--grid and --lengths are alternatives; give one");
    if (a->resume && !a->checkpoint) return usage(err, "--resume needs --checkpoint FILE");
    if ((st = hs_universe_check_format(a->format, err)) != HS_OK) return st;
    st = lengths ? parse_lengths(lengths, a, err) : parse_grid(grid ? grid : "6:200:80", a, err);
    if (st != HS_OK) return st;
    a->windows = malloc((a->n_combos ? a->n_combos : 1) * sizeof *a->windows);
    if (!a->windows) return usage(err, "out of memory");
    for (size_t c = 0; st == HS_OK && c < a->n_combos; c++) st = hs_windows_from_length(a->lengths[c], &a->windows[c], err);
    return st;
}

void hs_universe_args_free(hs_universe_args *a) {
    free(a->lengths);
    free(a->windows);
    a->lengths = NULL, a->windows = NULL;
}
