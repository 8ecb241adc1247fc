/* The kernel's options: the grid, the fee and the kernel's choice (grid_args.h). */
#define _POSIX_C_SOURCE 200809L
#include "grid_args.h"

#include <stdlib.h>
#include <string.h>

#include "rows.h" /* hs_rows_usage */

int hs_arg_value(int argc, char **argv, int *i, const char *name, const char **value, int *missing) {
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0 || (argv[*i][len] != '\0' && argv[*i][len] != '=')) return 0;
    if (argv[*i][len] == '=') *value = argv[*i] + len + 1;
    else if (*i + 1 < argc) *value = argv[++*i];
    else *missing = 1;
    return 1;
}

/* --fee X: one number, checked by the library (hs_check_fee). */
static hs_status parse_fee(const char *v, int missing, hs_grid_options *g, hs_error *err) {
    double fee = 0.0;
    hs_error why;
    if (missing || hs_parse_f64(v, &fee, &why) != HS_OK)
        return hs_rows_usage(err, "--fee needs a number (the round-trip cost as a fraction, 0 <= fee < 1): %s",
                             missing ? "''" : why.msg);
    if (hs_check_fee(fee, &why) != HS_OK) return hs_rows_usage(err, "--fee '%s': %s", v, why.msg);
    g->fee = fee, g->has_fee = 1;
    return HS_OK;
}

int hs_grid_option(int argc, char **argv, int *i, hs_grid_options *g, hs_status *st, hs_error *err) {
    const struct {
        const char *name, *needs;
        const char **text; /* where the value goes */
    } texts[] = {
        {"--grid", "LO:HI:COUNT", &g->grid},
        {"--lengths", "A,B,...", &g->lengths},
        {"--hma-lengths", "A,B,... or LO:HI:COUNT", &g->hma_lengths},
        {"--hma3-lengths", "A,B,... or LO:HI:COUNT", &g->hma3_lengths},
    };
    const char *v = NULL;
    int missing = 0;
    *st = HS_OK;
    if (hs_arg_value(argc, argv, i, "--fee", &v, &missing)) {
        *st = parse_fee(v, missing, g, err);
        return 1;
    }
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        if (!hs_arg_value(argc, argv, i, texts[k].name, &v, &missing)) continue;
        if (missing) *st = hs_rows_usage(err, "%s needs %s", texts[k].name, texts[k].needs);
        else *texts[k].text = v;
        return 1;
    }
    return 0;
}

int hs_kernel_choice_option(int argc, char **argv, int *i, hs_kernel_choice *k, hs_status *st, hs_error *err) {
    const char *v = NULL;
    int missing = 0;
    *st = HS_OK;
    if (hs_arg_value(argc, argv, i, "--variant", &v, &missing)) {
        if (missing) *st = hs_rows_usage(err, "--variant needs a name");
        else k->variant = v;
    } else if (hs_arg_value(argc, argv, i, "--isa", &v, &missing)) {
        if (missing) *st = hs_rows_usage(err, "--isa needs a name");
        else k->isa = v;
    } else if (hs_arg_value(argc, argv, i, "--threads", &v, &missing)) {
        int64_t n = 0;
        hs_error why;
        /* the library's own limit (HS_THREADS_MAX), so the CLI refuses what hs_sweep would */
        if (missing || hs_parse_i64(v, &n, &why) != HS_OK || n < 1 || n > HS_THREADS_MAX)
            *st = hs_rows_usage(err, "--threads '%s': expected an integer between 1 and %d", missing ? "" : v,
                                HS_THREADS_MAX);
        else k->threads = (int)n;
    } else {
        return 0;
    }
    return 1;
}

hs_status hs_grid_check(const hs_grid_options *g, hs_error *err) {
    if (g->grid && g->lengths) return hs_rows_usage(err, "--grid and --lengths are alternatives; give one");
    if (!g->hma_lengths != !g->hma3_lengths)
        return hs_rows_usage(err, "%s needs %s too: the 2-D grid sweeps every (HMA length, HMA3 length) pair",
                             g->hma_lengths ? "--hma-lengths" : "--hma3-lengths",
                             g->hma_lengths ? "--hma3-lengths" : "--hma-lengths");
    if (g->hma_lengths && (g->grid || g->lengths))
        return hs_rows_usage(err, "--hma-lengths/--hma3-lengths (the 2-D grid) replace %s; give one grid",
                             g->grid ? "--grid" : "--lengths");
    return HS_OK;
}

