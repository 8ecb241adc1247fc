/* hmasweep — the command line: run a sweep, list the variants, generate a series.
 * Exit status: 0 success, 2 usage error, 1 bad data (or any other failure).  Every error names the
 * problem on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "wire.h"

enum { EXIT_DATA = 1, EXIT_USAGE = 2 };

static int fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("hmasweep: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static int exit_code_for(hs_status st) { return st == HS_ERR_USAGE || st == HS_ERR_ISA ? EXIT_USAGE : EXIT_DATA; }

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- strict number parsing: the whole word must be the number ------------------------------------ */
static int parse_i64(const char *s, long long *out) {
    char *end;
    if (!s || !*s) return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

static int parse_u64(const char *s, unsigned long long *out) {
    char *end;
    if (!s || !*s || *s == '-') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

static int parse_f64(const char *s, double *out) {
    char *end;
    if (!s || !*s) return 0;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* ---- options ---------------------------------------------------------------------------------------- */
typedef struct {
    const char *variant, *isa, *input, *grid, *lengths, *format, *output;
    unsigned long long seed;
    long long bars, threads, repeat;
    unsigned long long max_bytes; /* --max-bytes: input cap (0 = the library's default) */
    double vol, start;
} cli_options;

static cli_options default_options(void) {
    cli_options o = {0};
    o.seed = HS_DEFAULT_SEED;
    o.bars = HS_DEFAULT_BARS;
    o.vol = HS_DEFAULT_VOL;
    o.start = HS_DEFAULT_START;
    o.format = NULL;
    o.repeat = 1;
    return o;
}

/* Parse "--name value" and "--name=value".  Returns 1 and sets *value when argv[*i] is that option. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing) {
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

/* ---- help ------------------------------------------------------------------------------------------- */
static const char *const usage_main =
    "usage: hmasweep <command> [options]\n"
    "\n"
    "HMA/HMA3 stop-and-reverse sweep (kernel spec v1), as a family of variants with identical results.\n"
    "\n"
    "commands:\n"
    "  run        run a sweep (no options: the study's default run, 150,000 bars x 80 combos)\n"
    "  variants   list the registered variants, their tier and ISAs\n"
    "  gen        write a synthetic close series (f64, csv or npy)\n"
    "  wire       serve the study's wire protocol: request frames on stdin, replies on stdout\n"
    "  serve      the engine service: the wire protocol over Unix sockets, TCP or stdio (docs/engine.md)\n"
    "  trades     one combo's trade log (entry, exit, side, prices, PnL per trade)\n"
    "\n"
    "`hmasweep <command> --help` describes each command.\n";

static const char *const usage_run =
    "usage: hmasweep run [options]\n"
    "\n"
    "Run every combo of the grid over a close series and print trades and PnL per combo.\n"
    "\n"
    "  --variant NAME      registered variant (default best, the fastest tier 0; unchecked is the\n"
    "                      reference; see `hmasweep variants`)\n"
    "  --isa NAME          force an ISA: scalar, sse2, avx2, avx512, neon (default: best built and\n"
    "                      supported, or $HMASWEEP_ISA)\n"
    "  --threads N         threads for OpenMP variants (default: all cores)\n"
    "  --seed N --bars N --vol X --start X\n"
    "                      synthetic series (default 42, 150000, 0.0008, 100)\n"
    "  --input FILE        read the close series instead: raw little-endian f64, CSV (one column or a\n"
    "                      'close' column) or 1-D float64 .npy, by extension (any case); - = stdin (f64)\n"
    "  --max-bytes N       refuse an input larger than N bytes (default 1 GiB)\n"
    "  --grid LO:HI:COUNT  lengths = trunc(linspace(LO, HI, COUNT)) (default 6:200:80)\n"
    "  --lengths A,B,...   explicit lengths (each >= 2)\n"
    "  --format FMT        table (default), json or csv\n"
    "  --repeat N          run the sweep N times and report the median time\n"
    "  --inputs SPEC       sweep a universe of series instead (`hmasweep run --inputs x --help`)\n"
    "  --help              this text\n";

static const char *const usage_variants =
    "usage: hmasweep variants [--all] [--format table|json]\n"
    "\n"
    "List the registry: name, tier, driver, the ISAs each variant was built for, which of those this\n"
    "CPU can run (marked *), and the ISA it would run with by default.  --all also lists the gap study's\n"
    "experiment instruments (x_*, role EXPERIMENT): gated like every variant, not kernels to use.\n";

static const char *const usage_gen =
    "usage: hmasweep gen --output FILE [--format f64|csv|npy] [--seed N --bars N --vol X --start X]\n"
    "\n"
    "Write the synthetic close series of SPEC §1.  The format defaults from the file extension (.csv,\n"
    ".npy, otherwise raw little-endian f64).\n";

/* ---- the grid ----------------------------------------------------------------------------------------- */
static int parse_lengths(const char *spec, int64_t **out, size_t *n) {
    size_t count = 1;
    for (const char *p = spec; *p; p++) count += *p == ',';
    int64_t *v = malloc(count * sizeof *v);
    char *copy = strdup(spec);
    if (!v || !copy) {
        free(v);
        free(copy);
        return fail(EXIT_DATA, "out of memory");
    }
    size_t k = 0;
    int bad = 0;
    /* strtok would skip empty fields; walk the commas by hand so "6,,8" is an error. */
    char *field = copy;
    for (;;) {
        char *comma = strchr(field, ',');
        if (comma) *comma = '\0';
        long long L;
        if (!parse_i64(field, &L)) {
            bad = fail(EXIT_USAGE, "--lengths: '%s' is not an integer (expected A,B,... with each length >= 2)", field);
            break;
        }
        if (L < 2) {
            bad = fail(EXIT_USAGE, "--lengths: length %lld is out of range (L must be >= 2)", L);
            break;
        }
        v[k++] = L;
        if (!comma) break;
        field = comma + 1;
    }
    free(copy);
    if (bad) {
        free(v);
        return bad;
    }
    *out = v;
    *n = k;
    return 0;
}

static int parse_grid(const char *spec, int64_t **out, size_t *n) {
    long long lo, hi, count;
    char a[64], b[64], c[64];
    const char *p1 = strchr(spec, ':'), *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (!p1 || !p2 || strchr(p2 + 1, ':') || (size_t)(p1 - spec) >= sizeof a || (size_t)(p2 - p1 - 1) >= sizeof b ||
        strlen(p2 + 1) >= sizeof c)
        return fail(EXIT_USAGE, "--grid '%s': expected LO:HI:COUNT, e.g. 6:200:80", spec);
    memcpy(a, spec, (size_t)(p1 - spec));
    a[p1 - spec] = '\0';
    memcpy(b, p1 + 1, (size_t)(p2 - p1 - 1));
    b[p2 - p1 - 1] = '\0';
    strcpy(c, p2 + 1);
    if (!parse_i64(a, &lo) || !parse_i64(b, &hi) || !parse_i64(c, &count))
        return fail(EXIT_USAGE, "--grid '%s': LO, HI and COUNT must be integers", spec);
    if (count < 1 || count > 1000000)
        return fail(EXIT_USAGE, "--grid '%s': COUNT must be between 1 and 1000000", spec);
    int64_t *v = malloc((size_t)count * sizeof *v);
    if (!v) return fail(EXIT_DATA, "out of memory");
    hs_error err;
    if (hs_grid(lo, hi, (size_t)count, v, &err) != HS_OK) {
        free(v);
        return fail(EXIT_USAGE, "--grid: %s", err.msg);
    }
    *out = v;
    *n = (size_t)count;
    return 0;
}

/* ---- series --------------------------------------------------------------------------------------------- */
static int load_series(const cli_options *o, double **close, size_t *n) {
    hs_error err;
    if (o->input) {
        hs_status st = hs_read_series_limited(o->input, NULL, (size_t)o->max_bytes, close, n, &err);
        return st == HS_OK ? 0 : fail(exit_code_for(st), "%s", err.msg);
    }
    if (o->bars < 1 || o->bars > 2000000000LL)
        return fail(EXIT_USAGE, "--bars %lld is out of range (1 .. 2000000000)", o->bars);
    *n = (size_t)o->bars;
    *close = malloc(*n * sizeof **close);
    if (!*close) return fail(EXIT_DATA, "out of memory for %zu bars", *n);
    hs_status st = hs_make_close(o->seed, *n, o->vol, o->start, *close, &err);
    if (st != HS_OK) {
        free(*close);
        return fail(exit_code_for(st), "%s", err.msg);
    }
    return 0;
}

static int is_default_data(const cli_options *o) {
    return !o->input && o->seed == HS_DEFAULT_SEED && o->bars == HS_DEFAULT_BARS && o->vol == HS_DEFAULT_VOL &&
           o->start == HS_DEFAULT_START;
}

/* ---- output ------------------------------------------------------------------------------------------ */
typedef struct {
    const char *variant;
    const char *isa;
    int threads;
    size_t bars, n_combos;
    const int64_t *lengths;
    const hs_windows *windows;
    const hs_result *results;
    double seconds, process_seconds;
    int default_data;
    char sha[65];
} run_report;

/* JSON has no inf or NaN (issue 10, defect 11: prices alternating 1e300 and 1e-300 sum to an infinite
 * PnL): such a PnL is written as null, which every JSON reader accepts. */
static void print_json_number(double x) {
    if (isfinite(x)) printf("%.17g", x);
    else printf("null");
}

static void print_json(const run_report *r) {
    printf("{\"variant\": \"%s\", \"isa\": \"%s\", \"threads\": %d, \"bars\": %zu, \"series_sha256\": \"%s\", "
           "\"seconds\": %.9g, \"combos\": [",
           r->variant, r->isa, r->threads, r->bars, r->sha, r->seconds);
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        printf("%s\n  {\"length\": %lld, \"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %lld, "
               "\"pnl\": ",
               c ? "," : "", (long long)r->lengths[c], (long long)w[0], (long long)w[1], (long long)w[2],
               (long long)w[3], (long long)w[4], (long long)w[5], (long long)r->results[c].trades);
        print_json_number(r->results[c].pnl);
        printf("}");
    }
    printf("\n]}\n");
}

static void print_csv(const run_report *r) {
    printf("combo,length,w0,w1,w2,w3,w4,w5,trades,pnl\n");
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        printf("%zu,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.17g\n", c, (long long)r->lengths[c], (long long)w[0],
               (long long)w[1], (long long)w[2], (long long)w[3], (long long)w[4], (long long)w[5],
               (long long)r->results[c].trades, r->results[c].pnl);
    }
}

/* The study's published fingerprint of combo 0 of the default run (SPEC §5). */
#define STUDY_TRADES 57029
#define STUDY_PNL (-5165.58)

static void print_table(const run_report *r) {
    const char *target = hs_variant_alias(r->variant, NULL);
    char shown[96];
    snprintf(shown, sizeof shown, target ? "%s = %s" : "%s", r->variant, target);
    printf("hmasweep run: variant %s (isa %s, %d thread%s), %zu bars, %zu combos\n", shown, r->isa,
           r->threads, r->threads == 1 ? "" : "s", r->bars, r->n_combos);
    printf("%5s %6s %6s %6s %4s %5s %5s %6s %9s %18s\n", "combo", "L", "w0", "w1", "w2", "w3", "w4", "w5", "trades",
           "pnl");
    long long total = 0;
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        printf("%5zu %6lld %6lld %6lld %4lld %5lld %5lld %6lld %9lld %18.9f\n", c, (long long)r->lengths[c],
               (long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3], (long long)w[4], (long long)w[5],
               (long long)r->results[c].trades, r->results[c].pnl);
        total += r->results[c].trades;
    }
    if (r->n_combos) {
        const hs_result *f = &r->results[0];
        printf("fingerprint: combo 0 (L=%lld): %lld trades, PnL %.2f", (long long)r->lengths[0], (long long)f->trades,
               f->pnl);
        if (r->default_data && r->lengths[0] == 6) {
            int match = f->trades == STUDY_TRADES && fabs(f->pnl - STUDY_PNL) < 0.005;
            printf(" — study: 57,029 trades, -5165.58: %s", match ? "MATCH" : "MISMATCH");
        }
        printf("\n");
    }
    printf("total trades: %lld over %zu combos; series sha256 %s\n", total, r->n_combos, r->sha);
    printf("wall time: sweep %.3f s, whole process %.3f s\n", r->seconds, r->process_seconds);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- commands ------------------------------------------------------------------------------------------ */
static int parse_common(int argc, char **argv, int *i, cli_options *o, int *handled) {
    const char *v = NULL;
    int missing = 0;
    *handled = 1;
    if (option_value(argc, argv, i, "--seed", &v, &missing)) {
        if (missing || !parse_u64(v, &o->seed)) return fail(EXIT_USAGE, "--seed needs a non-negative integer");
    } else if (option_value(argc, argv, i, "--bars", &v, &missing)) {
        if (missing || !parse_i64(v, &o->bars) || o->bars < 1) return fail(EXIT_USAGE, "--bars needs an integer >= 1");
    } else if (option_value(argc, argv, i, "--vol", &v, &missing)) {
        if (missing || !parse_f64(v, &o->vol)) return fail(EXIT_USAGE, "--vol needs a finite number");
    } else if (option_value(argc, argv, i, "--start", &v, &missing)) {
        if (missing || !parse_f64(v, &o->start) || o->start <= 0)
            return fail(EXIT_USAGE, "--start needs a finite number > 0");
    } else if (option_value(argc, argv, i, "--format", &v, &missing)) {
        if (missing) return fail(EXIT_USAGE, "--format needs a value");
        o->format = v;
    } else if (option_value(argc, argv, i, "--output", &v, &missing)) {
        if (missing) return fail(EXIT_USAGE, "--output needs a file name");
        o->output = v;
    } else if (option_value(argc, argv, i, "--max-bytes", &v, &missing)) {
        if (missing || !parse_u64(v, &o->max_bytes) || o->max_bytes == 0)
            return fail(EXIT_USAGE, "--max-bytes needs an integer >= 1 (the largest input read, in bytes)");
    } else {
        *handled = 0;
    }
    return 0;
}

/* The options that choose the kernel: --variant, --isa, --threads (run and wire). */
static int parse_kernel_choice(int argc, char **argv, int *i, cli_options *o, int *handled) {
    const char *v = NULL;
    int missing = 0;
    *handled = 1;
    if (option_value(argc, argv, i, "--variant", &v, &missing)) {
        if (missing) return fail(EXIT_USAGE, "--variant needs a name");
        o->variant = v;
    } else if (option_value(argc, argv, i, "--isa", &v, &missing)) {
        if (missing) return fail(EXIT_USAGE, "--isa needs a name");
        o->isa = v;
    } else if (option_value(argc, argv, i, "--threads", &v, &missing)) {
        if (missing || !parse_i64(v, &o->threads) || o->threads < 1 || o->threads > 4096)
            return fail(EXIT_USAGE, "--threads needs an integer between 1 and 4096");
    } else {
        *handled = 0;
    }
    return 0;
}

/* The same --variant/--isa/--threads parsing for `hmasweep serve` (cli/serve.c). */
int hs_cli_kernel_option(int argc, char **argv, int *i, hs_sweep_options *opt, int *handled) {
    cli_options o = default_options();
    o.variant = opt->variant, o.isa = opt->isa, o.threads = opt->threads;
    int rc = parse_kernel_choice(argc, argv, i, &o, handled);
    opt->variant = o.variant, opt->isa = o.isa, opt->threads = (int)o.threads;
    return rc;
}

int hs_serve_cli(int argc, char **argv); /* cli/serve.c */
int hs_universe_cli(int argc, char **argv); /* universe/cli.c */

/* --inputs makes `run` a universe sweep: many series, one row per (symbol, combo). */
static int names_inputs(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--inputs") || !strncmp(argv[i], "--inputs=", 9)) return 1;
    return 0;
}

/* Is `name` a registered variant?  (The public registry listing; the sweep would say the same.)
 * Also used by cli/serve.c, so the whole CLI checks names through the public API only. */
int hs_cli_variant_known(const char *name) {
    const char *target = hs_variant_alias(name, NULL);
    if (target) name = target;
    for (size_t k = 0, n = hs_variant_count(); k < n; k++) {
        hs_variant_info v;
        hs_variant_describe(k, &v, NULL); /* name is filled even when the default ISA cannot be chosen */
        if (strcmp(v.name, name) == 0) return 1;
    }
    return 0;
}

/* "scalar*,sse2*,avx512": the built ISAs, starred where this CPU runs them. */
static void mark_runnable(const hs_variant_info *v, char *buf, size_t size) {
    char built[sizeof v->isas_built];
    snprintf(built, sizeof built, "%s", v->isas_built);
    buf[0] = '\0';
    for (char *isa = strtok(built, ","); isa; isa = strtok(NULL, ",")) {
        char runnable[sizeof v->isas_runnable + 2], key[24];
        snprintf(runnable, sizeof runnable, ",%s,", v->isas_runnable);
        snprintf(key, sizeof key, ",%s,", isa);
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s%s", len ? "," : "", isa, strstr(runnable, key) ? "*" : "");
    }
}

static int cmd_run(int argc, char **argv) {
    if (names_inputs(argc, argv)) return hs_universe_cli(argc, argv);
    double t_process = now_seconds();
    cli_options o = default_options();
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int missing = 0, handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_run, stdout);
            return 0;
        }
        if ((rc = parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (handled) continue;
        if ((rc = parse_kernel_choice(argc, argv, &i, &o, &handled))) return rc;
        if (handled) continue;
        if (option_value(argc, argv, &i, "--input", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--input needs a file name");
            o.input = v;
        } else if (option_value(argc, argv, &i, "--grid", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--grid needs LO:HI:COUNT");
            o.grid = v;
        } else if (option_value(argc, argv, &i, "--lengths", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--lengths needs A,B,...");
            o.lengths = v;
        } else if (option_value(argc, argv, &i, "--repeat", &v, &missing)) {
            if (missing || !parse_i64(v, &o.repeat) || o.repeat < 1 || o.repeat > 1000)
                return fail(EXIT_USAGE, "--repeat needs an integer between 1 and 1000");
        } else {
            return fail(EXIT_USAGE, "run: unknown option '%s' (see `hmasweep run --help`)", argv[i]);
        }
    }
    if (!o.format) o.format = "table";
    if (strcmp(o.format, "table") && strcmp(o.format, "json") && strcmp(o.format, "csv"))
        return fail(EXIT_USAGE, "--format '%s': expected table, json or csv", o.format);
    if (o.grid && o.lengths) return fail(EXIT_USAGE, "--grid and --lengths are alternatives; give one");
    if (o.input && (o.seed != HS_DEFAULT_SEED || o.bars != HS_DEFAULT_BARS))
        return fail(EXIT_USAGE, "--input replaces the synthetic series; --seed/--bars do not apply");
    if (o.output) return fail(EXIT_USAGE, "run: --output is for `gen`; redirect stdout instead");
    const char *variant = o.variant ? o.variant : HS_DEFAULT_VARIANT;
    if (!hs_cli_variant_known(variant)) return fail(EXIT_USAGE, "unknown variant '%s' (see `hmasweep variants`)", variant);

    int64_t *lengths = NULL;
    size_t n_combos = 0;
    int rc = o.lengths ? parse_lengths(o.lengths, &lengths, &n_combos)
                       : parse_grid(o.grid ? o.grid : "6:200:80", &lengths, &n_combos);
    if (rc) return rc;

    double *close = NULL;
    size_t n_bars = 0;
    if ((rc = load_series(&o, &close, &n_bars))) {
        free(lengths);
        return rc;
    }
    hs_windows *windows = malloc(n_combos * sizeof *windows);
    hs_result *results = malloc(n_combos * sizeof *results);
    double *times = malloc((size_t)o.repeat * sizeof *times);
    hs_error err = {{0}};
    hs_status st = windows && results && times ? HS_OK : HS_ERR_NOMEM;
    if (st != HS_OK) snprintf(err.msg, sizeof err.msg, "out of memory for %zu combos", n_combos);
    for (size_t c = 0; st == HS_OK && c < n_combos; c++) st = hs_windows_from_length(lengths[c], &windows[c], &err);

    hs_sweep_report ran = {0};
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = variant, opt.isa = o.isa, opt.threads = (int)o.threads, opt.report = &ran;
    for (long long k = 0; st == HS_OK && k < o.repeat; k++) {
        double t0 = now_seconds();
        st = hs_sweep(close, n_bars, windows, n_combos, results, &opt, &err);
        times[k] = now_seconds() - t0;
    }
    if (st == HS_OK) {
        qsort(times, (size_t)o.repeat, sizeof *times, cmp_double);
        run_report r = {variant, ran.isa, ran.threads, n_bars, n_combos, lengths, windows, results,
                        times[o.repeat / 2], 0, is_default_data(&o), {0}};
        hs_series_sha256(close, n_bars, r.sha);
        r.process_seconds = now_seconds() - t_process;
        if (strcmp(o.format, "json") == 0) print_json(&r);
        else if (strcmp(o.format, "csv") == 0) print_csv(&r);
        else print_table(&r);
    }
    free(times);
    free(windows);
    free(results);
    free(close);
    free(lengths);
    return st == HS_OK ? 0 : fail(exit_code_for(st), "%s", err.msg);
}

static int cmd_variants(int argc, char **argv) {
    cli_options o = default_options();
    int all = 0;
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_variants, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--all") == 0) {
            all = 1;
            continue;
        }
        if ((rc = parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (!handled || o.output) return fail(EXIT_USAGE, "variants: unknown option '%s'", argv[i]);
    }
    int json = o.format && strcmp(o.format, "json") == 0;
    if (o.format && !json && strcmp(o.format, "table"))
        return fail(EXIT_USAGE, "--format '%s': expected table or json", o.format);
    size_t n = hs_variant_count();
    if (json) printf("[");
    else printf("%-14s %-4s %-7s %-28s %-8s %s\n", "variant", "tier", "driver", "isas (* = this CPU runs it)", "default", "summary");
    for (size_t k = 0, listed = 0; k < n; k++) {
        hs_variant_info v;
        hs_error err;
        /* the default ISA is hs_sweep's own choice (HMASWEEP_ISA included): a bad setting fails here as in run */
        if (hs_variant_describe(k, &v, &err) != HS_OK) return fail(EXIT_USAGE, "%s", err.msg);
        if (strcmp(v.role, "experiment") == 0 && !all) continue;
        char isas[160];
        mark_runnable(&v, isas, sizeof isas);
        const char *driver = v.threaded ? "openmp" : "serial";
        if (json)
            printf("%s\n  {\"name\": \"%s\", \"tier\": %d, \"driver\": \"%s\", \"isas\": \"%s\", \"isas_built\": \"%s\", "
                   "\"isas_runnable\": \"%s\", \"default_isa\": \"%s\", \"role\": \"%s\", \"summary\": \"%s\"}",
                   listed++ ? "," : "", v.name, v.tier, driver, isas, v.isas_built, v.isas_runnable, v.default_isa, v.role, v.summary);
        else
            printf("%-14s %-4d %-7s %-28s %-8s %s\n", v.name, v.tier, driver, isas, v.default_isa, v.summary);
    }
    if (!json) {
        const char *summary = NULL, *target = hs_variant_alias(HS_DEFAULT_VARIANT, &summary);
        if (target) printf("%-14s %-4s %-7s %-28s %-8s %s\n", HS_DEFAULT_VARIANT, "=", "alias", target, "", summary);
    }
    if (json) printf("\n]\n");
    return 0;
}

static const char *const usage_wire =
    "usage: hmasweep wire [--variant NAME] [--isa NAME] [--threads N] < requests > replies\n"
    "\n"
    "Serve SPEC §6 frames until EOF: [u32 body_len][u8 opcode][u32 n_bars][u32 n_combos][f64 close...]\n"
    "[6 x i64 windows per combo]; opcode 0 sweeps (reply: n_combos f64 PnL then n_combos i64 trades),\n"
    "opcode 1 echoes the close array; docs/protocol.md has the other opcodes (HELLO, LOAD, ...).  A bad\n"
    "frame gets an error reply (bit 31 of its length set) and a line on stderr, and the next frame is served;\n"
    "a truncated frame ends the stream.  Exit 1 when any frame failed.\n";

static int cmd_wire(int argc, char **argv) {
    cli_options o = default_options();
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_wire, stdout);
            return 0;
        }
        if ((rc = parse_kernel_choice(argc, argv, &i, &o, &handled))) return rc;
        if (!handled) return fail(EXIT_USAGE, "wire: unknown option '%s' (see `hmasweep wire --help`)", argv[i]);
    }
    if (o.variant && !hs_cli_variant_known(o.variant))
        return fail(EXIT_USAGE, "unknown variant '%s' (see `hmasweep variants`)", o.variant);
    hs_sweep_options opt = {.variant = o.variant, .isa = o.isa, .threads = (int)o.threads};
    hs_error err;
    return hs_wire_serve(&opt, &err) ? fail(EXIT_DATA, "%s", err.msg) : 0;
}

