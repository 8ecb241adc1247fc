/* `hmasweep run --inputs SPEC ...`: the universe in this process (docs/universe.md). */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"

int hs_universe_cli(int argc, char **argv);

static int complain(int code, const char *msg) {
    fprintf(stderr, "hmasweep: %s\n", msg);
    return code;
}

int hs_universe_cli(int argc, char **argv) {
    hs_universe_args a;
    hs_error err;
    hs_status st = hs_universe_parse(argc, argv, 0, &a, &err);
    if (st == HS_OK && a.help) {
        printf("usage: hmasweep run --inputs SPEC [options]\n\nSweep every series of a universe.\n\n%s"
               "Exit status: 0 when every symbol ran, 1 when any symbol failed (its error row says why), 2 for a\n"
               "bad request.\n",
               hs_universe_usage);
        return 0;
    }
    if (st != HS_OK) return hs_universe_args_free(&a), complain(2, err.msg);
    hs_universe_entry *entries = NULL;
    size_t n = 0;
    if ((st = hs_universe_list(a.inputs, &entries, &n, &err)) != HS_OK)
        return hs_universe_args_free(&a), complain(st == HS_ERR_USAGE ? 2 : 1, err.msg);
    hs_symbol_result *results = calloc(n, sizeof *results);
    hs_universe_layout lay = {a.format, a.lengths, a.windows, a.n_combos};
    int rc = 0;
    if (!results) rc = complain(1, "out of memory for the results");
    else if ((st = hs_universe_run_local(entries, n, &lay, &a.sweep, results, &err)) != HS_OK)
        rc = complain(st == HS_ERR_USAGE || st == HS_ERR_ISA ? 2 : 1, err.msg);
    FILE *out = rc || !a.output ? stdout : fopen(a.output, "w");
    if (!rc && !out) rc = complain(1, "cannot open --output for writing");
    if (!rc && hs_universe_write(out, stderr, &lay, entries, results, n) != 0) rc = complain(1, "writing the rows failed");
    if (!rc && hs_universe_failed(results, n)) rc = 1;
    if (out && out != stdout && fclose(out) != 0 && !rc) rc = complain(1, "closing --output failed");
    hs_universe_free(results, n);
    free(entries);
    hs_universe_args_free(&a);
    return rc;
}
