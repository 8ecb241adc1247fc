/* prof/segments/ab_kernel.sh: two builds of variants/segments.c (arms A and B, renamed by HS_ISA_NAME) in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hmasweep.h"
#include "variant.h"
typedef hs_status (*sweep_fn)(const double *, size_t, const hs_windows *, size_t, hs_result *, int, hs_error *);
extern hs_status hs_sweep_segments__abA(const double *, size_t, const hs_windows *, size_t, hs_result *, int, hs_error *);
extern hs_status hs_sweep_segments__abB(const double *, size_t, const hs_windows *, size_t, hs_result *, int, hs_error *);
static double cpu(void) { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 150000; int reps = argc > 2 ? atoi(argv[2]) : 30;
    double *close = malloc(n * 8); hs_make_close(42, n, 0.0008, 100.0, close, NULL);
    hs_windows w[80]; for (int c = 0; c < 80; c++) hs_windows_from_length(6 + (194 * c) / 79, &w[c], NULL);
    hs_result ra[80], rb[80]; double ta[200], tb[200]; sweep_fn f[2] = {hs_sweep_segments__abA, hs_sweep_segments__abB};
    for (int r = 0; r < reps; r++) {
        for (int arm = 0; arm < 2; arm++) { int a = (r & 1) ? 1 - arm : arm; double t0 = cpu(); f[a](close, n, w, 80, a ? rb : ra, 1, NULL); (a ? tb : ta)[r] = cpu() - t0; }
    }
    for (int c = 0; c < 80; c++) if (ra[c].trades != rb[c].trades || memcmp(&ra[c].pnl, &rb[c].pnl, 8)) { printf("DIFF combo %d\n", c); }
    qsort(ta, reps, 8, cmp); qsort(tb, reps, 8, cmp);
    printf("A min %.2f med %.2f ms | B min %.2f med %.2f ms | B/A min %.3f med %.3f\n", ta[0]*1e3, ta[reps/2]*1e3, tb[0]*1e3, tb[reps/2]*1e3, tb[0]/ta[0], tb[reps/2]/ta[reps/2]);
}
