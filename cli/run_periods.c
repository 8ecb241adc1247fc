/* `run --periods P [--validate ...]`: the buffers the sweep fills, the library's validation on them, and
 * what `run` prints of it (run_periods.h; docs/cli.md "Periods and validation"). */
#define _POSIX_C_SOURCE 200809L
#include "run_periods.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int exit_code_for(hs_status st) { return st == HS_ERR_USAGE || st == HS_ERR_ISA ? EXIT_USAGE : EXIT_DATA; }

static void *alloc_n(size_t n, size_t size) { return malloc((n ? n : 1) * size); }

int cli_periods_prepare(cli_periods *p, const cli_options *o, size_t n_bars, size_t n_combos, hs_sweep_options *opt) {
    memset(p, 0, sizeof *p);
    p->level = hs_rows_level((size_t)o->periods, o->validate, o->periods_per_year);
    if (p->level == HS_ROWS_NONE) return 0;
    p->n_periods = (size_t)o->periods, p->n_combos = n_combos, p->n_bars = n_bars;
    p->periods_per_year = o->periods_per_year;
    if (p->n_periods > SIZE_MAX / sizeof(double) / (n_combos ? n_combos : 1))
        return cli_fail(EXIT_USAGE, "--periods %zu x %zu combos: the equity matrix does not fit in memory", p->n_periods,
                        n_combos);
    p->ends = alloc_n(p->n_periods, sizeof *p->ends);
    p->equity = alloc_n(p->n_periods * n_combos, sizeof *p->equity);
    p->mtm = alloc_n(n_combos, sizeof *p->mtm);
    if (!p->ends || !p->equity || !p->mtm)
        return cli_fail(EXIT_DATA, "out of memory for the equity of %zu periods x %zu combos", p->n_periods, n_combos);
    hs_error err;
    hs_status st = hs_period_ends(n_bars, p->n_periods, p->ends, &err);
    if (st != HS_OK) return cli_fail(exit_code_for(st), "--periods %zu: %s", p->n_periods, err.msg);
    opt->n_periods = p->n_periods;
    opt->period_ends = NULL; /* P equal periods: the ends above, as the library makes them */
    opt->equity = p->equity;
    opt->mtm_max_drawdown = p->mtm;
    return 0;
}

/* CSCV, the DSR and the walk-forward over the equity matrix (§9.5-§9.7). */
static hs_status validate_grid(cli_periods *p, const cli_options *o, hs_error *err) {
    size_t P = p->n_periods, N = p->n_combos;
    hs_status st = hs_period_stats_of(p->equity, P, N, p->stats, err);
    if (st == HS_OK) st = hs_cscv(p->equity, P, N, (size_t)o->groups, &p->cscv, NULL, NULL, NULL, NULL, err);
    if (st == HS_OK) st = hs_deflated_sharpe(p->stats, N, P, 0.0, SIZE_MAX, &p->dsr, err);
    if (st != HS_OK) return st;
    size_t folds = hs_walk_forward_folds(P, (size_t)o->wf_train, (size_t)o->wf_test);
    p->wf_choices = alloc_n(folds, sizeof *p->wf_choices);
    p->wf_curve = alloc_n(folds * (size_t)o->wf_test, sizeof *p->wf_curve);
    if (!p->wf_choices || !p->wf_curve) {
        snprintf(err->msg, sizeof err->msg, "out of memory for the walk-forward's %zu folds", folds);
        return HS_ERR_NOMEM;
    }
    return hs_walk_forward(p->equity, P, N, (size_t)o->wf_train, (size_t)o->wf_test, o->wf_anchored, p->wf_choices,
                           p->wf_curve, &p->wf, err);
}

