/* Checkpoint file (checkpoint.h).  Format, one record per line:
 *   hmasweep-mpi checkpoint v1 <n_symbols> <n_combos> <universe hash, hex>
 *   R <index> <status> <n_bars> <pnl %a>:<trades> ... | <error text>
 * A last line without its newline (a run killed mid-write) is ignored. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

unsigned long long hs_checkpoint_hash(const hs_universe_entry *e, size_t n, const hs_universe_layout *lay) {
    unsigned long long h = 14695981039346656037ull;
    for (size_t s = 0; s < n; s++) {
        h = fnv1a(h, e[s].symbol, strlen(e[s].symbol) + 1);
        h = fnv1a(h, e[s].path, strlen(e[s].path) + 1);
    }
    return fnv1a(h, lay->windows, lay->n_combos * sizeof *lay->windows);
}

__attribute__((format(printf, 2, 3))) static int fail(hs_error *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* One "R ..." line into results[index]; returns the index or -1 when the line is not a whole record. */
static long parse_record(char *line, size_t n, size_t n_combos, hs_symbol_result *results) {
    char *cursor = line + 2, *end;
    unsigned long idx = strtoul(cursor, &end, 10);
    long status = strtol(end, &end, 10);
    unsigned long long bars = strtoull(end, &end, 10);
    if (idx >= n || *end != ' ') return -1;
    hs_symbol_result *r = &results[idx];
    r->status = (hs_status)status, r->n_bars = (size_t)bars;
    char *bar = strstr(end, " | ");
    if (!bar) return -1;
    snprintf(r->error, sizeof r->error, "%s", bar + 3);
    if (r->status != HS_OK) return (long)idx;
    r->rows = malloc((n_combos ? n_combos : 1) * sizeof *r->rows);
    if (!r->rows) return -1;
    cursor = end;
    for (size_t c = 0; c < n_combos; c++) {
        r->rows[c].pnl = strtod(cursor, &end);
        if (*end != ':') return free(r->rows), r->rows = NULL, -1;
        r->rows[c].trades = strtoll(end + 1, &cursor, 10);
    }
    return cursor <= bar ? (long)idx : -1;
}

static int load(hs_checkpoint *c, const char *path, size_t n, const hs_universe_layout *lay, hs_symbol_result *results,
                char *done, size_t *recorded, hs_error *err) {
    FILE *f = fopen(path, "r");
    if (!f) return fail(err, "--resume: cannot read checkpoint %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, want_n = 0, want_combos = 0;
    unsigned long long hash = 0;
    ssize_t len = getline(&line, &cap, f);
    int rc = 0;
    if (len <= 0 || sscanf(line, "hmasweep-mpi checkpoint v1 %zu %zu %llx", &want_n, &want_combos, &hash) != 3)
        rc = fail(err, "%s: not a hmasweep-mpi checkpoint", path);
    else if (want_n != n || want_combos != lay->n_combos || hash != c->universe_hash)
        rc = fail(err, "%s: checkpoint of a different universe (symbols, paths or grid changed)", path);
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] != '\n') break; /* killed mid-write: not a record */
        line[len - 1] = '\0';
        long idx = line[0] == 'R' ? parse_record(line, n, lay->n_combos, results) : -1;
        if (idx < 0) {
            rc = fail(err, "%s: unreadable record: %.60s", path, line);
        } else if (!done[idx]) {
            done[idx] = 1;
            (*recorded)++;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

int hs_checkpoint_open(hs_checkpoint *c, const char *path, int resume, size_t n, const hs_universe_layout *lay,
                       unsigned long long hash, hs_symbol_result *results, char *done, size_t *recorded,
                       hs_error *err) {
    c->universe_hash = hash;
    *recorded = 0;
    struct stat sb;
    if (!resume && stat(path, &sb) == 0)
        return fail(err, "checkpoint %s exists: pass --resume to continue it, or remove it", path);
    if (resume && load(c, path, n, lay, results, done, recorded, err) != 0) return -1;
    c->f = fopen(path, "a");
    if (!c->f) return fail(err, "cannot write checkpoint %s: %s", path, strerror(errno));
    if (!resume && (fprintf(c->f, "hmasweep-mpi checkpoint v1 %zu %zu %llx\n", n, lay->n_combos, hash) < 0 ||
                    fflush(c->f) != 0))
        return fail(err, "cannot write checkpoint %s", path);
    return 0;
}

int hs_checkpoint_record(hs_checkpoint *c, size_t index, const hs_symbol_result *r, size_t n_combos) {
    if (!c->f) return 0;
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) return -1;
    fprintf(m, "R %zu %d %zu", index, (int)r->status, r->n_bars);
    for (size_t k = 0; r->status == HS_OK && k < n_combos; k++)
        fprintf(m, " %a:%lld", r->rows[k].pnl, (long long)r->rows[k].trades);
    fputs(" | ", m);
    for (const char *p = r->error; r->status != HS_OK && *p; p++) fputc(*p == '\n' ? ' ' : *p, m);
    fputc('\n', m);
    fclose(m);
    /* One write of the whole record, then fsync: a kill leaves either the record or a partial last line. */
    int rc = fwrite(buf, 1, size, c->f) == size && fflush(c->f) == 0 && fsync(fileno(c->f)) == 0 ? 0 : -1;
    free(buf);
    return rc;
}

int hs_checkpoint_close(hs_checkpoint *c) {
    int rc = c->f && fclose(c->f) != 0 ? -1 : 0;
    c->f = NULL;
    return rc;
}
