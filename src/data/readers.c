/* Reading and writing close series: raw little-endian float64, CSV and .npy (docs/spec.md §1, "real data").
 *
 * The format follows the file name: ".csv" is CSV, ".npy" is NumPy's format, anything else is raw f64.
 * A reader loads the whole file, decodes it, and passes the values through hs_check_series, so a caller
 * never sees a NaN, an infinity or a non-positive price.  Every error message starts with the file name
 * and says what is wrong with the file (wrong dtype, truncated header, a non-numeric CSV cell with its line
 * and column, ...).  Bytes are decoded explicitly as little-endian, so big-endian hosts read the same
 * files.
 */
#define _XOPEN_SOURCE 700 /* realpath, lstat, S_ISSOCK */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"

enum series_format { FORMAT_RAW_F64, FORMAT_CSV, FORMAT_NPY };

/* The date column of a CSV (hs_read_series_dates): one NUL-terminated label per value, back to back. */
typedef struct {
    char *text;
    size_t len, cap, count;
} label_list;

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

/* THE rule from a file name to a format, for reading and writing alike (issue 10, defect 12: `gen` had
 * matched ".csv" case-sensitively while the reader did not). */
const char *hs_series_format(const char *path) {
    if (path && ends_with_ignoring_case(path, ".csv"))
        return "csv";
    if (path && ends_with_ignoring_case(path, ".npy"))
        return "npy";
    return "f64";
}

