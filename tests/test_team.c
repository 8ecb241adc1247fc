/* The default thread count and the segments kernel's team (issue 28 item 2; src/team/team.c):
 * 1. the rule, from the work alone: one thread for one combo or under HS_TEAM_MIN_WORK bars x combos,
 *    else the most the caller allows; the same work always gets the same count (no load reading);
 * 2. the team gives the bits of the serial `unchecked` sweep: more seats than CPUs, 20 callers at once
 *    (each on a pool of its own, alone when the 16 pools are taken), and a forked child of a process
 *    whose pool exists (the child has none of its workers).  The TSan preset runs this test (label
 *    openmp). */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "hmasweep.h"
#include "team.h"

enum { BARS = 2000, COMBOS = 24, CALLERS = 20, CALLS = 5 }; /* 20 callers: more than the 16 pools */
static double close_[BARS];
static hs_windows combos[COMBOS];
static hs_result want[COMBOS];

/* The reference: the serial `unchecked` kernel, one combo per call. */
static void setup(void) {
    hs_error err;
    hs_sweep_options serial = {.variant = "unchecked"};
    CHECK(hs_make_close(11, BARS, 0.0008, 100.0, close_, &err) == HS_OK, "%s", err.msg);
    for (int c = 0; c < COMBOS; c++) {
        CHECK(hs_windows_from_length(6 + 7 * c, &combos[c], &err) == HS_OK, "%s", err.msg);
        CHECK(hs_sweep(close_, BARS, &combos[c], 1, &want[c], &serial, &err) == HS_OK, "%s", err.msg);
    }
}

/* Combos whose trades or PnL bits differ from the reference. */
static int differing(const hs_result *got) {
    int n = 0;
    for (int c = 0; c < COMBOS; c++) n += got[c].trades != want[c].trades || memcmp(&got[c].pnl, &want[c].pnl, 8) != 0;
    return n;
}

/* The default variant (segments_omp, the team's kernel) at `threads`; 1 when it gave the reference. */
static int sweep_matches(int threads) {
    hs_result got[COMBOS];
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.threads = threads;
    hs_error err;
    return hs_sweep(close_, BARS, combos, COMBOS, got, &opt, &err) == HS_OK && differing(got) == 0;
}

static void the_rule(void) {
    unsigned long long edge = HS_TEAM_MIN_WORK;
    CHECK_EQ_I(hs_default_team(4, (size_t)edge, 1), 1);        /* one combo */
    CHECK_EQ_I(hs_default_team(4, 1, (size_t)edge - 1), 1);    /* just under the work */
    CHECK_EQ_I(hs_default_team(4, 1, (size_t)edge), 4);        /* at it */
    CHECK_EQ_I(hs_default_team(4, 1000, 20), edge > 20000 ? 1 : 4); /* the benchmark's smallest sweep */
    CHECK_EQ_I(hs_default_team(4, 150000, 80), 4);
    CHECK_EQ_I(hs_default_team(1, 150000, 80), 1);             /* never above what the caller allows */
    CHECK_EQ_I(hs_default_team(3, SIZE_MAX, 4), 3);            /* bars x combos overflows: a huge sweep */
    for (int i = 0; i < 1000; i++) /* no load reading: the same answer every time */
        if (hs_default_team(4, 1, (size_t)edge) != 4 || hs_default_team(4, 1, (size_t)edge - 1) != 1) {
            CHECK(0, "call %d: the choice changed for the same work", i);
            break;
        }
    /* Through hs_sweep: a tiny default sweep reports one thread. */
    hs_result got[COMBOS];
    hs_sweep_report ran;
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.report = &ran;
    hs_error err;
    CHECK(hs_sweep(close_, 200, combos, 2, got, &opt, &err) == HS_OK, "%s", err.msg);
    if (!getenv("HMASWEEP_THREADS")) CHECK_EQ_I(ran.threads, 1);
}

static void *caller(void *failed) {
    for (int i = 0; i < CALLS; i++) *(int *)failed += !sweep_matches(2 + i % 3);
    return NULL;
}

static void concurrent_callers(void) {
    pthread_t t[CALLERS];
    int failed[CALLERS] = {0};
    for (int i = 0; i < CALLERS; i++) CHECK(pthread_create(&t[i], NULL, caller, &failed[i]) == 0, "pthread_create");
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(t[i], NULL);
        CHECK(failed[i] == 0, "caller %d: %d of %d sweeps differ from the serial reference", i, failed[i], CALLS);
    }
}

/* TSan cannot start threads in the child of a multi-threaded fork ("not supported. Dying"), nor can
 * qemu-user (qemu_plugin_vcpu_init_hook: assertion failed, qemu 7.2): not there. */
#if defined(__SANITIZE_THREAD__)
#define HS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HS_TSAN 1
#endif
#endif

static void forked_child(void) {
#if defined(HS_TSAN) || defined(HS_TEST_UNDER_EMULATOR)
    printf("test_team: the forked child is not run under TSan or an emulator\n");
    return;
#endif
    CHECK(sweep_matches(2), "the parent's sweep (the pool now exists)");
    pid_t pid = fork();
    if (pid == 0) _exit(sweep_matches(3) && sweep_matches(2) ? 0 : 1);
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the forked child's sweeps differ (status %d)", status);
}

int main(void) {
    setup();
    the_rule();
    for (int threads = 1; threads <= 9; threads++) CHECK(sweep_matches(threads), "%d threads", threads);
    concurrent_callers();
    forked_child();
    return hs_check_summary("test_team");
}
