/* Bad input through the C API: each call fails with the right status and a message naming the problem,
 * and writes nothing it should not. */
#include <stdlib.h>
#include <string.h>

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

    /* the 2-D grid (docs/spec.md §8): w0..w2 from Lh, w3..w5 from L3.  (8, 20) worked by hand from §2:
     * Lh = 8 -> 4, 8, floor(sqrt 8) = 2; L3 = 20 -> p = 10, round(10/3) = 3, round(10/2) = 5, 10. */
    hs_windows pair;
    CHECK(hs_windows_from_lengths(8, 20, &pair, &err) == HS_OK, "%s", err.msg);
    const int64_t want_pair[6] = {4, 8, 2, 3, 5, 10};
    CHECK(memcmp(pair.w, want_pair, sizeof want_pair) == 0, "(8, 20) -> %lld %lld %lld %lld %lld %lld",
          (long long)pair.w[0], (long long)pair.w[1], (long long)pair.w[2], (long long)pair.w[3],
          (long long)pair.w[4], (long long)pair.w[5]);
    for (int64_t L = 2; L <= 400; L++) { /* the 1-D grid is the diagonal */
        hs_windows one, two;
        hs_windows_from_length(L, &one, NULL);
        hs_windows_from_lengths(L, L, &two, NULL);
        CHECK(memcmp(&one, &two, sizeof one) == 0, "L = %lld: the diagonal differs from the 1-D grid", (long long)L);
    }
    expect(hs_windows_from_lengths(1, 6, &pair, &err), HS_ERR_USAGE, &err, "HMA length L = 1", "Lh = 1");
    expect(hs_windows_from_lengths(6, 0, &pair, &err), HS_ERR_USAGE, &err, "HMA3 length L = 0", "L3 = 0");
    expect(hs_windows_from_lengths(6, (int64_t)1 << 40, &pair, &err), HS_ERR_USAGE, &err, "HMA3 length L = 1099511627776",
           "L3 huge");
    const int64_t lh[2] = {6, 8}, l3[3] = {6, 20, 9};
    hs_windows g2[6];
    CHECK(hs_grid_2d(lh, 2, l3, 3, g2, &err) == HS_OK, "%s", err.msg);
    for (int i = 0; i < 2; i++) /* HMA length outer */
        for (int j = 0; j < 3; j++) {
            hs_windows one;
            hs_windows_from_lengths(lh[i], l3[j], &one, NULL);
            CHECK(memcmp(&g2[i * 3 + j], &one, sizeof one) == 0, "2-D grid combo %d is not (%lld, %lld)", i * 3 + j,
                  (long long)lh[i], (long long)l3[j]);
        }
    CHECK(memcmp(&g2[4], want_pair, sizeof want_pair) == 0, "2-D grid combo 4 is not (8, 20)");
    expect(hs_grid_2d(lh, 0, l3, 3, g2, &err), HS_ERR_USAGE, &err, "the HMA list of lengths is empty", "no Lh");
    expect(hs_grid_2d(lh, 2, l3, 0, g2, &err), HS_ERR_USAGE, &err, "the HMA3 list of lengths is empty", "no L3");
    const int64_t bad3[2] = {6, 1};
    expect(hs_grid_2d(lh, 2, bad3, 2, g2, &err), HS_ERR_USAGE, &err, "HMA3 length L = 1", "an L3 of 1");

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
