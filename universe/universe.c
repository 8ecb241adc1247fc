/* The universe sweep's shared half (universe.h): what `run --inputs` and `hmasweep-mpi` both do. */
#include "universe.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Series resident at once in a local run.  3,000 symbols × 10 years of minute bars do not fit in
 * memory, so symbols are read and swept in chunks of at most this many bytes of close. */
#define HS_UNIVERSE_CHUNK_BYTES ((size_t)512 << 20)

/* The library's hs_fail is private; the universe is built on the public API, so it words its own. */
__attribute__((format(printf, 3, 4))) static hs_status universe_fail(hs_error *err, hs_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return st;
}

hs_status hs_universe_check_format(const char *format, hs_error *err) {
    if (!strcmp(format, "table") || !strcmp(format, "csv") || !strcmp(format, "jsonl")) return HS_OK;
    return universe_fail(err, HS_ERR_USAGE, "--format '%s': expected table, csv or jsonl for --inputs", format);
}

static void set_error(hs_symbol_result *r, hs_status st, const char *msg) {
    r->status = st;
    snprintf(r->error, sizeof r->error, "%s", msg);
    free(r->rows);
    r->rows = NULL;
}

double *hs_universe_read(const hs_universe_entry *e, hs_symbol_result *r) {
    double *close = NULL;
    hs_error err;
    hs_status st = hs_read_series(e->path, &close, &r->n_bars, &err);
    if (st != HS_OK) {
        set_error(r, st, err.msg);
        r->n_bars = 0;
        return NULL;
    }
    r->status = HS_OK;
    return close;
}

void hs_universe_sweep_one(const double *close, const hs_universe_layout *lay, const hs_sweep_options *opt,
                           hs_symbol_result *r) {
    hs_error err;
    r->rows = malloc((lay->n_combos ? lay->n_combos : 1) * sizeof *r->rows);
    if (!r->rows) {
        set_error(r, HS_ERR_NOMEM, "out of memory for the rows");
        return;
    }
    hs_status st = hs_sweep(close, r->n_bars, lay->windows, lay->n_combos, r->rows, opt, &err);
    if (st != HS_OK) set_error(r, st, err.msg);
}

/* ---- output ------------------------------------------------------------------------------------------- */
static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void put_csv_field(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_row(FILE *f, const char *format, const char *symbol, int64_t length, const hs_windows *w,
                      const hs_result *r) {
    const int64_t *x = w->w;
    if (!strcmp(format, "csv")) {
        put_csv_field(f, symbol);
        fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.17g,\n", (long long)length, (long long)x[0],
                (long long)x[1], (long long)x[2], (long long)x[3], (long long)x[4], (long long)x[5],
                (long long)r->trades, r->pnl);
    } else if (!strcmp(format, "jsonl")) {
        fputs("{\"symbol\": ", f);
        put_json_string(f, symbol);
        fprintf(f, ", \"length\": %lld, \"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %lld, "
                   "\"pnl\": %.17g}\n",
                (long long)length, (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3],
                (long long)x[4], (long long)x[5], (long long)r->trades, r->pnl);
    } else {
        fprintf(f, "%-16s %6lld %9lld %18.9f\n", symbol, (long long)length, (long long)r->trades, r->pnl);
    }
}

static void write_error_row(FILE *f, const char *format, const char *symbol, const char *error) {
    if (!strcmp(format, "csv")) {
        put_csv_field(f, symbol);
        fputs(",,,,,,,,,,", f);
        put_csv_field(f, error);
        fputc('\n', f);
    } else if (!strcmp(format, "jsonl")) {
        fputs("{\"symbol\": ", f);
        put_json_string(f, symbol);
        fputs(", \"error\": ", f);
        put_json_string(f, error);
        fputs("}\n", f);
    } else {
        fprintf(f, "%-16s ERROR  %s\n", symbol, error);
    }
}

/* Per symbol: bars, status, the best combo by PnL and the trades of all combos. */
static void write_summary(FILE *f, const hs_universe_layout *lay, const hs_universe_entry *entries,
                          const hs_symbol_result *results, size_t n) {
    fprintf(f, "summary: %zu symbols, %zu failed, %zu combos each\n", n, hs_universe_failed(results, n),
            lay->n_combos);
    fprintf(f, "%-16s %9s %6s %7s %18s %11s\n", "symbol", "bars", "status", "best_L", "best_pnl", "trades");
    for (size_t s = 0; s < n; s++) {
        const hs_symbol_result *r = &results[s];
        if (r->status != HS_OK) {
            fprintf(f, "%-16s %9zu %6s  %s\n", entries[s].symbol, r->n_bars, "error", r->error);
            continue;
        }
        size_t best = 0;
        long long trades = 0;
        for (size_t c = 0; c < lay->n_combos; c++) {
            trades += r->rows[c].trades;
            if (r->rows[c].pnl > r->rows[best].pnl) best = c;
        }
        if (lay->n_combos)
            fprintf(f, "%-16s %9zu %6s %7lld %18.9f %11lld\n", entries[s].symbol, r->n_bars, "ok",
                    (long long)lay->lengths[best], r->rows[best].pnl, trades);
    }
}