static int format_from_name(const char *format, enum series_format *out) {
    if (strcmp(format, "f64") == 0)
        *out = FORMAT_RAW_F64;
    else if (strcmp(format, "csv") == 0)
        *out = FORMAT_CSV;
    else if (strcmp(format, "npy") == 0)
        *out = FORMAT_NPY;
    else
        return 0;
    return 1;
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

/* Reads the whole input into one malloc'ed block, at most max_bytes (issue 10, defect 6: /dev/zero used
 * to be read until memory ran out).  Only a regular file, a pipe (a named one, or stdin as "-") is read:
 * a device or a socket is refused by name.  A regular file is read into a block of its size, so the
 * decoders can convert it in place (one copy of the data, not two). */
static hs_status read_input(const char *path, size_t max_bytes, unsigned char **data, size_t *len, hs_error *err) {
    *data = NULL;
    *len = 0;
    int from_stdin = strcmp(path, "-") == 0;
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return hs_fail(err, HS_ERR_DATA, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (!from_stdin)
            close(fd);
        return hs_fail(err, HS_ERR_DATA, "cannot stat %s: %s", path, strerror(e));
    }
    const char *refuse = S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISCHR(st.st_mode)  ? "a character device"
                         : S_ISBLK(st.st_mode)  ? "a block device"
                         : S_ISSOCK(st.st_mode) ? "a socket"
                                                : NULL;
    if (refuse && !from_stdin) {
        close(fd);
        return hs_fail(err, HS_ERR_DATA, "%s is %s, not a regular file or a pipe", path, refuse);
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes) {
        if (!from_stdin)
            close(fd);
        return hs_fail(err, HS_ERR_DATA, "%s: %lld bytes is more than the input limit of %zu bytes (--max-bytes)",
                       path, (long long)st.st_size, max_bytes);
    }
    size_t capacity = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, used = 0;
    unsigned char *buf = NULL;
    hs_status status = HS_OK;
    for (;;) {
        if (used == capacity || !buf) {
            size_t grown = !buf ? capacity : capacity > max_bytes / 2 ? max_bytes + 1 : capacity * 2;
            unsigned char *bigger = grown > capacity || !buf ? realloc(buf, grown) : NULL;
            if (!bigger) {
                status = hs_fail(err, HS_ERR_NOMEM, "%s: out of memory after reading %zu bytes", path, used);
                break;
            }
            buf = bigger;
            capacity = grown;
        }
        ssize_t got = read(fd, buf + used, capacity - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            status = hs_fail(err, HS_ERR_DATA, "error reading %s: %s", path, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        used += (size_t)got;
        if (used > max_bytes) {
            status = hs_fail(err, HS_ERR_DATA, "%s: more than the input limit of %zu bytes (--max-bytes)", path,
                             max_bytes);
            break;
        }
    }
    if (!from_stdin)
        close(fd);
    if (status != HS_OK) {
        free(buf);
        return status;
    }
    *data = buf;
    *len = used;
    return HS_OK;
}

/* ---- raw little-endian float64 ----------------------------------------------------------------------- */

/* Where the values of a raw file are: all of it, in whole 8-byte values. */
static hs_status locate_raw_f64(const char *name, size_t len, size_t *offset, size_t *count, hs_error *err) {
    if (len % 8 != 0)
        return hs_fail(err, HS_ERR_DATA,
                       "%s: truncated raw float64 file: %zu bytes is not a multiple of 8", name, len);
    *offset = 0;
    *count = len / 8;
    return HS_OK;
}

/* count little-endian doubles from src into dst.  dst may be the start of the block src lies in (the
 * file reader converts in place): value i is read whole before dst[i] is written, and dst[i] lies at or
 * before src + 8i, so no value is overwritten before it is read. */
static void decode_le_values(const unsigned char *src, size_t count, double *dst) {
    for (size_t i = 0; i < count; i++) {
        double v = load_le_f64(src + 8 * i);
        memcpy((unsigned char *)dst + 8 * i, &v, sizeof v);
    }
}

/* ---- .npy -------------------------------------------------------------------------------------------- */

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_MAX_DIMS 32

/* The header dict, parsed as the Python literal it is (issue 10, defect 4: a search for "'descr':"
 * had found a decoy key inside a string value).  numpy requires exactly these three keys. */
typedef struct {
    char descr[64];
    int fortran_order;
    int n_dims;
    size_t dims[NPY_MAX_DIMS];
    char shape_text[96]; /* as written, for messages */
    int seen;            /* bit per key: descr 1, fortran_order 2, shape 4 */
} npy_header;

typedef struct {
    const char *p, *end;
} npy_cursor;

static void npy_skip_spaces(npy_cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int npy_take(npy_cursor *c, char ch) {
    npy_skip_spaces(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string without escapes (numpy writes none in these keys and values): [*s, *s + *len). */
static int npy_string(npy_cursor *c, const char **s, size_t *len) {
    npy_skip_spaces(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char quote = *c->p++;
    const char *start = c->p;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\')
            return 0;
        c->p++;
    }
    if (c->p >= c->end)
        return 0;
    *s = start;
    *len = (size_t)(c->p - start);
    c->p++;
    return 1;
}

static hs_status npy_bad(const char *name, const char *what, hs_error *err) {
    return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: %s", name, what);
}

static hs_status npy_value_shape(const char *name, npy_cursor *c, npy_header *h, hs_error *err) {
    npy_skip_spaces(c);
    const char *open = c->p;
    if (!npy_take(c, '('))
        return npy_bad(name, "'shape' is not a tuple", err);
    h->n_dims = 0;
    while (!npy_take(c, ')')) {
        npy_skip_spaces(c);
        unsigned long long dim = 0;
        const char *digits = c->p;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
            if (dim > (SIZE_MAX - 9) / 10)
                return npy_bad(name, "a 'shape' dimension is too large", err);
            dim = dim * 10 + (unsigned)(*c->p++ - '0');
        }
        if (c->p == digits || h->n_dims == NPY_MAX_DIMS)
            return npy_bad(name, "bad 'shape' tuple", err);
        h->dims[h->n_dims++] = (size_t)dim;
        if (!npy_take(c, ',')) {
            if (!npy_take(c, ')'))
                return npy_bad(name, "bad 'shape' tuple", err);
            break;
        }
    }
    size_t text_len = (size_t)(c->p - open);
    if (text_len >= sizeof h->shape_text)
        text_len = sizeof h->shape_text - 1;
    memcpy(h->shape_text, open, text_len);
    h->shape_text[text_len] = '\0';
    return HS_OK;
}

static hs_status npy_entry(const char *name, npy_cursor *c, npy_header *h, hs_error *err) {
    const char *key, *value;
    size_t key_len, value_len;
    if (!npy_string(c, &key, &key_len))
        return npy_bad(name, "a key is not a quoted string", err);
    if (!npy_take(c, ':'))
        return npy_bad(name, "no ':' after a key", err);
    int bit = key_len == 5 && memcmp(key, "descr", 5) == 0           ? 1
              : key_len == 13 && memcmp(key, "fortran_order", 13) == 0 ? 2
              : key_len == 5 && memcmp(key, "shape", 5) == 0           ? 4
                                                                       : 0;
    if (!bit)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: unexpected key '%.*s'", name,
                       (int)(key_len < 40 ? key_len : 40), key);
    if (h->seen & bit)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: key '%.*s' given twice", name, (int)key_len, key);
    h->seen |= bit;
    if (bit == 1) {
        npy_skip_spaces(c);
        if (c->p < c->end && *c->p == '[')
            return hs_fail(err, HS_ERR_DATA, "%s: wrong dtype: a structured dtype; expected float64 ('<f8')", name);
        if (!npy_string(c, &value, &value_len) || value_len >= sizeof h->descr)
            return npy_bad(name, "unreadable 'descr'", err);
        memcpy(h->descr, value, value_len);
        h->descr[value_len] = '\0';
        return HS_OK;
    }
    if (bit == 2) {
        npy_skip_spaces(c);
        size_t left = (size_t)(c->end - c->p);
        if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
            h->fortran_order = 0;
            c->p += 5;
        } else if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
            h->fortran_order = 1;
            c->p += 4;
        } else {
            return npy_bad(name, "'fortran_order' is neither True nor False", err);
        }
        return HS_OK;
    }
    return npy_value_shape(name, c, h, err);
}

/* {'descr': '<f8', 'fortran_order': False, 'shape': (n,), } then spaces/newline padding. */
static hs_status npy_parse_header(const char *name, const unsigned char *text, size_t text_len, npy_header *h,
                                  hs_error *err) {
    memset(h, 0, sizeof *h);
    npy_cursor c = {(const char *)text, (const char *)text + text_len};
    if (!npy_take(&c, '{'))
        return npy_bad(name, "not a dict", err);
    while (!npy_take(&c, '}')) {
        hs_status status = npy_entry(name, &c, h, err);
        if (status != HS_OK)
            return status;
        if (!npy_take(&c, ',')) {
            if (!npy_take(&c, '}'))
                return npy_bad(name, "expected ',' or '}' after a value", err);
            break;
        }
    }
    npy_skip_spaces(&c);
    if (c.p != c.end)
        return npy_bad(name, "text after the dict", err);
    if (h->seen != 7)
        return hs_fail(err, HS_ERR_DATA, "%s: malformed .npy header: no '%s' key", name,
                       !(h->seen & 1) ? "descr" : !(h->seen & 2) ? "fortran_order" : "shape");
    return HS_OK;
}

/* Accepts exactly a 1-D, C-order, little-endian float64 array. */
static hs_status npy_check_header(const char *name, const npy_header *h, hs_error *err) {
    if (strcmp(h->descr, "<f8") != 0) {
        const char *why = strcmp(h->descr, ">f8") == 0 ? "big-endian float64" : "not float64";
        return hs_fail(err, HS_ERR_DATA, "%s: wrong dtype '%s' (%s); expected little-endian float64 '<f8'",
                       name, h->descr, why);
    }
    if (h->fortran_order)
        return hs_fail(err, HS_ERR_DATA, "%s: fortran_order is True; expected False (a C-order array)", name);
    if (h->n_dims != 1)
        return hs_fail(err, HS_ERR_DATA, "%s: the array is %d-D (shape %s); expected a 1-D array", name,
                       h->n_dims, h->shape_text);
    return HS_OK;
}

/* The preamble: magic, version, header length.  Sets *header_start and *header_len. */
static hs_status npy_read_preamble(const char *name, const unsigned char *data, size_t len,
                                   size_t *header_start, size_t *header_len, hs_error *err) {
    if (len < NPY_MAGIC_LEN || memcmp(data, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return hs_fail(err, HS_ERR_DATA, "%s: not a .npy file (no \\x93NUMPY magic)", name);
    if (len < 8)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", name, len);
    int major = data[6], minor = data[7];
    if (major == 1) {
        if (len < 10)
            return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", name, len);
        *header_len = (size_t)data[8] | ((size_t)data[9] << 8);
        *header_start = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header (%zu bytes)", name, len);
        *header_len = (size_t)data[8] | ((size_t)data[9] << 8) | ((size_t)data[10] << 16) |
                      ((size_t)data[11] << 24);
        *header_start = 12;
    } else {
        return hs_fail(err, HS_ERR_DATA, "%s: unsupported .npy format version %d.%d (expected 1.0, 2.0 or 3.0)",
                       name, major, minor);
    }
    if (*header_len > len - *header_start)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated .npy header: it claims %zu bytes, the file holds %zu",
                       name, *header_len, len - *header_start);
    return HS_OK;
}

/* Where the values of a .npy file are. */
static hs_status locate_npy(const char *name, const unsigned char *data, size_t len, size_t *offset,
                            size_t *count_out, hs_error *err) {
    size_t header_start = 0, header_len = 0;
    hs_status status = npy_read_preamble(name, data, len, &header_start, &header_len, err);
    if (status != HS_OK)
        return status;
    npy_header h;
    status = npy_parse_header(name, data + header_start, header_len, &h, err);
    if (status == HS_OK)
        status = npy_check_header(name, &h, err);
    if (status != HS_OK)
        return status;

    size_t count = h.dims[0], data_start = header_start + header_len, available = len - data_start;
    if (count > available / 8)
        return hs_fail(err, HS_ERR_DATA, "%s: truncated data: shape %s needs %zu bytes, the file holds %zu",
                       name, h.shape_text, count > SIZE_MAX / 8 ? SIZE_MAX : count * 8, available);
    if (available != count * 8)
        return hs_fail(err, HS_ERR_DATA, "%s: %zu unexpected bytes after the %zu values of shape %s", name,
                       available - count * 8, count, h.shape_text);
    *offset = data_start;
    *count_out = count;
    return HS_OK;
}

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

/* With a header: the only column, or the one named "close" (any case). */
static hs_status csv_pick_column(const char *name, const text_line *header, size_t *column, hs_error *err) {
    size_t cells = csv_cell_count(header);
    if (cells == 1) {
        *column = 0;
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

/* The header's date column: a cell named date, time, datetime or timestamp (any case); 0 when none. */
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
    return 0;
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

static hs_status decode_csv(const char *path, const unsigned char *data, size_t len, double **out, size_t *n,
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

/* ---- the public readers and writers ------------------------------------------------------------------ */

static hs_status check_values(const char *name, double *values, size_t count, hs_error *err) {
    hs_error check;
    hs_status status = hs_check_series(values, count, &check);
    if (status != HS_OK)
        return hs_fail(err, status, "%s: %s", name, check.msg);
    return HS_OK;
}

/* The one decoder behind both entry points.  `owned` (may be NULL) is the malloc'ed block that holds
 * data, from the file reader: raw and .npy values are then converted in place and the block becomes the
 * result; otherwise the values get a block of their own.  Either way *out is the caller's to free. */
static hs_status decode_series(const char *name, enum series_format format, const unsigned char *data, size_t len,
                               unsigned char *owned, double **out, size_t *n, label_list *labels, hs_error *err) {
    if (len == 0) {
        free(owned); /* the read buffer of an empty input (1 byte, found by LeakSanitizer) */
        return hs_fail(err, HS_ERR_DATA, "%s: empty file", name);
    }
    double *values = NULL;
    size_t count = 0, offset = 0;
    hs_status status;
    if (format == FORMAT_CSV) {
        status = decode_csv(name, data, len, &values, &count, labels, err);
    } else {
        status = format == FORMAT_NPY ? locate_npy(name, data, len, &offset, &count, err)
                                      : locate_raw_f64(name, len, &offset, &count, err);
        if (status == HS_OK) {
            values = owned ? (double *)(void *)owned : malloc(count ? count * sizeof *values : 1);
            if (!values)
                return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for %zu values", name, count);
            decode_le_values(data + offset, count, values);
            if (owned) {
                owned = NULL; /* now the result */
                double *shrunk = realloc(values, count ? count * sizeof *values : 1);
                values = shrunk ? shrunk : values;
            }
        }
    }
    free(owned);
    if (status == HS_OK)
        status = check_values(name, values, count, err);
    if (status != HS_OK) {
        free(values);
        return status;
    }
    *out = values;
    *n = count;
    return HS_OK;
}

static hs_status parse_format(const char *format, enum series_format *f, hs_error *err) {
    if (!format_from_name(format, f))
        return hs_fail(err, HS_ERR_USAGE, "unknown series format '%s' (expected f64, csv or npy)", format);
    return HS_OK;
}

hs_status hs_parse_series(const void *bytes, size_t len, const char *format, const char *name, double **out,
                          size_t *n, hs_error *err) {
    if ((!bytes && len) || !format || !out || !n)
        return hs_fail(err, HS_ERR_USAGE, "hs_parse_series: bytes, format, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    enum series_format f;
    hs_status status = parse_format(format, &f, err);
    if (status != HS_OK)
        return status;
    return decode_series(name ? name : "input", f, bytes, len, NULL, out, n, NULL, err);
}

/* hs_read_series_limited and hs_read_series_dates: labels NULL, or the date column's list. */
static hs_status read_series_labelled(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                                      label_list *labels, hs_error *err) {
    if (!path || !out || !n)
        return hs_fail(err, HS_ERR_USAGE, "hs_read_series: path, out and n must not be NULL");
    *out = NULL;
    *n = 0;
    enum series_format f;
    hs_status status = parse_format(format ? format : hs_series_format(path), &f, err);
    if (status != HS_OK)
        return status;
    unsigned char *data;
    size_t len;
    status = read_input(path, max_bytes ? max_bytes : HS_DEFAULT_MAX_INPUT_BYTES, &data, &len, err);
    if (status != HS_OK)
        return status;
    return decode_series(strcmp(path, "-") == 0 ? "stdin" : path, f, data, len, data, out, n, labels, err);
}

hs_status hs_read_series_limited(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                                 hs_error *err) {
    return read_series_labelled(path, format, max_bytes, out, n, NULL, err);
}

hs_status hs_read_series_dates(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                               char **dates, hs_error *err) {
    if (!dates)
        return hs_fail(err, HS_ERR_USAGE, "hs_read_series_dates: dates must not be NULL");
    label_list labels = {0};
    hs_status status = read_series_labelled(path, format, max_bytes, out, n, &labels, err);
    *dates = status == HS_OK && labels.count && labels.count == *n ? labels.text : NULL;
    if (!*dates)
        free(labels.text);
    return status;
}

hs_status hs_read_series(const char *path, double **out, size_t *n, hs_error *err) {
    return hs_read_series_limited(path, NULL, 0, out, n, err);
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

/* A replaced file keeps its mode, owner and group (issue 20, item 12: a private 0600 series became 0644
 * through the rename, with the umask's mode and the writer's owner).  The temporary file is created 0600,
 * given the old owner where this process may (root; else the group when the writer is in it), then the
 * old mode, before a byte is written.  The group's bits are dropped when the group could not be kept
 * (rather than handed to the writer's group), and set-user-ID when the owner could not. */
static void keep_owner_and_mode(int fd, const struct stat *old) {
    mode_t mode = old->st_mode & 07777;
    if (fchown(fd, old->st_uid, old->st_gid) != 0) {
        if (fchown(fd, (uid_t)-1, old->st_gid) != 0)
            mode &= ~(mode_t)(S_IRWXG | S_ISGID);
        if (old->st_uid != geteuid())
            mode &= ~(mode_t)S_ISUID;
    }
    (void)fchmod(fd, mode);
}

/* Where a series is written (issue 10, defect 3: a failed write used to delete the output path, even a
 * symlink or a device node).  A regular file (or a new path) is written to a temporary file beside it and
 * renamed into place, so a failure leaves the old file as it was and removes only the temporary file
 * this call created; a symlink is followed to its target first.  Anything else (a device, a pipe) is
 * written in place and never removed. */
static hs_status open_output(const char *path, char **final_path, char **tmp_path, FILE **f, hs_error *err) {
    *final_path = *tmp_path = NULL;
    struct stat st;
    char *target = NULL;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        target = realpath(path, NULL); /* NULL for a dangling link: then written through as a new file */
        if (target && stat(target, &st) != 0)
            st.st_mode = S_IFREG;
    }
    const char *dest = target ? target : path;
    if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
        free(target);
        *f = fopen(path, "wb");
        return *f ? HS_OK : hs_fail(err, HS_ERR_DATA, "cannot open %s for writing: %s", path, strerror(errno));
    }
    int replacing = stat(dest, &st) == 0;
    if (replacing && access(dest, W_OK) != 0 && errno == EACCES) { /* as opening it for writing would say */
        free(target);
        return hs_fail(err, HS_ERR_DATA, "cannot open %s for writing: %s", path, strerror(EACCES));
    }
    size_t len = strlen(dest) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        free(target);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory writing %s", path);
    }
    for (unsigned attempt = 0;; attempt++) {
        snprintf(tmp, len, "%s.tmp%ld.%u", dest, (long)getpid(), attempt);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, replacing ? 0600 : 0666);
        if (fd >= 0 && replacing)
            keep_owner_and_mode(fd, &st);
        if (fd >= 0) {
            *f = fdopen(fd, "wb");
            if (*f)
                break;
            close(fd);
            unlink(tmp);
        } else if (errno == EEXIST && attempt < 100) {
            continue;
        }
        int e = errno;
        free(tmp);
        free(target);
        return hs_fail(err, HS_ERR_DATA, "cannot create %s: %s", path, strerror(e));
    }
    *tmp_path = tmp;
    *final_path = target ? target : NULL;
    return HS_OK;
}

typedef int (*series_writer)(FILE *, const double *, size_t);

/* Write the series, then finish the stream (fclose for a file, fflush for stdout): 1, or 0 with the errno
 * of the first failure in *saved_errno, so that an error only the flush sees (a full disk) is not lost. */
static int write_stream(series_writer writer, FILE *f, int (*finish)(FILE *), const double *x, size_t n,
                        int *saved_errno) {
    errno = 0;
    int ok = writer(f, x, n);
    *saved_errno = errno;
    if (finish(f) != 0 && ok) {
        ok = 0;
        *saved_errno = errno;
    }
    return ok;
}

/* Path "-" is stdout, as it is stdin for the readers (issue 10: `gen --output -` used to create a file
 * named "-").  stdout is flushed, not closed: the caller's stream stays usable, and a full disk or a
 * closed pipe is still reported here rather than lost at exit. */
static hs_status write_stdout(series_writer writer, const double *x, size_t n, hs_error *err) {
    int saved_errno;
    if (!write_stream(writer, stdout, fflush, x, n, &saved_errno) || ferror(stdout))
        return hs_fail(err, HS_ERR_DATA, "error writing stdout: %s", strerror(saved_errno ? saved_errno : EIO));
    return HS_OK;
}

hs_status hs_write_series(const char *path, const char *format, const double *x, size_t n, hs_error *err) {
    if (!path || !format || (!x && n > 0))
        return hs_fail(err, HS_ERR_USAGE, "hs_write_series: path, format and x must not be NULL");
    enum series_format fmt;
    hs_status status = parse_format(format, &fmt, err);
    if (status != HS_OK)
        return status;
    series_writer writer = fmt == FORMAT_CSV ? write_csv : fmt == FORMAT_NPY ? write_npy : write_f64;
    if (strcmp(path, "-") == 0)
        return write_stdout(writer, x, n, err);
    char *final_path, *tmp;
    FILE *f;
    if ((status = open_output(path, &final_path, &tmp, &f, err)) != HS_OK)
        return status;
    int saved_errno;
    int ok = write_stream(writer, f, fclose, x, n, &saved_errno);
    if (ok && tmp && rename(tmp, final_path ? final_path : path) != 0) {
        ok = 0;
        saved_errno = errno;
    }
    if (!ok && tmp)
        unlink(tmp); /* only what this call created */
    free(tmp);
    free(final_path);
    if (!ok)
        return hs_fail(err, HS_ERR_DATA, "error writing %s: %s", path, strerror(saved_errno ? saved_errno : EIO));
    return HS_OK;
}
