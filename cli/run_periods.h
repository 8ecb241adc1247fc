/* `hmasweep run --periods P [--validate ...]` (docs/cli.md "Periods and validation", docs/spec.md §9): the
 * equity at P period ends that the sweep fills, the per-combo figures of §9.2/§9.4, and the validation of
 * the whole grid on that matrix (CSCV/PBO, the deflated Sharpe ratio, the walk-forward), all by the
 * library (hs_period_stats_of, hs_cscv, hs_deflated_sharpe, hs_walk_forward); here only what `run` prints. */
#ifndef HS_CLI_RUN_PERIODS_H
#define HS_CLI_RUN_PERIODS_H
#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"
#include "options.h"
#include "rows.h"

typedef struct {
    int level;                 /* HS_ROWS_*: what each combo's row carries; HS_ROWS_NONE without --periods */
    size_t n_periods, n_combos, n_bars;
    int64_t *ends;             /* the P period ends (bars), hs_period_ends */
    double *equity;            /* E, P x n_combos (E[k][c] at equity[k * n_combos + c]), filled by the sweep */
    double *mtm;               /* mtm_max_drawdown, n_combos, filled by the sweep */
    hs_period_stats *stats;    /* --validate: §9.4 per combo */
    hs_period_row *rows;       /* per combo, as printed */
    double periods_per_year;   /* 0: not given */
    /* --validate */
    hs_cscv_result cscv;
    hs_dsr_result dsr;
    hs_walk_forward_result wf;
    size_t *wf_choices;        /* wf.folds */
    double *wf_curve;          /* wf.folds * wf.test */
} cli_periods;

/* The buffers for a run of n_combos over n_bars (none without --periods), and the sweep's options pointed
 * at them.  0, or the exit status (reported). */
int cli_periods_prepare(cli_periods *p, const cli_options *o, size_t n_bars, size_t n_combos, hs_sweep_options *opt);
/* After the sweep: the per-combo rows and, with --validate, the validation.  0, or the exit status. */
int cli_periods_finish(cli_periods *p, const cli_options *o);
void cli_periods_free(cli_periods *p);

/* JSON: combo c's members (", \"mtm_max_drawdown\": ..., \"equity\": [...]"), and the run's top-level ones
 * (", \"periods\": P, ..., \"validation\": {...}"); nothing without --periods. */
void cli_periods_json_combo(const cli_periods *p, size_t c);
void cli_periods_json_run(const cli_periods *p);
/* csv: the column names after the statistics', and combo c's fields. */
void cli_periods_csv_columns(const cli_periods *p);
void cli_periods_csv_combo(const cli_periods *p, size_t c);
/* The table: the plain-words lines after it (what the drawdowns are, PBO, the DSR, the walk-forward).
 * lengths/hma3_lengths name the chosen combo as the table does. */
void cli_periods_table_summary(const cli_periods *p, const int64_t *lengths, const int64_t *hma3_lengths);
#endif
