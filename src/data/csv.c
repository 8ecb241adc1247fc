/* CSV series: the reader (a header line or none, the close column picked by name, a date column kept for
 * hs_read_series_dates, every bad cell named with its line and column) and the writer (%.17g, so every
 * double reads back exactly).  One of the three series formats (series_formats.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"
#include "series_formats.h"

/* A growable array of doubles for the CSV reader. */
typedef struct {
    double *values;
    size_t count, capacity;
} double_list;

/* ---- CSV --------------------------------------------------------------------------------------------- */

/* One line of the file, as [begin, end) without the line break. */
typedef struct {
    const char *begin, *end;
    size_t number; /* 1-based */
} text_line;

/* One cell of a line, trimmed of spaces and one pair of double quotes: [begin, end), whatever its
 * length (issue 10, defect 2: cells were cut at 96 characters and the rest parsed as a number). */
typedef struct {
    const char *begin, *end;
} csv_span;

#define CSV_QUOTE_MAX 60 /* a cell quoted in a message is cut here, with its length said */

static int double_list_push(double_list *list, double value) {
    if (list->count == list->capacity) {
        size_t grown = list->capacity ? list->capacity * 2 : 1024;
        double *bigger = realloc(list->values, grown * sizeof *bigger);
        if (!bigger)
            return 0;
        list->values = bigger;
        list->capacity = grown;
    }
    list->values[list->count++] = value;
    return 1;
}

static int is_blank(const char *begin, const char *end) {
    for (const char *p = begin; p < end; p++)
        if (!isspace((unsigned char)*p))
            return 0;
    return 1;
}

/* The next line starting at *cursor (LF or CRLF); returns 0 at the end of the data. */
static int next_line(const char **cursor, const char *end, text_line *line) {
    if (*cursor >= end)
        return 0;
    const char *newline = memchr(*cursor, '\n', (size_t)(end - *cursor));
    const char *line_end = newline ? newline : end;
    line->begin = *cursor;
    line->end = (line_end > *cursor && line_end[-1] == '\r') ? line_end - 1 : line_end;
    line->number++;
    *cursor = newline ? newline + 1 : end;
    return 1;
}

/* The cell starting at *p (a position in the line), advancing *p past its comma: one pass over a line
 * visits every cell once (issue 10, defect 5: each cell had been found from the line start, quadratic
 * in the columns: 5.7 s for a 40,000-column header). */
static csv_span csv_next_cell(const char **p, const text_line *line) {
    const char *start = *p, *cell_end = memchr(start, ',', (size_t)(line->end - start));
    if (!cell_end)
        cell_end = line->end;
    *p = cell_end < line->end ? cell_end + 1 : line->end + 1; /* past the end: no more cells */
    while (start < cell_end && isspace((unsigned char)*start))
        start++;
    while (cell_end > start && isspace((unsigned char)cell_end[-1]))
        cell_end--;
    if (cell_end - start >= 2 && *start == '"' && cell_end[-1] == '"') {
        start++;
        cell_end--;
    }
    return (csv_span){start, cell_end};
}

/* Cell `index` (0-based): one pass up to it. */
static csv_span csv_cell(const text_line *line, size_t index) {
    const char *p = line->begin;
    csv_span cell = csv_next_cell(&p, line);
    for (size_t i = 0; i < index; i++)
        cell = csv_next_cell(&p, line);
    return cell;
}

static size_t csv_cell_count(const text_line *line) {
    size_t count = 1;
    for (const char *p = line->begin; p < line->end; p++)
        count += *p == ',';
    return count;
}

static size_t span_len(csv_span c) { return (size_t)(c.end - c.begin); }

/* The whole cell is one number (strtod's syntax), or it is refused. */
static int parse_number(csv_span cell, double *value) {
    size_t len = span_len(cell);
    if (len == 0)
        return 0;
    char small[128], *text = len < sizeof small ? small : malloc(len + 1);
    if (!text)
        return 0;
    memcpy(text, cell.begin, len);
    text[len] = '\0';
    char *after;
    *value = strtod(text, &after);
    int whole = *after == '\0' && !isspace((unsigned char)text[0]);
    if (text != small)
        free(text);
    return whole;
}

