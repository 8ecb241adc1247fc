/* Checkpoint file (checkpoint.h).  Format, one line each:
 *   hmasweep-mpi checkpoint v5 <n_symbols> <n_combos> <run hash, 16 hex>
 *   R <index> <status> <n_bars> <size> <mtime_ns> <content, 16 hex> <combo> ... | <error, escaped> #<checksum, 16 hex>
 * where a combo is <pnl %a>:<trades> then :<statistic> for each of HS_STATS_FIELDS in its order (integers
 * in decimal, floats %a): <wins>:<gross_profit>:<gross_loss>:<sum_sq>:<max_drawdown>:<bars_held>, its
 * result and its six statistics (docs/spec.md §8), and in a run with P periods (its run hash covers P)
 * :<mtm_max_drawdown %a> then :<E[k] %a> for k = 0 .. P-1 (docs/spec.md §9).  size, mtime_ns and content
 * are the input's identity when it was read (hs_input_id: bytes, mtime in ns, the first 64 bits of the
 * series' SHA-256), checked again on --resume.  v2 (pnl:trades only), v3 (no periods, no input identity)
 * and v4 (one of the two) are refused.
 * The checksum is FNV-1a 64 seeded with the run hash, over the record's text before " #".  FNV-1a is a
 * checksum against damage and mix-ups, not a signature: anyone who can edit the file can recompute it.
 * A single changed byte always changes it (each step is a bijection of the state), and records of
 * another run do not verify.  The error text is escaped (hs_universe_escape), so it never holds a
 * newline, and a resumed run's error rows are byte-identical to an uninterrupted run's.
 * A last line without its newline (a run killed mid-write) is ignored. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_OFFSET 14695981039346656037ull
/* v3: each combo carries the six statistics; v4: either (spec v3's branch) each combo its mtm_max_drawdown
 * and P equity values, or (issue 29's branch) each record its input's size, mtime and content hash; v5:
 * both.  A change of the record's text bumps it. */
#define CHECKPOINT_VERSION 5
#define CHECKPOINT_VERSION_STR "5"
#define CHECKSUM_TAIL 18 /* " #" and 16 hex digits */
#define MAX_ERROR 4096

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static unsigned long long fnv1a_str(unsigned long long h, const char *s) { return fnv1a(h, s, strlen(s) + 1); }

unsigned long long hs_checkpoint_hash(const hs_universe *u, const hs_universe_layout *lay, const hs_sweep_options *opt) {
    unsigned long long h = fnv1a_str(FNV_OFFSET, "hmasweep-mpi checkpoint v" CHECKPOINT_VERSION_STR);
    size_t n = hs_universe_count(u);
    h = fnv1a(h, &n, sizeof n);
    for (size_t s = 0; s < n; s++) {
        h = fnv1a_str(h, hs_universe_symbol(u, s));
        h = fnv1a_str(h, hs_universe_path(u, s));
    }
    h = fnv1a(h, &lay->n_combos, sizeof lay->n_combos);
    h = fnv1a(h, lay->windows, lay->n_combos * sizeof *lay->windows);
    h = fnv1a_str(h, opt && opt->variant ? opt->variant : HS_DEFAULT_VARIANT);
    /* The fee as the sweep books it (v3): a run with another fee is another run. */
    double fee = opt && opt->struct_size >= offsetof(hs_sweep_options, has_fee) + sizeof opt->has_fee && opt->has_fee
                     ? opt->fee
                     : HS_DEFAULT_FEE;
    h = fnv1a(h, &fee, sizeof fee);
    h = fnv1a(h, &lay->n_periods, sizeof lay->n_periods); /* since v4: a run with other periods is another run */
    return fnv1a_str(h, opt && opt->isa ? opt->isa : "(default)");
}

static unsigned long long record_checksum(unsigned long long run_hash, const char *body, size_t len) {
    return fnv1a(fnv1a(FNV_OFFSET, &run_hash, sizeof run_hash), body, len);
}

