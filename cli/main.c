/* hmasweep — the command line: run a sweep, list the variants, generate a series.
 * Exit status: 0 success, 2 usage error, 1 bad data (or any other failure), 130 stopped by SIGINT.  Every
 * error names the problem on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inputs_options.h"
#include "commands.h"
#include "interrupt.h" /* the SIGINT flag run, trades and run --inputs share */
#include "hmasweep.h"
#include "options.h"
#include "run_periods.h"
#include "rows.h" /* a combo's statistics as every front end writes them */
#include "wire.h"

/* The version (include/hmasweep.h) and the kernel spec's (docs/spec.md's title, via CMakeLists.txt) for --help. */
#define HS_TEXT_(x) #x
#define HS_TEXT(x) HS_TEXT_(x)
#define HS_VERSION_TEXT HS_TEXT(HS_VERSION_MAJOR) "." HS_TEXT(HS_VERSION_MINOR) "." HS_TEXT(HS_VERSION_PATCH)
#define HS_KERNEL_SPEC_TEXT HS_TEXT(HS_KERNEL_SPEC_VERSION)

static int exit_code_for(hs_status st) { return st == HS_ERR_USAGE || st == HS_ERR_ISA ? EXIT_USAGE : EXIT_DATA; }

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- help ------------------------------------------------------------------------------------------- */
static const char *const usage_main =
    "usage: hmasweep <command> [options]\n"
    "\n"
    "hmasweep " HS_VERSION_TEXT ": the HMA/HMA3 stop-and-reverse sweep (kernel spec v" HS_KERNEL_SPEC_TEXT
    ", docs/spec.md),\nas a family of variants with identical results.\n"
    "\n"
    "commands:\n"
    "  run        run a sweep (no options: the study's default run, 150,000 bars x 80 combos)\n"
    "  variants   list the registered variants, their tier and ISAs\n"
    "  gen        write a synthetic close series (f64, csv or npy)\n"
    "  wire       serve the study's wire protocol: request frames on stdin, replies on stdout\n"
    "  serve      the engine service: the wire protocol over Unix sockets, TCP or stdio (docs/engine.md)\n"
    "  trades     one combo's trade log (entry, exit, side, prices, PnL per trade)\n"
    "  report     a self-contained interactive HTML page of a sweep (runs the Python package: hmasweep.report)\n"
    "\n"
    "`hmasweep <command> --help` describes each command.\n";

static const char *const usage_run =
    "usage: hmasweep run [options]\n"
    "\n"
    "Run every combo of the grid over a close series and print trades and PnL per combo.\n"
    "\n"
    "  --variant NAME      registered variant (default best, the fastest tier 0; unchecked is the\n"
    "                      reference; see `hmasweep variants`)\n"
    "  --isa NAME          force an ISA, as `hmasweep variants` names them (default: best built and\n"
    "                      supported, or $HMASWEEP_ISA)\n"
    "  --threads N         threads for OpenMP variants, 1 to 1024 (default: $HMASWEEP_THREADS, else chosen from\n"
    "                      the work: 1 under 8,192 bars x combos; docs/library.md)\n"
    "  --seed N --bars N --vol X --start X\n"
    "                      synthetic series (default %u, %u, %g, %g)\n"
    "  --input FILE        read the close series instead: raw little-endian f64, CSV (one column or a\n"
    "                      'close' column) or 1-D float64 .npy, by extension (any case); - = stdin (f64)\n"
    "  --max-bytes N       refuse an input larger than N bytes (default 1 GiB)\n"
    HS_GRID_USAGE
    "  --format FMT        table (default), json or csv; every format carries the six statistics of\n"
    "                      docs/spec.md §8 (json/csv in full, %%.17g; the table shows win rate, profit\n"
    "                      factor and max drawdown)\n"
    "  --repeat N          run the sweep N times and report the median time\n"
    "  --periods P         also each combo's mark-to-market equity at the ends of P equal periods (json: equity,\n"
    "                      P values; csv: equity_1..equity_P) and its mark-to-market max drawdown (docs/spec.md\n"
    "                      §9; 1 <= P <= bars)\n"
    "  --validate          with --periods: each combo's Sharpe per period, Sortino, skew and kurtosis, and the\n"
    "                      grid's validation: PBO (CSCV), the deflated Sharpe ratio, a walk-forward; the table\n"
    "                      ends with a summary in words (docs/cli.md \"Periods and validation\")\n"
    "  --groups S          CSCV groups, even, 2 <= S <= P and <= %d (default %d: 12,870 splits)\n"
    "  --walk-forward TRAIN:TEST[:anchored]\n"
    "                      walk-forward lengths in periods (default rolling, TRAIN = P/2, TEST = P/8)\n"
    "  --periods-per-year N  annualise: Sharpe x sqrt(N), annual return, Calmar (e.g. 252 for daily periods)\n"
    "  --inputs SPEC       sweep a universe of series instead (`hmasweep run --inputs x --help`)\n"
    "  --help              this text\n"
    "\n"
    "Ctrl-C (SIGINT) stops the sweep within a combo: nothing is printed, a line on stderr says so, exit 130.\n";

