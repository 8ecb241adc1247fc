/* The universe sweep's shared half (universe.h): what `run --inputs` and `hmasweep-mpi` both do. */
#define _POSIX_C_SOURCE 200809L
#include "universe.h"

#include "rows.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A local run reads and sweeps symbols in chunks: at most this many bytes of close (3,000 symbols × 10
 * years of minute bars do not fit in memory) and at most this many symbols, so rows reach the output
 * (and survive a kill) chunk by chunk.  1,024 short series still share one parallel region each: the
 * pooling's gain was measured at 500 series (reports/universe.md, 6.5×). */
#define HS_UNIVERSE_CHUNK_BYTES ((size_t)256 << 20)
#define HS_UNIVERSE_CHUNK_SYMBOLS 1024
/* Within a chunk, symbols are swept and written in batches of consecutive symbols, each batch's rows
 * written and flushed as soon as it finishes, so a killed run keeps every symbol it finished (issue 18
 * §2: a run killed after 40 s kept 0 rows when the rows came per chunk).  A batch ends once it holds
 * HS_UNIVERSE_BATCH_BARS bars and enough symbols to keep the threads busy (one symbol per 4 threads:
 * its 80 combos are 10 units of 8); so on 2 threads a series of 131,072 bars or more is a batch alone,
 * and short series are still pooled by the hundred into one parallel region (the pooling's gain). */
#define HS_UNIVERSE_BATCH_BARS ((size_t)1 << 17)

/* The library's hs_fail is private; the universe is built on the public API, so it words its own. */
__attribute__((format(printf, 3, 4))) static hs_status universe_fail(hs_error *err, hs_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- escaping ----------------------------------------------------------------------------------------- */
/* Length of the valid UTF-8 sequence at p that is not a C1 control, or 0 (RFC 3629's table: no overlong
 * forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_printable(const unsigned char *p) {
    unsigned char b = p[0];
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len;
    if (b >= 0xc2 && b <= 0xdf) len = 2, lo = b == 0xc2 ? 0xa0 : 0x80; /* U+0080-U+009F: C1 controls */
    else if (b == 0xe0) len = 3, lo = 0xa0;
    else if (b >= 0xe1 && b <= 0xef) len = 3, hi = b == 0xed ? 0x9f : 0xbf;
    else if (b == 0xf0) len = 4, lo = 0x90;
    else if (b >= 0xf1 && b <= 0xf3) len = 4;
    else if (b == 0xf4) len = 4, hi = 0x8f;
    else return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
        if (p[k] < 0x80 || p[k] > 0xbf) return 0;
    return len;
}

size_t hs_universe_escape(const char *s, char *out, size_t cap) {
    size_t need = 0;
    const unsigned char *p = (const unsigned char *)s;
    char piece[8];
    while (*p) {
        size_t take = 1, utf8 = *p >= 0x80 ? utf8_printable(p) : 0;
        if (*p == '\\') snprintf(piece, sizeof piece, "\\\\");
        else if (*p == '\n') snprintf(piece, sizeof piece, "\\n");
        else if (*p == '\t') snprintf(piece, sizeof piece, "\\t");
        else if (*p == '\r') snprintf(piece, sizeof piece, "\\r");
        else if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !utf8)) snprintf(piece, sizeof piece, "\\x%02x", *p);
        else take = utf8 ? utf8 : 1, memcpy(piece, p, take), piece[take] = '\0';
        for (const char *c = piece; *c; c++, need++)
            if (need + 1 < cap) out[need] = *c;
        p += take;
    }
    if (cap) out[need < cap ? need : cap - 1] = '\0';
    return need;
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int hs_universe_unescape(const char *s, char *out, size_t cap) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int c = *p;
        if (c < 0x20 || c == 0x7f) return -1;
        if (c == '\\') {
            p++;
            if (*p == '\\') c = '\\';
            else if (*p == 'n') c = '\n';
            else if (*p == 't') c = '\t';
            else if (*p == 'r') c = '\r';
            else if (*p == 'x' && hex_digit((char)p[1]) >= 0 && hex_digit((char)p[2]) >= 0)
                c = hex_digit((char)p[1]) * 16 + hex_digit((char)p[2]), p += 2;
            else return -1;
            if (c == 0) return -1;
        }
        if (n + 1 >= cap) return -1;
        out[n++] = (char)c;
    }
    if (!cap) return -1;
    out[n] = '\0';
    return 0;
}

