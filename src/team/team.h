/* The threads of a sweep: the default count, and the team that runs the segments kernel (src/team/team.c;
 * docs/library.md "The default thread count"). */
#ifndef HS_TEAM_H
#define HS_TEAM_H
#include <stddef.h>

#include "hmasweep.h"

/* Work (bars x combos) from which the library's choice runs more than one thread: below it, waking a
 * worker costs more than it saves.  Measured by prof/thread_choice.py --threshold (reports/thread_choice.md),
 * quiet Xeon family 6 model 207, 41 rounds: at 2,000 bars x 4 combos (8,000) two threads already took
 * 0.026 ms against one's 0.031 (1.22x quiet, 1.20x with a busy loop per CPU); the 65,536 first chosen
 * under load left 1,000 x 20 at 1.26x the 2-thread time. */
#define HS_TEAM_MIN_WORK ((unsigned long long)8192)

/* The threads a call asks for: `threads` when > 0, else $HMASWEEP_THREADS when set (1..HS_THREADS_MAX,
 * anything else is HS_ERR_USAGE naming it), else 0 with *chosen_by_library = 1 (hs_default_team). */
hs_status hs_requested_threads(int threads, int *requested, int *chosen_by_library, hs_error *err);
/* The library's choice, from the work alone: one thread for one combo or under HS_TEAM_MIN_WORK bars x
 * combos, else max_team (OpenMP's default).  The same work always gets the same count. */
int hs_default_team(int max_team, size_t n_bars, size_t n_combos);

/* A team's body: run by the caller as seat 0 and by each pool worker that takes a seat (1..team-1).  It
 * claims its units of work itself (an atomic counter), so the seats that run do all of it between them. */
typedef void hs_team_body(void *ctx, int seat);
/* Run body with up to `team` seats and return when every seat that ran has returned.  The caller runs
 * seat 0 at once; a worker takes a seat only while the caller is still in its body (after that, there is
 * nothing left to claim), so a worker that waits for a CPU never holds the caller.  Concurrent callers
 * each get a pool of their own (up to 16 at once; beyond, a caller runs its body alone). */
void hs_team_run(int team, hs_team_body *body, void *ctx);
#endif