static int cmd_gen(int argc, char **argv) {
    cli_options o = default_options();
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_gen, stdout);
            return 0;
        }
        if ((rc = parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (!handled) return fail(EXIT_USAGE, "gen: unknown option '%s' (see `hmasweep gen --help`)", argv[i]);
    }
    if (!o.output) return fail(EXIT_USAGE, "gen: --output FILE is required");
    const char *format = o.format ? o.format : hs_series_format(o.output);
    if (strcmp(format, "f64") && strcmp(format, "csv") && strcmp(format, "npy"))
        return fail(EXIT_USAGE, "--format '%s': expected f64, csv or npy", format);
    double *close = NULL;
    size_t n = 0;
    int rc = load_series(&o, &close, &n);
    if (rc) return rc;
    hs_error err;
    hs_status st = hs_write_series(o.output, format, close, n, &err);
    free(close);
    return st == HS_OK ? 0 : fail(exit_code_for(st), "%s", err.msg);
}

static const char *const usage_trades =
    "usage: hmasweep trades (--length L | --windows W0,W1,W2,W3,W4,W5) [options]\n"
    "\n"
    "One combo's trade log (hs_trade_log): every closed trade with its entry and exit bar, side, prices\n"
    "and PnL (percentage points, after the fee).  The PnLs summed in order are `run`'s PnL for the combo.\n"
    "\n"
    "  --length L          the combo of length L (L >= 2)\n"
    "  --windows A,...,F   six explicit windows instead (wire order, each >= 1)\n"
    "  --seed N --bars N --vol X --start X   synthetic series (default 42, 150000, 0.0008, 100)\n"
    "  --input FILE        read the close series instead (as `run`)\n"
    "  --format FMT        table (default), csv or json\n";