/* usage_run and usage_trades name the synthetic series' defaults as printf fields: HS_DEFAULT_* fill them. */
static void print_usage_with_defaults(const char *text) {
    printf(text, HS_DEFAULT_SEED, HS_DEFAULT_BARS, HS_DEFAULT_VOL, HS_DEFAULT_START, HS_CSCV_MAX_GROUPS, CLI_DEFAULT_GROUPS);
}

static const char *const usage_variants =
    "usage: hmasweep variants [--format table|json]\n"
    "\n"
    "List the registry: name, tier, driver, the ISAs each variant was built for, which of those this\n"
    "CPU can run (marked *), and the ISA it would run with by default.\n";

static const char *const usage_gen =
    "usage: hmasweep gen --output FILE [--format f64|csv|npy] [--seed N --bars N --vol X --start X]\n"
    "\n"
    "Write the synthetic close series of docs/spec.md §1.  The format defaults from the file extension (.csv,\n"
    ".npy, otherwise raw little-endian f64).  --output - writes to stdout (raw f64 unless --format says\n"
    "otherwise), e.g. `hmasweep gen --output - | hmasweep run --input -`.\n";

/* ---- series --------------------------------------------------------------------------------------------- */
static int load_series(const cli_options *o, double **close, size_t *n) {
    hs_error err;
    if (o->input) {
        hs_status st = hs_read_series_limited(o->input, NULL, (size_t)o->max_bytes, close, n, &err);
        return st == HS_OK ? 0 : cli_fail(exit_code_for(st), "%s", err.msg);
    }
    if (o->bars < 1 || o->bars > 2000000000LL)
        return cli_fail(EXIT_USAGE, "--bars %lld is out of range (1 .. 2000000000)", o->bars);
    *n = (size_t)o->bars;
    *close = malloc(*n * sizeof **close);
    if (!*close) return cli_fail(EXIT_DATA, "out of memory for %zu bars", *n);
    hs_status st = hs_make_close(o->seed, *n, o->vol, o->start, *close, &err);
    if (st != HS_OK) {
        free(*close);
        return cli_fail(exit_code_for(st), "%s", err.msg);
    }
    return 0;
}

static int is_default_data(const cli_options *o) {
    return !o->input && o->seed == HS_DEFAULT_SEED && o->bars == HS_DEFAULT_BARS && o->vol == HS_DEFAULT_VOL &&
           o->start == HS_DEFAULT_START;
}

/* ---- output ------------------------------------------------------------------------------------------ */
typedef struct {
    const char *variant; /* as asked: a name or an alias (best) */
    const char *ran;     /* the registry variant that ran */
    const char *isa;
    int threads;
    size_t bars, n_combos;
    const int64_t *lengths;      /* per combo: L (1-D grid) or the HMA length Lh (2-D grid)        */
    const int64_t *hma3_lengths; /* per combo: the HMA3 length L3 of the 2-D grid; NULL for the 1-D grid */
    const hs_windows *windows;
    const hs_result *results;
    const hs_stats *stats;
    double fee;
    double seconds, process_seconds;
    int default_data;
    char sha[65];
    const cli_periods *periods; /* --periods/--validate (docs/spec.md §9): level HS_ROWS_NONE without */
} run_report;

