/* Raw little-endian float64 (docs/spec.md §1, "real data"): the format of a file whose name is neither .csv
 * nor .npy, and the values of a .npy file after its header.  Its own file, below readers.c and npy.c, so
 * neither calls back into the other (issue 30 §1).  Bytes are decoded explicitly as little-endian, so
 * big-endian hosts read the same files. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "series_formats.h"

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

/* Where the values of a raw file are: all of it, in whole 8-byte values. */
hs_status hs_f64_locate(const char *name, size_t len, size_t *offset, size_t *count, hs_error *err) {
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
void hs_f64_decode(const unsigned char *src, size_t count, double *dst) {
    for (size_t i = 0; i < count; i++) {
        double v = load_le_f64(src + 8 * i);
        memcpy((unsigned char *)dst + 8 * i, &v, sizeof v);
    }
}

int hs_f64_write(FILE *f, const double *x, size_t n) {
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

