/* The body of the reader targets (fuzz/fuzz_read_*.c): one format each, so each gets its own corpus. */
#ifndef HS_FUZZ_READ_H
#define HS_FUZZ_READ_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmasweep.h"

static inline int fuzz_read(const uint8_t *data, size_t size, const char *format) {
    double *x = (double *)&size; /* non-NULL: the parser must reset it */
    size_t n = 99;
    hs_error err;
    err.msg[0] = 'x';
    hs_status st = hs_parse_series(data, size, format, "fuzz", &x, &n, &err);
    if (st == HS_OK) {
        if (n == 0 || !x) abort();
        for (size_t i = 0; i < n; i++)
            if (!(x[i] > 0) || !isfinite(x[i])) abort(); /* hs_check_series let a bad price through */
    } else {
        if (x || n || !err.msg[0] || strlen(err.msg) >= sizeof err.msg) abort(); /* outputs reset, a message */
    }
    free(x);
    return 0;
}
#endif
