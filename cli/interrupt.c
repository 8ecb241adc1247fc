/* The SIGINT flag every sweeping command shares (cli/interrupt.h). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "interrupt.h"

static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig) {
    (void)sig;
    sigint_seen = 1;
}

void cli_catch_sigint(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND; /* the second Ctrl-C takes SIGINT's default action: the process ends */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

int cli_interrupted(void) { return sigint_seen != 0; }

int cli_stop_requested(void *user, size_t done, size_t total) {
    (void)user, (void)done, (void)total;
    return sigint_seen != 0;
}

int cli_interrupted_exit(const char *what) {
    fflush(stdout);
    fprintf(stderr, "hmasweep: interrupted (SIGINT): %s\n", what);
    return EXIT_INTERRUPTED;
}

