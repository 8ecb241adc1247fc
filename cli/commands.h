/* The `hmasweep` command's parts, between the files of cli/: main.c dispatches to the commands defined
 * elsewhere, and serve.c reads --variant/--isa/--threads and checks names as `run` does. */
#ifndef HS_CLI_COMMANDS_H
#define HS_CLI_COMMANDS_H
#include "hmasweep.h"

/* `hmasweep serve` (cli/serve.c) and `hmasweep report` (cli/report.c): argv after the command word. */
int hs_serve_cli(int argc, char **argv);
int hs_report_cli(int argc, char **argv);

/* cli/main.c: --variant/--isa/--threads into opt (*handled 1 when argv[*i] was one of them; non-zero: the
 * exit status of a bad value, already reported), and whether `name` is a registered variant or alias. */
int hs_cli_kernel_option(int argc, char **argv, int *i, hs_sweep_options *opt, int *handled);
int hs_cli_variant_known(const char *name);
#endif