__attribute__((format(printf, 2, 3))) static int fail(hs_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- writing -------------------------------------------------------------------------------------------- */
int hs_checkpoint_write_header(FILE *f, size_t n, size_t n_combos, unsigned long long run_hash) {
    return fprintf(f, "hmasweep-mpi checkpoint v%d %zu %zu %016llx\n", CHECKPOINT_VERSION, n, n_combos, run_hash) < 0 ? -1 : 0;
}

/* One statistic after a ':', by its kind (HS_STATS_FIELDS): integers in decimal, floats as hex (%a). */
static void put_i64(FILE *m, int64_t v) { fprintf(m, ":%lld", (long long)v); }
static void put_f64(FILE *m, double v) { fprintf(m, ":%a", v); }

int hs_checkpoint_write_record(FILE *f, unsigned long long run_hash, size_t index, const hs_symbol_result *r,
                               size_t n_combos, size_t n_periods) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) return -1;
    fprintf(m, "R %zu %d %zu %llu %lld %016llx", index, (int)r->status, r->n_bars, (unsigned long long)r->input.size,
            (long long)r->input.mtime_ns, (unsigned long long)r->input.content);
    const hs_stats *st = r->status == HS_OK ? hs_symbol_stats(r, n_combos) : NULL;
    for (size_t k = 0; st && k < n_combos; k++) {
        fprintf(m, " %a:%lld", r->rows[k].pnl, (long long)r->rows[k].trades);
#define PUT_STAT(name, kind, doc) put_##kind(m, st[k].name);
        HS_STATS_FIELDS(PUT_STAT)
#undef PUT_STAT
        if (n_periods) put_f64(m, hs_symbol_mtm(r, n_combos)[k]);
        for (size_t p = 0; p < n_periods; p++) put_f64(m, hs_symbol_equity(r, n_combos)[p * n_combos + k]);
    }
    fputs(" | ", m);
    if (r->status != HS_OK && r->error) {
        size_t need = hs_universe_escape(r->error, NULL, 0);
        char *e = malloc(need + 1);
        if (e) hs_universe_escape(r->error, e, need + 1), fputs(e, m);
        free(e);
    }
    if (fclose(m) != 0) return free(buf), -1;
    int rc = fprintf(f, "%s #%016llx\n", buf, record_checksum(run_hash, buf, size)) < 0 ? -1 : 0;
    free(buf);
    return rc;
}

/* ---- reading -------------------------------------------------------------------------------------------- */
static int parse_u64(const char **p, unsigned long long *v) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    if (errno) return -1;
    *p = end;
    return 0;
}

/* A hex float (%a) ended by `stop` (or, stop NUL, by anything). */
static int parse_f64(const char **p, double *v, char stop) {
    char *end;
    *v = strtod(*p, &end);
    if (end == *p || (stop && *end != stop)) return -1;
    *p = stop ? end + 1 : end;
    return 0;
}

/* A non-negative i64 ended by `stop` (or, stop NUL, by anything). */
static int parse_i64(const char **p, int64_t *v, char stop) {
    unsigned long long x;
    if (parse_u64(p, &x) || x > INT64_MAX || (stop && **p != stop)) return -1;
    if (stop) ++*p;
    *v = (int64_t)x;
    return 0;
}

/* An i64 of either sign ended by `stop`: a file's mtime in ns (one before 1970 is negative). */
static int parse_signed_i64(const char **p, int64_t *v, char stop) {
    int negative = **p == '-';
    unsigned long long x;
    if (negative) ++*p;
    if (parse_u64(p, &x) || x > (negative ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX) ||
        **p != stop)
        return -1;
    ++*p;
    *v = negative ? (int64_t)(0 - x) : (int64_t)x;
    return 0;
}

static int take(const char **p, const char *word) {
    size_t len = strlen(word);
    if (strncmp(*p, word, len)) return -1;
    *p += len;
    return 0;
}