/* "variant" is the one that ran (an alias such as best resolved, as the report gives it), "requested"
 * what --variant said; "isa" and "threads" are what ran. */
static void print_json(const run_report *r) {
    printf("{\"variant\": \"%s\", \"requested\": \"%s\", \"isa\": \"%s\", \"threads\": %d, \"bars\": %zu, "
           "\"series_sha256\": \"%s\", \"fee\": %.17g, \"seconds\": %.9g, \"combos\": [",
           r->ran, r->variant, r->isa, r->threads, r->bars, r->sha, r->fee, r->seconds);
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        long long lh = (long long)r->lengths[c], l3 = r->hma3_lengths ? (long long)r->hma3_lengths[c] : lh;
        printf("%s\n  {", c ? "," : "");
        if (!r->hma3_lengths) printf("\"length\": %lld, ", lh);
        printf("\"hma_length\": %lld, \"hma3_length\": %lld, \"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], "
               "\"trades\": %lld, \"pnl\": ",
               lh, l3, (long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3], (long long)w[4],
               (long long)w[5], (long long)r->results[c].trades);
        hs_rows_put_number(stdout, r->results[c].pnl, 1);
        hs_rows_put_stats(stdout, &r->stats[c], 1);
        cli_periods_json_combo(r->periods, c);
        printf("}");
    }
    printf("\n]");
    cli_periods_json_run(r->periods);
    printf("}\n");
}

static void print_csv(const run_report *r) {
    printf(r->hma3_lengths ? "combo,hma_length,hma3_length," : "combo,length,");
    printf("w0,w1,w2,w3,w4,w5,trades,pnl" HS_ROWS_STATS_CSV_COLUMNS);
    cli_periods_csv_columns(r->periods);
    putchar('\n');
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        printf("%zu,%lld,", c, (long long)r->lengths[c]);
        if (r->hma3_lengths) printf("%lld,", (long long)r->hma3_lengths[c]);
        printf("%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.17g", (long long)w[0], (long long)w[1], (long long)w[2],
               (long long)w[3], (long long)w[4], (long long)w[5], (long long)r->results[c].trades, r->results[c].pnl);
        hs_rows_put_stats(stdout, &r->stats[c], 0);
        cli_periods_csv_combo(r->periods, c);
        putchar('\n');
    }
}