int cli_periods_finish(cli_periods *p, const cli_options *o) {
    if (p->level == HS_ROWS_NONE) return 0;
    p->rows = alloc_n(p->n_combos, sizeof *p->rows);
    if (o->validate) p->stats = alloc_n(p->n_combos, sizeof *p->stats);
    if (!p->rows || (o->validate && !p->stats)) return cli_fail(EXIT_DATA, "out of memory for %zu combos' rows", p->n_combos);
    hs_error err;
    hs_status st = o->validate ? validate_grid(p, o, &err) : HS_OK;
    if (st != HS_OK) return cli_fail(exit_code_for(st), "validation: %s", err.msg);
    for (size_t c = 0; c < p->n_combos; c++)
        hs_rows_period_row(p->mtm[c], p->stats ? &p->stats[c] : NULL, p->periods_per_year, &p->rows[c]);
    return 0;
}

void cli_periods_free(cli_periods *p) {
    free(p->ends), free(p->equity), free(p->mtm), free(p->stats), free(p->rows), free(p->wf_choices), free(p->wf_curve);
    memset(p, 0, sizeof *p);
}

/* ---- JSON and csv ------------------------------------------------------------------------------------ */
void cli_periods_json_combo(const cli_periods *p, size_t c) {
    if (p->level == HS_ROWS_NONE) return;
    hs_rows_put_period_row(stdout, &p->rows[c], p->level, 1);
    hs_rows_put_equity(stdout, p->equity + c, p->n_periods, p->n_combos, 1);
}

static void json_number(const char *key, double x) {
    printf("\"%s\": ", key);
    hs_rows_put_number(stdout, x, 1);
}

static void json_doubles(const double *x, size_t n) {
    putchar('[');
    for (size_t k = 0; k < n; k++) {
        if (k) fputs(", ", stdout);
        hs_rows_put_number(stdout, x[k], 1);
    }
    putchar(']');
}

/* A combo index, or null for none (SIZE_MAX: no combo had a finite Sharpe). */
static void json_index(const char *key, size_t c) {
    if (c == SIZE_MAX) printf("\"%s\": null", key);
    else printf("\"%s\": %zu", key, c);
}

static void json_validation(const cli_periods *p) {
    const hs_cscv_result *v = &p->cscv;
    const hs_dsr_result *d = &p->dsr;
    const hs_walk_forward_result *w = &p->wf;
    printf(", \"validation\": {\"groups\": %zu, \"splits\": %zu, \"kept\": %zu, ", v->groups, v->splits, v->kept);
    json_number("pbo", v->pbo), fputs(", ", stdout);
    json_number("prob_oos_loss", v->prob_oos_loss), fputs(", \"degradation\": {", stdout);
    json_number("slope", v->slope), fputs(", ", stdout);
    json_number("intercept", v->intercept), fputs("}, \"dsr\": {", stdout);
    json_index("chosen", d->chosen), fputs(", ", stdout);
    json_number("sr", d->sr), fputs(", ", stdout);
    json_number("trials", d->trials), fputs(", ", stdout);
    json_number("var_sr", d->var_sr), fputs(", ", stdout);
    json_number("sr0", d->sr0), fputs(", ", stdout);
    json_number("dsr", d->dsr), fputs(", ", stdout);
    json_number("psr0", d->psr0);
    printf("}, \"walk_forward\": {\"train\": %zu, \"test\": %zu, \"anchored\": %s, \"folds\": %zu, \"choices\": [",
           w->train, w->test, w->anchored ? "true" : "false", w->folds);
    for (size_t f = 0; f < w->folds; f++) printf("%s%zu", f ? ", " : "", p->wf_choices[f]);
    fputs("], \"oos_curve\": ", stdout);
    json_doubles(p->wf_curve, w->folds * w->test);
    fputs(", ", stdout);
    json_number("oos_sharpe", w->oos_sharpe);
    fputs("}}", stdout);
}

void cli_periods_json_run(const cli_periods *p) {
    if (p->level == HS_ROWS_NONE) return;
    printf(", \"periods\": %zu, \"period_ends\": [", p->n_periods);
    for (size_t k = 0; k < p->n_periods; k++) printf("%s%lld", k ? ", " : "", (long long)p->ends[k]);
    fputs("], ", stdout);
    if (p->periods_per_year > 0) json_number("periods_per_year", p->periods_per_year);
    else fputs("\"periods_per_year\": null", stdout);
    if (p->level >= HS_ROWS_VALIDATE) json_validation(p);
}

