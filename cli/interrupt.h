/* The SIGINT flag every sweeping command shares: `hmasweep run`, `trades` (cli/main.c) and `run --inputs`
 * (cli/inputs.c), and part of the universe half (hmasweep_universe) that hmasweep-mpi links too. */
#ifndef HS_CLI_INTERRUPT_H
#define HS_CLI_INTERRUPT_H
#include <stddef.h>

enum { EXIT_INTERRUPTED = 130 /* 128 + SIGINT, as a shell shows a Ctrl-C */ };

/* Ctrl-C (issue 18 §2): cli_catch_sigint makes the first SIGINT set a flag instead of killing the process
 * (a second one kills it as usual).  cli_stop_requested is the library's progress hook
 * (hs_sweep_options.progress, hs_trade_log_opt): it answers "stop" once the flag is set, so the
 * sweep ends with HS_ERR_CANCELLED; the command keeps what is finished, says so on stderr, and exits
 * EXIT_INTERRUPTED. */
void cli_catch_sigint(void);
int cli_interrupted(void);
int cli_stop_requested(void *user, size_t done, size_t total);
/* The message and exit status of a command stopped by SIGINT: "hmasweep: interrupted (SIGINT): what". */
int cli_interrupted_exit(const char *what);
#endif
