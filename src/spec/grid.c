/* The parameter grid, the six windows of a combo (docs/spec.md §2), the 2-D grid (§8), and the lengths
 * read from text. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"

/* Python's round(a / b) for integers a >= 0, b > 0: exact, ties to even. */
static int64_t round_half_even_div(int64_t a, int64_t b) {
    int64_t q = a / b, r = a % b;
    if (2 * r > b || (2 * r == b && (q & 1))) q += 1;
    return q;
}

static int64_t at_least_one(int64_t v) { return v < 1 ? 1 : v; }

/* floor(sqrt(L)) exactly, also where the double sqrt of a large L rounds up across an integer. */
static int64_t isqrt_floor(int64_t v) {
    int64_t r = (int64_t)sqrt((double)v);
    while (r * r > v) r--;
    while ((r + 1) * (r + 1) <= v) r++;
    return r;
}

/* Lengths above this would overflow w(w+1) in the WMA denominator long before any series is that long. */
#define HS_MAX_LENGTH ((int64_t)1 << 31)

static hs_status check_length(int64_t length, const char *which, hs_error *err) {
    /* Name the bound that was crossed (issue 10, defect 13: a huge L was told "L must be >= 2"). */
    if (length > HS_MAX_LENGTH)
        return hs_fail(err, HS_ERR_USAGE, "%slength L = %lld is out of range (L must be <= %lld)", which,
                       (long long)length, (long long)HS_MAX_LENGTH);
    if (length < 2)
        return hs_fail(err, HS_ERR_USAGE, "%slength L = %lld is out of range (L must be >= 2)", which,
                       (long long)length);
    return HS_OK;
}

/* §2's rules, written once: w0..w2 (the HMA) from one length, w3..w5 (the HMA3) from another.  The 1-D
 * grid passes the same L to both; the 2-D grid of docs/spec.md §8 passes (Lh, L3). */
static void hma_windows(int64_t length, hs_windows *out) {
    out->w[0] = length / 2;
    out->w[1] = length;
    out->w[2] = isqrt_floor(length);
}

static void hma3_windows(int64_t length, hs_windows *out) {
    int64_t p = round_half_even_div(length, 2);
    out->w[3] = at_least_one(round_half_even_div(p, 3));
    out->w[4] = at_least_one(round_half_even_div(p, 2));
    out->w[5] = p;
}

hs_status hs_windows_from_length(int64_t length, hs_windows *out, hs_error *err) {
    hs_status st = check_length(length, "", err);
    if (st != HS_OK) return st;
    hma_windows(length, out);
    hma3_windows(length, out);
    return HS_OK;
}

hs_status hs_windows_from_lengths(int64_t hma_length, int64_t hma3_length, hs_windows *out, hs_error *err) {
    hs_status st = check_length(hma_length, "HMA ", err);
    if (st == HS_OK) st = check_length(hma3_length, "HMA3 ", err);
    if (st != HS_OK) return st;
    hma_windows(hma_length, out);
    hma3_windows(hma3_length, out);
    return HS_OK;
}

hs_status hs_grid_2d(const int64_t *hma_lengths, size_t n_hma, const int64_t *hma3_lengths, size_t n_hma3,
                     hs_windows *out, hs_error *err) {
    if (n_hma == 0 || n_hma3 == 0)
        return hs_fail(err, HS_ERR_USAGE, "2-D grid: %s list of lengths is empty", n_hma ? "the HMA3" : "the HMA");
    for (size_t i = 0; i < n_hma; i++)
        for (size_t j = 0; j < n_hma3; j++) {
            hs_status st = hs_windows_from_lengths(hma_lengths[i], hma3_lengths[j], &out[i * n_hma3 + j], err);
            if (st != HS_OK) return st;
        }
    return HS_OK;
}

hs_status hs_grid(int64_t lo, int64_t hi, size_t count, int64_t *lengths, hs_error *err) {
    if (count < 1 || lo < 2 || hi < lo) {
        return hs_fail(err, HS_ERR_USAGE, "grid %lld:%lld:%zu is impossible (need 2 <= lo <= hi and count >= 1)",
                       (long long)lo, (long long)hi, count);
    }
    /* No length above HS_MAX_LENGTH makes windows, and a larger hi would overflow the float -> int64
     * conversion below (issue 10, defect 10: 2^63-1 printed L = -9223372036854775808). */
    if (hi > HS_MAX_LENGTH) {
        return hs_fail(err, HS_ERR_USAGE, "grid %lld:%lld:%zu: HI is above the largest length %lld", (long long)lo,
                       (long long)hi, count, (long long)HS_MAX_LENGTH);
    }
    if (count == 1) {
        lengths[0] = lo;
        return HS_OK;
    }
    /* numpy.linspace: step = (hi - lo) / (count - 1); y[i] = i * step + lo; y[-1] = hi; astype(int). */
    double step = (double)(hi - lo) / (double)(count - 1);
    for (size_t i = 0; i + 1 < count; i++) lengths[i] = (int64_t)((double)i * step + (double)lo);
    lengths[count - 1] = hi;
    return HS_OK;
}