/* Escaped into buf (symbols are at most 127 bytes and messages 319, so 2 KiB always holds the result). */
static const char *escaped(const char *s, char *buf, size_t cap) {
    hs_universe_escape(s ? s : "", buf, cap);
    return buf;
}
#define ESCAPED_CAP 2048

/* ---- one symbol ---------------------------------------------------------------------------------------- */
hs_status hs_universe_check_format(const char *format, hs_error *err) {
    if (!strcmp(format, "table") || !strcmp(format, "csv") || !strcmp(format, "jsonl")) return HS_OK;
    return universe_fail(err, HS_ERR_USAGE, "--format '%s': expected table, csv or jsonl for --inputs", format);
}

void hs_symbol_clear(hs_symbol_result *r) {
    free(r->rows);
    free(r->error);
    memset(r, 0, sizeof *r);
}

void hs_symbol_fail(hs_symbol_result *r, hs_status st, const char *msg) {
    free(r->rows);
    free(r->error);
    r->rows = NULL;
    r->status = st;
    r->error = strdup(msg ? msg : "");
}

/* Only a regular file: opening a FIFO without O_NONBLOCK waits for a writer forever (issue 20, item 10),
 * and a universe has no use for a device.  The file is opened here without blocking to see what it is;
 * hs_read_series then reads it by name. */
static const char *not_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL; /* the reader names the error */
    struct stat sb;
    const char *what = fstat(fd, &sb) != 0   ? NULL
                       : S_ISREG(sb.st_mode) ? NULL
                       : S_ISFIFO(sb.st_mode) ? "a FIFO"
                       : S_ISDIR(sb.st_mode)  ? "a directory"
                                              : "a device or socket";
    close(fd);
    return what;
}

double *hs_universe_read(const char *path, hs_symbol_result *r) {
    double *close = NULL;
    hs_error err;
    struct stat sb;
    hs_input_id id = {0, 0, 0};
    if (stat(path, &sb) == 0)
        id.size = (uint64_t)sb.st_size, id.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    const char *what = not_regular(path);
    hs_status st = what ? universe_fail(&err, HS_ERR_DATA, "%s is %s, not a regular file: refused", path, what)
                        : hs_read_series(path, &close, &r->n_bars, &err);
    if (st != HS_OK) {
        hs_symbol_fail(r, st, err.msg);
        r->n_bars = 0;
        r->input = (hs_input_id){0, 0, 0};
        return NULL;
    }
    r->status = HS_OK;
    r->input = id;
    char hex[65];
    hs_series_sha256(close, r->n_bars, hex);
    hex[16] = '\0'; /* the first 64 bits */
    r->input.content = strtoull(hex, NULL, 16);
    return close;
}

hs_result *hs_symbol_alloc_rows(hs_symbol_result *r, size_t n_combos, size_t n_periods) {
    _Static_assert(sizeof(hs_result) % _Alignof(hs_stats) == 0, "the statistics follow the rows aligned");
    _Static_assert(sizeof(hs_stats) % _Alignof(double) == 0, "mtm_max_drawdown and E follow them aligned");
    size_t bytes = hs_symbol_block_bytes(n_combos, n_periods);
    return r->rows = malloc(bytes ? bytes : 1);
}

/* opt with the statistics going to `stats` and, with periods, E and mtm_max_drawdown to theirs (a copy:
 * the caller's options stay as they are). */
