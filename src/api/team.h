/* The default thread count of a sweep (src/api/team.c; docs/library.md "Threads"). */
#ifndef HS_TEAM_H
#define HS_TEAM_H
#include <stddef.h>

#include "hmasweep.h"

/* The threads a call asks for: `threads` when > 0, else $HMASWEEP_THREADS when set (1..HS_THREADS_MAX,
 * anything else is HS_ERR_USAGE naming it), else 0 with *chosen_by_library = 1 (hs_default_team). */
hs_status hs_requested_threads(int threads, int *requested, int *chosen_by_library, hs_error *err);
/* The library's choice, at most max_team: one thread for under 32,768 bars x combos or one combo, else
 * no more threads than CPUs free now (CPUs minus the other runnable tasks; /proc/loadavg, read at most
 * every 20 ms). */
int hs_default_team(int max_team, size_t n_bars, size_t n_combos);
/* The CPUs free now for this process's threads (>= 1). */
int hs_team_free_cpus(void);
/* Record the team a sweep ran with (its workers may spin a while after it: not counted as others). */
void hs_team_ran(int team);
#endif