/* The text of one record (before " #") into r (rows and error allocated here) and *index.  0 or -1. */
static int parse_record(const char *body, size_t n, size_t n_combos, size_t n_periods, hs_symbol_result *r, size_t *index) {
    const char *p = body;
    unsigned long long idx, status, bars, size, content;
    int64_t mtime;
    char *end;
    if (take(&p, "R ") || parse_u64(&p, &idx) || idx >= n || take(&p, " ") || parse_u64(&p, &status) ||
        status > HS_ERR_ISA || take(&p, " ") || parse_u64(&p, &bars) || take(&p, " ") || parse_u64(&p, &size) ||
        take(&p, " ") || parse_signed_i64(&p, &mtime, ' ') || strspn(p, "0123456789abcdef") != 16 ||
        (content = strtoull(p, &end, 16), end != p + 16))
        return -1;
    p = end;
    *index = (size_t)idx;
    r->status = (hs_status)status, r->n_bars = (size_t)bars;
    r->input = (hs_input_id){size, mtime, content};
    if (r->status == HS_OK) {
        if (!hs_symbol_alloc_rows(r, n_combos, n_periods)) return -1;
        hs_stats *st = hs_symbol_stats(r, n_combos);
        for (size_t c = 0; c < n_combos; c++) {
            hs_result *x = &r->rows[c];
            hs_stats *s = &st[c];
            if (take(&p, " ") || parse_f64(&p, &x->pnl, ':') || parse_i64(&p, &x->trades, 0)) return -1;
#define TAKE_STAT(name, kind, doc) \
    if (take(&p, ":") || parse_##kind(&p, &s->name, 0)) return -1;
            HS_STATS_FIELDS(TAKE_STAT)
#undef TAKE_STAT
            if (n_periods && (take(&p, ":") || parse_f64(&p, &hs_symbol_mtm(r, n_combos)[c], 0))) return -1;
            for (size_t k = 0; k < n_periods; k++)
                if (take(&p, ":") || parse_f64(&p, &hs_symbol_equity(r, n_combos)[k * n_combos + c], 0)) return -1;
        }
    }
    if (take(&p, " | ")) return -1;
    if (r->status == HS_OK) return *p ? -1 : 0;
    char text[MAX_ERROR];
    if (hs_universe_unescape(p, text, sizeof text) != 0 || !(r->error = strdup(text))) return -1;
    return 0;
}

static int same_input(const hs_input_id *a, const hs_input_id *b) {
    return a->size == b->size && a->mtime_ns == b->mtime_ns && a->content == b->content;
}

static int same_result(const hs_symbol_result *a, const hs_symbol_result *b, size_t n_combos, size_t n_periods) {
    if (a->status != b->status || a->n_bars != b->n_bars || !same_input(&a->input, &b->input)) return 0;
    if (a->status != HS_OK) return !strcmp(a->error, b->error);
    return !memcmp(a->rows, b->rows, hs_symbol_block_bytes(n_combos, n_periods));
}

static int check_header(const char *line, const char *name, size_t n, size_t n_combos, unsigned long long run_hash,
                        hs_error *err) {
    size_t want_n = 0, want_combos = 0;
    unsigned long long hash = 0;
    int version = 0;
    char tail;
    if (sscanf(line, "hmasweep-mpi checkpoint v%d", &version) != 1)
        return fail(err, "%s: not a hmasweep-mpi checkpoint", name);
    if (version != CHECKPOINT_VERSION)
        return fail(err, "%s: checkpoint v%d (this hmasweep-mpi reads v%d, whose records carry checksums, the six "
                         "statistics, the equity at period ends and their input's size, mtime and hash): remove it "
                         "and run again",
                    name, version, CHECKPOINT_VERSION);
    if (sscanf(line, "hmasweep-mpi checkpoint v" CHECKPOINT_VERSION_STR " %zu %zu %16llx%c", &want_n, &want_combos,
               &hash, &tail) != 4 ||
        tail != '\n')
        return fail(err, "%s: damaged header line", name);
    if (want_n != n || want_combos != n_combos || hash != run_hash)
        return fail(err,
                    "%s: checkpoint of a different run (symbols, paths, grid, fee, periods, variant or ISA changed since it was "
                    "written): refused; remove it to start again",
                    name);
    return 0;
}

/* Per index while loading: nothing seen, one verified record (line in *line_of), copies that disagree. */
enum { SEEN_NONE, SEEN_OK, SEEN_CONFLICT };

static void refuse(hs_checkpoint_stats *stats, FILE *warn, const char *name, size_t line_no, const char *why) {
    stats->refused++;
    if (warn) fprintf(warn, "hmasweep-mpi: %s:%zu: %s\n", name, line_no, why);
}

/* One complete line (without its newline), number line_no. */
static void load_line(char *line, size_t len, size_t line_no, const char *name, size_t n, size_t n_combos, size_t n_periods,
                      unsigned long long run_hash, hs_symbol_result *results, char *seen, size_t *line_of,
                      hs_checkpoint_stats *stats, FILE *warn) {
    hs_symbol_result r = {0};
    size_t idx = 0;
    char why[160];
    unsigned long long sum = 0;
    char *end = NULL;
    int tail_ok = len >= CHECKSUM_TAIL && !strncmp(line + len - CHECKSUM_TAIL, " #", 2);
    if (tail_ok) {
        sum = strtoull(line + len - 16, &end, 16);
        tail_ok = end == line + len && strspn(line + len - 16, "0123456789abcdef") == 16;
        line[len - CHECKSUM_TAIL] = '\0';
    }
    if (!tail_ok || parse_record(line, n, n_combos, n_periods, &r, &idx) != 0) {
        refuse(stats, warn, name, line_no, "unreadable record: refused");
    } else if (record_checksum(run_hash, line, len - CHECKSUM_TAIL) != sum) {
        snprintf(why, sizeof why, "record of symbol #%zu does not verify (checksum): refused, it is recomputed", idx);
        refuse(stats, warn, name, line_no, why);
    } else if (seen[idx] == SEEN_NONE) {
        results[idx] = r, seen[idx] = SEEN_OK, line_of[idx] = line_no;
        return;
    } else if (seen[idx] == SEEN_OK && !same_result(&results[idx], &r, n_combos, n_periods)) {
        snprintf(why, sizeof why, "symbol #%zu recorded again with a different result than line %zu: both refused, "
                 "it is recomputed", idx, line_of[idx]);
        refuse(stats, warn, name, line_no, why);
        stats->refused++; /* the first copy too */
        hs_symbol_clear(&results[idx]);
        seen[idx] = SEEN_CONFLICT;
    } else if (seen[idx] == SEEN_CONFLICT) {
        snprintf(why, sizeof why, "symbol #%zu recorded again after copies that disagree: refused", idx);
        refuse(stats, warn, name, line_no, why);
    }
    hs_symbol_clear(&r); /* refused, or an identical copy */
}

int hs_checkpoint_load(FILE *f, const char *name, size_t n, size_t n_combos, size_t n_periods, unsigned long long run_hash,
                       hs_symbol_result *results, char *done, hs_checkpoint_stats *stats, FILE *warn, hs_error *err) {
    stats->recorded = stats->refused = 0;
    char *line = NULL;
    size_t cap = 0, line_no = 1;
    ssize_t len = getline(&line, &cap, f);
    int rc = len <= 0 ? fail(err, "%s: empty, not a hmasweep-mpi checkpoint", name)
                      : check_header(line, name, n, n_combos, run_hash, err);
    char *seen = rc == 0 ? calloc(n ? n : 1, 1) : NULL;
    size_t *line_of = rc == 0 ? calloc(n ? n : 1, sizeof *line_of) : NULL;
    if (rc == 0 && (!seen || !line_of)) rc = fail(err, "%s: out of memory reading the checkpoint", name);
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        line_no++;
        if (line[len - 1] != '\n') break; /* killed mid-write: not a record */
        line[--len] = '\0';
        if (strlen(line) != (size_t)len) refuse(stats, warn, name, line_no, "a NUL byte in the record: refused");
        else load_line(line, (size_t)len, line_no, name, n, n_combos, n_periods, run_hash, results, seen, line_of, stats, warn);
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (seen[i] == SEEN_OK) done[i] = 1, stats->recorded++;
    free(seen);
    free(line_of);
    free(line);
    return rc;
}

/* ---- the file ----------------------------------------------------------------------------------------- */
/* After refusals: the checkpoint again, with only what verified, so the next --resume does not meet the
 * same bad lines.  Made in memory, then written by the library's one writer (hs_write_file: temporary
 * file with O_EXCL|O_NOFOLLOW, the old file's mode and owner kept, a symlink another user owns refused;
 * issue 29 item 6: the rewrite changed the owner and replaced a symlinked checkpoint by a file). */
static int rewrite(const char *path, size_t n, size_t n_combos, size_t n_periods, unsigned long long run_hash,
                   const hs_symbol_result *results, const char *done, hs_error *err) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = f ? hs_checkpoint_write_header(f, n, n_combos, run_hash) : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (done[i]) rc = hs_checkpoint_write_record(f, run_hash, i, &results[i], n_combos, n_periods);
    if (f && fclose(f) != 0) rc = -1;
    hs_error why;
    if (rc != 0) fail(err, "cannot rewrite checkpoint %s: %s", path, strerror(errno));
    else if (hs_write_file(path, text, len, &why) != HS_OK) rc = -1, fail(err, "cannot rewrite checkpoint: %s", why.msg);
    free(text);
    return rc;
}

