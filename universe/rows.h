/* A combo's figures as every front end writes them: `hmasweep run` (cli/main.c), `run --inputs` and
 * hmasweep-mpi (universe.c).  The statistics' names, order and kinds come from include/hmasweep.h's
 * HS_STATS_FIELDS, the one list, so a field added there reaches every row here. */
#ifndef HS_UNIVERSE_ROWS_H
#define HS_UNIVERSE_ROWS_H
#include <stdio.h>

#include "hmasweep.h"

/* ",wins,gross_profit,...": the statistics' csv column names, after pnl's. */
#define HS_ROWS_CSV_NAME_(name, kind, doc) "," #name
#define HS_ROWS_STATS_CSV_COLUMNS HS_STATS_FIELDS(HS_ROWS_CSV_NAME_)
/* ",,,,,,": one empty csv field per statistic (an error row's). */
#define HS_ROWS_CSV_EMPTY_(name, kind, doc) ","
#define HS_ROWS_STATS_CSV_EMPTY HS_STATS_FIELDS(HS_ROWS_CSV_EMPTY_)

/* A float: %.17g (it round-trips); JSON has no inf or NaN, so there they are null, which every JSON
 * reader accepts (issue 10, defect 11: prices alternating 1e300 and 1e-300 sum to an infinite PnL). */
void hs_rows_put_number(FILE *f, double x, int json);
/* The six statistics after pnl: csv fields (",v,v,...") or JSON members (", \"wins\": v, ..."). */
void hs_rows_put_stats(FILE *f, const hs_stats *st, int json);
#endif