int hs_universe_write(FILE *out, FILE *summary, const hs_universe_layout *lay, const hs_universe_entry *entries,
                      const hs_symbol_result *results, size_t n_symbols) {
    int table = !strcmp(lay->format, "table");
    if (!strcmp(lay->format, "csv")) fputs("symbol,length,w0,w1,w2,w3,w4,w5,trades,pnl,error\n", out);
    if (table) fprintf(out, "%-16s %6s %9s %18s\n", "symbol", "L", "trades", "pnl");
    for (size_t s = 0; s < n_symbols; s++) {
        const hs_symbol_result *r = &results[s];
        if (r->status != HS_OK) {
            write_error_row(out, lay->format, entries[s].symbol, r->error);
            continue;
        }
        for (size_t c = 0; c < lay->n_combos; c++)
            write_row(out, lay->format, entries[s].symbol, lay->lengths[c], &lay->windows[c], &r->rows[c]);
    }
    if (table) fputc('\n', out);
    write_summary(table ? out : summary, lay, entries, results, n_symbols);
    if (fflush(out) != 0 || ferror(out) || fflush(summary) != 0 || ferror(summary)) return -1;
    return 0;
}

/* ---- the local run ------------------------------------------------------------------------------------ */
/* Sweep symbols [first, last) that were read into close[]: one hs_sweep_many over all of them. */
static hs_status sweep_chunk(const hs_universe_entry *entries, double **close, size_t first, size_t last,
                             const hs_universe_layout *lay, const hs_sweep_options *opt, hs_symbol_result *results,
                             hs_error *err) {
    size_t n = last - first, k = 0;
    hs_series_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    size_t *which = malloc((n ? n : 1) * sizeof *which);
    if (!refs || !which) {
        free(refs), free(which);
        return universe_fail(err, HS_ERR_NOMEM, "out of memory for a chunk of symbols");
    }
    for (size_t s = first; s < last; s++)
        if (close[s - first]) refs[k] = (hs_series_ref){entries[s].symbol, close[s - first], results[s].n_bars},
                              which[k++] = s;
    hs_result *rows = malloc((k * lay->n_combos > 0 ? k * lay->n_combos : 1) * sizeof *rows);
    hs_status *status = malloc((k ? k : 1) * sizeof *status);
    hs_error *errs = malloc((k ? k : 1) * sizeof *errs);
    hs_status st = rows && status && errs
                       ? hs_sweep_many(refs, k, lay->windows, lay->n_combos, rows, status, errs, NULL, opt, err)
                       : universe_fail(err, HS_ERR_NOMEM, "out of memory for the rows of a chunk");
    for (size_t i = 0; st == HS_OK && i < k; i++) {
        hs_symbol_result *r = &results[which[i]];
        if (status[i] != HS_OK) {
            set_error(r, status[i], errs[i].msg);
            continue;
        }
        r->rows = malloc((lay->n_combos ? lay->n_combos : 1) * sizeof *r->rows);
        if (!r->rows) set_error(r, HS_ERR_NOMEM, "out of memory for the rows");
        else memcpy(r->rows, rows + i * lay->n_combos, lay->n_combos * sizeof *r->rows);
    }
    free(refs), free(which), free(rows), free(status), free(errs);
    return st;
}

hs_status hs_universe_run_local(const hs_universe_entry *entries, size_t n_symbols, const hs_universe_layout *lay,
                                const hs_sweep_options *opt, hs_symbol_result *results, hs_error *err) {
    double **close = calloc(n_symbols ? n_symbols : 1, sizeof *close);
    if (!close) return universe_fail(err, HS_ERR_NOMEM, "out of memory for %zu symbols", n_symbols);
    hs_status st = HS_OK;
    size_t first = 0;
    while (st == HS_OK && first < n_symbols) {
        size_t last = first, bytes = 0;
        while (last < n_symbols && (last == first || bytes < HS_UNIVERSE_CHUNK_BYTES)) {
            close[last - first] = hs_universe_read(&entries[last], &results[last]);
            bytes += results[last].n_bars * sizeof(double);
            last++;
        }
        st = sweep_chunk(entries, close, first, last, lay, opt, results, err);
        for (size_t s = first; s < last; s++) free(close[s - first]), close[s - first] = NULL;
        first = last;
    }
    free(close);
    return st;
}

size_t hs_universe_failed(const hs_symbol_result *results, size_t n_symbols) {
    size_t failed = 0;
    for (size_t s = 0; s < n_symbols; s++) failed += results[s].status != HS_OK;
    return failed;
}

void hs_universe_free(hs_symbol_result *results, size_t n_symbols) {
    for (size_t s = 0; s < n_symbols && results; s++) free(results[s].rows);
    free(results);
}