/* Issue 29 item 7: a record is reused only while its input is the one it was computed from.  Each
 * recorded symbol's file is read again (hs_universe_read: size, mtime, the series' hash); any difference
 * refuses the record, naming the file and what changed, and the symbol is recomputed.  The cost is one
 * read of each recorded input, no sweep. */
static void check_inputs(const hs_universe *u, const char *name, hs_symbol_result *results, char *done,
                         hs_checkpoint_stats *stats, FILE *warn) {
    for (size_t i = 0; i < hs_universe_count(u); i++) {
        if (!done[i]) continue;
        hs_symbol_result now = {0};
        const char *path = hs_universe_path(u, i);
        free(hs_universe_read(path, &now));
        const hs_input_id *was = &results[i].input, *is = &now.input;
        if (!same_input(was, is)) {
            char what[200], esc[1024];
            snprintf(what, sizeof what, was->size != is->size ? "size %llu -> %llu bytes"
                                        : was->mtime_ns != is->mtime_ns ? "mtime changed"
                                                                         : "content changed (size and mtime as recorded)",
                     (unsigned long long)was->size, (unsigned long long)is->size);
            hs_universe_escape(path, esc, sizeof esc);
            stats->refused++, stats->recorded--;
            if (warn) fprintf(warn, "hmasweep-mpi: %s: symbol #%zu's input %s changed since it was recorded (%s): "
                                    "its record is refused, it is recomputed\n", name, i, esc, what);
            hs_symbol_clear(&results[i]);
            done[i] = 0;
        }
        hs_symbol_clear(&now);
    }
}

