/* Bad input through the C API: each call fails with the right status and a message naming the problem,
 * and writes nothing it should not. */
#include <stdlib.h>

#include "check.h"
#include "hmasweep.h"

static void expect(hs_status got, hs_status want, const hs_error *err, const char *needle, const char *what) {
    CHECK(got == want, "%s: status %d, expected %d (%s)", what, got, want, err->msg);
    CHECK(strstr(err->msg, needle) != NULL, "%s: message '%s' does not mention '%s'", what, err->msg, needle);
}

int main(void) {
    enum { N = 400 };
    double close[N];
    hs_error err;
    hs_make_close(1, N, HS_DEFAULT_VOL, HS_DEFAULT_START, close, NULL);
    hs_windows w[2];
    hs_windows_from_length(10, &w[0], NULL);
    hs_windows_from_length(20, &w[1], NULL);
    hs_result out[2] = {{123.0, 77}, {456.0, 88}};
    hs_sweep_options opt = {.variant = "unchecked", .isa = NULL, .threads = 0};

    /* windows */
    expect(hs_windows_from_length(1, &w[0], &err), HS_ERR_USAGE, &err, "L = 1", "L = 1");
    expect(hs_windows_from_length(-5, &w[0], &err), HS_ERR_USAGE, &err, "L = -5", "L = -5");
    hs_windows_from_length(10, &w[0], NULL);
    int64_t g[4];
    expect(hs_grid(1, 10, 4, g, &err), HS_ERR_USAGE, &err, "impossible", "grid lo 1");
    expect(hs_grid(10, 5, 4, g, &err), HS_ERR_USAGE, &err, "impossible", "grid hi < lo");
    expect(hs_grid(6, 10, 0, g, &err), HS_ERR_USAGE, &err, "impossible", "grid count 0");

    /* prices: NaN, inf, zero, negative — each named with its index */
    const double bad[] = {NAN, INFINITY, 0.0, -1.0};
    const char *names[] = {"NaN", "inf", "not positive", "not positive"};
    for (int k = 0; k < 4; k++) {
        double saved = close[17];
        close[17] = bad[k];
        expect(hs_sweep(close, N, w, 2, out, &opt, &err), HS_ERR_DATA, &err, "close[17]", names[k]);
        CHECK(strstr(err.msg, names[k]) || (k == 1 && strstr(err.msg, "finite")), "message '%s' should say %s", err.msg,
              names[k]);
        close[17] = saved;
    }
    CHECK(out[0].trades == 77 && out[1].trades == 88, "a failed sweep wrote results");
    expect(hs_sweep(close, 0, w, 2, out, &opt, &err), HS_ERR_DATA, &err, "empty", "zero bars");

    /* windows that do not fit: w1 = L = 500 > 400 bars, and a hand-made zero window */
    hs_windows big;
    hs_windows_from_length(500, &big, NULL);
    expect(hs_sweep(close, N, &big, 1, out, &opt, &err), HS_ERR_USAGE, &err, "w1 = 500", "window > bars");
    hs_windows zero = w[0];
    zero.w[2] = 0;
    expect(hs_sweep(close, N, &zero, 1, out, &opt, &err), HS_ERR_USAGE, &err, "w2 = 0", "zero window");

    /* unknown variant, unknown ISA, NULL pointers, negative threads */
    opt.variant = "nope";
    expect(hs_sweep(close, N, w, 2, out, &opt, &err), HS_ERR_USAGE, &err, "unknown variant 'nope'", "variant");
    opt.variant = "unchecked";
    opt.isa = "mmx";
    expect(hs_sweep(close, N, w, 2, out, &opt, &err), HS_ERR_USAGE, &err, "unknown ISA 'mmx'", "isa");
    opt.isa = NULL;
    expect(hs_sweep(NULL, N, w, 2, out, &opt, &err), HS_ERR_USAGE, &err, "NULL", "NULL close");
    opt.threads = -1;
    expect(hs_sweep(close, N, w, 2, out, &opt, &err), HS_ERR_USAGE, &err, "negative", "threads");
    opt.threads = 0;

    /* and a good call still works after all that, with the default variant */
    CHECK(hs_sweep(close, N, w, 2, out, NULL, &err) == HS_OK, "%s", err.msg);
    CHECK(out[0].trades > 0, "L = 10 over 400 bars made no trades");
    return hs_check_summary("test_api");
}