static hs_sweep_options with_stats(const hs_sweep_options *opt, hs_stats *stats, size_t n_periods, double *equity,
                                   double *mtm) {
    hs_sweep_options o = *opt;
    o.struct_size = sizeof o;
    o.stats = stats;
    o.n_periods = n_periods, o.period_ends = NULL, o.equity = n_periods ? equity : NULL;
    o.mtm_max_drawdown = n_periods ? mtm : NULL;
    return o;
}

void hs_universe_sweep_one(const double *close, const hs_universe_layout *lay, const hs_sweep_options *opt,
                           hs_symbol_result *r) {
    hs_error err;
    size_t n = lay->n_combos;
    if (!hs_symbol_alloc_rows(r, n, lay->n_periods)) {
        hs_symbol_fail(r, HS_ERR_NOMEM, "out of memory for the rows");
        return;
    }
    hs_sweep_options o = with_stats(opt, hs_symbol_stats(r, n), lay->n_periods, hs_symbol_equity(r, n), hs_symbol_mtm(r, n));
    hs_status st = hs_sweep(close, r->n_bars, lay->windows, lay->n_combos, r->rows, &o, &err);
    if (st != HS_OK) hs_symbol_fail(r, st, err.msg);
}

/* ---- output ------------------------------------------------------------------------------------------- */
/* s is already escaped (no control byte): only JSON's own quoting remains. */
static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
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

/* A row's §9 part (docs/spec.md §9, cli/rows.h): nothing at HS_ROWS_NONE. */
typedef struct {
    int level;
    const hs_period_row *row;
    const double *equity; /* the combo's E[0], its E[k] at equity[k * stride] */
    size_t n_periods, stride;
} period_part;

/* Combo c's lengths: L, or Lh and L3 in a 2-D grid (csv ",L" / ",Lh,L3"; jsonl members; table columns). */
static void put_lengths(FILE *f, const hs_universe_layout *lay, size_t c, const char *format) {
    long long l = (long long)lay->lengths[c], l3 = lay->hma3_lengths ? (long long)lay->hma3_lengths[c] : 0;
    int csv = !strcmp(format, "csv"), jsonl = !strcmp(format, "jsonl");
    if (!lay->hma3_lengths) fprintf(f, csv ? ",%lld" : jsonl ? ", \"length\": %lld" : " %6lld", l);
    else fprintf(f, csv ? ",%lld,%lld" : jsonl ? ", \"hma_length\": %lld, \"hma3_length\": %lld" : " %6lld %6lld", l, l3);
}

static void write_row(FILE *f, const hs_universe_layout *lay, const char *symbol, size_t c, const hs_result *r,
                      const hs_stats *st, const period_part *pp) {
    const char *format = lay->format;
    const int64_t *x = lay->windows[c].w;
    if (!strcmp(format, "csv")) {
        put_csv_field(f, symbol);
        put_lengths(f, lay, c, format);
        fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.17g", (long long)x[0],
                (long long)x[1], (long long)x[2], (long long)x[3], (long long)x[4], (long long)x[5],
                (long long)r->trades, r->pnl);
        hs_rows_put_stats(f, st, 0);
        if (pp->level) hs_rows_put_period_row(f, pp->row, pp->level, 0);
        if (pp->level) hs_rows_put_equity(f, pp->equity, pp->n_periods, pp->stride, 0);
        fputs(",\n", f);
    } else if (!strcmp(format, "jsonl")) {
        fputs("{\"symbol\": ", f);
        put_json_string(f, symbol);
        put_lengths(f, lay, c, format);
        fprintf(f, ", \"windows\": [%lld, %lld, %lld, %lld, %lld, %lld], \"trades\": %lld, "
                   "\"pnl\": ",
                (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3],
                (long long)x[4], (long long)x[5], (long long)r->trades);
        hs_rows_put_number(f, r->pnl, 1);
        hs_rows_put_stats(f, st, 1);
        if (pp->level) hs_rows_put_period_row(f, pp->row, pp->level, 1);
        if (pp->level) hs_rows_put_equity(f, pp->equity, pp->n_periods, pp->stride, 1);
        fputs("}\n", f);
    } else {
        fprintf(f, "%-16s", symbol);
        put_lengths(f, lay, c, format);
        fprintf(f, " %9lld %18.9f\n", (long long)r->trades, r->pnl);
    }
}