static void print_table(const run_report *r) {
    const char *target = hs_variant_alias(r->variant, NULL);
    char shown[96];
    snprintf(shown, sizeof shown, target ? "%s = %s" : "%s", r->variant, target);
    printf("hmasweep run: variant %s (isa %s, %d thread%s), %zu bars, %zu combos, fee %g\n", shown, r->isa,
           r->threads, r->threads == 1 ? "" : "s", r->bars, r->n_combos, r->fee);
    printf("%5s %6s ", "combo", r->hma3_lengths ? "Lh" : "L");
    if (r->hma3_lengths) printf("%6s ", "L3");
    const cli_periods *p = r->periods;
    printf("%6s %6s %4s %5s %5s %6s %9s %18s %7s %7s %12s", "w0", "w1", "w2", "w3", "w4", "w5", "trades", "pnl",
           "win%", "pf", "dd_closed");
    if (p->level >= HS_ROWS_PERIODS) printf(" %12s", "dd_mtm");
    if (p->level >= HS_ROWS_VALIDATE) printf(" %14s", "sharpe/period");
    if (p->level >= HS_ROWS_ANNUAL) printf(" %12s", "sharpe/year");
    putchar('\n');
    long long total = 0;
    for (size_t c = 0; c < r->n_combos; c++) {
        const int64_t *w = r->windows[c].w;
        hs_derived d;
        hs_stats_derive(&r->results[c], &r->stats[c], r->bars, &d);
        printf("%5zu %6lld ", c, (long long)r->lengths[c]);
        if (r->hma3_lengths) printf("%6lld ", (long long)r->hma3_lengths[c]);
        printf("%6lld %6lld %4lld %5lld %5lld %6lld %9lld %18.9f %7.2f %7.3f %12.4f", (long long)w[0], (long long)w[1],
               (long long)w[2], (long long)w[3], (long long)w[4], (long long)w[5], (long long)r->results[c].trades,
               r->results[c].pnl, 100.0 * d.win_rate, d.profit_factor, r->stats[c].max_drawdown);
        if (p->level >= HS_ROWS_PERIODS) printf(" %12.4f", p->rows[c].mtm_max_drawdown);
        if (p->level >= HS_ROWS_VALIDATE) printf(" %14.4f", p->rows[c].period_sharpe);
        if (p->level >= HS_ROWS_ANNUAL) printf(" %12.4f", p->rows[c].annualised_sharpe);
        putchar('\n');
        total += r->results[c].trades;
    }
    if (r->n_combos) {
        const hs_result *f = &r->results[0];
        int diagonal = !r->hma3_lengths || r->hma3_lengths[0] == r->lengths[0];
        if (diagonal) printf("fingerprint: combo 0 (L=%lld): ", (long long)r->lengths[0]);
        else printf("fingerprint: combo 0 (Lh=%lld, L3=%lld): ", (long long)r->lengths[0], (long long)r->hma3_lengths[0]);
        printf("%lld trades, PnL %.2f", (long long)f->trades, f->pnl);
        if (r->default_data && r->lengths[0] == HS_DEFAULT_GRID_LO && diagonal && r->fee == HS_DEFAULT_FEE) {
            int match = f->trades == HS_STUDY_TRADES && fabs(f->pnl - HS_STUDY_PNL) < 0.005;
            printf(" — study: %d trades, %.2f: %s", HS_STUDY_TRADES, HS_STUDY_PNL, match ? "MATCH" : "MISMATCH");
        }
        printf("\n");
    }
    printf("total trades: %lld over %zu combos; series sha256 %s\n", total, r->n_combos, r->sha);
    cli_periods_table_summary(p, r->lengths, r->hma3_lengths);
    printf("wall time: sweep %.3f s, whole process %.3f s\n", r->seconds, r->process_seconds);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- commands ------------------------------------------------------------------------------------------ */
/* --inputs makes `run` a universe sweep: many series, one row per (symbol, combo). */
static int names_inputs(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--inputs") || !strncmp(argv[i], "--inputs=", 9)) return 1;
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
    cli_options o = cli_default_options();
    int help = 0, rc = cli_parse_run(argc, argv, &o, &help);
    if (rc) return rc;
    if (help) {
        print_usage_with_defaults(usage_run);
        return 0;
    }
    cli_catch_sigint();
    const char *variant = o.variant ? o.variant : HS_DEFAULT_VARIANT;
    if (!hs_cli_variant_known(variant))
        return cli_fail(EXIT_USAGE, "unknown variant '%s' (see `hmasweep variants`)", variant);

    hs_combo_grid g;
    if ((rc = cli_make_grid(&o, &g))) return rc;
    int64_t *lengths = g.lengths;
    size_t n_combos = g.n_combos;
    hs_windows *windows = g.windows;

    double *close = NULL;
    size_t n_bars = 0;
    if ((rc = load_series(&o, &close, &n_bars))) {
        hs_combo_grid_free(&g);
        return rc;
    }
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    cli_periods periods;
    if ((rc = cli_periods_prepare(&periods, &o, n_bars, n_combos, &opt))) {
        cli_periods_free(&periods);
        free(close);
        hs_combo_grid_free(&g);
        return rc;
    }
    hs_result *results = malloc(n_combos * sizeof *results);
    hs_stats *stats = malloc((n_combos ? n_combos : 1) * sizeof *stats);
    double *times = malloc((size_t)o.repeat * sizeof *times);
    hs_error err = {{0}};
    hs_status st = results && stats && times ? HS_OK : HS_ERR_NOMEM;
    if (st != HS_OK) snprintf(err.msg, sizeof err.msg, "out of memory for %zu combos", n_combos);

    hs_sweep_report ran = {0};
    opt.variant = variant, opt.isa = o.isa, opt.threads = (int)o.threads, opt.report = &ran;
    opt.stats = stats, opt.fee = o.kernel.fee, opt.has_fee = o.kernel.has_fee;
    opt.progress = cli_stop_requested; /* Ctrl-C: the sweep stops within a combo (cli_catch_sigint) */
    for (long long k = 0; st == HS_OK && k < o.repeat; k++) {
        double t0 = now_seconds();
        st = hs_sweep(close, n_bars, windows, n_combos, results, &opt, &err);
        times[k] = now_seconds() - t0;
    }
    int periods_rc = st == HS_OK ? cli_periods_finish(&periods, &o) : 0;
    if (st == HS_OK && !periods_rc) {
        qsort(times, (size_t)o.repeat, sizeof *times, cmp_double);
        run_report r = {variant, ran.variant, ran.isa, ran.threads, n_bars, n_combos, lengths, g.hma3_lengths,
                        windows, results,     stats,   o.kernel.fee, times[o.repeat / 2], 0, is_default_data(&o), {0},
                        &periods};
        hs_series_sha256(close, n_bars, r.sha);
        r.process_seconds = now_seconds() - t_process;
        if (strcmp(o.format, "json") == 0) print_json(&r);
        else if (strcmp(o.format, "csv") == 0) print_csv(&r);
        else print_table(&r);
    }
    free(times);
    free(results);
    free(stats);
    free(close);
    hs_combo_grid_free(&g);
    cli_periods_free(&periods);
    if (periods_rc) return periods_rc;
    if (st == HS_ERR_CANCELLED) return cli_interrupted_exit("the sweep stopped before its end; nothing was printed");
    return st == HS_OK ? 0 : cli_fail(exit_code_for(st), "%s", err.msg);
}

static int cmd_variants(int argc, char **argv) {
    cli_options o = cli_default_options();
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_variants, stdout);
            return 0;
        }
        if ((rc = cli_parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (!handled || o.output) return cli_fail(EXIT_USAGE, "variants: unknown option '%s'", argv[i]);
    }
    int json = o.format && strcmp(o.format, "json") == 0;
    if (o.format && !json && strcmp(o.format, "table"))
        return cli_fail(EXIT_USAGE, "--format '%s': expected table or json", o.format);
    size_t n = hs_variant_count();
    if (json) printf("[");
    else printf("%-14s %-4s %-7s %-28s %-8s %s\n", "variant", "tier", "driver", "isas (* = this CPU runs it)", "default", "summary");
    for (size_t k = 0, listed = 0; k < n; k++) {
        hs_variant_info v;
        hs_error err;
        /* the default ISA is hs_sweep's own choice (HMASWEEP_ISA included): a bad setting fails here as in run */
        if (hs_variant_describe_sized(k, &v, sizeof v, &err) != HS_OK) return cli_fail(EXIT_USAGE, "%s", err.msg);
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
    "Serve docs/spec.md §6 frames until EOF: [u32 body_len][u8 opcode][u32 n_bars][u32 n_combos][f64 close...]\n"
    "[6 x i64 windows per combo]; opcode 0 sweeps (reply: n_combos f64 PnL then n_combos i64 trades),\n"
    "opcode 1 echoes the close array; docs/protocol.md has the other opcodes (HELLO, LOAD, ...).  A bad\n"
    "frame gets an error reply (bit 31 of its length set) and a line on stderr, and the next frame is served;\n"
    "a truncated frame ends the stream.  Exit 1 when any frame failed.\n";

static int cmd_wire(int argc, char **argv) {
    cli_options o = cli_default_options();
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_wire, stdout);
            return 0;
        }
        if ((rc = cli_parse_kernel_choice(argc, argv, &i, &o, &handled))) return rc;
        if (!handled) return cli_fail(EXIT_USAGE, "wire: unknown option '%s' (see `hmasweep wire --help`)", argv[i]);
    }
    if (o.variant && !hs_cli_variant_known(o.variant))
        return cli_fail(EXIT_USAGE, "unknown variant '%s' (see `hmasweep variants`)", o.variant);
    hs_sweep_options opt = {.variant = o.variant, .isa = o.isa, .threads = (int)o.threads};
    hs_error err;
    return hs_wire_serve(&opt, &err) ? cli_fail(EXIT_DATA, "%s", err.msg) : 0;
}