/* Parse exactly six comma-separated windows, each >= 1. */
static int parse_windows(const char *spec, hs_windows *w) {
    const char *p = spec;
    for (int k = 0; k < 6; k++) {
        char field[32];
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        long long v;
        if ((k < 5 && !comma) || (k == 5 && comma) || len >= sizeof field)
            return fail(EXIT_USAGE, "--windows '%s': expected six comma-separated integers", spec);
        memcpy(field, p, len);
        field[len] = '\0';
        if (!parse_i64(field, &v) || v < 1)
            return fail(EXIT_USAGE, "--windows '%s': '%s' is not a window >= 1", spec, field);
        w->w[k] = v;
        p = comma ? comma + 1 : p + len;
    }
    return 0;
}

static void print_trades(const char *format, const hs_trade *t, size_t n, const hs_windows *w, double pnl) {
    if (strcmp(format, "csv") == 0) {
        printf("trade,entry_bar,exit_bar,side,entry_price,exit_price,pnl\n");
        for (size_t k = 0; k < n; k++)
            printf("%zu,%lld,%lld,%d,%.17g,%.17g,%.17g\n", k, (long long)t[k].entry_bar, (long long)t[k].exit_bar,
                   t[k].side, t[k].entry_price, t[k].exit_price, t[k].pnl);
        return;
    }
    if (strcmp(format, "json") == 0) {
        printf("{\"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %zu, \"pnl\": %.17g, \"log\": [",
               (long long)w->w[0], (long long)w->w[1], (long long)w->w[2], (long long)w->w[3], (long long)w->w[4],
               (long long)w->w[5], n, pnl);
        for (size_t k = 0; k < n; k++)
            printf("%s\n  {\"entry_bar\": %lld, \"exit_bar\": %lld, \"side\": %d, \"entry_price\": %.17g, "
                   "\"exit_price\": %.17g, \"pnl\": %.17g}",
                   k ? "," : "", (long long)t[k].entry_bar, (long long)t[k].exit_bar, t[k].side, t[k].entry_price,
                   t[k].exit_price, t[k].pnl);
        printf("\n]}\n");
        return;
    }
    printf("%7s %9s %9s %5s %18s %18s %14s\n", "trade", "entry", "exit", "side", "entry_price", "exit_price", "pnl");
    for (size_t k = 0; k < n; k++)
        printf("%7zu %9lld %9lld %5s %18.9f %18.9f %14.9f\n", k, (long long)t[k].entry_bar, (long long)t[k].exit_bar,
               t[k].side > 0 ? "long" : "short", t[k].entry_price, t[k].exit_price, t[k].pnl);
    printf("%zu trades, PnL %.9f (windows %lld,%lld,%lld,%lld,%lld,%lld)\n", n, pnl, (long long)w->w[0],
           (long long)w->w[1], (long long)w->w[2], (long long)w->w[3], (long long)w->w[4], (long long)w->w[5]);
}

