/* The indicator runner behind hs_wma, hs_hma, hs_hma3 and hs_signal (src/api/indicator.h).
 *
 * Not a second copy of the WMA: the reference kernel's port (src/variants/port.h, the kernel of `unchecked`)
 * is instantiated here once more, as src/api/trades.c does for the trade log, with its buffers in one
 * checked allocation, and its own port_wma / port_hma / port_hma3 fill the arrays.  hs_signal is the
 * port's d, `hma3[i] - hma[i]`, the very subtraction port_combo makes before its books.  So the arrays
 * equal the kernel's tier-0 values by construction; tests/test_indicators.c and
 * python/tests/test_indicators.py check them against the numba peer and the trade log anyway. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "indicator.h"
#include "tier0.h"
#include "variant.h"

#define PORT_KERNEL indicator
#define PORT_AT(s, i) ((s).p[(i)])
#define PORT_BUFFER(slot, n, scratch) ((scratch) + (size_t)(slot) * hs_scratch_stride((size_t)(n)))
#define PORT_RELEASE(p) ((void)(p))
#include "port.h"

/* Which of the six windows each indicator reads, and the port's buffer slots it needs (port.h's enum:
 * the WMA uses slot PORT_HALF, the HMA PORT_HALF..PORT_HMA, the HMA3 and the signal all nine). */
static const struct {
    int first, count, slots;
} reads[] = {
    [HS_INDICATOR_WMA] = {0, 1, PORT_HALF + 1},
    [HS_INDICATOR_HMA] = {0, 3, PORT_HMA + 1},
    [HS_INDICATOR_HMA3] = {3, 3, PORT_SLOTS},
    [HS_INDICATOR_SIGNAL] = {0, 6, PORT_SLOTS},
};

int64_t hs_indicator_lookback(hs_indicator kind, const hs_windows *win) {
    hs_windows w = {{1, 1, 1, 1, 1, 1}}; /* a window of 1 adds no look-back to any stage */
    for (int k = reads[kind].first; k < reads[kind].first + reads[kind].count; k++) {
        if (win->w[k] < 1) return -1;
        w.w[k] = win->w[k];
    }
    hs_first_bars f = hs_first_bars_of(w.w);
    switch (kind) {
    case HS_INDICATOR_WMA: return (int64_t)w.w[0] - 1;
    case HS_INDICATOR_HMA: return (int64_t)f.hma;
    case HS_INDICATOR_HMA3: return (int64_t)f.hma3;
    default: return (int64_t)f.start;
    }
}

/* The series' values must be finite (NaN would poison every window it falls in, inf makes NaN); unlike a
 * sweep's close they need not be positive: a WMA of returns is a WMA too. */
static hs_status check_values(const char *fn, const double *x, size_t n, hs_error *err) {
    if (n == 0) return hs_fail(err, HS_ERR_DATA, "%s: the series is empty (0 bars; at least 1 is needed)", fn);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return hs_fail(err, HS_ERR_DATA, "%s: x[%zu] = %g is not a finite number", fn, i, x[i]);
    return HS_OK;
}

/* Each window the indicator reads, by hs_check_windows' rule (1 <= w <= bars), named as the caller knows it. */
static hs_status check_reads(const char *fn, const char *const *names, hs_indicator kind, const hs_windows *win,
                             size_t n, hs_error *err) {
    for (int k = 0; k < reads[kind].count; k++) {
        int64_t w = win->w[reads[kind].first + k];
        hs_windows one = {{w, 1, 1, 1, 1, 1}};
        if (hs_check_windows(&one, 1, n, NULL) != HS_OK)
            return hs_fail(err, HS_ERR_USAGE, "%s: window %s = %lld does not fit a series of %zu bars (need 1 <= %s <= %zu)",
                           fn, names[k], (long long)w, n, names[k], n);
    }
    return HS_OK;
}

static void run_port(hs_indicator kind, const double *x, size_t n, const hs_windows *win, double *out, double *scratch) {
    port_slice close = {(double *)x, (int64_t)n};
    port_slice hma = {NULL, 0}, hma3 = {NULL, 0};
    if (kind == HS_INDICATOR_WMA) hma = port_wma(close, win->w[0], PORT_HALF, scratch);
    if (kind == HS_INDICATOR_HMA || kind == HS_INDICATOR_SIGNAL) hma = port_hma(close, win, scratch);
    if (kind == HS_INDICATOR_HMA3 || kind == HS_INDICATOR_SIGNAL) hma3 = port_hma3(close, win, scratch);
    if (kind != HS_INDICATOR_SIGNAL) {
        memcpy(out, kind == HS_INDICATOR_HMA3 ? hma3.p : hma.p, n * sizeof *out);
        return;
    }
    for (size_t i = 0; i < n; i++) out[i] = PORT_AT(hma3, i) - PORT_AT(hma, i); /* port_combo's d */
}

hs_status hs_indicator_run(const char *fn, const char *const *names, hs_indicator kind, const double *x, size_t n,
                           const hs_windows *win, double *out, hs_error *err) {
    if (!x || !out) return hs_fail(err, HS_ERR_USAGE, "%s: NULL %s", fn, !x ? "x" : "out");
    hs_status st;
    if ((st = check_values(fn, x, n, err)) != HS_OK) return st;
    if ((st = check_reads(fn, names, kind, win, n, err)) != HS_OK) return st;
    size_t stride = hs_scratch_stride(n), slots = (size_t)reads[kind].slots;
    if (stride > SIZE_MAX / sizeof(double) / slots)
        return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for %zu buffers of %zu bars", fn, slots, n);
    double *scratch = aligned_alloc(64, slots * stride * sizeof(double));
    if (!scratch) return hs_fail(err, HS_ERR_NOMEM, "%s: out of memory for %zu buffers of %zu bars", fn, slots, n);
    run_port(kind, x, n, win, out, scratch);
    free(scratch);
    return HS_OK;
}