/* The library's parser (hs_parse_combo_lengths) names the text by its kind ("lengths: ...", "grid '...':
 * ..."); the option takes that word's place: "--lengths: ...", "--grid '6:5': ...", "--hma-lengths '6:5': ...". */
static hs_status name_option(hs_status st, const hs_error *why, const char *name, hs_error *err) {
    if (st == HS_ERR_USAGE) return hs_rows_usage(err, "%s%s", name, why->msg + strcspn(why->msg, " :"));
    if (st != HS_OK) *err = *why;
    return st;
}

hs_status hs_grid_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n, hs_error *err) {
    hs_error why;
    hs_status st = hs_parse_combo_lengths(lengths, grid, out, n, &why);
    return name_option(st, &why, lengths ? "--lengths" : "--grid", err);
}

/* One axis of the 2-D grid: "A,B,..." (as --lengths) or "LO:HI:COUNT" (as --grid). */
static hs_status parse_axis(const char *name, const char *spec, int64_t **out, size_t *n, hs_error *err) {
    if (!*spec) return hs_rows_usage(err, "%s is empty (expected A,B,... or LO:HI:COUNT)", name);
    hs_error why;
    int range = strchr(spec, ':') != NULL;
    hs_status st = hs_parse_combo_lengths(range ? NULL : spec, range ? spec : NULL, out, n, &why);
    return name_option(st, &why, name, err);
}

static hs_status out_of_memory(hs_error *err, size_t n) {
    snprintf(err->msg, sizeof err->msg, "out of memory for %zu combos", n);
    return HS_ERR_NOMEM;
}

static hs_status make_2d(const hs_grid_options *g, hs_combo_grid *out, hs_error *err) {
    int64_t *hma = NULL, *hma3 = NULL;
    size_t n_hma = 0, n_hma3 = 0;
    hs_status st = parse_axis("--hma-lengths", g->hma_lengths, &hma, &n_hma, err);
    if (st == HS_OK) st = parse_axis("--hma3-lengths", g->hma3_lengths, &hma3, &n_hma3, err);
    if (st == HS_OK && n_hma > HS_GRID_2D_MAX_COMBOS / n_hma3)
        st = hs_rows_usage(err, "the 2-D grid has %zu x %zu combos, more than %d", n_hma, n_hma3, HS_GRID_2D_MAX_COMBOS);
    size_t n = st == HS_OK ? n_hma * n_hma3 : 0;
    if (st == HS_OK && (!(out->lengths = malloc(n * sizeof *out->lengths)) ||
                        !(out->hma3_lengths = malloc(n * sizeof *out->hma3_lengths)) ||
                        !(out->windows = malloc(n * sizeof *out->windows))))
        st = out_of_memory(err, n);
    if (st == HS_OK) st = hs_grid_2d(hma, n_hma, hma3, n_hma3, out->windows, err);
    for (size_t c = 0; st == HS_OK && c < n; c++) out->lengths[c] = hma[c / n_hma3], out->hma3_lengths[c] = hma3[c % n_hma3];
    out->n_combos = n;
    free(hma);
    free(hma3);
    return st;
}

static hs_status make_1d(const hs_grid_options *g, hs_combo_grid *out, hs_error *err) {
    hs_status st = hs_grid_lengths(g->lengths, g->grid, &out->lengths, &out->n_combos, err);
    if (st == HS_OK && !(out->windows = malloc((out->n_combos ? out->n_combos : 1) * sizeof *out->windows)))
        st = out_of_memory(err, out->n_combos);
    for (size_t c = 0; st == HS_OK && c < out->n_combos; c++)
        st = hs_windows_from_length(out->lengths[c], &out->windows[c], err);
    return st;
}

hs_status hs_grid_make(const hs_grid_options *g, hs_combo_grid *out, hs_error *err) {
    *out = (hs_combo_grid){0};
    hs_status st = g->hma_lengths ? make_2d(g, out, err) : make_1d(g, out, err);
    if (st != HS_OK) hs_combo_grid_free(out);
    return st;
}

void hs_combo_grid_free(hs_combo_grid *g) {
    free(g->lengths);
    free(g->hma3_lengths);
    free(g->windows);
    *g = (hs_combo_grid){0};
}