static void write_error_row(FILE *f, const hs_universe_layout *lay, int level, const char *symbol, const char *error) {
    if (!strcmp(lay->format, "csv")) {
        put_csv_field(f, symbol);
        /* length (or hma_length, hma3_length), w0-w5, trades, pnl, the statistics */
        fputs(lay->hma3_lengths ? ",,,,,,,,,," HS_ROWS_STATS_CSV_EMPTY : ",,,,,,,,," HS_ROWS_STATS_CSV_EMPTY, f);
        if (level) hs_rows_put_period_empty(f, level, lay->n_periods);
        fputc(',', f);
        put_csv_field(f, error);
        fputc('\n', f);
    } else if (!strcmp(lay->format, "jsonl")) {
        fputs("{\"symbol\": ", f);
        put_json_string(f, symbol);
        fputs(", \"error\": ", f);
        put_json_string(f, error);
        fputs("}\n", f);
    } else {
        fprintf(f, "%-16s ERROR  %s\n", symbol, error);
    }
}

static int row_level(const hs_universe_layout *lay) {
    return hs_rows_level(lay->n_periods, lay->validate, lay->periods_per_year);
}

int hs_universe_writer_open(hs_universe_writer *w, FILE *out, FILE *summary, const hs_universe_layout *lay) {
    memset(w, 0, sizeof *w);
    w->out = out, w->summary = summary, w->lay = lay;
    size_t n = lay->n_combos ? lay->n_combos : 1;
    if (row_level(lay) && (!(w->period_rows = malloc(n * sizeof *w->period_rows)) ||
                           (lay->validate && !(w->period_stats = malloc(n * sizeof *w->period_stats))))) {
        free(w->period_rows), free(w->period_stats);
        return -1;
    }
    w->lines = open_memstream(&w->lines_buf, &w->lines_len);
    if (!w->lines) return free(w->period_rows), free(w->period_stats), -1;
    if (!strcmp(lay->format, "csv")) {
        fputs(lay->hma3_lengths ? "symbol,hma_length,hma3_length," : "symbol,length,", out);
        fputs("w0,w1,w2,w3,w4,w5,trades,pnl" HS_ROWS_STATS_CSV_COLUMNS, out);
        if (row_level(lay)) hs_rows_put_period_columns(out, row_level(lay), lay->n_periods);
        fputs(",error\n", out);
    }
    if (!strcmp(lay->format, "table") && !lay->hma3_lengths)
        fprintf(out, "%-16s %6s %9s %18s\n", "symbol", "L", "trades", "pnl");
    if (!strcmp(lay->format, "table") && lay->hma3_lengths)
        fprintf(out, "%-16s %6s %6s %9s %18s\n", "symbol", "Lh", "L3", "trades", "pnl");
    return 0;
}

/* The summary line of one symbol: bars, status, the best combo by PnL and the trades of all combos. */
static void summary_line(hs_universe_writer *w, const char *symbol, const hs_symbol_result *r, const char *error) {
    const hs_universe_layout *lay = w->lay;
    if (r->status != HS_OK) {
        fprintf(w->lines, "%-16s %9zu %6s  %s\n", symbol, r->n_bars, "error", error);
        return;
    }
    size_t best = 0;
    long long trades = 0;
    for (size_t c = 0; c < lay->n_combos; c++) {
        trades += r->rows[c].trades;
        if (r->rows[c].pnl > r->rows[best].pnl) best = c;
    }
    if (!lay->n_combos) return;
    fprintf(w->lines, "%-16s %9zu %6s %7lld", symbol, r->n_bars, "ok", (long long)lay->lengths[best]);
    if (lay->hma3_lengths) fprintf(w->lines, " %7lld", (long long)lay->hma3_lengths[best]);
    fprintf(w->lines, " %18.9f %11lld\n", r->rows[best].pnl, trades);
}

