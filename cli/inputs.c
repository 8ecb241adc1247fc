/* `hmasweep run --inputs SPEC ...`: the universe in this process (docs/universe.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "inputs_options.h"
#include "interrupt.h"

/* Messages name paths, which may hold any byte: escaped as the rows are (universe.h). */
static int complain(int code, const char *msg) {
    char buf[2048];
    hs_universe_escape(msg, buf, sizeof buf);
    fprintf(stderr, "hmasweep: %s\n", buf);
    return code;
}

static int interrupted(size_t written, size_t total) {
    char what[160];
    snprintf(what, sizeof what, "the rows of %zu of %zu symbols were written, each symbol whole", written, total);
    return cli_interrupted_exit(what);
}

static int exit_code(hs_status st) { return st == HS_ERR_USAGE || st == HS_ERR_ISA ? 2 : 1; }

int hs_universe_cli(int argc, char **argv) {
    hs_universe_args a;
    hs_error err;
    hs_status st = hs_universe_parse(argc, argv, 0, &a, &err);
    if (st == HS_OK && a.help) {
        printf("usage: hmasweep run --inputs SPEC [options]\n\nSweep every series of a universe.\n\n%s"
               "Exit status: 0 when every symbol ran, 1 when any symbol failed (its error row says why), 2 for a\n"
               "bad request, 130 when Ctrl-C (SIGINT) stopped it (the finished symbols' rows are written).\n",
               hs_universe_usage);
        return 0;
    }
    if (st != HS_OK) return hs_universe_args_free(&a), complain(2, err.msg);
    hs_universe *u = NULL;
    if ((st = hs_universe_open(a.inputs, &u, &err)) != HS_OK)
        return hs_universe_args_free(&a), complain(exit_code(st), err.msg);
    hs_universe_layout lay = hs_universe_layout_of(&a);
    cli_catch_sigint(); /* Ctrl-C: the batch in hand stops, the finished symbols' rows stay (exit 130) */
    a.sweep.struct_size = sizeof a.sweep, a.sweep.progress = cli_stop_requested;
    int rc = 0;
    FILE *out = a.output ? fopen(a.output, "w") : stdout;
    hs_universe_writer w;
    hs_universe_progress progress;
    int show = a.progress < 0 ? isatty(STDERR_FILENO) : a.progress;
    hs_universe_progress_start(&progress, show ? stderr : NULL, hs_universe_count(u));
    if (!out) rc = complain(1, "cannot open --output for writing");
    else if (hs_universe_writer_open(&w, out, stderr, &lay) != 0) rc = complain(1, "out of memory for the summary");
    else {
        st = hs_universe_run_local(u, &lay, &a.sweep, &w, &progress, &err);
        if (st != HS_OK && st != HS_ERR_CANCELLED) rc = complain(exit_code(st), err.msg);
        hs_universe_progress_end(&progress);
        if (hs_universe_writer_close(&w) != 0 && !rc) rc = complain(1, "writing the rows failed");
        if (!rc && st == HS_ERR_CANCELLED) rc = interrupted(w.symbols, hs_universe_count(u));
        if (!rc && w.failed) rc = 1;
    }
    if (out && out != stdout && fclose(out) != 0 && !rc) rc = complain(1, "closing --output failed");
    hs_universe_close(u);
    hs_universe_args_free(&a);
    return rc;
}
