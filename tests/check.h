/* A tiny test harness: CHECK records a failure and goes on; the closing line is ctest-readable. */
#ifndef HS_CHECK_H
#define HS_CHECK_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int hs_checks_run, hs_checks_failed;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        hs_checks_run++;                                                                         \
        if (!(cond)) {                                                                           \
            hs_checks_failed++;                                                                  \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fputc('\n', stderr);                                                                 \
        }                                                                                        \
    } while (0)

#define CHECK_EQ_I(a, b) CHECK((long long)(a) == (long long)(b), "%lld != %lld", (long long)(a), (long long)(b))
#define CHECK_BITS(a, b)                                                                         \
    CHECK(memcmp(&(double){a}, &(double){b}, sizeof(double)) == 0, "%.17g != %.17g (bits)", (double)(a), (double)(b))
#define CHECK_NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol), "|%.17g - %.17g| > %g", (double)(a), (double)(b), (double)(tol))

static inline int hs_check_summary(const char *name) {
    printf("%s: %d checks, %d failed\n", name, hs_checks_run, hs_checks_failed);
    return hs_checks_failed ? 1 : 0;
}
#endif