/* The symbol's §9 rows into the writer's scratch: §9.4 from its E when --validate (NaN where E is not
 * finite: hs_period_stats_of refuses it, and the row still carries E and mtm_max_drawdown). */
static void period_rows(hs_universe_writer *w, const hs_symbol_result *r) {
    const hs_universe_layout *lay = w->lay;
    size_t N = lay->n_combos;
    hs_error err;
    int have_stats = lay->validate &&
                     hs_period_stats_of(hs_symbol_equity(r, N), lay->n_periods, N, w->period_stats, &err) == HS_OK;
    for (size_t c = 0; c < N; c++) {
        hs_period_stats none = {NAN, NAN, NAN, NAN, NAN, NAN};
        const hs_period_stats *ps = have_stats ? &w->period_stats[c] : lay->validate ? &none : NULL;
        hs_rows_period_row(hs_symbol_mtm(r, N)[c], ps, lay->periods_per_year, &w->period_rows[c]);
    }
}

void hs_universe_write_symbol(hs_universe_writer *w, const char *symbol, const hs_symbol_result *r) {
    char sym[ESCAPED_CAP], msg[ESCAPED_CAP];
    escaped(symbol, sym, sizeof sym);
    escaped(r->status != HS_OK ? r->error : "", msg, sizeof msg);
    w->symbols++;
    const hs_universe_layout *lay = w->lay;
    int level = row_level(lay);
    if (r->status != HS_OK) {
        w->failed++;
        write_error_row(w->out, lay, level, sym, msg);
    } else {
        size_t N = lay->n_combos;
        const hs_stats *st = hs_symbol_stats(r, N);
        if (level) period_rows(w, r);
        for (size_t c = 0; c < N; c++) {
            period_part pp = {level, level ? &w->period_rows[c] : NULL, level ? hs_symbol_equity(r, N) + c : NULL,
                              lay->n_periods, N};
            write_row(w->out, lay, sym, c, &r->rows[c], &st[c], &pp);
        }
    }
    summary_line(w, sym, r, msg);
}

int hs_universe_writer_flush(hs_universe_writer *w) {
    if (fflush(w->out) != 0 || ferror(w->out)) w->broken = 1;
    return w->broken ? -1 : 0;
}

int hs_universe_writer_close(hs_universe_writer *w) {
    int table = !strcmp(w->lay->format, "table");
    FILE *f = table ? w->out : w->summary;
    if (table) fputc('\n', w->out);
    if (fclose(w->lines) != 0) w->broken = 1;
    fprintf(f, "summary: %zu symbols, %zu failed, %zu combos each\n", w->symbols, w->failed, w->lay->n_combos);
    if (w->lay->hma3_lengths)
        fprintf(f, "%-16s %9s %6s %7s %7s %18s %11s\n", "symbol", "bars", "status", "best_Lh", "best_L3", "best_pnl", "trades");
    else
        fprintf(f, "%-16s %9s %6s %7s %18s %11s\n", "symbol", "bars", "status", "best_L", "best_pnl", "trades");
    if (w->lines_len && fwrite(w->lines_buf, 1, w->lines_len, f) != w->lines_len) w->broken = 1;
    free(w->lines_buf);
    free(w->period_rows), free(w->period_stats);
    w->lines = NULL, w->lines_buf = NULL, w->period_rows = NULL, w->period_stats = NULL;
    if (fflush(f) != 0 || ferror(f)) w->broken = 1;
    hs_universe_writer_flush(w);
    return w->broken ? -1 : 0;
}