int hs_checkpoint_open(hs_checkpoint *c, const char *path, int resume, size_t n, size_t n_combos, size_t n_periods,
                       unsigned long long run_hash, const hs_universe *u, hs_symbol_result *results, char *done,
                       hs_checkpoint_stats *stats, FILE *warn, hs_error *err) {
    c->f = NULL;
    c->run_hash = run_hash;
    stats->recorded = stats->refused = 0;
    struct stat sb;
    if (!resume && stat(path, &sb) == 0)
        return fail(err, "checkpoint %s exists: pass --resume to continue it, or remove it", path);
    if (resume) {
        /* O_NONBLOCK: a FIFO in its place must not block the run; then only a regular file is read. */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) return fail(err, "--resume: cannot read checkpoint %s: %s", path, strerror(errno));
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
            return close(fd), fail(err, "--resume: checkpoint %s is not a regular file", path);
        FILE *f = fdopen(fd, "r");
        if (!f) return close(fd), fail(err, "--resume: cannot read checkpoint %s", path);
        int rc = hs_checkpoint_load(f, path, n, n_combos, n_periods, run_hash, results, done, stats, warn, err);
        fclose(f);
        if (rc != 0) return -1;
        if (u) check_inputs(u, path, results, done, stats, warn);
        if (stats->refused && rewrite(path, n, n_combos, n_periods, run_hash, results, done, err) != 0) return -1;
    }
    c->f = fopen(path, "a");
    if (!c->f) return fail(err, "cannot write checkpoint %s: %s", path, strerror(errno));
    if (!resume && (hs_checkpoint_write_header(c->f, n, n_combos, run_hash) != 0 || fflush(c->f) != 0))
        return fail(err, "cannot write checkpoint %s", path);
    return 0;
}

int hs_checkpoint_record(hs_checkpoint *c, size_t index, const hs_symbol_result *r, size_t n_combos, size_t n_periods) {
    if (!c->f) return 0;
    /* One fprintf of the whole record, then fsync: a kill leaves either the record or a partial last line. */
    return hs_checkpoint_write_record(c->f, c->run_hash, index, r, n_combos, n_periods) == 0 && fflush(c->f) == 0 &&
                   fsync(fileno(c->f)) == 0
               ? 0
               : -1;
}

int hs_checkpoint_close(hs_checkpoint *c) {
    int rc = c->f && fclose(c->f) != 0 ? -1 : 0;
    c->f = NULL;
    return rc;
}