static int line_is_all_numbers(const text_line *line) {
    double ignored;
    const char *p = line->begin;
    while (p <= line->end)
        if (!parse_number(csv_next_cell(&p, line), &ignored))
            return 0;
    return 1;
}

static int span_is(csv_span c, const char *word) {
    size_t n = strlen(word);
    if (span_len(c) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)c.begin[i]) != tolower((unsigned char)word[i]))
            return 0;
    return 1;
}

/* pandas' to_csv writes a Series or DataFrame with its index first, in a column whose header cell is
 * empty when the index has no name (",Close", or ",0" for an unnamed Series): that column is the index. */
static int csv_unnamed_index(const text_line *header) {
    csv_span first = csv_cell(header, 0);
    return csv_cell_count(header) >= 2 && is_blank(first.begin, first.end);
}

/* With a header: the only column, the one named "close" (any case), or the one beside an unnamed index. */
static hs_status csv_pick_column(const char *name, const text_line *header, size_t *column, hs_error *err) {
    size_t cells = csv_cell_count(header);
    if (cells == 1 || (cells == 2 && csv_unnamed_index(header))) {
        *column = cells - 1;
        return HS_OK;
    }
    const char *p = header->begin;
    for (size_t i = 0; i < cells; i++)
        if (span_is(csv_next_cell(&p, header), "close")) {
            *column = i;
            return HS_OK;
        }
    char names[160] = "";
    p = header->begin;
    for (size_t i = 0; i < cells && strlen(names) < sizeof names - 8; i++) {
        csv_span cell = csv_next_cell(&p, header);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%.*s", i ? ", " : "", (int)(span_len(cell) < 40 ? span_len(cell) : 40),
                 cell.begin);
    }
    return hs_fail(err, HS_ERR_DATA, "%s: no 'close' column among the %zu columns of the header (%s)", name,
                   cells, names);
}

/* The header's date column: a cell named date, time, datetime or timestamp (any case), else an unnamed
 * first column (pandas' index); 0 when none. */
static int csv_date_column(const text_line *header, size_t *column) {
    static const char *const names[] = {"date", "time", "datetime", "timestamp"};
    const char *p = header->begin;
    for (size_t i = 0, cells = csv_cell_count(header); i < cells; i++) {
        csv_span cell = csv_next_cell(&p, header);
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (span_is(cell, names[k])) {
                *column = i;
                return 1;
            }
    }
    *column = 0;
    return csv_unnamed_index(header);
}

static int label_push(label_list *list, csv_span cell) {
    size_t n = span_len(cell);
    if (list->cap - list->len < n + 1) {
        size_t grown = list->cap ? list->cap * 2 : 4096;
        while (grown - list->len < n + 1)
            grown *= 2;
        char *bigger = realloc(list->text, grown);
        if (!bigger)
            return 0;
        list->text = bigger, list->cap = grown;
    }
    memcpy(list->text + list->len, cell.begin, n);
    list->text[list->len + n] = '\0';
    list->len += n + 1, list->count++;
    return 1;
}

/* The last line that is not blank: blank lines after it are allowed, blank lines before it are not. */
static size_t csv_last_content_line(const char *text, const char *end) {
    const char *cursor = text;
    text_line line = {0};
    size_t last = 0;
    while (next_line(&cursor, end, &line))
        if (!is_blank(line.begin, line.end))
            last = line.number;
    return last;
}

