/* hs_universe_list: what `--inputs` names, as (symbol, path) pairs.  Lives beside the readers because it
 * is input handling; the series themselves are read later, one by one, by hs_read_series, so a bad file
 * becomes that symbol's error, never the universe's. */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"

typedef struct {
    hs_universe_entry *v;
    size_t n, cap;
} entry_list;

static hs_status push_entry(entry_list *l, const char *symbol, const char *path, hs_error *err) {
    if (strlen(path) >= sizeof l->v->path)
        return hs_fail(err, HS_ERR_USAGE, "path too long (%zu bytes): %.64s...", strlen(path), path);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        hs_universe_entry *v = realloc(l->v, cap * sizeof *v);
        if (!v) return hs_fail(err, HS_ERR_NOMEM, "out of memory listing %zu series", cap);
        l->v = v, l->cap = cap;
    }
    hs_universe_entry *e = &l->v[l->n++];
    snprintf(e->path, sizeof e->path, "%s", path);
    if (symbol) {
        snprintf(e->symbol, sizeof e->symbol, "%s", symbol);
        return HS_OK;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(e->symbol, sizeof e->symbol, "%s", base);
    char *dot = strrchr(e->symbol, '.');
    if (dot && dot != e->symbol) *dot = '\0';
    return HS_OK;
}

static int by_path(const void *a, const void *b) {
    return strcmp(((const hs_universe_entry *)a)->path, ((const hs_universe_entry *)b)->path);
}

/* Every non-hidden regular file of a directory, by name.  Which of them are series is the readers'
 * business: a file that is not becomes an error row with the reader's message. */
static hs_status list_directory(const char *dir, entry_list *l, hs_error *err) {
    DIR *d = opendir(dir);
    if (!d) return hs_fail(err, HS_ERR_DATA, "%s: cannot open directory: %s", dir, strerror(errno));
    hs_status st = HS_OK;
    struct dirent *de;
    char path[4096];
    while (st == HS_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path) continue;
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) st = push_entry(l, NULL, path, err);
    }
    closedir(d);
    if (st == HS_OK) qsort(l->v, l->n, sizeof *l->v, by_path);
    return st;
}

static hs_status list_glob(const char *pattern, entry_list *l, hs_error *err) {
    glob_t g;
    int rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOMATCH) return hs_fail(err, HS_ERR_DATA, "%s: no file matches", pattern);
    if (rc != 0) return hs_fail(err, HS_ERR_DATA, "%s: glob failed (%d)", pattern, rc);
    hs_status st = HS_OK;
    for (size_t i = 0; st == HS_OK && i < g.gl_pathc; i++) st = push_entry(l, NULL, g.gl_pathv[i], err);
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
                               entry_list *l, hs_error *err) {
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
        if (strlen(symbol) >= sizeof l->v->symbol)
            return hs_fail(err, HS_ERR_USAGE, "%s:%zu: symbol longer than %zu bytes", manifest, line_no,
                           sizeof l->v->symbol - 1);
    }
    char full[4096];
    if (path[0] == '/' || !base_dir[0]) snprintf(full, sizeof full, "%s", path);
    else if ((size_t)snprintf(full, sizeof full, "%s/%s", base_dir, path) >= sizeof full)
        return hs_fail(err, HS_ERR_USAGE, "%s:%zu: path too long", manifest, line_no);
    return push_entry(l, symbol, full, err);
}

static hs_status list_manifest(const char *manifest, entry_list *l, hs_error *err) {
    FILE *f = fopen(manifest, "r");
    if (!f) return hs_fail(err, HS_ERR_DATA, "%s: cannot open manifest: %s", manifest, strerror(errno));
    char base_dir[4096] = "";
    const char *slash = strrchr(manifest, '/');
    if (slash) snprintf(base_dir, sizeof base_dir, "%.*s", (int)(slash - manifest), manifest);
    char line[8192];
    size_t line_no = 0;
    hs_status st = HS_OK;
    while (st == HS_OK && fgets(line, sizeof line, f)) {
        line_no++;
        if (!strchr(line, '\n') && !feof(f)) st = hs_fail(err, HS_ERR_USAGE, "%s:%zu: line too long", manifest, line_no);
        else st = manifest_line(manifest, line_no, line, base_dir, l, err);
    }
    fclose(f);
    return st;
}

hs_status hs_universe_list(const char *spec, hs_universe_entry **entries, size_t *n, hs_error *err) {
    if (!spec || !*spec || !entries || !n) return hs_fail(err, HS_ERR_USAGE, "--inputs: empty or NULL");
    entry_list l = {0};
    struct stat sb;
    hs_status st;
    if (strpbrk(spec, "*?[")) st = list_glob(spec, &l, err);
    else if (stat(spec, &sb) != 0) st = hs_fail(err, HS_ERR_DATA, "%s: %s", spec, strerror(errno));
    else if (S_ISDIR(sb.st_mode)) st = list_directory(spec, &l, err);
    else st = list_manifest(spec, &l, err);
    if (st == HS_OK && l.n == 0) st = hs_fail(err, HS_ERR_DATA, "%s: lists no series", spec);
    if (st != HS_OK) {
        free(l.v);
        return st;
    }
    *entries = l.v, *n = l.n;
    return HS_OK;
}
