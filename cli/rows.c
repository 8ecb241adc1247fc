/* A combo's figures as the front ends write them (rows.h). */
#include "rows.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

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

/* ---- §9 ---------------------------------------------------------------------------------------------- */
hs_status hs_rows_usage(hs_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return HS_ERR_USAGE;
}

/* Both through the library's one strict number parser (hs_parse_i64/f64, issue 29 item 10): no space, hex,
 * inf/nan or overflow slips through as a count or a rate. */
hs_status hs_rows_parse_periods(const char *value, long long *periods, hs_error *err) {
    int64_t p = 0;
    hs_error why;
    if (!value || hs_parse_i64(value, &p, &why) != HS_OK || p < 1)
        return hs_rows_usage(err, "--periods '%s': expected the number of equal periods, an integer from 1 to the number of "
                          "bars (docs/spec.md §9.3)", value ? value : "");
    *periods = p;
    return HS_OK;
}

hs_status hs_rows_parse_periods_per_year(const char *value, double *periods_per_year, hs_error *err) {
    double v = NAN;
    hs_error why;
    if (!value || hs_parse_f64(value, &v, &why) != HS_OK || !isfinite(v) || v <= 0)
        return hs_rows_usage(err, "--periods-per-year '%s': expected a finite number > 0 (e.g. 252 daily, 12 monthly periods)",
                     value ? value : "");
    *periods_per_year = v;
    return HS_OK;
}

hs_status hs_rows_check_period_options(long long periods, int validate, double periods_per_year, hs_error *err) {
    if (validate && !periods)
        return hs_rows_usage(err, "--validate needs --periods P: validation works on the equity at P period ends "
                          "(docs/spec.md §9.3)");
    if (periods_per_year > 0 && !validate)
        return hs_rows_usage(err, "--periods-per-year is an option of --validate; add --validate");
    return HS_OK;
}

int hs_rows_level(size_t n_periods, int validate, double periods_per_year) {
    if (!n_periods) return HS_ROWS_NONE;
    if (!validate) return HS_ROWS_PERIODS;
    return periods_per_year > 0 ? HS_ROWS_ANNUAL : HS_ROWS_VALIDATE;
}

void hs_rows_period_row(double mtm_max_drawdown, const hs_period_stats *ps, double periods_per_year,
                        hs_period_row *out) {
    out->mtm_max_drawdown = mtm_max_drawdown;
    out->period_sharpe = ps ? ps->period_sharpe : NAN;
    out->sortino = ps ? ps->sortino : NAN;
    out->skew = ps ? ps->skew : NAN;
    out->kurtosis = ps ? ps->kurtosis : NAN;
    int annual = ps && periods_per_year > 0;
    double annual_return = ps ? ps->mean * periods_per_year : NAN;
    out->annualised_sharpe = annual ? ps->period_sharpe * sqrt(periods_per_year) : NAN;
    out->annual_return = annual ? annual_return : NAN;
    out->calmar = annual ? annual_return / mtm_max_drawdown : NAN;
}

void hs_rows_put_period_row(FILE *f, const hs_period_row *row, int level, int json) {
#define PUT_FIELD(name, field_level, doc)                 \
    if (field_level <= level) {                           \
        fputs(json ? ", \"" #name "\": " : ",", f);       \
        hs_rows_put_number(f, row->name, json);          \
    }
    HS_ROWS_PERIOD_FIELDS(PUT_FIELD)
#undef PUT_FIELD
}

void hs_rows_put_period_columns(FILE *f, int level, size_t n_periods) {
#define PUT_NAME(name, field_level, doc) \
    if (field_level <= level) fputs("," #name, f);
    HS_ROWS_PERIOD_FIELDS(PUT_NAME)
#undef PUT_NAME
    for (size_t k = 1; k <= n_periods; k++) fprintf(f, ",equity_%zu", k);
}

void hs_rows_put_period_empty(FILE *f, int level, size_t n_periods) {
#define PUT_EMPTY(name, field_level, doc) \
    if (field_level <= level) fputc(',', f);
    HS_ROWS_PERIOD_FIELDS(PUT_EMPTY)
#undef PUT_EMPTY
    for (size_t k = 0; k < n_periods; k++) fputc(',', f);
}

void hs_rows_put_equity(FILE *f, const double *equity, size_t n_periods, size_t stride, int json) {
    fputs(json ? ", \"equity\": [" : "", f);
    for (size_t k = 0; k < n_periods; k++) {
        fputs(json ? (k ? ", " : "") : ",", f);
        hs_rows_put_number(f, equity[k * stride], json);
    }
    fputs(json ? "]" : "", f);
}
