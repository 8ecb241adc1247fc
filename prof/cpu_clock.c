/* hs_cpu_clock — measure the clock this core actually runs at, for the "% of FMA peak" column.
 *
 * A chain of dependent integer adds retires one add per cycle on every x86-64 and AArch64 core of the
 * last fifteen years (latency 1), so cycles = adds and GHz = adds / seconds / 1e9.  The adds are
 * register + register: Intel cores since Golden Cove fold chains of add-immediate at rename (such a
 * chain "measured" 13 GHz on the Xeon this was written on).  The loop counter runs beside the chain
 * (its own register), so the chain's latency is the only limit.  The best of
 * several trials is kept (interruptions only make a trial slower).  Under a hypervisor or with turbo
 * this is the clock seen by a busy single thread, which is what a benchmark sees too.
 *
 *   hs_cpu_clock [--ms N] [--trials K]     prints {"ghz": G, "method": "...", "trials": K, "ms": N}
 *
 * Exit 0 with a number; exit 1 (and "ghz": null) on an architecture without the asm chain.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
#define ADD1(x) __asm__ volatile("add %1, %0" : "+r"(x) : "r"(one))
#define HAVE_CHAIN 1
#elif defined(__aarch64__)
#define ADD1(x) __asm__ volatile("add %0, %0, %1" : "+r"(x) : "r"(one))
#define HAVE_CHAIN 1
#endif

#ifdef HAVE_CHAIN
#define ADD10(x) ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x); ADD1(x)
enum { ADDS_PER_LOOP = 100 };

/* Seconds for `loops` x 100 dependent adds. */
static double chain(uint64_t loops, uint64_t *sink) {
    uint64_t x = 0, one = *sink | 1;
    double t0 = now();
    for (uint64_t i = 0; i < loops; i++) {
        ADD10(x); ADD10(x); ADD10(x); ADD10(x); ADD10(x);
        ADD10(x); ADD10(x); ADD10(x); ADD10(x); ADD10(x);
    }
    double t = now() - t0;
    *sink += x;
    return t;
}
#endif

int main(int argc, char **argv) {
    double ms = 200.0;
    int trials = 5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) ms = atof(argv[++i]);
        else if (strcmp(argv[i], "--trials") == 0 && i + 1 < argc) trials = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: hs_cpu_clock [--ms N] [--trials K]\n");
            return 2;
        }
    }
    if (ms <= 0 || trials < 1) {
        fprintf(stderr, "hs_cpu_clock: --ms must be > 0 and --trials >= 1\n");
        return 2;
    }
#ifdef HAVE_CHAIN
    uint64_t sink = 0;
    /* Calibrate the loop count to about `ms` per trial (assuming >= 0.5 GHz to start). */
    uint64_t loops = 100000;
    double t = chain(loops, &sink);
    while (t < 0.01) {
        loops *= 4;
        t = chain(loops, &sink);
    }
    loops = (uint64_t)((double)loops * (ms / 1000.0) / t) + 1;
    double best = 1e300;
    for (int k = 0; k < trials; k++) {
        double s = chain(loops, &sink);
        if (s < best) best = s;
    }
    double ghz = (double)loops * ADDS_PER_LOOP / best / 1e9;
    printf("{\"ghz\": %.4f, \"method\": \"dependent add chain, 1 cycle per add\", \"trials\": %d, \"ms\": %g, "
           "\"sink\": %llu}\n",
           ghz, trials, ms, (unsigned long long)(sink & 1));
    return 0;
#else
    printf("{\"ghz\": null, \"method\": \"no add chain for this architecture\"}\n");
    return 1;
#endif
}
