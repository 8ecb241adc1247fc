/* NumPy's .npy format: the reader's header parser (the header dict parsed as the Python literal it is) and the
 * writer (format 1.0, as numpy writes it).  One of the three series formats (series_formats.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"
#include "series_formats.h"

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
hs_status hs_npy_locate(const char *name, const unsigned char *data, size_t len, size_t *offset,
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

/* Format 1.0: the header dict padded with spaces and a newline so that the data starts on a 64-byte
 * boundary, as numpy writes it. */
int hs_npy_write(FILE *f, const double *x, size_t n) {
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
    return hs_f64_write(f, x, n);
}
