/* What the series readers and writers of src/data share: the .npy and CSV formats (npy.c, csv.c) behind the
 * public hs_read_series* / hs_parse_series / hs_write_series (readers.c).  Private to the library. */
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
