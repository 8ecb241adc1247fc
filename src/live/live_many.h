/* live_many.h — the many-symbol session's group layout (live_many.c): what one group of V symbols keeps
 * and how its arena is cut.  An internal header of src/live/, shared with prof/live_floor.c, which lays
 * the same state out to measure the floors under one call: the layout exists once, so the floor cannot
 * drift from the session (review-bbff220: live_floor copied it by hand and nothing checked the copy). */
#ifndef HS_LIVE_MANY_H
#define HS_LIVE_MANY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "live_lanes.h"

typedef struct {
    size_t first;          /* lane l is symbol first + l (l < lanes) */
    int lanes;             /* real symbols in the group */
    double *close;         /* the group's closes, interleaved; the newest close_keep entries contiguous */
    size_t close_len;
    double *arena;         /* the shared close sums, then every combo's sums and rings (live_lanes.h) */
    double *wsums;         /* [n_win][2][V]: s1, s2 of each distinct close window, in the arena */
    uint16_t *since;       /* [n_win]: LIVE_WIN_OFF, LIVE_WIN_ANCHOR or bars since the anchor */
    int all_entered;       /* every combo runs in the lanes: nothing left to enter */
    live_sym_combo *combo; /* [n_combos] */
} live_sym_group;

static inline size_t live_round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Doubles of one combo's rings in a group's arena (whole lines).  The sums come first, one contiguous run
 * (the shared close sums, then each combo's two: 4·V doubles) that a call walks in order, so the hardware
 * prefetcher streams them; with each combo's rings between its sums, the sums' loads were most of the step
 * (perf). */
static inline size_t sym_ring_doubles(const live_consts *k, int V) {
    return live_round64(((size_t)k->w[SUM_HMA] + (size_t)k->w[SUM_HMA3]) * (size_t)V * sizeof(double)) / sizeof(double);
}

/* How far ahead sym_group_step prefetches a combo's ring slots and sums: 500 x 80 p50 0.92 [0.80-0.99] of two
 * ahead, lower in 11 of 11 interleaved reps (AVX2 EPYC, load 3.7); the call is bound by how many of its misses
 * are in flight (perf: the stalls sit on the prefetches themselves), and four combos give them longer. */
enum { SYM_AHEAD = 4 };

/* The doubles at the head of a group's arena, before the rings (whole lines): the shared close sums
 * ([n_win][2][V]), then each combo's two smoothing sums (4·V each), one contiguous run. */
static inline size_t sym_arena_head_doubles(size_t n_win, size_t n_combos, int V) {
    return live_round64((2 * n_win * (size_t)V + n_combos * 4 * (size_t)V) * sizeof(double)) / sizeof(double);
}

static inline int by_window(const void *pa, const void *pb) {
    int64_t a = ((const live_win *)pa)->w, b = ((const live_win *)pb)->w;
    return (a > b) - (a < b);
}

/* The distinct close windows of the combos (win, ascending; *n_win of them; win has room for 5 per combo)
 * and each combo's five slots in it (slot[c·5 + j]: its w0, w1, w3, w4, w5). */
static inline void sym_windows(const live_consts *cst, size_t n_combos, live_win *win, size_t *n_win, uint32_t *slot) {
    static const int sums[5] = {SUM_W0, SUM_W1, SUM_W3, SUM_W4, SUM_W5};
    size_t n = 0;
    for (size_t c = 0; c < n_combos; c++)
        for (int j = 0; j < 5; j++) win[n++] = (live_win){cst[c].w[sums[j]], cst[c].wd[sums[j]]};
    qsort(win, n, sizeof *win, by_window);
    *n_win = 0;
    for (size_t i = 0; i < n; i++)
        if (*n_win == 0 || win[*n_win - 1].w != win[i].w) win[(*n_win)++] = win[i];
    for (size_t c = 0; c < n_combos; c++)
        for (int j = 0; j < 5; j++) {
            size_t lo = 0, hi = *n_win; /* binary search: win[lo].w == the window */
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (win[mid].w <= cst[c].w[sums[j]]) lo = mid;
                else hi = mid;
            }
            slot[c * 5 + (size_t)j] = (uint32_t)lo;
        }
}

/* The books' per-combo arrays a book step reads and writes (live_session.h live_books: pnl entry prev pos
 * trades first_bar peak, then the statistics); live_many.c checks the count against live_books. */
enum { LIVE_BOOK_ARRAYS = 7 };

#endif