/* ---- progress ----------------------------------------------------------------------------------------- */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void hs_universe_progress_start(hs_universe_progress *p, FILE *to, size_t total) {
    memset(p, 0, sizeof *p);
    p->to = to, p->total = total;
    p->started = p->last = now_s();
}

static void progress_print(hs_universe_progress *p, double t, const char *end) {
    double elapsed = t - p->started, rate = elapsed > 0 ? (double)p->done / elapsed : 0;
    double left = rate > 0 ? (double)(p->total - p->done) / rate : 0;
    fprintf(p->to, "\rhmasweep: %zu/%zu symbols (%.1f%%), %.1f symbols/s, %.3g Mbars/s, ETA %02d:%02d:%02d%s",
            p->done, p->total, p->total ? 100.0 * (double)p->done / (double)p->total : 100.0, rate,
            elapsed > 0 ? 1e-6 * (double)p->bars / elapsed : 0.0, (int)(left / 3600), (int)(left / 60) % 60,
            (int)left % 60, end);
    fflush(p->to);
    p->last = t;
}

void hs_universe_progress_add(hs_universe_progress *p, size_t symbols, size_t bars) {
    p->done += symbols, p->bars += bars;
    if (!p->to) return;
    double t = now_s();
    if (t - p->last >= 0.25) progress_print(p, t, "");
}

void hs_universe_progress_end(hs_universe_progress *p) {
    if (p->to) progress_print(p, now_s(), "\n");
}

/* ---- the local run ------------------------------------------------------------------------------------ */
/* Sweep symbols [first, first + n) that were read into close[]: one hs_sweep_many over all of them. */
static hs_status sweep_chunk(const hs_universe *u, double **close, size_t first, size_t n,
                             const hs_universe_layout *lay, const hs_sweep_options *opt, hs_symbol_result *results,
                             hs_error *err) {
    size_t k = 0;
    hs_series_ref *refs = malloc((n ? n : 1) * sizeof *refs);
    size_t *which = malloc((n ? n : 1) * sizeof *which);
    if (!refs || !which) {
        free(refs), free(which);
        return universe_fail(err, HS_ERR_NOMEM, "out of memory for a chunk of symbols");
    }
    for (size_t i = 0; i < n; i++)
        if (close[i]) refs[k] = (hs_series_ref){hs_universe_symbol(u, first + i), close[i], results[i].n_bars},
                      which[k++] = i;
    size_t N = lay->n_combos, P = lay->n_periods, cells = k * N > 0 ? k * N : 1;
    hs_result *rows = malloc(cells * sizeof *rows);
    hs_stats *stats = malloc(cells * sizeof *stats);
    double *mtm = P ? malloc(cells * sizeof *mtm) : NULL, *equity = P ? malloc(cells * P * sizeof *equity) : NULL;
    hs_status *status = malloc((k ? k : 1) * sizeof *status);
    hs_error *errs = malloc((k ? k : 1) * sizeof *errs);
    hs_sweep_options o = with_stats(opt, stats, P, equity, mtm);
    hs_status st = rows && stats && status && errs && (!P || (mtm && equity))
                       ? hs_sweep_many(refs, k, lay->windows, N, rows, status, errs, NULL, &o, err)
                       : universe_fail(err, HS_ERR_NOMEM, "out of memory for the rows of a chunk");
    for (size_t i = 0; st == HS_OK && i < k; i++) {
        hs_symbol_result *r = &results[which[i]];
        if (status[i] != HS_OK) {
            hs_symbol_fail(r, status[i], errs[i].msg);
            continue;
        }
        if (!hs_symbol_alloc_rows(r, N, P)) {
            hs_symbol_fail(r, HS_ERR_NOMEM, "out of memory for the rows");
            continue;
        }
        memcpy(r->rows, rows + i * N, N * sizeof *r->rows);
        memcpy(hs_symbol_stats(r, N), stats + i * N, N * sizeof *stats);
        if (P) memcpy(hs_symbol_mtm(r, N), mtm + i * N, N * sizeof *mtm); /* hs_sweep_many: series-major */
        if (P) memcpy(hs_symbol_equity(r, N), equity + i * P * N, P * N * sizeof *equity);
    }
    free(refs), free(which), free(rows), free(stats), free(mtm), free(equity), free(status), free(errs);
    return st;
}

