/* The universe sweep's option parsing (hs_universe_parse, universe/args.h: `hmasweep run --inputs` and
 * `hmasweep-mpi`) on any argv: the input is the argument words separated by '\n' (at most 64), the first
 * byte's low bit says whether the MPI-only options are admitted.  Either HS_OK with n_combos windows
 * (each from a length >= 2) and --inputs set, or an error whose message names the problem; never a
 * crash, a leak, an out-of-bounds read or undefined behaviour (e.g. the grid's float->int conversions).
 * hs:fuzz-links hmasweep_universe
 * The `run`/`gen`/`trades` options of cli/main.c are not reached yet: their parsing is still mixed with
 * execution there (issue 10, fuzz_cli leftover). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "universe/args.h"

enum { MAX_WORDS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > 4096) return 0;
    int mpi = data[0] & 1;
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
    hs_universe_args a;
    hs_error err = {{0}};
    hs_status st = hs_universe_parse(argc, argv, mpi, &a, &err);
    if (st != HS_OK && err.msg[0] == '\0') abort(); /* every refusal names its reason */
    if (st == HS_OK && !a.help) {
        if (!a.inputs || !a.format) abort();
        for (size_t c = 0; c < a.n_combos; c++)
            for (int k = 0; k < 6; k++)
                if (a.windows[c].w[k] < 1) abort(); /* windows derived from a length >= 2 */
    }
    hs_universe_args_free(&a);
    free(text);
    return 0;
}