static hs_status csv_read_row(const char *name, const text_line *line, size_t expected_cells, size_t column,
                              const csv_span *column_name, double_list *values, hs_error *err) {
    size_t cells = csv_cell_count(line);
    if (cells != expected_cells)
        return hs_fail(err, HS_ERR_DATA, "%s: line %zu has %zu columns, expected %zu", name, line->number, cells,
                       expected_cells);
    csv_span cell = csv_cell(line, column);
    double value;
    if (!parse_number(cell, &value)) {
        size_t len = span_len(cell);
        char quoted[CSV_QUOTE_MAX + 40];
        if (len > CSV_QUOTE_MAX)
            snprintf(quoted, sizeof quoted, "'%.*s...' (%zu characters)", CSV_QUOTE_MAX, cell.begin, len);
        else
            snprintf(quoted, sizeof quoted, "'%.*s'", (int)len, cell.begin);
        int name_len = column_name ? (int)(span_len(*column_name) < 40 ? span_len(*column_name) : 40) : 0;
        return hs_fail(err, HS_ERR_DATA, "%s: line %zu, column %zu%s%.*s%s: %s is not a number", name,
                       line->number, column + 1, column_name ? " (" : "", name_len,
                       column_name ? column_name->begin : "", column_name ? ")" : "", quoted);
    }
    if (!double_list_push(values, value))
        return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory at line %zu", name, line->number);
    return HS_OK;
}

/* `labels` (NULL: not wanted) gets the date column's cell of every value's row, when the header has one. */
static hs_status decode_csv_lines(const char *path, const char *text, const char *end, double_list *values,
                                  label_list *labels, hs_error *err) {
    size_t last_line = csv_last_content_line(text, end);
    if (last_line == 0)
        return hs_fail(err, HS_ERR_DATA, "%s: empty file (only blank lines)", path);

    const char *cursor = text;
    text_line line = {0};
    next_line(&cursor, end, &line);
    if (is_blank(line.begin, line.end))
        return hs_fail(err, HS_ERR_DATA, "%s: line 1 is blank", path);

    size_t expected_cells = csv_cell_count(&line), column = 0, date_column = 0;
    csv_span column_name = {NULL, NULL};
    int has_header = !line_is_all_numbers(&line);
    if (has_header) {
        hs_status status = csv_pick_column(path, &line, &column, err);
        if (status != HS_OK)
            return status;
        column_name = csv_cell(&line, column);
        if (labels && !csv_date_column(&line, &date_column))
            labels = NULL;
    } else if (expected_cells != 1) {
        return hs_fail(err, HS_ERR_DATA,
                       "%s: line 1 has %zu columns and no header; expected one column, or a header row with a "
                       "'close' column", path, expected_cells);
    } else {
        labels = NULL; /* no header, no date column */
        hs_status status = csv_read_row(path, &line, 1, 0, NULL, values, err);
        if (status != HS_OK)
            return status;
    }

    while (line.number < last_line && next_line(&cursor, end, &line)) {
        if (is_blank(line.begin, line.end))
            return hs_fail(err, HS_ERR_DATA, "%s: line %zu is blank (only trailing blank lines are allowed)",
                           path, line.number);
        hs_status status = csv_read_row(path, &line, expected_cells, column, has_header ? &column_name : NULL,
                                        values, err);
        if (status != HS_OK)
            return status;
        if (labels && !label_push(labels, csv_cell(&line, date_column)))
            return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for the dates at line %zu", path, line.number);
    }
    if (values->count == 0)
        return hs_fail(err, HS_ERR_DATA, "%s: no values (only a header line)", path);
    return HS_OK;
}

hs_status hs_csv_decode(const char *path, const unsigned char *data, size_t len, double **out, size_t *n,
                          label_list *labels, hs_error *err) {
    const char *text = (const char *)data, *end = text + len;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte-order mark, as Excel writes */
        text += 3;
    if (memchr(text, '\0', (size_t)(end - text)))
        return hs_fail(err, HS_ERR_DATA, "%s: not a text file (it contains NUL bytes)", path);
    double_list values = {0};
    hs_status status = decode_csv_lines(path, text, end, &values, labels, err);
    if (status != HS_OK) {
        free(values.values);
        return status;
    }
    *out = values.values;
    *n = values.count;
    return HS_OK;
}

int hs_csv_write(FILE *f, const double *x, size_t n) {
    if (fputs("close\n", f) == EOF)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (fprintf(f, "%.17g\n", x[i]) < 0) /* 17 significant digits: every double reads back exactly */
            return 0;
    return 1;
}
