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

/* ---- docs/spec.md §9: a combo's figures from its equity at the period ends ---------------------------- */
/* THE list of a combo's §9 figures that the front ends print beside its statistics, in output order, so a
 * figure is added once: X(name, level, doc).  A row at level L prints the fields whose level is <= L:
 * HS_ROWS_PERIODS (--periods), HS_ROWS_VALIDATE (--validate: §9.4 from hs_period_stats_of) and
 * HS_ROWS_ANNUAL (--validate with --periods-per-year).  The equity itself (P values) is printed apart. */
enum { HS_ROWS_NONE = 0, HS_ROWS_PERIODS = 1, HS_ROWS_VALIDATE = 2, HS_ROWS_ANNUAL = 3 };
#define HS_ROWS_PERIOD_FIELDS(X)                                                                                \
    X(mtm_max_drawdown, HS_ROWS_PERIODS, "deepest fall of the mark-to-market equity below its high, pp (9.2)") \
    X(period_sharpe, HS_ROWS_VALIDATE, "mean / sd of the period returns: a Sharpe per period (9.4)")          \
    X(sortino, HS_ROWS_VALIDATE, "mean / downside deviation of the period returns, per period (9.4)")        \
    X(skew, HS_ROWS_VALIDATE, "skewness of the period returns (9.4)")                                         \
    X(kurtosis, HS_ROWS_VALIDATE, "kurtosis of the period returns, not excess (9.4)")                         \
    X(annualised_sharpe, HS_ROWS_ANNUAL, "period_sharpe x sqrt(periods per year) (9.4)")                      \
    X(annual_return, HS_ROWS_ANNUAL, "mean period return x periods per year, pp (9.4)")                       \
    X(calmar, HS_ROWS_ANNUAL, "annual_return / mtm_max_drawdown (9.4)")
#define HS_ROWS_PERIOD_MEMBER_(name, level, doc) double name;
typedef struct {
    HS_ROWS_PERIOD_FIELDS(HS_ROWS_PERIOD_MEMBER_)
} hs_period_row;

/* HS_ERR_USAGE with the message formatted into err (the universe's option parsers and the ones below). */
__attribute__((format(printf, 2, 3))) hs_status hs_rows_usage(hs_error *err, const char *fmt, ...);

/* The options every front end with periods takes (`run`, `run --inputs`, hmasweep-mpi), parsed with one
 * set of messages: --periods P (an integer from 1 to the bars), --periods-per-year N (finite, > 0), and
 * what they need of each other (--validate needs --periods, --periods-per-year needs --validate).
 * HS_ERR_USAGE with a message naming the value otherwise. */
hs_status hs_rows_parse_periods(const char *value, long long *periods, hs_error *err);
hs_status hs_rows_parse_periods_per_year(const char *value, double *periods_per_year, hs_error *err);
hs_status hs_rows_check_period_options(long long periods, int validate, double periods_per_year, hs_error *err);

/* The level of a run's rows: HS_ROWS_NONE without periods. */
int hs_rows_level(size_t n_periods, int validate, double periods_per_year);
/* One combo's row: its mtm_max_drawdown, its §9.4 statistics (ps NULL below HS_ROWS_VALIDATE) and the
 * annualised figures (periods_per_year > 0; else NaN): §9.4's products, in the order written there. */
void hs_rows_period_row(double mtm_max_drawdown, const hs_period_stats *ps, double periods_per_year,
                        hs_period_row *out);
/* The row's fields of `level` and below: csv fields or JSON members, as hs_rows_put_stats. */
void hs_rows_put_period_row(FILE *f, const hs_period_row *row, int level, int json);
/* Their csv column names (",mtm_max_drawdown,..."), then the equity's (",equity_1,...,equity_P"). */
void hs_rows_put_period_columns(FILE *f, int level, size_t n_periods);
/* As many empty csv fields as hs_rows_put_period_columns names (an error row's). */
void hs_rows_put_period_empty(FILE *f, int level, size_t n_periods);
/* Combo c's equity at the P period ends, element k at equity[k * stride]: csv fields (",e1,...") or the
 * JSON member ", \"equity\": [e1, ...]". */
void hs_rows_put_equity(FILE *f, const double *equity, size_t n_periods, size_t stride, int json);
#endif
