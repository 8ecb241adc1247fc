/* The `hmasweep` command's parts, between the files of cli/: main.c dispatches to the commands defined
 * elsewhere (what they share of option parsing is options.h, which every command includes: no command
 * file calls into main.c). */
#ifndef HS_CLI_COMMANDS_H
#define HS_CLI_COMMANDS_H
#include "hmasweep.h"

/* `hmasweep serve` (cli/serve.c) and `hmasweep report` (cli/report.c): argv after the command word. */
int hs_serve_cli(int argc, char **argv);
int hs_report_cli(int argc, char **argv);
#endif
