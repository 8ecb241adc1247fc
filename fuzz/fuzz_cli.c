/* The CLI's option parsing on any argv: the input is the argument words separated by '\n' (at most 64).
 * The first byte chooses the parser: bit 1 set, `hmasweep run`'s (cli_parse_run, cli/options.h, then the
 * grid, 1-D or 2-D, as cmd_run makes it: cli_make_grid); clear, the universe sweep's (hs_universe_parse,
 * cli/inputs_options.h: `run --inputs` and `hmasweep-mpi`, bit 0 admitting the MPI-only options).  Either
 * success with checked values, or a refusal that names the problem; never a crash, a leak, an
 * out-of-bounds read or undefined behaviour (e.g. the grid's float->int conversions).
 * (hmasweep_cli_options carries cli/options.c, hmasweep_universe cli/inputs_options.c and grid_args.c.)
 * hs:fuzz-links hmasweep_universe hmasweep_cli_options
 * Not reached: `gen`/`trades`/`variants`/`wire` option loops, still inline in cli/main.c (they share
 * cli_parse_common/cli_parse_kernel_choice, which `run` reaches). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/inputs_options.h"

enum { MAX_WORDS = 64 };

/* `run`: a parse that succeeds leaves a known format and a grid or length list that parses (or is refused). */
static void fuzz_run(int argc, char **argv) {
    cli_options o = cli_default_options();
    int help = 0;
    if (cli_parse_run(argc, argv, &o, &help) != 0 || help) return;
    if (strcmp(o.format, "table") && strcmp(o.format, "json") && strcmp(o.format, "csv")) abort();
    hs_combo_grid g;
    int rc = cli_make_grid(&o, &g);
    if (rc == 0 && (g.n_combos == 0 || !g.lengths || !g.windows || (o.kernel.hma_lengths && !g.hma3_lengths))) abort();
    hs_combo_grid_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > 4096) return 0;
    int mpi = data[0] & 1, run = data[0] & 2;
    char *text = malloc(size); /* the words, NUL-terminated in place */
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_WORDS + 1];
    int argc = 0;
    for (char *w = text; argc < MAX_WORDS;) {
        argv[argc++] = w;
        char *nl = memchr(w, '\n', (size_t)(text + size - 1 - w));
        if (!nl) break;
        *nl = '\0';
        w = nl + 1;
    }
    argv[argc] = NULL;
    if (run) {
        fuzz_run(argc, argv);
        free(text);
        return 0;
    }
    hs_universe_args a;
    hs_error err = {{0}};
    hs_status st = hs_universe_parse(argc, argv, mpi, &a, &err);
    if (st != HS_OK && err.msg[0] == '\0') abort(); /* every refusal names its reason */
    if (st == HS_OK && !a.help) {
        if (!a.inputs || !a.format) abort();
        for (size_t c = 0; c < a.grid.n_combos; c++)
            for (int k = 0; k < 6; k++)
                if (a.grid.windows[c].w[k] < 1) abort(); /* windows derived from a length >= 2 */
    }
    hs_universe_args_free(&a);
    free(text);
    return 0;
}
