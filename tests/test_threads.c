/* Threads the caller cannot have (issue 20 items 7 and 12): a thread count above HS_THREADS_MAX is
 * refused with HS_ERR_USAGE by hs_sweep and hs_sweep_many (libgomp segfaulted on 100,000 and exited the
 * process on 2^31-1); one the process cannot create under RLIMIT_NPROC runs with fewer threads and the
 * same bits (libgomp exited the process: "Thread creation failed").  The reference is the serial
 * `unchecked` sweep of the same series. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"

enum { BARS = 2000, COMBOS = 12 };
static double close_[BARS];
static hs_windows combos[COMBOS];
static hs_result want[COMBOS];

static void setup(void) {
    hs_error err;
    CHECK(hs_make_close(7, BARS, 0.0008, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    for (int c = 0; c < COMBOS; c++) CHECK(hs_windows_from_length(6 + 9 * c, &combos[c], &err) == HS_OK, "%s", err.msg);
    hs_sweep_options opt = {.variant = "unchecked"};
    CHECK(hs_sweep(close_, BARS, combos, COMBOS, want, &opt, &err) == HS_OK, "%s", err.msg);
}

static int same_as_reference(const hs_result *got) {
    for (int c = 0; c < COMBOS; c++)
        if (got[c].trades != want[c].trades || memcmp(&got[c].pnl, &want[c].pnl, sizeof(double)) != 0) return 0;
    return 1;
}

/* Tasks of the real user (what RLIMIT_NPROC counts), counted here independently of the library. */
static long user_tasks(void) {
    long total = 0;
    DIR *d = opendir("/proc");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], line[160];
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        long uid = -1, threads = 0;
        while (f && fgets(line, sizeof line, f)) {
            if (sscanf(line, "Uid: %ld", &uid) == 1) continue;
            sscanf(line, "Threads: %ld", &threads);
        }
        if (f) fclose(f);
        if (uid == (long)getuid()) total += threads;
    }
    closedir(d);
    return total;
}

/* In a child (the parent has not started OpenMP yet, so the child's libgomp is clean): as an unprivileged
 * user (root ignores RLIMIT_NPROC), with room for 3 more tasks, a 64-thread sweep must run, fewer
 * threads, same bits.  Exit 0 when it did; the library exiting or crashing is the failure. */
static void nproc_fallback(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        long used = user_tasks();
        if (used < 1) _exit(4);
        struct rlimit rl = {(rlim_t)used + 3, (rlim_t)used + 3};
        if (setrlimit(RLIMIT_NPROC, &rl) != 0) _exit(5);
        hs_result got[COMBOS];
        hs_sweep_report ran;
        hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
        opt.variant = "simd_wma_omp", opt.isa = "scalar", opt.threads = 64, opt.report = &ran;
        hs_error err;
        hs_status st = hs_sweep(close_, BARS, combos, COMBOS, got, &opt, &err);
        if (st != HS_OK) {
            fprintf(stderr, "child: %s\n", err.msg);
            _exit(6);
        }
        printf("RLIMIT_NPROC %ld (user tasks %ld): 64 threads asked, %d ran\n", used + 3, used, ran.threads);
        fflush(stdout);
        _exit(!same_as_reference(got) ? 7 : ran.threads < 1 || ran.threads > 4 ? 8 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/wait");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "RLIMIT_NPROC child: %s %d",
          WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* The refusal names the maximum as a number, never the C macro (issue 30 §1). */
static int names_the_maximum(const char *msg) {
    char max[32];
    snprintf(max, sizeof max, "maximum, %d", HS_THREADS_MAX);
    return strstr(msg, max) && !strstr(msg, "HS_THREADS_MAX");
}

static void refused(const char *variant, int threads) {
    hs_result got[COMBOS];
    hs_error err = {{0}};
    hs_sweep_options opt = {.variant = variant, .threads = threads};
    hs_status st = hs_sweep(close_, BARS, combos, COMBOS, got, &opt, &err);
    CHECK(st == HS_ERR_USAGE && names_the_maximum(err.msg), "hs_sweep %s threads %d: %d %s", variant, threads,
          st, err.msg);
    hs_series_ref one = {"one", close_, BARS};
    hs_status series_st;
    hs_error series_err;
    err.msg[0] = 0;
    st = hs_sweep_many(&one, 1, combos, COMBOS, got, &series_st, &series_err, NULL, &opt, &err);
    CHECK(st == HS_ERR_USAGE && names_the_maximum(err.msg), "hs_sweep_many %s threads %d: %d %s",
          variant ? variant : "(default)", threads, st, err.msg);
}

int main(void) {
    setup();
    nproc_fallback();
    refused("simd_wma_omp", 100000);
    refused("simd_wma_omp", INT_MAX);
    refused(NULL, 100000);   /* the default variant (best: threaded) */
    refused("unchecked", HS_THREADS_MAX + 1); /* refused alike where the variant is serial */
    /* The maximum itself runs, same bits, and says so. */
    hs_result got[COMBOS];
    hs_sweep_report ran;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.variant = "simd_wma_omp", opt.threads = HS_THREADS_MAX, opt.report = &ran;
    hs_error err;
    CHECK(hs_sweep(close_, BARS, combos, COMBOS, got, &opt, &err) == HS_OK, "%s", err.msg);
    CHECK(same_as_reference(got), "threads = HS_THREADS_MAX changed the results");
    CHECK(ran.threads >= 1 && ran.threads <= HS_THREADS_MAX, "report.threads = %d", ran.threads);
    hs_series_ref one = {"one", close_, BARS};
    hs_status series_st;
    hs_error series_err;
    opt.report = NULL;
    CHECK(hs_sweep_many(&one, 1, combos, COMBOS, got, &series_st, &series_err, NULL, &opt, &err) == HS_OK, "%s",
          err.msg);
    CHECK(series_st == HS_OK && same_as_reference(got), "hs_sweep_many at HS_THREADS_MAX: %s", series_err.msg);
    return hs_check_summary("test_threads");
}
