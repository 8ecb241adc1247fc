/* Read tests/golden/default_run.json (the CLI's JSON shape) without a JSON library: the file is ours,
 * one combo per line, and %.17g round-trips every PnL exactly through strtod. */
#ifndef HS_GOLDEN_H
#define HS_GOLDEN_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmasweep.h"

typedef struct {
    size_t n;
    int64_t *lengths;
    hs_windows *windows;
    hs_result *results;
} golden_run;

static void golden_free(golden_run *g) {
    free(g->lengths);
    free(g->windows);
    free(g->results);
}

static int golden_load(const char *path, golden_run *g) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t cap = 128;
    memset(g, 0, sizeof *g);
    g->lengths = malloc(cap * sizeof *g->lengths);
    g->windows = malloc(cap * sizeof *g->windows);
    g->results = malloc(cap * sizeof *g->results);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        long long L, w[6], trades;
        double pnl;
        const char *p = strstr(line, "{\"length\":");
        if (!p) continue;
        if (sscanf(p, "{\"length\": %lld, \"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %lld, \"pnl\": %lf",
                   &L, &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &trades, &pnl) != 9 || g->n == cap) {
            fclose(f);
            golden_free(g);
            return 0;
        }
        g->lengths[g->n] = L;
        for (int k = 0; k < 6; k++) g->windows[g->n].w[k] = w[k];
        g->results[g->n] = (hs_result){pnl, trades};
        g->n++;
    }
    fclose(f);
    return g->n > 0;
}
#endif