static int cmd_gen(int argc, char **argv) {
    cli_options o = cli_default_options();
    for (int i = 0; i < argc; i++) {
        int handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_gen, stdout);
            return 0;
        }
        if ((rc = cli_parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (!handled) return cli_fail(EXIT_USAGE, "gen: unknown option '%s' (see `hmasweep gen --help`)", argv[i]);
    }
    if (!o.output) return cli_fail(EXIT_USAGE, "gen: --output FILE is required");
    const char *format = o.format ? o.format : hs_series_format(o.output);
    if (strcmp(format, "f64") && strcmp(format, "csv") && strcmp(format, "npy"))
        return cli_fail(EXIT_USAGE, "--format '%s': expected f64, csv or npy", format);
    double *close = NULL;
    size_t n = 0;
    int rc = load_series(&o, &close, &n);
    if (rc) return rc;
    hs_error err;
    hs_status st = hs_write_series(o.output, format, close, n, &err);
    free(close);
    return st == HS_OK ? 0 : cli_fail(exit_code_for(st), "%s", err.msg);
}

static const char *const usage_trades =
    "usage: hmasweep trades (--length L | --windows W0,W1,W2,W3,W4,W5) [options]\n"
    "\n"
    "One combo's trade log (hs_trade_log): every closed trade with its entry and exit bar, side, prices\n"
    "and PnL (percentage points, after the fee).  The PnLs summed in order are `run`'s PnL for the combo.\n"
    "\n"
    "  --length L          the combo of length L (L >= 2)\n"
    "  --windows A,...,F   six explicit windows instead (wire order, each >= 1)\n"
    "  --seed N --bars N --vol X --start X   synthetic series (default %u, %u, %g, %g)\n"
    "  --input FILE        read the close series instead (as `run`); a CSV with a date column (named date,\n"
    "                      time, datetime or timestamp) adds entry_date and exit_date to every trade\n"
    "  --fee X             round-trip cost as a fraction, 0 <= X < 1 (default 0.0009; as `run`)\n"
    "  --format FMT        table (default), csv or json\n"
    "\n"
    "Ctrl-C (SIGINT) stops it: nothing is printed, a line on stderr says so, exit 130.\n";