static int cmd_trades(int argc, char **argv) {
    cli_options o = default_options();
    const char *length = NULL, *windows = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int missing = 0, handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_trades, stdout);
            return 0;
        }
        if ((rc = parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (handled) continue;
        if (option_value(argc, argv, &i, "--input", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--input needs a file name");
            o.input = v;
        } else if (option_value(argc, argv, &i, "--length", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--length needs an integer >= 2");
            length = v;
        } else if (option_value(argc, argv, &i, "--windows", &v, &missing)) {
            if (missing) return fail(EXIT_USAGE, "--windows needs six integers");
            windows = v;
        } else {
            return fail(EXIT_USAGE, "trades: unknown option '%s' (see `hmasweep trades --help`)", argv[i]);
        }
    }
    const char *format = o.format ? o.format : "table";
    if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv"))
        return fail(EXIT_USAGE, "--format '%s': expected table, csv or json", format);
    if (!length == !windows) return fail(EXIT_USAGE, "trades: give one of --length L or --windows W0,...,W5");
    if (o.output) return fail(EXIT_USAGE, "trades: --output is for `gen`; redirect stdout instead");
    if (o.input && (o.seed != HS_DEFAULT_SEED || o.bars != HS_DEFAULT_BARS))
        return fail(EXIT_USAGE, "--input replaces the synthetic series; --seed/--bars do not apply");
    hs_windows w;
    hs_error err;
    int rc;
    if (length) {
        long long L;
        if (!parse_i64(length, &L) || L < 2) return fail(EXIT_USAGE, "--length '%s': expected an integer >= 2", length);
        if (hs_windows_from_length(L, &w, &err) != HS_OK) return fail(EXIT_USAGE, "--length: %s", err.msg);
    } else if ((rc = parse_windows(windows, &w))) {
        return rc;
    }
    double *close = NULL;
    size_t n_bars = 0, n = 0;
    if ((rc = load_series(&o, &close, &n_bars))) return rc;
    hs_trade *t = NULL;
    hs_status st = hs_trade_log(close, n_bars, &w, NULL, 0, &n, &err);
    if (st == HS_OK && !(t = malloc((n ? n : 1) * sizeof *t))) {
        snprintf(err.msg, sizeof err.msg, "out of memory for %zu trades", n);
        st = HS_ERR_NOMEM;
    }
    if (st == HS_OK) st = hs_trade_log(close, n_bars, &w, t, n, &n, &err);
    if (st == HS_OK) {
        double pnl = 0.0;
        for (size_t k = 0; k < n; k++) pnl += t[k].pnl;
        print_trades(format, t, n, &w, pnl);
    }
    free(t);
    free(close);
    return st == HS_OK ? 0 : fail(exit_code_for(st), "%s", err.msg);
}

/* Output that did not reach stdout (a full disk, a closed pipe) is an error, not exit 0 (issue 10,
 * defect 7).  Every command prints through stdio, so one check after it covers them all. */
static int stdout_checked(int rc) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    int e = errno;
    return rc ? rc : fail(EXIT_DATA, "cannot write the output to stdout: %s", e ? strerror(e) : "write error");
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "variants") == 0) return cmd_variants(argc - 2, argv + 2);
    if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 2, argv + 2);
    if (strcmp(cmd, "wire") == 0) return cmd_wire(argc - 2, argv + 2);
    if (strcmp(cmd, "serve") == 0) return hs_serve_cli(argc - 2, argv + 2);
    if (strcmp(cmd, "trades") == 0) return cmd_trades(argc - 2, argv + 2);
    fprintf(stderr, "hmasweep: unknown command '%s'\n\n%s", cmd, usage_main);
    return EXIT_USAGE;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN); /* a closed stdout pipe is then EPIPE, reported, not a silent kill */
    return stdout_checked(dispatch(argc, argv));
}
