/* hs_universe_open / hs_universe_list: what `--inputs` names, as (symbol, path) pairs.  Lives beside the
 * readers because it is input handling; the series themselves are read later, one by one, so a bad file
 * becomes that symbol's error, never the universe's.
 *
 * Memory (issue 20, item 11): the listing is one block of "symbol\0path\0" strings plus one offset per
 * series, about the bytes of the names.  The old array of hs_universe_entry cost 4,224 bytes a series
 * whatever the names (400,000 manifest lines: 1.7 GB of entries); hs_universe_list still returns that
 * array for the callers of API 1.0, built from the compact listing.  The listing is bounded
 * (HS_UNIVERSE_MAX_LISTING_BYTES) with an error that says so. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

#define MAX_SYMBOL (sizeof(((hs_universe_entry *)0)->symbol) - 1) /* 127: the 1.0 struct's limit, kept */
#define MAX_PATH (sizeof(((hs_universe_entry *)0)->path) - 1)     /* 4095 */

struct hs_universe {
    char *names; /* "symbol\0path\0" per series */
    size_t names_len, names_cap;
    size_t *at; /* at[i]: offset of series i's symbol in names; its path follows the symbol's NUL */
    size_t n, cap;
};

static size_t listing_bytes(const hs_universe *u, size_t more) {
    return u->names_len + more + (u->n + 1) * sizeof *u->at;
}

static int grow(void **p, size_t *cap, size_t need, size_t size, size_t first) {
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap : first;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return 0;
    *p = q, *cap = c;
    return 1;
}

/* Append one series.  symbol NULL: the file name without its extension (truncated to MAX_SYMBOL). */
static hs_status push_entry(hs_universe *u, const char *symbol, const char *path, hs_error *err) {
    size_t path_len = strlen(path);
    if (path_len > MAX_PATH) return hs_fail(err, HS_ERR_USAGE, "path too long (%zu bytes): %.64s...", path_len, path);
    char derived[MAX_SYMBOL + 1];
    if (!symbol) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t len = strlen(base) < MAX_SYMBOL ? strlen(base) : MAX_SYMBOL; /* a longer name is cut */
        memcpy(derived, base, len);
        derived[len] = '\0';
        char *dot = strrchr(derived, '.');
        if (dot && dot != derived) *dot = '\0';
        symbol = derived;
    }
    size_t sym_len = strlen(symbol), need = sym_len + 1 + path_len + 1;
    if (listing_bytes(u, need) > HS_UNIVERSE_MAX_LISTING_BYTES)
        return hs_fail(err, HS_ERR_USAGE,
                       "the universe's listing passes %zu bytes after %zu series: split it into several runs",
                       (size_t)HS_UNIVERSE_MAX_LISTING_BYTES, u->n);
    if (!grow((void **)&u->names, &u->names_cap, u->names_len + need, 1, 4096) ||
        !grow((void **)&u->at, &u->cap, u->n + 1, sizeof *u->at, 64))
        return hs_fail(err, HS_ERR_NOMEM, "out of memory listing %zu series", u->n + 1);
    u->at[u->n++] = u->names_len;
    memcpy(u->names + u->names_len, symbol, sym_len + 1);
    memcpy(u->names + u->names_len + sym_len + 1, path, path_len + 1);
    u->names_len += need;
    return HS_OK;
}

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every non-hidden regular file of a directory, by name.  Which of them are series is the readers'
 * business: a file that is not becomes an error row with the reader's message.  A FIFO, a socket or a
 * device is not listed (opening a FIFO would wait for a writer forever). */
static hs_status list_directory(const char *dir, hs_universe *u, hs_error *err) {
    DIR *d = opendir(dir);
    if (!d) return hs_fail(err, HS_ERR_DATA, "%s: cannot open directory: %s", dir, strerror(errno));
    hs_status st = HS_OK;
    struct dirent *de;
    char path[MAX_PATH + 1];
    char **names = NULL;
    size_t n = 0, cap = 0;
    while (st == HS_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path) continue;
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
        if (!grow((void **)&names, &cap, n + 1, sizeof *names, 64) || !(names[n] = strdup(path)))
            st = hs_fail(err, HS_ERR_NOMEM, "out of memory listing %s", dir);
        else n++;
    }
    closedir(d);
    if (st == HS_OK) qsort(names, n, sizeof *names, by_string);
    for (size_t i = 0; i < n; i++) {
        if (st == HS_OK) st = push_entry(u, NULL, names[i], err);
        free(names[i]);
    }
    free(names);
    return st;
}