/* Parse exactly six comma-separated windows, each >= 1. */
static int parse_windows(const char *spec, hs_windows *w) {
    const char *p = spec;
    for (int k = 0; k < 6; k++) {
        char field[32];
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        long long v;
        if ((k < 5 && !comma) || (k == 5 && comma) || len >= sizeof field)
            return cli_fail(EXIT_USAGE, "--windows '%s': expected six comma-separated integers", spec);
        memcpy(field, p, len);
        field[len] = '\0';
        if (!cli_parse_i64(field, &v) || v < 1)
            return cli_fail(EXIT_USAGE, "--windows '%s': '%s' is not a window >= 1", spec, field);
        w->w[k] = v;
        p = comma ? comma + 1 : p + len;
    }
    return 0;
}

/* ---- the dates of a CSV input (hs_read_series_dates), printed beside the bars ---- */
/* date[i] points at bar i's label in the block (NULL block: no dates). */
static const char **date_index(char *block, size_t n_bars) {
    if (!block) return NULL;
    const char **date = malloc((n_bars ? n_bars : 1) * sizeof *date);
    for (size_t i = 0; date && i < n_bars; i++) date[i] = block, block += strlen(block) + 1;
    return date;
}

/* A label as a CSV field: quoted (quotes doubled) when it holds a quote, comma or space. */
static void put_csv_label(const char *s) {
    if (!strpbrk(s, "\",  ")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* A label as a JSON string: quote, backslash and control bytes escaped. */
static void put_json_label(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void print_trades_csv(const hs_trade *t, size_t n, const char **date) {
    printf("trade,entry_bar,exit_bar,side,entry_price,exit_price,pnl%s\n", date ? ",entry_date,exit_date" : "");
    for (size_t k = 0; k < n; k++) {
        printf("%zu,%lld,%lld,%d,%.17g,%.17g,%.17g", k, (long long)t[k].entry_bar, (long long)t[k].exit_bar, t[k].side,
               t[k].entry_price, t[k].exit_price, t[k].pnl);
        if (date) {
            putchar(',');
            put_csv_label(date[t[k].entry_bar]);
            putchar(',');
            put_csv_label(date[t[k].exit_bar]);
        }
        putchar('\n');
    }
}

static void print_trades(const char *format, const hs_trade *t, size_t n, const hs_windows *w, double pnl,
                         const char **date) {
    if (strcmp(format, "csv") == 0) {
        print_trades_csv(t, n, date);
        return;
    }
    if (strcmp(format, "json") == 0) {
        printf("{\"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %zu, \"pnl\": %.17g, \"log\": [",
               (long long)w->w[0], (long long)w->w[1], (long long)w->w[2], (long long)w->w[3], (long long)w->w[4],
               (long long)w->w[5], n, pnl);
        for (size_t k = 0; k < n; k++) {
            printf("%s\n  {\"entry_bar\": %lld, \"exit_bar\": %lld, \"side\": %d, \"entry_price\": %.17g, "
                   "\"exit_price\": %.17g, \"pnl\": %.17g",
                   k ? "," : "", (long long)t[k].entry_bar, (long long)t[k].exit_bar, t[k].side, t[k].entry_price,
                   t[k].exit_price, t[k].pnl);
            if (date) {
                fputs(", \"entry_date\": ", stdout);
                put_json_label(date[t[k].entry_bar]);
                fputs(", \"exit_date\": ", stdout);
                put_json_label(date[t[k].exit_bar]);
            }
            putchar('}');
        }
        printf("\n]}\n");
        return;
    }
    printf("%7s %9s %9s %5s %18s %18s %14s%s\n", "trade", "entry", "exit", "side", "entry_price", "exit_price", "pnl",
           date ? "  entry_date  exit_date" : "");
    for (size_t k = 0; k < n; k++) {
        printf("%7zu %9lld %9lld %5s %18.9f %18.9f %14.9f", k, (long long)t[k].entry_bar, (long long)t[k].exit_bar,
               t[k].side > 0 ? "long" : "short", t[k].entry_price, t[k].exit_price, t[k].pnl);
        if (date) printf("  %s  %s", date[t[k].entry_bar], date[t[k].exit_bar]);
        putchar('\n');
    }
    printf("%zu trades, PnL %.9f (windows %lld,%lld,%lld,%lld,%lld,%lld)\n", n, pnl, (long long)w->w[0],
           (long long)w->w[1], (long long)w->w[2], (long long)w->w[3], (long long)w->w[4], (long long)w->w[5]);
}

static int cmd_trades(int argc, char **argv) {
    cli_options o = cli_default_options();
    const char *length = NULL, *windows = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int missing = 0, handled, rc;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage_with_defaults(usage_trades);
            return 0;
        }
        if ((rc = cli_parse_common(argc, argv, &i, &o, &handled))) return rc;
        if (handled) continue;
        if (!strncmp(argv[i], "--fee", 5) && cli_parse_grid_option(argc, argv, &i, &o, &rc)) { /* --fee only */
            if (rc) return rc;
        } else if (cli_option_value(argc, argv, &i, "--input", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--input needs a file name");
            o.input = v;
        } else if (cli_option_value(argc, argv, &i, "--length", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--length needs an integer >= 2");
            length = v;
        } else if (cli_option_value(argc, argv, &i, "--windows", &v, &missing)) {
            if (missing) return cli_fail(EXIT_USAGE, "--windows needs six integers");
            windows = v;
        } else {
            return cli_fail(EXIT_USAGE, "trades: unknown option '%s' (see `hmasweep trades --help`)", argv[i]);
        }
    }
    const char *format = o.format ? o.format : "table";
    if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv"))
        return cli_fail(EXIT_USAGE, "--format '%s': expected table, csv or json", format);
    if (!length == !windows) return cli_fail(EXIT_USAGE, "trades: give one of --length L or --windows W0,...,W5");
    if (o.output) return cli_fail(EXIT_USAGE, "trades: --output is for `gen`; redirect stdout instead");
    if (o.input && (o.seed != HS_DEFAULT_SEED || o.bars != HS_DEFAULT_BARS))
        return cli_fail(EXIT_USAGE, "--input replaces the synthetic series; --seed/--bars do not apply");
    hs_windows w;
    hs_error err;
    int rc;
    if (length) {
        long long L;
        if (!cli_parse_i64(length, &L) || L < 2) return cli_fail(EXIT_USAGE, "--length '%s': expected an integer >= 2", length);
        if (hs_windows_from_length(L, &w, &err) != HS_OK) return cli_fail(EXIT_USAGE, "--length: %s", err.msg);
    } else if ((rc = parse_windows(windows, &w))) {
        return rc;
    }
    double *close = NULL;
    char *dates = NULL; /* a CSV input's date column, when it has one (hs_read_series_dates) */
    size_t n_bars = 0, n = 0;
    if (o.input) {
        hs_status read = hs_read_series_dates(o.input, NULL, (size_t)o.max_bytes, &close, &n_bars, &dates, &err);
        if (read != HS_OK) return cli_fail(exit_code_for(read), "%s", err.msg);
    } else if ((rc = load_series(&o, &close, &n_bars))) {
        return rc;
    }
    const char **date = date_index(dates, n_bars);
    hs_trade *t = NULL;
    cli_catch_sigint();
    hs_sweep_options fee = HS_SWEEP_OPTIONS_INIT;
    fee.fee = o.kernel.fee, fee.has_fee = o.kernel.has_fee;
    fee.progress = cli_stop_requested; /* Ctrl-C: the log stops within 4,096 rows (cli_catch_sigint) */
    hs_status st = hs_trade_log_opt(close, n_bars, &w, NULL, 0, &n, &fee, &err);
    if (st == HS_OK && !(t = malloc((n ? n : 1) * sizeof *t))) {
        snprintf(err.msg, sizeof err.msg, "out of memory for %zu trades", n);
        st = HS_ERR_NOMEM;
    }
    if (st == HS_OK) st = hs_trade_log_opt(close, n_bars, &w, t, n, &n, &fee, &err);
    if (st == HS_OK) {
        double pnl = 0.0;
        for (size_t k = 0; k < n; k++) pnl += t[k].pnl;
        print_trades(format, t, n, &w, pnl, date);
    }
    free(t);
    free(close);
    free(date);
    free(dates);
    if (st == HS_ERR_CANCELLED) return cli_interrupted_exit("the trade log stopped before its end; nothing was printed");
    return st == HS_OK ? 0 : cli_fail(exit_code_for(st), "%s", err.msg);
}

/* The reader of our stdout went away (`hmasweep run | head`): end as Unix tools do, silently and by
 * SIGPIPE (status 141 in a shell), which a pipeline expects; other write errors (a full disk) are
 * reported below.  SIGPIPE is ignored in main so that this is the one place it ends the process. */
static void quit_on_closed_pipe(void) {
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
    _exit(128 + SIGPIPE); /* where SIGPIPE cannot kill (blocked by the parent): the same status, quietly */
}

/* Output that did not reach stdout (a full disk, a closed pipe) is an error, not exit 0 (issue 10,
 * defect 7).  Every command prints through stdio, so one check after it covers them all. */
static int stdout_checked(int rc) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    int e = errno;
    if (e == EPIPE) quit_on_closed_pipe();
    return rc ? rc : cli_fail(EXIT_DATA, "cannot write the output to stdout: %s", e ? strerror(e) : "write error");
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
    if (strcmp(cmd, "report") == 0) return hs_report_cli(argc - 2, argv + 2);
    fprintf(stderr, "hmasweep: unknown command '%s'\n\n%s", cmd, usage_main);
    return EXIT_USAGE;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is then EPIPE: stdout's ends quietly (stdout_checked), a
                                 socket's is an error the server reports */
    return stdout_checked(dispatch(argc, argv));
}
