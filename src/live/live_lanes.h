/* Live mode across combos (issue 21, item 3): the state of one group of combos in vector lanes, shared by
 * src/live/live.c (which owns it) and src/live/live_lanes.c (the per-ISA step, compiled once per ISA).
 *
 * A group holds up to LIVE_LANES_MAX combos, one per lane, as the ISA chosen at open has lanes (HS_VN:
 * 8 on AVX-512, 4 on AVX2, 2 on SSE2/NEON, 1 scalar).  Its arrays are laid out for the widest ISA, so
 * the struct is one for all ISAs; a lane past the session's last combo repeats the group's first combo
 * and is never read back.  From the bar where every lane has a d (`start`), the step updates the seven
 * running sums of every lane at once, exactly as src/live/live.c's scalar path does per combo (same
 * certification, certify.h); before it, each combo runs that scalar path. */
#ifndef HS_LIVE_LANES_H
#define HS_LIVE_LANES_H

#include <stddef.h>
#include <stdint.h>

#define LIVE_LANES_MAX 8
/* The seven running sums of a combo: five over close, the HMA smoothing over raw, HMA3's over raw3. */
enum { SUM_W0, SUM_W1, SUM_W3, SUM_W4, SUM_W5, SUM_HMA, SUM_HMA3, SUM_COUNT };

/* Entries a group's raw (raw3) tail holds beyond the `keep` it needs: a full tail moves its newest `keep`
 * entries to the front once per LIVE_RAW_SLACK bars.  With 2·keep (keep = w2 + 1, 4..15 on the default
 * grid) the 20 groups of a one-symbol session made ~2.8 of those memmoves per append (callgrind). */
#define LIVE_RAW_SLACK 64

/* What src/live/live.c keeps per lane of a group, in either layout: bit l is lane l. */
typedef struct {
    unsigned prevset, prevneg; /* the books' last non-zero d exists / is negative */
    unsigned exact;            /* the lane keeps its exact tails (live.c) */
} live_lane_flags;

/* Certified lanes need their books only where the sign flips against the last non-zero d, or where there is
 * none yet: elsewhere hs_book_step would only replace prev by a d of the same sign.  (live.c's settle, and
 * live_lanes.c's run deciding which groups need one.) */
static inline unsigned lanes_to_book(const live_lane_flags *f, unsigned certain, unsigned signs) {
    return certain & (~f->prevset | (signs ^ f->prevneg));
}

/* The rows below are the session's lanes wide: row k of s1 is s1[k·V .. k·V + V) for V = the ISA's lanes
 * (HS_VN in src/live/live_lanes.c, the kernel's width in live.c), so AVX2's 4 lanes fill whole lines
 * instead of half of each LIVE_LANES_MAX-wide row. */
typedef struct {
    _Alignas(64) double s1[SUM_COUNT * LIVE_LANES_MAX], s2[SUM_COUNT * LIVE_LANES_MAX];
    double wd[SUM_COUNT * LIVE_LANES_MAX], inv[SUM_COUNT * LIVE_LANES_MAX];
    int64_t w[SUM_COUNT * LIVE_LANES_MAX];    /* window of each sum */
    int64_t back_close[5 * LIVE_LANES_MAX];   /* −w: the close leaving each close sum, from the newest */
    int64_t back_raw[2 * LIVE_LANES_MAX];     /* −w·V + lane: the raw (raw3) value leaving, from the newest entry */
    double coef[LIVE_LANES_MAX], range_max[LIVE_LANES_MAX]; /* tau = 4·(coef·M) for M in range (certify.h) */
    double tau[LIVE_LANES_MAX], tau_m;       /* tau at the local maximum tau_m */
    double d[LIVE_LANES_MAX];                /* the step's approximate d */
    /* raw and raw3 interleaved (entry e, lane l at p[e·V + l]), the newest `keep` entries contiguous at
     * [len − keep, len) in a buffer of keep + LIVE_RAW_SLACK entries (live.c's tails have 2·keep) */
    double *raw, *raw3;
    size_t raw_len, raw_keep, raw3_len, raw3_keep;
    size_t first;        /* the group's first combo (lane l is combo first + l while l < lanes) */
    int lanes;           /* combos in this group */
    size_t start;        /* the first bar where every lane has a d: the vector step from here */
    unsigned since_anchor;
    live_lane_flags f;
} live_group;

/* One bar through a group in vector mode: the sums slid (or re-anchored when `anchor`, reading the close
 * tail `close` up to its index `last`), raw and raw3 pushed, d into g->d, for the newest close.  Returns
 * the lanes whose sign is certified (bit l), and their sign bits in *signs. */
typedef unsigned live_lanes_step(live_group *g, const double *close, size_t last, double m, int anchor,
                                 unsigned *signs);
typedef live_lanes_step *live_lanes_step_fn;

/* A group that live.c has to settle after live_lanes_run: its index, certified lanes and their sign bits. */
typedef struct {
    uint32_t group;
    unsigned certain, signs;
} live_settle;

/* One bar through all n groups of a session, every one past its first vector bar: each group's anchor
 * schedule (since_anchor, as live.c's group_step) and live_lanes_step.  A group goes into out[] (the count
 * returned) only where live.c has work (lanes_settle): a lane keeping exact tails, a live lane not certified,
 * or a certified lane whose sign differs from its books' last non-zero d (or that has none yet); at most
 * bars that is a few of the 20 groups.  One call per bar instead of a call and a settle per group: the
 * per-group call, lane map and settle checks were ~15% of a one-symbol append's instructions (callgrind). */