static hs_status list_glob(const char *pattern, hs_universe *u, hs_error *err) {
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOMATCH) return hs_fail(err, HS_ERR_DATA, "%s: no file matches", pattern);
    if (rc != 0) return hs_fail(err, HS_ERR_DATA, "%s: glob failed (%d)", pattern, rc);
    hs_status st = HS_OK;
    for (size_t i = 0; st == HS_OK && i < g.gl_pathc; i++) st = push_entry(u, NULL, g.gl_pathv[i], err);
    globfree(&g);
    return st;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
    return s;
}

/* One manifest line: "PATH" or "SYMBOL PATH" (whitespace-separated; a path may not contain spaces). */
static hs_status manifest_line(const char *manifest, size_t line_no, char *line, const char *base_dir,
                               hs_universe *u, hs_error *err) {
    char *text = trim(line), *hash = strchr(text, '#');
    if (hash) *hash = '\0', text = trim(text);
    if (!*text) return HS_OK;
    char *symbol = NULL, *path = text, *gap = strpbrk(text, " \t");
    if (gap) {
        *gap = '\0';
        symbol = text, path = trim(gap + 1);
        if (strpbrk(path, " \t"))
            return hs_fail(err, HS_ERR_USAGE, "%s:%zu: expected `PATH` or `SYMBOL PATH`, got more fields", manifest,
                           line_no);
        if (strlen(symbol) > MAX_SYMBOL)
            return hs_fail(err, HS_ERR_USAGE, "%s:%zu: symbol longer than %zu bytes", manifest, line_no, MAX_SYMBOL);
    }
    char full[MAX_PATH + 1];
    if (path[0] == '/' || !base_dir[0]) {
        if (strlen(path) > MAX_PATH) return hs_fail(err, HS_ERR_USAGE, "%s:%zu: path too long", manifest, line_no);
        snprintf(full, sizeof full, "%s", path);
    } else if ((size_t)snprintf(full, sizeof full, "%s/%s", base_dir, path) >= sizeof full) {
        return hs_fail(err, HS_ERR_USAGE, "%s:%zu: path too long", manifest, line_no);
    }
    return push_entry(u, symbol, full, err);
}

/* A manifest is text naming files; `run --inputs prices.csv` used to read a price file as one and print
 * an error per price (6,006 of them).  A file is taken for a series when it starts like one: the .npy
 * magic, a NUL byte (raw f64), or a first meaningful line that is a number or a CSV header naming a
 * `close` column. */
static const char *series_look(const char *head, size_t len) {
    if (len >= 6 && !memcmp(head, "\x93NUMPY", 6)) return "a .npy array";
    if (memchr(head, '\0', len)) return "binary (raw f64?)";
    const char *p = head, *end = head + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((eol ? eol : end) - p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        char *t = trim(line), *num_end;
        if (*t && *t != '#') {
            int numeric_start = isdigit((unsigned char)*t) || *t == '+' || *t == '-' || *t == '.';
            if (numeric_start && (strtod(t, &num_end), num_end != t) && *trim(num_end) == '\0')
                return "a column of numbers";
            for (char *c = t; *c; c++) *c = (char)tolower((unsigned char)*c);
            if (strchr(t, ',') ? strstr(t, "close") != NULL : !strcmp(t, "close")) return "a CSV of prices";
            return NULL;
        }
        if (!eol) break;
        p = eol + 1;
    }
    return NULL;
}

static hs_status list_manifest(const char *manifest, hs_universe *u, hs_error *err) {
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. */
    int fd = open(manifest, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return hs_fail(err, HS_ERR_DATA, "%s: cannot open manifest: %s", manifest, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) sb.st_mode = 0;
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return hs_fail(err, HS_ERR_USAGE, "%s: not a regular file, a directory or a glob (%s): refused", manifest,
                       S_ISFIFO(sb.st_mode) ? "a FIFO" : "a device or socket");
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return hs_fail(err, HS_ERR_NOMEM, "%s: cannot read manifest", manifest);
    }
    char line[8192];
    size_t head = fread(line, 1, sizeof line, f);
    const char *looks = series_look(line, head);
    if (looks) {
        fclose(f);
        return hs_fail(err, HS_ERR_USAGE, "%s looks like a price series (%s), not a manifest: did you mean --input %s?",
                       manifest, looks, manifest);
    }
    rewind(f);
    char base_dir[MAX_PATH + 1] = "";
    const char *slash = strrchr(manifest, '/');
    if (slash) snprintf(base_dir, sizeof base_dir, "%.*s", (int)(slash - manifest), manifest);
    size_t line_no = 0;
    hs_status st = HS_OK;
    while (st == HS_OK && fgets(line, sizeof line, f)) {
        line_no++;
        if (!strchr(line, '\n') && !feof(f)) st = hs_fail(err, HS_ERR_USAGE, "%s:%zu: line too long", manifest, line_no);
        else st = manifest_line(manifest, line_no, line, base_dir, u, err);
    }
    fclose(f);
    return st;
}

