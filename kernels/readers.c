/* Reading and writing close series: raw little-endian float64, CSV and .npy (SPEC §1, "real data").
 *
 * The format follows the file name: ".csv" is CSV, ".npy" is NumPy's format, anything else is raw f64.
 * A reader loads the whole file, decodes it, and passes the values through hs_check_series, so a caller
 * never sees a NaN, an infinity or a non-positive price.  Every error message starts with the file name
 * and says what is wrong with the file (wrong dtype, truncated header, a non-numeric CSV cell with its line
 * and column, ...).  Bytes are decoded explicitly as little-endian, so big-endian hosts read the same
 * files.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"

enum series_format { FORMAT_RAW_F64, FORMAT_CSV, FORMAT_NPY };

/* A growable array of doubles for the CSV reader. */
typedef struct {
    double *values;
    size_t count, capacity;
} double_list;

/* ---- small helpers ----------------------------------------------------------------------------------- */

static int ends_with_ignoring_case(const char *text, const char *suffix) {
    size_t text_len = strlen(text), suffix_len = strlen(suffix);
    if (suffix_len > text_len)
        return 0;
    const char *tail = text + text_len - suffix_len;
    for (size_t i = 0; i < suffix_len; i++)
        if (tolower((unsigned char)tail[i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

static enum series_format format_from_path(const char *path) {
    if (ends_with_ignoring_case(path, ".csv"))
        return FORMAT_CSV;
    if (ends_with_ignoring_case(path, ".npy"))
        return FORMAT_NPY;
    return FORMAT_RAW_F64;
}

static double load_le_f64(const unsigned char *p) {
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = (bits << 8) | p[i];
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static void store_le_f64(unsigned char *p, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(bits >> (8 * i));
}

/* Reads the whole file.  Reads in chunks rather than trusting a size from fseek, so pipes work too. */
static hs_status read_whole_file(const char *path, unsigned char **data, size_t *len, hs_error *err) {
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return hs_fail(err, HS_ERR_DATA, "cannot open %s: %s", path, strerror(errno));
    size_t capacity = 0, used = 0;
    unsigned char *buf = NULL;
    for (;;) {
        if (used == capacity) {
            size_t grown = capacity ? capacity * 2 : 65536;
            unsigned char *bigger = realloc(buf, grown);
            if (!bigger) {
                free(buf);
                fclose(f);
                return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory after reading %zu bytes", path, used);
            }
            buf = bigger;
            capacity = grown;
        }
        errno = 0;
        size_t got = fread(buf + used, 1, capacity - used, f);
        used += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f) ? (errno ? errno : EIO) : 0; /* e.g. EISDIR for a directory */
    fclose(f);
    if (read_error) {
        free(buf);
        return hs_fail(err, HS_ERR_DATA, "error reading %s: %s", path, strerror(read_error));
    }
    *data = buf;
    *len = used;
    return HS_OK;
}

/* ---- raw little-endian float64 ----------------------------------------------------------------------- */

static hs_status decode_raw_f64(const char *path, const unsigned char *data, size_t len, double **out,
                                size_t *n, hs_error *err) {
    if (len % 8 != 0)
        return hs_fail(err, HS_ERR_DATA,
                       "%s: truncated raw float64 file: %zu bytes is not a multiple of 8", path, len);
    size_t count = len / 8;
    double *values = malloc(count * sizeof *values);
    if (!values)
        return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for %zu values", path, count);
    for (size_t i = 0; i < count; i++)
        values[i] = load_le_f64(data + 8 * i);
    *out = values;
    *n = count;
    return HS_OK;
}

/* ---- .npy -------------------------------------------------------------------------------------------- */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_DIMS 32

/* The parts of a .npy header dict that matter here. */
typedef struct {
    char descr[64];
    int fortran_order;
    int n_dims;
    size_t dims[NPY_MAX_DIMS];
    char shape_text[96]; /* as written, for messages */
} npy_header;

static const char *skip_spaces(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Finds `'key':` (or `"key":`) in the header dict and returns the first character of its value. */
static const char *npy_find_value(const char *header, const char *key) {
    size_t key_len = strlen(key);
    for (const char *p = header; (p = strpbrk(p, "'\"")) != NULL; p++) {
        char quote = *p;
        if (strncmp(p + 1, key, key_len) != 0 || p[1 + key_len] != quote)
            continue;
        const char *colon = skip_spaces(p + 2 + key_len);
        if (*colon == ':')
            return skip_spaces(colon + 1);
    }
    return NULL;
}

static hs_status npy_parse_descr(const char *path, const char *header, npy_header *h, hs_error *err) {
    const char *v = npy_find_value(header, "descr");
    if (!v)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: no 'descr' key", path);
    if (*v != '\'' && *v != '"')
        return hs_fail(err, HS_ERR_DATA, "%s: wrong dtype: a structured dtype; expected float64 ('<f8')", path);
    const char *end = strchr(v + 1, *v);
    size_t len = end ? (size_t)(end - v - 1) : 0;
    if (!end || len >= sizeof h->descr)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: unreadable 'descr'", path);
    memcpy(h->descr, v + 1, len);
    h->descr[len] = '\0';
    return HS_OK;
}

static hs_status npy_parse_fortran_order(const char *path, const char *header, npy_header *h,
                                         hs_error *err) {
    const char *v = npy_find_value(header, "fortran_order");
    if (!v)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: no 'fortran_order' key", path);
    if (strncmp(v, "False", 5) == 0)
        h->fortran_order = 0;
    else if (strncmp(v, "True", 4) == 0)
        h->fortran_order = 1;
    else
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: 'fortran_order' is neither True nor False",
                       path);
    return HS_OK;
}

static hs_status npy_parse_shape(const char *path, const char *header, npy_header *h, hs_error *err) {
    const char *v = npy_find_value(header, "shape");
    if (!v || *v != '(')
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: no 'shape' tuple", path);
    const char *close = strchr(v, ')');
    if (!close)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: unterminated 'shape' tuple", path);
    size_t text_len = (size_t)(close - v + 1);
    if (text_len >= sizeof h->shape_text)
        text_len = sizeof h->shape_text - 1;
    memcpy(h->shape_text, v, text_len);
    h->shape_text[text_len] = '\0';

    h->n_dims = 0;
    const char *p = skip_spaces(v + 1);
    while (*p != ')') {
        char *after;
        errno = 0;
        unsigned long long dim = strtoull(p, &after, 10);
        if (after == p || errno == ERANGE || *p == '-' || dim > SIZE_MAX || h->n_dims == NPY_MAX_DIMS)
            return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: bad 'shape' %s", path, h->shape_text);
        h->dims[h->n_dims++] = (size_t)dim;
        p = skip_spaces(after);
        if (*p == ',')
            p = skip_spaces(p + 1);
        else if (*p != ')')
            return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: bad 'shape' %s", path, h->shape_text);
    }
    return HS_OK;
}

/* Accepts exactly a 1-D, C-order, little-endian float64 array. */
static hs_status npy_check_header(const char *path, const npy_header *h, hs_error *err) {
    if (strcmp(h->descr, "<f8") != 0) {
        const char *why = strcmp(h->descr, ">f8") == 0 ? "big-endian float64" : "not float64";
        return hs_fail(err, HS_ERR_DATA, "%s: wrong dtype '%s' (%s); expected little-endian float64 '<f8'",
                       path, h->descr, why);
    }
    if (h->fortran_order)
        return hs_fail(err, HS_ERR_DATA, "%s: fortran_order is True; expected False (a C-order array)", path);
    if (h->n_dims != 1)
        return hs_fail(err, HS_ERR_DATA, "%s: the array is %d-D (shape %s); expected a 1-D array", path,
                       h->n_dims, h->shape_text);
    return HS_OK;
}

/* The preamble: magic, version, header length.  Sets *header_start and *header_len. */
static hs_status npy_read_preamble(const char *path, const unsigned char *data, size_t len,
                                   size_t *header_start, size_t *header_len, hs_error *err) {
    if (len < NPY_MAGIC_LEN || memcmp(data, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return hs_fail(err, HS_ERR_DATA, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    if (len < 8)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", path, len);
    int major = data[6], minor = data[7];
    if (major == 1) {
        if (len < 10)
            return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", path, len);
        *header_len = (size_t)data[8] | ((size_t)data[9] << 8);
        *header_start = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", path, len);
        *header_len = (size_t)data[8] | ((size_t)data[9] << 8) | ((size_t)data[10] << 16) |
                      ((size_t)data[11] << 24);
        *header_start = 12;
    } else {
        return hs_fail(err, HS_ERR_DATA, "%s: unsupported .npy format version %d.%d (expected 1.0, 2.0 or 3.0)",
                       path, major, minor);
    }
    if (*header_len > len - *header_start)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header: it claims %zu bytes, the file holds %zu",
                       path, *header_len, len - *header_start);
    return HS_OK;
}

static hs_status npy_parse_header(const char *path, const unsigned char *text, size_t text_len,
                                  npy_header *h, hs_error *err) {
    char *header = malloc(text_len + 1); /* NUL-terminated copy for the string functions */
    if (!header)
        return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for the .npy header", path);
    memcpy(header, text, text_len);
    header[text_len] = '\0';
    hs_status status = npy_parse_descr(path, header, h, err);
    if (status == HS_OK)
        status = npy_parse_fortran_order(path, header, h, err);
    if (status == HS_OK)
        status = npy_parse_shape(path, header, h, err);
    free(header);
    return status;
}

static hs_status decode_npy(const char *path, const unsigned char *data, size_t len, double **out, size_t *n,
                            hs_error *err) {
    size_t header_start = 0, header_len = 0;
    hs_status status = npy_read_preamble(path, data, len, &header_start, &header_len, err);
    if (status != HS_OK)
        return status;
    npy_header h;
    status = npy_parse_header(path, data + header_start, header_len, &h, err);
    if (status == HS_OK)
        status = npy_check_header(path, &h, err);
    if (status != HS_OK)
        return status;

    size_t count = h.dims[0], data_start = header_start + header_len, available = len - data_start;
    if (count > available / 8)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated data: shape %s needs %zu bytes, the file holds %zu",
                       path, h.shape_text, count > SIZE_MAX / 8 ? SIZE_MAX : count * 8, available);
    if (available != count * 8)
        return hs_fail(err, HS_ERR_DATA, "%s: %zu unexpected bytes after the %zu values of shape %s", path,
                       available - count * 8, count, h.shape_text);
    return decode_raw_f64(path, data + data_start, available, out, n, err);
}

/* ---- CSV --------------------------------------------------------------------------------------------- */

/* One line of the file, as [begin, end) without the line break. */
typedef struct {
    const char *begin, *end;
    size_t number; /* 1-based */
} text_line;

#define CSV_MAX_CELL 96 /* a cell longer than this cannot be a number we accept; it is quoted truncated */

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

/* Cell `index` of the line (0-based), trimmed of spaces and one pair of double quotes, into `cell`. */
static void csv_cell(const text_line *line, size_t index, char cell[CSV_MAX_CELL + 1]) {
    const char *p = line->begin;
    for (size_t i = 0; i < index; i++) {
        p = memchr(p, ',', (size_t)(line->end - p));
        p = p ? p + 1 : line->end;
    }
    const char *cell_end = memchr(p, ',', (size_t)(line->end - p));
    if (!cell_end)
        cell_end = line->end;
    while (p < cell_end && isspace((unsigned char)*p))
        p++;
    while (cell_end > p && isspace((unsigned char)cell_end[-1]))
        cell_end--;
    if (cell_end - p >= 2 && *p == '"' && cell_end[-1] == '"') {
        p++;
        cell_end--;
    }
    size_t len = (size_t)(cell_end - p);
    if (len > CSV_MAX_CELL)
        len = CSV_MAX_CELL;
    memcpy(cell, p, len);
    cell[len] = '\0';
}

static size_t csv_cell_count(const text_line *line) {
    size_t count = 1;
    for (const char *p = line->begin; p < line->end; p++)
        count += *p == ',';
    return count;
}

static int parse_number(const char *cell, double *value) {
    if (!*cell)
        return 0;
    char *after;
    *value = strtod(cell, &after);
    return *after == '\0';
}

static int line_is_all_numbers(const text_line *line) {
    char cell[CSV_MAX_CELL + 1];
    double ignored;
    size_t cells = csv_cell_count(line);
    for (size_t i = 0; i < cells; i++) {
        csv_cell(line, i, cell);
        if (!parse_number(cell, &ignored))
            return 0;
    }
    return 1;
}

/* With a header: the only column, or the one named "close" (any case). */
static hs_status csv_pick_column(const char *path, const text_line *header, size_t *column, hs_error *err) {
    size_t cells = csv_cell_count(header);
    char cell[CSV_MAX_CELL + 1];
    if (cells == 1) {
        *column = 0;
        return HS_OK;
    }
    for (size_t i = 0; i < cells; i++) {
        csv_cell(header, i, cell);
        if (strlen(cell) == 5 && ends_with_ignoring_case(cell, "close")) {
            *column = i;
            return HS_OK;
        }
    }
    char names[160] = "";
    for (size_t i = 0; i < cells && strlen(names) < sizeof names - 8; i++) {
        csv_cell(header, i, cell);
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", cell);
    }
    return hs_fail(err, HS_ERR_DATA, "%s: no 'close' column among the %zu columns of the header (%s)", path,
                   cells, names);
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

static hs_status csv_read_row(const char *path, const text_line *line, size_t expected_cells, size_t column,
                              const char *column_name, double_list *values, hs_error *err) {
    size_t cells = csv_cell_count(line);
    if (cells != expected_cells)
        return hs_fail(err, HS_ERR_DATA, "%s: line %zu has %zu columns, expected %zu", path, line->number, cells,
                       expected_cells);
    char cell[CSV_MAX_CELL + 1];
    csv_cell(line, column, cell);
    double value;
    if (!parse_number(cell, &value))
        return hs_fail(err, HS_ERR_DATA, "%s: line %zu, column %zu%s%s%s: '%s' is not a number", path,
                       line->number, column + 1, column_name ? " (" : "", column_name ? column_name : "",
                       column_name ? ")" : "", cell);
    if (!double_list_push(values, value))
        return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory at line %zu", path, line->number);
    return HS_OK;
}

static hs_status decode_csv_lines(const char *path, const char *text, const char *end, double_list *values,
                                  hs_error *err) {
    size_t last_line = csv_last_content_line(text, end);
    if (last_line == 0)
        return hs_fail(err, HS_ERR_DATA, "%s: empty file (only blank lines)", path);

    const char *cursor = text;
    text_line line = {0};
    next_line(&cursor, end, &line);
    if (is_blank(line.begin, line.end))
        return hs_fail(err, HS_ERR_DATA, "%s: line 1 is blank", path);

    size_t expected_cells = csv_cell_count(&line), column = 0;
    char column_name[CSV_MAX_CELL + 1];
    int has_header = !line_is_all_numbers(&line);
    if (has_header) {
        hs_status status = csv_pick_column(path, &line, &column, err);
        if (status != HS_OK)
            return status;
        csv_cell(&line, column, column_name);
    } else if (expected_cells != 1) {
        return hs_fail(err, HS_ERR_DATA,
                       "%s: line 1 has %zu columns and no header; expected one column, or a header row with a "
                       "'close' column", path, expected_cells);
    } else {
        hs_status status = csv_read_row(path, &line, 1, 0, NULL, values, err);
        if (status != HS_OK)
            return status;
    }

    while (line.number < last_line && next_line(&cursor, end, &line)) {
        if (is_blank(line.begin, line.end))
            return hs_fail(err, HS_ERR_DATA, "%s: line %zu is blank (only trailing blank lines are allowed)",
                           path, line.number);
        hs_status status = csv_read_row(path, &line, expected_cells, column, has_header ? column_name : NULL,
                                        values, err);
        if (status != HS_OK)
            return status;
    }
    if (values->count == 0)
        return hs_fail(err, HS_ERR_DATA, "%s: no values (only a header line)", path);
    return HS_OK;
}

static hs_status decode_csv(const char *path, const unsigned char *data, size_t len, double **out, size_t *n,
                            hs_error *err) {
    const char *text = (const char *)data, *end = text + len;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte-order mark, as Excel writes */
        text += 3;
    if (memchr(text, '\0', (size_t)(end - text)))
        return hs_fail(err, HS_ERR_DATA, "%s: not a text file (it contains NUL bytes)", path);
    double_list values = {0};
    hs_status status = decode_csv_lines(path, text, end, &values, err);
    if (status != HS_OK) {
        free(values.values);
        return status;
    }
    *out = values.values;
    *n = values.count;
    return HS_OK;
}

/* ---- the public readers and writers ------------------------------------------------------------------ */

static hs_status decode_series(const char *path, const unsigned char *data, size_t len, double **out,
                               size_t *n, hs_error *err) {
    switch (format_from_path(path)) {
    case FORMAT_CSV:
        return decode_csv(path, data, len, out, n, err);
    case FORMAT_NPY:
        return decode_npy(path, data, len, out, n, err);
    case FORMAT_RAW_F64:
    default:
        return decode_raw_f64(path, data, len, out, n, err);
    }
}

hs_status hs_read_series(const char *path, double **out, size_t *n, hs_error *err) {
    if (!path || !out || !n)
        return hs_fail(err, HS_ERR_USAGE, "hs_read_series: path, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    unsigned char *data;
    size_t len;
    hs_status status = read_whole_file(path, &data, &len, err);
    if (status != HS_OK)
        return status;
    if (len == 0) {
        free(data);
        return hs_fail(err, HS_ERR_DATA, "%s: empty file", path);
    }
    double *values = NULL;
    size_t count = 0;
    status = decode_series(path, data, len, &values, &count, err);
    free(data);
    if (status != HS_OK)
        return status;

    hs_error check;
    status = hs_check_series(values, count, &check);
    if (status != HS_OK) {
        free(values);
        return hs_fail(err, status, "%s: %s", path, check.msg);
    }
    *out = values;
    *n = count;
    return HS_OK;
}

static int write_f64(FILE *f, const double *x, size_t n) {
    unsigned char chunk[8 * 512];
    for (size_t i = 0; i < n;) {
        size_t take = n - i < 512 ? n - i : 512;
        for (size_t k = 0; k < take; k++)
            store_le_f64(chunk + 8 * k, x[i + k]);
        if (fwrite(chunk, 8, take, f) != take)
            return 0;
        i += take;
    }
    return 1;
}

static int write_csv(FILE *f, const double *x, size_t n) {
    if (fputs("close\n", f) == EOF)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (fprintf(f, "%.17g\n", x[i]) < 0) /* 17 significant digits: every double reads back exactly */
            return 0;
    return 1;
}

/* Format 1.0: the header dict padded with spaces and a newline so that the data starts on a 64-byte
 * boundary, as numpy writes it. */
static int write_npy(FILE *f, const double *x, size_t n) {
    char dict[128];
    int dict_len = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu,), }", n);
    if (dict_len < 0 || (size_t)dict_len >= sizeof dict)
        return 0;
    size_t preamble = 10, unpadded = preamble + (size_t)dict_len + 1;
    size_t total = (unpadded + 63) / 64 * 64;
    size_t header_len = total - preamble;
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(header_len & 0xff),
                              (unsigned char)(header_len >> 8)};
    if (fwrite(head, 1, sizeof head, f) != sizeof head || fputs(dict, f) == EOF)
        return 0;
    for (size_t i = (size_t)dict_len; i + 1 < header_len; i++)
        if (fputc(' ', f) == EOF)
            return 0;
    if (fputc('\n', f) == EOF)
        return 0;
    return write_f64(f, x, n);
}

hs_status hs_write_series(const char *path, const char *format, const double *x, size_t n, hs_error *err) {
    if (!path || !format || (!x && n > 0))
        return hs_fail(err, HS_ERR_USAGE, "hs_write_series: path, format and x must not be NULL");
    int (*writer)(FILE *, const double *, size_t) = NULL;
    if (strcmp(format, "f64") == 0)
        writer = write_f64;
    else if (strcmp(format, "csv") == 0)
        writer = write_csv;
    else if (strcmp(format, "npy") == 0)
        writer = write_npy;
    else
        return hs_fail(err, HS_ERR_USAGE, "unknown series format '%s' (expected f64, csv or npy)", format);

    FILE *f = fopen(path, "wb");
    if (!f)
        return hs_fail(err, HS_ERR_DATA, "cannot create %s: %s", path, strerror(errno));
    int ok = writer(f, x, n);
    int saved_errno = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved_errno = errno;
    }
    if (!ok) {
        remove(path); /* no half-written series left behind */
        return hs_fail(err, HS_ERR_DATA, "error writing %s: %s", path, strerror(saved_errno));
    }
    return HS_OK;
}
