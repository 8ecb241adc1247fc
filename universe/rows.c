/* A combo's figures as the front ends write them (rows.h). */
#include "rows.h"

#include <math.h>

void hs_rows_put_number(FILE *f, double x, int json) {
    if (json && !isfinite(x)) fputs("null", f);
    else fprintf(f, "%.17g", x);
}

/* One statistic's value by its kind (HS_STATS_FIELDS). */
static void put_i64(FILE *f, int64_t v, int json) {
    (void)json;
    fprintf(f, "%lld", (long long)v);
}
static void put_f64(FILE *f, double v, int json) { hs_rows_put_number(f, v, json); }

void hs_rows_put_stats(FILE *f, const hs_stats *st, int json) {
#define PUT_STAT(name, kind, doc)                         \
    fputs(json ? ", \"" #name "\": " : ",", f);           \
    put_##kind(f, st->name, json);
    HS_STATS_FIELDS(PUT_STAT)
#undef PUT_STAT
}
