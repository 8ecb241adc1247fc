/* The one strict parser of the numbers the front ends read from text (issue 29 item 10: `--fee 1e-400` was
 * taken as 0, a leading space accepted where a trailing one was refused, and -0 and hex floats passed).
 * The whole text must be one decimal number: an optional sign, digits with an optional fraction, an
 * optional decimal exponent (f64 only).  Nothing else: no space anywhere, no hex, no inf or nan, no
 * negative zero, no value that over- or underflows (a non-zero text that would read as 0 or subnormal). */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hmasweep.h"

/* Length of the decimal number at the start of s (0 if none); *nonzero: a non-zero digit in the mantissa. */
static size_t decimal_length(const char *s, int allow_fraction, int *nonzero) {
    size_t i = 0, digits = 0;
    *nonzero = 0;
    if (s[i] == '+' || s[i] == '-') i++;
    for (; isdigit((unsigned char)s[i]); i++, digits++) *nonzero |= s[i] != '0';
    if (allow_fraction && s[i] == '.') {
        for (i++; isdigit((unsigned char)s[i]); i++, digits++) *nonzero |= s[i] != '0';
    }
    if (!digits) return 0;
    if (allow_fraction && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1, exp_digits = 0;
        if (s[j] == '+' || s[j] == '-') j++;
        for (; isdigit((unsigned char)s[j]); j++) exp_digits++;
        if (!exp_digits) return 0;
        i = j;
    }
    return i;
}

static hs_status not_a_number(const char *text, const char *what, hs_error *err) {
    return hs_fail(err, HS_ERR_USAGE, "'%s' is not %s (decimal digits only: no spaces, hex, inf or nan)", text, what);
}

hs_status hs_parse_f64(const char *text, double *out, hs_error *err) {
    if (!text || !out) return hs_fail(err, HS_ERR_USAGE, "hs_parse_f64: NULL text or out");
    int nonzero;
    size_t len = decimal_length(text, 1, &nonzero);
    if (!len || text[len]) return not_a_number(text, "a number", err);
    errno = 0;
    double v = strtod(text, NULL);
    if (isinf(v) || (errno == ERANGE && fabs(v) > 1.0))
        return hs_fail(err, HS_ERR_USAGE, "'%s' is too large for a double", text);
    if (nonzero && (v == 0.0 || fabs(v) < DBL_MIN))
        return hs_fail(err, HS_ERR_USAGE, "'%s' is too small: it would read as %s", text, v == 0.0 ? "0" : "a subnormal");
    if (v == 0.0 && signbit(v)) return hs_fail(err, HS_ERR_USAGE, "'%s' is a negative zero: write 0", text);
    *out = v;
    return HS_OK;
}

hs_status hs_parse_i64(const char *text, int64_t *out, hs_error *err) {
    if (!text || !out) return hs_fail(err, HS_ERR_USAGE, "hs_parse_i64: NULL text or out");
    int nonzero;
    size_t len = decimal_length(text, 0, &nonzero);
    if (!len || text[len]) return not_a_number(text, "an integer", err);
    if (text[0] == '-' && !nonzero) return hs_fail(err, HS_ERR_USAGE, "'%s' is a negative zero: write 0", text);
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE) return hs_fail(err, HS_ERR_USAGE, "'%s' does not fit in 64 bits", text);
    *out = (int64_t)v;
    return HS_OK;
}