hs_status hs_check_windows(const hs_windows *combos, size_t n_combos, size_t n_bars, hs_error *err) {
    for (size_t c = 0; c < n_combos; c++)
        for (int k = 0; k < 6; k++) {
            int64_t w = combos[c].w[k];
            if (w < 1 || w > HS_MAX_LENGTH || (uint64_t)w > (uint64_t)n_bars) {
                return hs_fail(err, HS_ERR_USAGE,
                               "combo %zu: window w%d = %lld does not fit a series of %zu bars (need 1 <= w <= bars)",
                               c, k, (long long)w, n_bars);
            }
        }
    return HS_OK;
}

/* ---- the combos' lengths from text: `--lengths A,B,...` and `--grid LO:HI:COUNT` ------------------------ */
/* Every front end (the CLI, the universe, hmasweep-mpi, the profilers) reads these two texts; one parser,
 * here, so that they accept and refuse the same things with the same words. */

/* s is one whole decimal integer (strtoll's syntax, nothing after it, no overflow). */
static int whole_integer(const char *s, long long *out) {
    char *end;
    if (!*s) return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

static hs_status parse_lengths(const char *spec, int64_t **out, size_t *n, hs_error *err) {
    size_t count = 1;
    for (const char *p = spec; *p; p++) count += *p == ',';
    int64_t *v = malloc(count * sizeof *v);
    char *copy = malloc(strlen(spec) + 1);
    if (!v || !copy) {
        free(v);
        free(copy);
        return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    }
    strcpy(copy, spec);
    size_t k = 0;
    hs_status st = HS_OK;
    /* strtok would skip empty fields; walk the commas by hand so "6,,8" is an error. */
    for (char *field = copy;;) {
        char *comma = strchr(field, ',');
        if (comma) *comma = '\0';
        long long L;
        if (!whole_integer(field, &L)) {
            st = hs_fail(err, HS_ERR_USAGE, "lengths: '%s' is not an integer (expected A,B,... with each length >= 2)",
                         field);
            break;
        }
        if (L < 2) {
            st = hs_fail(err, HS_ERR_USAGE, "lengths: length %lld is out of range (L must be >= 2)", L);
            break;
        }
        v[k++] = L;
        if (!comma) break;
        field = comma + 1;
    }
    free(copy);
    if (st != HS_OK) {
        free(v);
        return st;
    }
    *out = v;
    *n = k;
    return HS_OK;
}

/* hs_grid(lo, hi, count) into a new array. */
static hs_status grid_array(long long lo, long long hi, size_t count, int64_t **out, size_t *n, hs_error *err) {
    int64_t *v = malloc(count * sizeof *v);
    if (!v) return hs_fail(err, HS_ERR_NOMEM, "out of memory");
    hs_error why;
    if (hs_grid(lo, hi, count, v, &why) != HS_OK) {
        free(v);
        return hs_fail(err, HS_ERR_USAGE, "grid: %s", why.msg);
    }
    *out = v;
    *n = count;
    return HS_OK;
}

static hs_status parse_grid(const char *spec, int64_t **out, size_t *n, hs_error *err) {
    char part[3][64];
    const char *p1 = strchr(spec, ':'), *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (!p1 || !p2 || strchr(p2 + 1, ':') || (size_t)(p1 - spec) >= sizeof part[0] ||
        (size_t)(p2 - p1 - 1) >= sizeof part[1] || strlen(p2 + 1) >= sizeof part[2])
        return hs_fail(err, HS_ERR_USAGE, "grid '%s': expected LO:HI:COUNT, e.g. " HS_DEFAULT_GRID_SPEC, spec);
    snprintf(part[0], sizeof part[0], "%.*s", (int)(p1 - spec), spec);
    snprintf(part[1], sizeof part[1], "%.*s", (int)(p2 - p1 - 1), p1 + 1);
    snprintf(part[2], sizeof part[2], "%s", p2 + 1);
    long long lo, hi, count;
    if (!whole_integer(part[0], &lo) || !whole_integer(part[1], &hi) || !whole_integer(part[2], &count))
        return hs_fail(err, HS_ERR_USAGE, "grid '%s': LO, HI and COUNT must be integers", spec);
    if (count < 1 || count > HS_GRID_COUNT_MAX)
        return hs_fail(err, HS_ERR_USAGE, "grid '%s': COUNT must be between 1 and %d", spec, HS_GRID_COUNT_MAX);
    return grid_array(lo, hi, (size_t)count, out, n, err);
}

hs_status hs_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n, hs_error *err) {
    if (!out || !n) return hs_fail(err, HS_ERR_USAGE, "hs_parse_combo_lengths: NULL out or n");
    if (lengths) return parse_lengths(lengths, out, n, err);
    if (grid) return parse_grid(grid, out, n, err);
    return grid_array(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, out, n, err);
}