/* Symbols per batch at least: one per 4 threads of the sweep (opt->threads, else the CPUs). */
static size_t batch_min_symbols(const hs_sweep_options *opt) {
    long threads = opt && opt->threads > 0 ? opt->threads : sysconf(_SC_NPROCESSORS_ONLN);
    return threads > 4 ? (size_t)(threads + 3) / 4 : 1;
}

/* The end of the batch that starts at symbol `from` of a chunk of n. */
static size_t batch_end(const hs_symbol_result *results, size_t from, size_t n, size_t min_symbols) {
    size_t bars = 0, k = from;
    while (k < n && (k - from < min_symbols || bars < HS_UNIVERSE_BATCH_BARS)) bars += results[k++].n_bars;
    return k;
}

/* Sweep the chunk's symbols [0, n) batch by batch, each batch's rows written and flushed when it ends. */
static hs_status sweep_and_write(const hs_universe *u, double **close, size_t first, size_t n,
                                 const hs_universe_layout *lay, const hs_sweep_options *opt, hs_symbol_result *results,
                                 hs_universe_writer *w, hs_universe_progress *progress, hs_error *err) {
    hs_status st = HS_OK;
    for (size_t b = 0, e; st == HS_OK && b < n; b = e) {
        e = batch_end(results, b, n, batch_min_symbols(opt));
        size_t bars = 0;
        if (opt && opt->struct_size >= sizeof *opt && opt->progress && opt->progress(opt->progress_user, 0, 0))
            return universe_fail(err, HS_ERR_CANCELLED, "stopped by the progress callback");
        st = sweep_chunk(u, close + b, first + b, e - b, lay, opt, results + b, err);
        for (size_t i = b; st == HS_OK && i < e; i++) {
            hs_universe_write_symbol(w, hs_universe_symbol(u, first + i), &results[i]);
            bars += results[i].n_bars;
        }
        if (st == HS_OK && hs_universe_writer_flush(w) != 0)
            st = universe_fail(err, HS_ERR_DATA, "writing the rows failed: %s", strerror(errno));
        if (st == HS_OK && progress) hs_universe_progress_add(progress, e - b, bars);
    }
    return st;
}

hs_status hs_universe_run_local(const hs_universe *u, const hs_universe_layout *lay, const hs_sweep_options *opt,
                                hs_universe_writer *w, hs_universe_progress *progress, hs_error *err) {
    size_t n_symbols = hs_universe_count(u);
    double **close = calloc(HS_UNIVERSE_CHUNK_SYMBOLS, sizeof *close);
    hs_symbol_result *results = calloc(HS_UNIVERSE_CHUNK_SYMBOLS, sizeof *results);
    hs_status st = close && results ? HS_OK : universe_fail(err, HS_ERR_NOMEM, "out of memory for a chunk");
    for (size_t first = 0; st == HS_OK && first < n_symbols;) {
        size_t n = 0, bytes = 0;
        while (first + n < n_symbols && n < HS_UNIVERSE_CHUNK_SYMBOLS && (n == 0 || bytes < HS_UNIVERSE_CHUNK_BYTES)) {
            close[n] = hs_universe_read(hs_universe_path(u, first + n), &results[n]);
            bytes += results[n].n_bars * sizeof(double);
            n++;
        }
        st = sweep_and_write(u, close, first, n, lay, opt, results, w, progress, err);
        for (size_t i = 0; i < n; i++) {
            hs_symbol_clear(&results[i]);
            free(close[i]), close[i] = NULL;
        }
        first += n;
    }
    free(close);
    free(results);
    return st;
}