void cli_periods_csv_columns(const cli_periods *p) {
    if (p->level != HS_ROWS_NONE) hs_rows_put_period_columns(stdout, p->level, p->n_periods);
}

void cli_periods_csv_combo(const cli_periods *p, size_t c) {
    if (p->level == HS_ROWS_NONE) return;
    hs_rows_put_period_row(stdout, &p->rows[c], p->level, 0);
    hs_rows_put_equity(stdout, p->equity + c, p->n_periods, p->n_combos, 0);
}

/* ---- the table's summary ------------------------------------------------------------------------------ */
/* n with a comma every three digits: 12870 -> "12,870". */
static const char *grouped(size_t n, char *buf, size_t cap) {
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%zu", n);
    size_t o = 0;
    for (int k = 0; k < len && o + 2 < cap; k++) {
        if (k && (len - k) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[k];
    }
    buf[o] = '\0';
    return buf;
}

/* "combo 17 (L=48)" or "combo 5 (Lh=13, L3=41)". */
static const char *combo_name(size_t c, const int64_t *lengths, const int64_t *hma3, char *buf, size_t cap) {
    if (hma3) snprintf(buf, cap, "combo %zu (Lh=%lld, L3=%lld)", c, (long long)lengths[c], (long long)hma3[c]);
    else snprintf(buf, cap, "combo %zu (L=%lld)", c, (long long)lengths[c]);
    return buf;
}

void cli_periods_table_summary(const cli_periods *p, const int64_t *lengths, const int64_t *hma3_lengths) {
    if (p->level == HS_ROWS_NONE) return;
    char a[32], b[32], name[96];
    printf("periods: %zu equal periods of about %s bars (E = each combo's mark-to-market equity at their ends); "
           "dd_closed = max drawdown of the closed-trade equity (§8), dd_mtm = of the mark-to-market equity (§9.2), pp\n",
           p->n_periods, grouped(p->n_bars / p->n_periods, a, sizeof a));
    if (p->level < HS_ROWS_VALIDATE) return;
    const hs_cscv_result *v = &p->cscv;
    const hs_dsr_result *d = &p->dsr;
    const hs_walk_forward_result *w = &p->wf;
    printf("validation of %zu combos over %zu periods (docs/cli.md \"Periods and validation\"):\n", p->n_combos,
           p->n_periods);
    printf("  PBO %.2f over %s splits (S = %zu groups, %s kept): the in-sample best was below the out-of-sample "
           "median in %.0f%% of them, and lost money out of sample in %.0f%%\n",
           v->pbo, grouped(v->splits, a, sizeof a), v->groups, grouped(v->kept, b, sizeof b), 100.0 * v->pbo,
           100.0 * v->prob_oos_loss);
    printf("  degradation: out-of-sample Sharpe = intercept + slope x in-sample Sharpe, slope %.4f, intercept %.4f (per "
           "period, the in-sample best of each split)\n",
           v->slope, v->intercept);
    if (d->chosen == SIZE_MAX) {
        printf("  deflated Sharpe ratio: no combo has a finite Sharpe per period\n");
    } else {
        printf("  chosen %s, the best Sharpe per period: %.4f per period", combo_name(d->chosen, lengths, hma3_lengths, name, sizeof name), d->sr);
        if (p->periods_per_year > 0) printf(" (%.4f annualised)", p->rows[d->chosen].annualised_sharpe);
        printf("; deflated Sharpe ratio %.2f over %.0f trials (probability it beats 0: %.2f)\n", d->dsr, d->trials,
               d->psr0);
    }
    printf("  walk-forward (%s, train %zu, test %zu periods, %zu folds): out-of-sample Sharpe %.4f per period; "
           "the in-sample best's: %.4f per period, in sample\n",
           w->anchored ? "anchored" : "rolling", w->train, w->test, w->folds, w->oos_sharpe, d->sr);
}