typedef size_t live_lanes_run(live_group *g, size_t n, const double *close, size_t last, double m,
                              live_settle *out);
typedef live_lanes_run *live_lanes_run_fn;

/* ---- symbols in lanes (a many-symbol session, hs_live_many_open) ------------------------------------------
 * All symbols of a session share the combos, so a group of HS_VN symbols runs ONE combo in its lanes: every
 * lane has the same windows (broadcast from one live_consts per combo, stored once for the session), the
 * closes of the group's symbols are one interleaved tail (entry e, lane l at [e·V + l]) shared by every
 * combo, so a leaving value is one contiguous load, not a gather, and a combo's seven running sums for
 * the V symbols are fourteen vectors (its five close sums shared with every combo of the same windows,
 * below).  Per (symbol group, combo) a call touches those sums, one entry of each raw ring and the books,
 * against ~40 lines per group per symbol for the combos-in-lanes layout (reports/live.md). */

/* One combo's windows and certification constants, computed once by live.c's combo_init_windows into its
 * live_combo (field cst); a many-symbol session copies symbol 0's into one array shared by every group. */
typedef struct {
    double wd[SUM_COUNT], inv[SUM_COUNT]; /* window as a double, and 1 / denom (as sliding.c) */
    int64_t w[SUM_COUNT];                 /* window of each running sum */
    double coef, range_max;               /* tau = 4·(coef·M) for M <= range_max (certify_threshold_eps) */
} live_consts;

/* The close sums of a symbol group are shared by window: combos with equal windows slide one sum (the default
 * grid has 138 distinct close windows for its 400 close sums).  Per distinct window and group, s1[V] then
 * s2[V], and `since`: bars since its anchor, LIVE_WIN_OFF while no entered combo reads it, LIVE_WIN_ANCHOR to
 * anchor at the next bar (a combo entering). */
typedef struct {
    int64_t w;
    double wd;
} live_win;
enum { LIVE_WIN_OFF = 0xffff, LIVE_WIN_ANCHOR = 0xfffe };

/* One bar of every active distinct window of a symbol group: slid, or re-anchored every SLIDE_BLOCK bars
 * (and when asked), over the interleaved close tail `close` (newest entry `last`).  The bound of certify.h
 * holds for each sum whatever bar it was anchored on, as long as no sum goes SLIDE_BLOCK bars unanchored. */
typedef void live_wins_step(double *sums, uint16_t *since, const live_win *win, size_t n_win, const double *close,
                            size_t last);
typedef live_wins_step *live_wins_step_fn;

/* One combo in the lanes of one symbol group. */
typedef struct {
    double *sums;            /* its two smoothing sums: s1[2][V], then s2[2][V] (HMA, HMA3; V = the ISA's lanes) */
    double *raw, *raw3;      /* rings of exactly w2 (w5) entries, entry e lane l at [e·V + l]; the entry at
                              * *_pos is the oldest, the one the next bar's value replaces (it leaves the sum) */
    uint32_t raw_pos, raw3_pos;
    unsigned since_anchor;
    int entered;             /* the lanes run this combo (before: live.c's scalar path per symbol) */
    live_lane_flags f;
} live_sym_combo;

/* One bar of combo `k` through its symbol group, after live_wins_step: raw and raw3 from the shared close
 * sums (`wsums`, the combo's windows w0, w1, w3, w4, w5 at slots slot[0..5)), pushed onto their rings, the
 * two smoothing sums slid (or re-anchored when `anchor`), d into d[], tau from each lane's local maximum
 * m[l].  Returns the certified lanes, their sign bits in *signs. */
typedef unsigned live_sym_step(live_sym_combo *sc, const live_consts *k, const double *wsums, const uint32_t *slot,
                               const double *m, int anchor, double *d, unsigned *signs);
typedef live_sym_step *live_sym_step_fn;

/* Every combo's outputs after an append (live.c's live_results): pnl = the books' pnl plus, where a position
 * is open, the trade closed at `last` (hs_trade_pnl); trades + 1 where open; the position.  Per ISA because
 * the compiler vectorizes it with the ISA's flags (the division above all); any output may be NULL. */
typedef void live_results_fn(const double *pos, const double *entry, const double *book_pnl, const int64_t *book_trades,
                             size_t n, double last, double keep, double *pnl, int64_t *trades, int8_t *position);

/* §9.1-§9.2 after a bar with close `last`: each combo's e (the pnl the results report) into its running peak and
 * mtm_max_drawdown, by §9.2's selects (docs/spec.md §9; a batch sweep's tracker, src/spec/equity.h, gets the same
 * bits).  Per ISA for the same reason as the results. */
typedef void live_mtm_fn(const double *pos, const double *entry, const double *book_pnl, size_t n, double last,
                         double keep, double *peak, double *mdd);

/* Declared per ISA by src/live/live_lanes.c: hs_live_lanes_step__<isa>, hs_live_lanes_run__<isa>, hs_live_sym_step__<isa>,
 * hs_live_wins_step__<isa>, hs_live_results__<isa> and hs_live_lanes_width__<isa>. */
#endif
