/* What the series readers and writers of src/data share: the raw f64, .npy and CSV formats (f64.c, npy.c,
 * csv.c) behind the public hs_read_series* / hs_parse_series / hs_write_series (readers.c).  Private to the
 * library. */
#ifndef HS_SERIES_FORMATS_H
#define HS_SERIES_FORMATS_H
#include <stddef.h>
#include <stdio.h>

#include "hmasweep.h"

/* The date column of a CSV (hs_read_series_dates): one NUL-terminated label per value, back to back. */
typedef struct {
    char *text;
    size_t len, cap, count;
} label_list;

/* Raw f64: where the values of a raw file are (all of it, in whole 8-byte values; an error names `name`),
 * and count little-endian doubles from src into dst.  dst may be the start of the block src lies in (the
 * file reader converts in place): value i is read whole before dst[i] is written. */
hs_status hs_f64_locate(const char *name, size_t len, size_t *offset, size_t *count, hs_error *err);
void hs_f64_decode(const unsigned char *src, size_t count, double *dst);
/* .npy: where the little-endian float64 values of a whole file `data` lie (an error names `name` and what
 * is wrong: dtype, order, shape, truncation). */
hs_status hs_npy_locate(const char *name, const unsigned char *data, size_t len, size_t *offset, size_t *count_out,
                        hs_error *err);
/* CSV: the close column's values in *out (malloc'ed), and the date column's labels when `labels` is not NULL. */
hs_status hs_csv_decode(const char *path, const unsigned char *data, size_t len, double **out, size_t *n,
                        label_list *labels, hs_error *err);

/* The writers: 1 when every byte was written.  hs_npy_write is its header, then hs_f64_write's values. */
int hs_f64_write(FILE *f, const double *x, size_t n);
int hs_csv_write(FILE *f, const double *x, size_t n);
int hs_npy_write(FILE *f, const double *x, size_t n);
#endif