/* Two series with one symbol give rows nobody can tell apart (DUP.f64 and DUP.csv): an error naming both. */
static hs_status check_unique_symbols(const hs_universe *u, hs_error *err) {
    const char **sym = malloc((u->n ? u->n : 1) * sizeof *sym);
    if (!sym) return hs_fail(err, HS_ERR_NOMEM, "out of memory checking %zu symbols", u->n);
    for (size_t i = 0; i < u->n; i++) sym[i] = u->names + u->at[i];
    qsort(sym, u->n, sizeof *sym, by_string);
    hs_status st = HS_OK;
    for (size_t i = 1; st == HS_OK && i < u->n; i++)
        if (!strcmp(sym[i - 1], sym[i])) {
            const char *a = sym[i - 1] + strlen(sym[i - 1]) + 1, *b = sym[i] + strlen(sym[i]) + 1;
            if (strcmp(a, b) > 0) {
                const char *t = a;
                a = b, b = t;
            }
            st = hs_fail(err, HS_ERR_USAGE,
                         "symbol '%.100s' names two series, %.80s and %.80s: rename one, or give each its own symbol "
                         "in a manifest (`SYMBOL PATH`)",
                         sym[i], a, b);
        }
    free(sym);
    return st;
}

void hs_universe_close(hs_universe *u) {
    if (!u) return;
    free(u->names);
    free(u->at);
    free(u);
}

hs_status hs_universe_open(const char *spec, hs_universe **out, hs_error *err) {
    if (out) *out = NULL;
    if (!spec || !*spec || !out) return hs_fail(err, HS_ERR_USAGE, "--inputs: empty or NULL");
    hs_universe *u = calloc(1, sizeof *u);
    if (!u) return hs_fail(err, HS_ERR_NOMEM, "out of memory listing %s", spec);
    struct stat sb;
    hs_status st;
    if (strpbrk(spec, "*?[")) st = list_glob(spec, u, err);
    else if (stat(spec, &sb) != 0) st = hs_fail(err, HS_ERR_DATA, "%s: %s", spec, strerror(errno));
    else if (S_ISDIR(sb.st_mode)) st = list_directory(spec, u, err);
    else st = list_manifest(spec, u, err);
    if (st == HS_OK && u->n == 0) st = hs_fail(err, HS_ERR_DATA, "%s: lists no series", spec);
    if (st == HS_OK) st = check_unique_symbols(u, err);
    if (st != HS_OK) {
        hs_universe_close(u);
        return st;
    }
    *out = u;
    return HS_OK;
}

size_t hs_universe_count(const hs_universe *u) { return u ? u->n : 0; }

const char *hs_universe_symbol(const hs_universe *u, size_t i) { return u && i < u->n ? u->names + u->at[i] : NULL; }

const char *hs_universe_path(const hs_universe *u, size_t i) {
    const char *s = hs_universe_symbol(u, i);
    return s ? s + strlen(s) + 1 : NULL;
}

hs_status hs_universe_list(const char *spec, hs_universe_entry **entries, size_t *n, hs_error *err) {
    if (!entries || !n) return hs_fail(err, HS_ERR_USAGE, "--inputs: empty or NULL");
    hs_universe *u;
    hs_status st = hs_universe_open(spec, &u, err);
    if (st != HS_OK) return st;
    hs_universe_entry *e = malloc(u->n * sizeof *e);
    if (!e) {
        size_t count = u->n;
        hs_universe_close(u);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory for %zu entries of 4 KB (hs_universe_open is compact)",
                       count);
    }
    for (size_t i = 0; i < u->n; i++) {
        snprintf(e[i].symbol, sizeof e[i].symbol, "%s", hs_universe_symbol(u, i));
        snprintf(e[i].path, sizeof e[i].path, "%s", hs_universe_path(u, i));
    }
    *entries = e, *n = u->n;
    hs_universe_close(u);
    return HS_OK;
}
