/* hmasweep — public C API.
 *
 * One path-dependent backtest kernel (HMA/HMA3 stop-and-reverse, docs/spec.md)
 * written as several variants that must all produce the same per-combo results.  This header is the
 * whole public surface: build a close series, expand lengths into windows, run a sweep of a named
 * variant into a caller-owned result array.  Every function that can fail returns an hs_status and, when
 * `err` is non-NULL, writes a message that names the problem.
 *
 * Threads (docs/library.md "Threads and reentrancy"): every call is reentrant and may run on any number
 * of threads at once, as long as the objects it writes are not shared between them (out arrays, an
 * hs_error, a session).  The library's own state is read-only after a once-only initialisation
 * (pthread_once: the environment, HMASWEEP_ISA/_THREADS/_OMP_SCHEDULE, and RLIMIT_NPROC), or the thread
 * team's pools (atomics and a mutex per pool: src/team/team.c), so concurrent hs_sweep calls give the bits
 * each gives alone
 * (tests/test_reentrant.c, run under TSan).  Exceptions, stated at each: an hs_live or hs_live_many session
 * takes one caller at a time; an hs_universe is read-only once open (its readers may run at once, not
 * with hs_universe_close); a progress callback runs on the calling thread.  A threaded sweep called from
 * several threads runs one OpenMP team per caller: their threads add up (docs/library.md).
 */
#ifndef HMASWEEP_H
#define HMASWEEP_H

#include <stddef.h>
#include <stdint.h>

/* HS_API marks the exported API.  The library is built with -fvisibility=hidden, so only what carries
 * HS_API is in libhmasweep.so's dynamic symbol table (tests/test_exports.sh checks `nm -D` against this
 * header).  Consumers of the static library see plain declarations. */
#if defined(_WIN32) || defined(__CYGWIN__)
#define HS_API
#elif defined(__GNUC__) || defined(__clang__)
#define HS_API __attribute__((visibility("default")))
#else
#define HS_API
#endif

/* HS_DEPRECATED("use hs_x") marks a 1.x call kept for compatibility (docs/library.md "One way to extend a
 * call"): it stays exported with the same behaviour for the life of SONAME libhmasweep.so.1, as a thin
 * wrapper of the call the message names, and a compiler that knows the attribute warns where it is
 * called.  Define HS_NO_DEPRECATION_WARNINGS before including this header to silence the warnings. */
#if defined(HS_NO_DEPRECATION_WARNINGS)
#define HS_DEPRECATED(msg)
#elif defined(__clang__) || (defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5)))
#define HS_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define HS_DEPRECATED(msg)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HS_OK = 0,
    HS_ERR_DATA = 1,   /* bad data: NaN/inf/non-positive price, unreadable or malformed file       */
    HS_ERR_USAGE = 2,  /* bad request: impossible window, L < 2, unknown variant or ISA, bad option */
    HS_ERR_NOMEM = 3,  /* allocation failed                                                        */
    HS_ERR_ISA = 4,    /* the requested ISA is not built into this variant or not supported by the CPU */
    HS_ERR_CANCELLED = 5, /* the caller's progress callback asked the sweep to stop (hs_sweep_options) */
    HS_ERR_IO = 6      /* a client's connection failed: I/O error, timeout, closed or out-of-protocol reply */
} hs_status;

/* A message buffer for the failing call; always NUL-terminated. */
typedef struct { char msg[320]; } hs_error;

/* The six window lengths of one combo, in wire order (docs/spec.md §2):
 * w[0] HMA half, w[1] HMA full, w[2] HMA smoothing, w[3] HMA3 third, w[4] HMA3 half, w[5] HMA3 full. */
typedef struct { int64_t w[6]; } hs_windows;

/* One combo's result (docs/spec.md §4): number of closed trades and summed PnL in percentage points. */
typedef struct { double pnl; int64_t trades; } hs_result;

/* ---- costs and statistics (docs/spec.md §8, spec v2) ------------------------------------------- */
/* The round-trip cost a trade pays, as a fraction: keep = 1 − fee multiplies its gross return (§8).
 * The default gives exactly the v1 bits (docs/spec.md §5's fingerprint). */
#define HS_DEFAULT_FEE 0.0009
/* fee finite and 0 <= fee < 1; otherwise HS_ERR_USAGE with a message that names the value. */
HS_API hs_status hs_check_fee(double fee, hs_error *err);

/* THE list of the six statistics (docs/spec.md §8): one line per field, in hs_stats's order.  Every
 * surface that names them expands it, so a field is added once: hs_stats below, the CLI's json and csv
 * (cli/main.c), the universe's rows (cli/universe.c), the MPI checkpoint (mpi/checkpoint.c), the wire
 * codec's struct-of-arrays (src/engine/codec.c, ops 10-12: the wire order is this order) and Python's
 * STATS_DTYPE (python/src/_core.c), whose names python/hmasweep reads.
 *
 * HS_STATS_FIELDS(X) calls X(name, kind, "doc") per field, where kind is i64 (int64_t) or f64 (double):
 * a surface pastes it to pick its writer (put_##kind) and HS_STATS_CTYPE_##kind gives the C type.  Every
 * field is 8 bytes, so hs_stats is 6 x 8 = 48 bytes with no padding (the ABI of API 1.2). */
#define HS_STATS_FIELDS(X)                                                                                   \
    X(wins, i64, "trades with p > 0")                                                                        \
    X(gross_profit, f64, "sum of p over p > 0")                                                              \
    X(gross_loss, f64, "sum of p over p < 0 (never positive)")                                               \
    X(sum_sq, f64, "sum of p*p")                                                                             \
    X(max_drawdown, f64, "deepest fall of the closed-trade equity below its running high (from 0.0), pp")    \
    X(bars_held, i64, "sum of exit_bar - entry_bar")
#define HS_STATS_CTYPE_i64 int64_t
#define HS_STATS_CTYPE_f64 double
#define HS_STATS_MEMBER_(name, kind, doc) HS_STATS_CTYPE_##kind name;

/* One combo's six statistics (docs/spec.md §8), taken in booking order inside the books every variant
 * shares, so they have the same bits on every variant, ISA, thread count and live session.  With no
 * trade every field is 0.  p is a trade's booked PnL (percentage points, after the fee).  The fields and
 * their meaning: HS_STATS_FIELDS above. */
typedef struct {
    HS_STATS_FIELDS(HS_STATS_MEMBER_)
} hs_stats;

/* What a front end shows, derived from a combo's result and statistics as docs/spec.md §8 defines them. */
typedef struct {
    double win_rate;      /* wins / trades                                       (NaN with no trade)      */
    double profit_factor; /* gross_profit / −gross_loss; +inf with no losing trade but a winning one,
                           * NaN with neither                                                              */
    double mean_trade;    /* m = pnl / trades                                    (NaN with no trade)      */
    double std_trade;     /* sqrt((sum_sq − trades·m²) / (trades − 1))           (NaN below two trades)   */
    double sharpe;        /* m / std_trade, per trade                            (NaN where std is NaN)   */
    double exposure;      /* bars_held / n_bars                                                            */
} hs_derived;

/* The derived figures of one combo; n_bars is the length of the series it was swept over (0: exposure
 * NaN).  Plain IEEE double, no FMA, in the order the comments above write. */
HS_API void hs_stats_derive(const hs_result *result, const hs_stats *stats, size_t n_bars, hs_derived *out);

/* ---- data (docs/spec.md §1) -------------------------------------------------------------------- */
#define HS_DEFAULT_SEED 42u
#define HS_DEFAULT_BARS 150000u
#define HS_DEFAULT_VOL 0.0008
#define HS_DEFAULT_START 100.0

/* numpy's default_rng(seed).standard_normal(n), bit for bit. */
HS_API void hs_standard_normal(uint64_t seed, size_t n, double *out);
/* The canonical close series: start * exp(cumsum(vol * z)), exp = SLEEF's 1-ulp FMA exp. */
HS_API hs_status hs_make_close(uint64_t seed, size_t bars, double vol, double start, double *out, hs_error *err);
/* SLEEF's Sleef_expd1_u10purecfma (libsleef; src/data/exp.c).  NaN on an x86 CPU without FMA. */
HS_API double hs_exp_u10(double x);

/* Read a close series: raw little-endian f64 (".f64", ".bin", ".raw" or unknown extension), CSV (one
 * column, or the column named "close"), or a 1-D little-endian float64 ".npy".  *out is malloc'ed; the
 * caller frees it.  The values are checked (hs_check_series). */
HS_API hs_status hs_read_series(const char *path, double **out, size_t *n, hs_error *err);
/* The format a file name implies, the one rule for reading and writing: "csv" for ".csv", "npy" for
 * ".npy" (the extension in any case), otherwise "f64". */
HS_API const char *hs_series_format(const char *path);
/* Decode a series held in memory (the readers' one parser): `format` "f64", "csv" or "npy"; `name` starts
 * every message (NULL: "input").  *out is malloc'ed; the values are checked as hs_read_series does. */
HS_API hs_status hs_parse_series(const void *bytes, size_t len, const char *format, const char *name,
                                 double **out, size_t *n, hs_error *err);
/* hs_read_series with its limits: `format` NULL = from the name (hs_series_format); at most `max_bytes`
 * of input (0 = HS_DEFAULT_MAX_INPUT_BYTES); path "-" reads stdin.  Only a regular file or a pipe is
 * read; a directory, device or socket is refused. */
#define HS_DEFAULT_MAX_INPUT_BYTES ((size_t)1 << 30)
HS_API hs_status hs_read_series_limited(const char *path, const char *format, size_t max_bytes, double **out,
                                        size_t *n, hs_error *err);
/* hs_read_series_limited, and the dates of a CSV whose header has a date column (a cell named date, time,
 * datetime or timestamp, any case, or an empty first cell: pandas' unnamed index): *dates is one malloc'ed block of *n NUL-terminated strings back to back,
 * the column's cell (trimmed, unquoted) of each price's row, in order; free it.  *dates is NULL when there
 * is no such column (a headerless CSV, f64, .npy).  `hmasweep trades --input` prints them. */
HS_API hs_status hs_read_series_dates(const char *path, const char *format, size_t max_bytes, double **out, size_t *n,
                                      char **dates, hs_error *err);
/* Write a series as "f64", "csv" or "npy": a regular file is replaced only once it is written whole
 * (temporary file + rename), and a failure removes nothing but that temporary file.  Path "-" writes
 * to stdout (flushed, not closed). */
HS_API hs_status hs_write_series(const char *path, const char *format, const double *x, size_t n, hs_error *err);
/* Write n bytes to `path` the way hs_write_series writes (API 1.3; issue 29 item 6): a temporary file
 * beside it (O_EXCL|O_NOFOLLOW), given the replaced file's mode and owner, then renamed into place; a
 * symlink this process's user owns is followed to its target, one another user owns is refused
 * (HS_ERR_DATA naming it); a device or a pipe is written in place; "-" is stdout.  What `report
 * --output`, hmasweep.report(path=) and the checkpoint rewrite of hmasweep-mpi write with. */
HS_API hs_status hs_write_file(const char *path, const void *bytes, size_t n, hs_error *err);
/* Every price finite and > 0, and at least one bar. */
HS_API hs_status hs_check_series(const double *x, size_t n, hs_error *err);

/* ---- the grid (docs/spec.md §2) ---------------------------------------------------------------- */
#define HS_DEFAULT_GRID_LO 6
#define HS_DEFAULT_GRID_HI 200
#define HS_DEFAULT_GRID_COUNT 80
/* The default grid as the front ends' --grid text, "6:200:80", spelled from the three above. */
#define HS_DEFAULT_GRID_SPEC HS_STRINGIFY_(HS_DEFAULT_GRID_LO) ":" HS_STRINGIFY_(HS_DEFAULT_GRID_HI) ":" \
    HS_STRINGIFY_(HS_DEFAULT_GRID_COUNT)
#define HS_STRINGIFY_(x) HS_STRINGIFY__(x)
#define HS_STRINGIFY__(x) #x

/* The study's fingerprint (docs/spec.md §5): combo 0 (L = 6) of the default series and grid makes
 * HS_STUDY_TRADES trades for HS_STUDY_PNL percentage points, the article's -5165.58 as these rules compute
 * it, bit for bit on every tier-0 variant (tests/golden/default_run.json).  The article prints two
 * decimals: a check against it compares within 0.005. */
#define HS_STUDY_TRADES 57029
#define HS_STUDY_PNL (-5165.5799542358627)

/* numpy linspace(lo, hi, count) truncated to integers. */
HS_API hs_status hs_grid(int64_t lo, int64_t hi, size_t count, int64_t *lengths, hs_error *err);
/* The six windows of length L (L >= 2). */
HS_API hs_status hs_windows_from_length(int64_t length, hs_windows *out, hs_error *err);
/* The 2-D grid (docs/spec.md §8): w0..w2 from the HMA length Lh, w3..w5 from the HMA3 length L3, each by
 * §2's rules (both >= 2); hs_windows_from_lengths(L, L) == hs_windows_from_length(L). */
HS_API hs_status hs_windows_from_lengths(int64_t hma_length, int64_t hma3_length, hs_windows *out, hs_error *err);
/* Every pair (hma_lengths[i], hma3_lengths[j]), HMA length outer: out[i * n_hma3 + j] (n_hma × n_hma3
 * combos; both lists non-empty). */
HS_API hs_status hs_grid_2d(const int64_t *hma_lengths, size_t n_hma, const int64_t *hma3_lengths, size_t n_hma3,
                            hs_windows *out, hs_error *err);
/* The combos' lengths from the text of the front ends' options: `lengths` "A,B,..." (each an integer >= 2)
 * when non-NULL, else `grid` "LO:HI:COUNT" (hs_grid's arguments, 1 <= COUNT <= HS_GRID_COUNT_MAX) when
 * non-NULL, else the default grid.  *out is malloc'ed (free it).  A bad text is HS_ERR_USAGE with a
 * message that starts "lengths: " or "grid" and names the text; front ends prefix their option's "--". */
#define HS_GRID_COUNT_MAX 1000000
HS_API hs_status hs_parse_combo_lengths(const char *lengths, const char *grid, int64_t **out, size_t *n, hs_error *err);
/* The one strict parser of the front ends' numbers (API 1.3; issue 29 item 10): the whole text is one
 * decimal number (an optional sign, digits, for f64 an optional fraction and decimal exponent), with no
 * space, hex, inf or nan, no negative zero, and no over- or underflow (`1e-400` is refused, not 0).
 * HS_ERR_USAGE with a message that starts with the text in quotes; front ends prefix their option. */
HS_API hs_status hs_parse_f64(const char *text, double *out, hs_error *err);
HS_API hs_status hs_parse_i64(const char *text, int64_t *out, hs_error *err);
/* Every window >= 1 and <= n_bars. */
HS_API hs_status hs_check_windows(const hs_windows *combos, size_t n_combos, size_t n_bars, hs_error *err);

/* ---- the sweep --------------------------------------------------------------------------------- */
/* What a sweep actually ran: filled when hs_sweep_options.report is non-NULL (and struct_size covers it). */
typedef struct {
    char variant[32]; /* the registry name that ran (variant NULL: "best"'s target) */
    char isa[16];     /* the ISA chosen (requested, or the default, capped by $HMASWEEP_ISA) */
    int threads;      /* threads it ran with: 1 for serial variants */
} hs_sweep_report;

/* Options of hs_sweep.  Extending it (docs/library.md, "Extending the options"): fields are only ever
 * appended, and within SONAME libhmasweep.so.1 none is removed or reordered.  A caller declares which
 * fields it knows by setting struct_size to the sizeof of the struct it was compiled with, which
 * HS_SWEEP_OPTIONS_INIT and hs_sweep_options_init() do (the one way to make a struct that cannot be wrong);
 * the library reads a field only when struct_size covers it.  struct_size 0 (an initializer that names
 * only variant, isa, threads) means exactly those three fields, and since 1.3 a later field that is set
 * while struct_size leaves it out (`= {0}`, then `.has_fee = 1`) is refused with HS_ERR_USAGE naming the
 * field, never ignored; a struct_size larger than this library knows (a newer header) is refused too. */
typedef struct {
    const char *variant; /* registry name; NULL = "best" (fastest tier 0); "unchecked" = reference */
    const char *isa;     /* NULL = best the CPU runs (or $HMASWEEP_ISA); else "scalar", "avx2", …   */
    int threads;         /* threaded variants: 0 = the library's choice (docs/library.md); 0..HS_THREADS_MAX */
    size_t struct_size;  /* sizeof(hs_sweep_options) as the caller knows it; 0 = the three above only */
    hs_sweep_report *report; /* out: what ran (NULL = not wanted)                                   */
    /* Progress and cancel (docs/library.md "Progress and cancel"): when non-NULL, called on the calling
     * thread only (never concurrently, never from another thread) after every few combos or blocks with
     * the combos finished so far and the total, and once more at the end with done == total.  A
     * non-zero return stops the sweep as soon as every thread has finished its combo or block in hand:
     * hs_sweep then returns HS_ERR_CANCELLED and out[] is unspecified.  NULL: no calls, no cost. */
    int (*progress)(void *user, size_t done, size_t total);
    void *progress_user; /* passed to progress as `user` */
    /* Spec v2 (docs/spec.md §8; API 1.2).  A struct zeroed by the caller must not mean "fee 0", so the fee
     * counts only where has_fee is non-zero: has_fee 0 (or a struct_size that ends before it) is the
     * default, HS_DEFAULT_FEE.  A fee set is checked (hs_check_fee): HS_ERR_USAGE naming the value. */
    hs_stats *stats; /* out: one per combo, as out[] (NULL = not wanted; the books compute them anyway) */
    double fee;      /* the round-trip cost when has_fee != 0                                           */
    int has_fee;     /* 0: HS_DEFAULT_FEE; non-zero: `fee`                                              */
    /* Spec v3 (docs/spec.md §9.1-§9.3; API 1.3; docs/library.md "Periods and equity").  n_periods 0: no
     * periods, nothing below is read, and the sweep costs what it did.  Otherwise the mark-to-market equity
     * of every combo is sampled at the P period ends, and its drawdown computed, on every variant, ISA and
     * thread count, bit for bit (tier 0).  equity or mtm_max_drawdown without n_periods is HS_ERR_USAGE. */
    size_t n_periods;           /* P; 0 = no periods                                                    */
    const int64_t *period_ends; /* P ends (hs_check_period_ends); NULL = P equal periods (hs_period_ends) */
    double *equity;             /* out: E, P x n_combos, E[k][c] at equity[k*n_combos + c] (NULL = not wanted) */
    double *mtm_max_drawdown;   /* out: n_combos (NULL = not wanted)                                    */
} hs_sweep_options;

#define HS_SWEEP_OPTIONS_INIT                                                                              \
    {NULL, NULL, 0, sizeof(hs_sweep_options), NULL, NULL, NULL, NULL, HS_DEFAULT_FEE, 0, 0, NULL, NULL, NULL}
/* The same as a statement (for a struct already declared, or on the heap): every field its default,
 * struct_size the sizeof this header gives.  Inline, so that the size is the caller's, not the library's. */
static inline void hs_sweep_options_init(hs_sweep_options *opt) {
    const hs_sweep_options defaults = HS_SWEEP_OPTIONS_INIT;
    *opt = defaults;
}

/* P equal periods (docs/spec.md §9.3): ends[k-1] = floor(k*n_bars/P) - 1, k = 1..P, into ends[0..P).
 * 1 <= P <= n_bars, else HS_ERR_USAGE naming P. */
HS_API hs_status hs_period_ends(size_t n_bars, size_t n_periods, int64_t *ends, hs_error *err);
/* Period ends a caller built (e.g. from timestamps): 1 <= P <= n_bars, ends[0] >= 0, strictly increasing,
 * ends[P-1] == n_bars - 1; else HS_ERR_USAGE naming the first bad end and its index. */
HS_API hs_status hs_check_period_ends(const int64_t *ends, size_t n_periods, size_t n_bars, hs_error *err);

/* The most threads a sweep asks OpenMP for.  More is refused with HS_ERR_USAGE (libgomp crashes or exits
 * the process on 10^5 threads).  Within it, the library runs fewer threads than asked where it sees that
 * the process could not create them (RLIMIT_NPROC); report->threads says how many ran.  The results are
 * bit-identical whatever the count.  docs/library.md "Threads". */
#define HS_THREADS_MAX 1024

/* Run every combo over `close` into out[0..n_combos).  Validates the series and the windows first. */
HS_API hs_status hs_sweep(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                   hs_result *out, const hs_sweep_options *opt, hs_error *err);

/* ---- many series: a universe (docs/universe.md) --------------------------------------------------- */
/* One series of a universe.  `symbol` is only used in messages (may be NULL). */
typedef struct {
    const char *symbol;
    const double *close;
    size_t n_bars;
} hs_series_ref;

/* Sweep every series over the same combos into out[s * n_combos + c], as hs_sweep would for each series
 * alone (bit for bit), sharing the threads of a threaded variant across all (series, combo) pairs, so
 * that many short series pay one parallel start-up, not one each.  A series that fails validation
 * (bad price, too short for a window) does not stop the others: its status goes to series_status[s]
 * (when non-NULL), its message to series_err[s] (when non-NULL), its rows are pnl = NaN, trades = -1,
 * and it counts in *n_failed (when non-NULL).  The call itself fails only for a bad request (unknown
 * variant or ISA, NULL pointers, a bad fee) or when memory runs out.  opt->stats, when non-NULL, gets the
 * statistics laid out as out[] (a failed series' are all zero); opt's fee applies to every series. */
HS_API hs_status hs_sweep_many(const hs_series_ref *series, size_t n_series, const hs_windows *combos, size_t n_combos,
                               hs_result *out, hs_status *series_status, hs_error *series_err, size_t *n_failed,
                               const hs_sweep_options *opt, hs_error *err);

/* A universe on disk: `spec` is a directory (every non-hidden regular file in it, by name; a file the
 * readers refuse becomes that symbol's error), a glob pattern, or a manifest file (one series per line: `PATH` or `SYMBOL PATH`, '#' comments, paths
 * relative to the manifest).  The symbol defaults to the file name without its extension. */
typedef struct {
    char symbol[128];
    char path[4096];
} hs_universe_entry;

/* *entries is malloc'ed (free it); *n may be 0 only with an error.  Deprecated in 1.4.  API 1.0: 4,224 bytes
 * a series whatever its names; hs_universe_open below lists the same series in about the bytes of their
 * names. */
HS_API hs_status hs_universe_list(const char *spec, hs_universe_entry **entries, size_t *n, hs_error *err)
    HS_DEPRECATED("use hs_universe_open");

/* The same listing, compact (added after 1.0.0; the 1.0 struct and call stay): one block of names, about
 * their bytes plus 8 per series, bounded by HS_UNIVERSE_MAX_LISTING_BYTES (past it: HS_ERR_USAGE, "split
 * it into several runs").  Both listings refuse what cannot make a universe, with a message naming it:
 * two series with one symbol (DUP.f64 and DUP.csv: both files named), a manifest that is not a regular
 * file (a FIFO would block), a price file given as a manifest ("did you mean --input"); a directory lists
 * regular files only.  Symbols are at most 127 bytes (a longer file name is cut; a longer manifest symbol
 * is an error), paths at most 4,095. */
#define HS_UNIVERSE_MAX_LISTING_BYTES ((size_t)1 << 30)
typedef struct hs_universe hs_universe;
HS_API hs_status hs_universe_open(const char *spec, hs_universe **out, hs_error *err);
HS_API size_t hs_universe_count(const hs_universe *u);
/* Series i's symbol and path (NUL-terminated, owned by u); NULL when i >= hs_universe_count(u). */
HS_API const char *hs_universe_symbol(const hs_universe *u, size_t i);
HS_API const char *hs_universe_path(const hs_universe *u, size_t i);
/* Threads: an open hs_universe is read-only; its readers may run at once, hs_universe_close after them. */
HS_API void hs_universe_close(hs_universe *u);

/* ---- the trade log (one combo) ----------------------------------------------------------------- */
/* One closed trade: entered at bar entry_bar's close, closed at bar exit_bar's close (a reversal, or the
 * last bar for the position still open at the end); side +1 long, -1 short; pnl in percentage points
 * after the round-trip fee (docs/spec.md §4). */
typedef struct {
    int64_t entry_bar, exit_bar;
    int8_t side;
    double entry_price, exit_price, pnl;
} hs_trade;

/* One combo's trade log (deprecated in 1.4: hs_trade_log_opt with opt NULL is this call).  Writes up to
 * `cap` trades into out (out may be NULL when cap is 0) and the total count into *n_trades; call with cap 0
 * to size.  The trades come from the reference variant's own event loop: their PnLs summed in order
 * (starting from 0.0) equal hs_sweep's pnl for the combo bit for bit, and *n_trades equals its trades.
 * Validates the series and the windows as hs_sweep does. */
HS_API hs_status hs_trade_log(const double *close, size_t n_bars, const hs_windows *combo, hs_trade *out, size_t cap,
                              size_t *n_trades, hs_error *err)
    HS_DEPRECATED("use hs_trade_log_opt(..., NULL, err)");
/* The same with options (API 1.2; the call to use since 1.4, opt NULL = hs_trade_log): the fee
 * (opt->has_fee, opt->fee) the trades are booked with, and, when opt->stats is non-NULL, the combo's
 * statistics into opt->stats[0] (hs_sweep's bits for the combo). opt->progress (and progress_user), when
 * set, is the cancel hook of docs/library.md "Progress and cancel": called on the calling thread every 4,096
 * rows of the kernel's passes over the series (done and total count those rows) and once at the end with
 * done == total; a non-zero answer stops the log within those rows with HS_ERR_CANCELLED (out[] and
 * *n_trades unspecified).  variant, isa and threads are not read; opt NULL = the defaults. */
HS_API hs_status hs_trade_log_opt(const double *close, size_t n_bars, const hs_windows *combo, hs_trade *out,
                                  size_t cap, size_t *n_trades, const hs_sweep_options *opt, hs_error *err);

/* ---- the indicators as arrays (docs/library.md "Indicators") ------------------------------------ *
 * The tier-0 series the kernel walks (docs/spec.md §3–§4), one call each, output aligned with the input:
 * out[0..n) gets NaN over the look-back (the first hs_*_lookback(...) elements) and the values after it.
 * They come from the reference variant's own WMA and HMA code, so they equal the kernel's values bit for
 * bit: the signs of hs_signal are the sweep's decisions, and its sign flips are hs_trade_log's entries.
 * x[0..n) must be finite (not necessarily positive); every window read must be 1 <= w <= n
 * (HS_ERR_USAGE naming it); out must hold n doubles.  A look-back is -1 when a window is below 1. */
HS_API int64_t hs_wma_lookback(int64_t w);
HS_API hs_status hs_wma(const double *x, size_t n, int64_t w, double *out, hs_error *err);
/* HMA = WMA(2·WMA(x, w0) − WMA(x, w1), w2) */
HS_API int64_t hs_hma_lookback(int64_t w0, int64_t w1, int64_t w2);
HS_API hs_status hs_hma(const double *x, size_t n, int64_t w0, int64_t w1, int64_t w2, double *out, hs_error *err);
/* HMA3 = WMA((3·WMA(x, w3) − WMA(x, w4)) − WMA(x, w5), w5) */
HS_API int64_t hs_hma3_lookback(int64_t w3, int64_t w4, int64_t w5);
HS_API hs_status hs_hma3(const double *x, size_t n, int64_t w3, int64_t w4, int64_t w5, double *out, hs_error *err);
/* d = HMA3 − HMA over one combo's six windows (hs_windows_from_length, or any six) */
HS_API int64_t hs_signal_lookback(const hs_windows *win);
HS_API hs_status hs_signal(const double *x, size_t n, const hs_windows *win, double *out, hs_error *err);

/* ---- live mode (docs/live.md) ------------------------------------------------------------------ *
 * One bar at a time, the same results as the sweep: after every append, each combo's pnl and trades
 * equal hs_sweep (tier 0, bit for bit) over every bar so far.  O(combos × k) per append of k bars, with
 * running-sum WMAs whose signs are certified (src/variants/certify.h); memory is bounded by the windows,
 * not by the number of bars.  A session is not thread-safe: one caller at a time. */
#define HS_LIVE_MAX_WINDOW ((int64_t)1 << 20) /* largest window a live session takes (memory ~ 32·w bytes) */

typedef struct hs_live hs_live;
/* A live session over a history close[0..n_bars) (n_bars >= 1) and n_combos combos (any six windows), with
 * options (API 1.2; opt NULL = the defaults): the session books its trades with opt's fee (has_fee/fee), and
 * (API 1.3) keeps every combo's mtm_max_drawdown for hs_live_equity when n_periods >= 1 (its value is not
 * read; equity, mtm_max_drawdown and period_ends must be NULL).  The other fields are not read.  Threads: a
 * session takes one caller at a time for every call on it (the readers hs_live_stats, hs_live_equity,
 * hs_live_combos and hs_live_bars may run at once with each other, never with an append or hs_live_free);
 * distinct sessions are independent. */
HS_API hs_status hs_live_open_opt(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                                  const hs_sweep_options *opt, hs_live **out, hs_error *err);
/* hs_live_open_opt with opt NULL (the 1.0 call). */
HS_API hs_status hs_live_open(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                              hs_live **out, hs_error *err)
    HS_DEPRECATED("use hs_live_open_opt(..., NULL, out, err)");
/* Append k >= 1 bars; fills, per combo (each array n_combos long; any may be NULL): pnl and trades equal to a
 * batch sweep over every bar so far (the open position closed at the newest close, as docs/spec.md §4 does at the
 * end), position after the newest bar (-1,0,+1), crossed = 1 if a cross happened in the k new bars.
 * Bad prices (NaN, inf, <= 0) fail with HS_ERR_DATA and leave the session unchanged. */
HS_API hs_status hs_live_append(hs_live *s, const double *bars, size_t k, double *pnl, int64_t *trades,
                                int8_t *position, uint8_t *crossed, hs_error *err);
/* Every combo's statistics (docs/spec.md §8) after the latest append (or the open): out[0..n_combos), equal
 * to a batch sweep's over every bar so far (the open position closed at the newest close, as the pnl the
 * append reports).  Computed on demand from the books: an append that nobody reads them after costs
 * nothing more. */
HS_API hs_status hs_live_stats(const hs_live *s, hs_stats *out, hs_error *err);
/* API 1.3 (docs/spec.md §9.1-§9.2): each combo's mark-to-market equity e at the newest bar (equal to the pnl
 * hs_live_append reports) into equity[0..n_combos), and its mtm_max_drawdown over every bar so far into
 * mtm_max_drawdown[0..n_combos), equal to a batch sweep's over the same bars (bit for bit).  Either may be
 * NULL.  The drawdown is kept bar by bar only by a session opened with hs_sweep_options.n_periods >= 1
 * (hs_live_open_opt, hs_live_open_many_opt; it costs a division per combo per bar, docs/live.md "Equity");
 * asking another session for it is HS_ERR_USAGE. */
HS_API hs_status hs_live_equity(const hs_live *s, double *equity, double *mtm_max_drawdown, hs_error *err);
HS_API size_t hs_live_combos(const hs_live *s);
HS_API size_t hs_live_bars(const hs_live *s);
HS_API void hs_live_free(hs_live *s);

/* Many symbols, one bar each per call: one live session per symbol over the same combos (docs/live.md).
 * The family is hs_live_many_<verb> (1.4; the 1.2 names hs_live_open_many, hs_live_open_many_opt,
 * hs_live_append_many and hs_live_free_many are deprecated aliases).  Threads: as hs_live, one caller at a
 * time per hs_live_many (the const readers may run at once with each other). */
typedef struct hs_live_many hs_live_many;
/* Open: history[s][0..n_bars[s]) is symbol s's history (n_bars[s] >= 1); opt as hs_live_open_opt reads it
 * (the fee, n_periods; NULL = the defaults) for every symbol. */
HS_API hs_status hs_live_many_open(const double *const *history, const size_t *n_bars, size_t n_symbols,
                                   const hs_windows *combos, size_t n_combos, const hs_sweep_options *opt,
                                   hs_live_many **out, hs_error *err);
/* Append bars[s] to symbol s, for every s < n_symbols; fills, per symbol and combo (arrays of n_symbols ×
 * n_combos, symbol-major: [s·n_combos + c]; any may be NULL), what hs_live_append fills for one bar.  A bad
 * price for any symbol fails with HS_ERR_DATA naming the symbol, and no session changes. */
HS_API hs_status hs_live_many_append(hs_live_many *m, const double *bars, double *pnl, int64_t *trades,
                                     int8_t *position, uint8_t *crossed, hs_error *err);
/* Every symbol's statistics after the latest call, out[s·n_combos + c] (as hs_live_stats per symbol). */
HS_API hs_status hs_live_many_stats(const hs_live_many *m, hs_stats *out, hs_error *err);
/* hs_live_equity for every symbol, symbol-major as hs_live_many_stats: [s·n_combos + c] (API 1.3). */
HS_API hs_status hs_live_many_equity(const hs_live_many *m, double *equity, double *mtm_max_drawdown, hs_error *err);
HS_API size_t hs_live_many_symbols(const hs_live_many *m);
HS_API void hs_live_many_free(hs_live_many *m);
/* The 1.2 names (deprecated in 1.4), the same calls: */
HS_API hs_status hs_live_open_many(const double *const *history, const size_t *n_bars, size_t n_symbols,
                                   const hs_windows *combos, size_t n_combos, hs_live_many **out, hs_error *err)
    HS_DEPRECATED("use hs_live_many_open(..., NULL, out, err)");
HS_API hs_status hs_live_open_many_opt(const double *const *history, const size_t *n_bars, size_t n_symbols,
                                       const hs_windows *combos, size_t n_combos, const hs_sweep_options *opt,
                                       hs_live_many **out, hs_error *err)
    HS_DEPRECATED("use hs_live_many_open");
HS_API hs_status hs_live_append_many(hs_live_many *m, const double *bars, double *pnl, int64_t *trades,
                                     int8_t *position, uint8_t *crossed, hs_error *err)
    HS_DEPRECATED("use hs_live_many_append");
HS_API void hs_live_free_many(hs_live_many *m) HS_DEPRECATED("use hs_live_many_free");

/* ---- validation: skill or luck? (docs/spec.md §9.4-9.7, spec v3; docs/library.md "Validation") ---- *
 * Every call takes E, the P x N equity matrix at period ends (row-major: E[k][c] at equity[k*n_combos + c],
 * P = n_periods rows, N = n_combos columns, as hs_sweep_options.equity fills it) and knows nothing of the
 * kernel.  The period returns are R[k][c] = E[k][c] - E[k-1][c] with E[-1][c] = 0.0 (§9.3).  E must be
 * finite; P = 0, N = 0, a NULL pointer, a non-finite E (named with its row and column) and every bad
 * parameter are HS_ERR_USAGE with a message that names the value.  Tier 0 (§9.8): the period statistics,
 * CSCV's choices, ranks, pbo and prob_oos_loss, and the walk-forward's choices and curve have the same
 * bits on every ISA; λ, the degradation line, dsr and psr0 are tier 1 (1e-12 relative of scipy). */
typedef struct { double mean, sd, period_sharpe, sortino, skew, kurtosis; } hs_period_stats; /* §9.4 */
/* out[0..n_combos): §9.4's figures of each column of E (sums in period order; NaN where §9.4 says). */
HS_API hs_status hs_period_stats_of(const double *equity, size_t n_periods, size_t n_combos, hs_period_stats *out,
                                    hs_error *err);

/* CSCV's largest S.  The cost is C(S, S/2) splits x N combos (S = 16: 12,870 splits; each +2 groups costs
 * about 3.8x more: S = 20 is 184,756 splits, 14x S = 16), and beyond 20 groups a group holds too few
 * periods for its metric to mean much (docs/library.md "Validation"). */
#define HS_CSCV_MAX_GROUPS 20
/* C(S, S/2), the number of splits; 0 for an odd S, S < 2 or S > HS_CSCV_MAX_GROUPS. */
HS_API size_t hs_cscv_splits(size_t groups);
/* groups: S as asked; splits: C(S, S/2); kept: the splits with a finite in-sample best (the others are
 * dropped, §9.5); pbo, prob_oos_loss: shares of the kept splits (NaN when none is kept); slope, intercept:
 * the degradation line, numpy's polyfit(is, oos, 1) over the kept splits whose two metrics are finite
 * (NaN with fewer than two such splits or when their in-sample metrics are all equal). */
typedef struct { size_t groups, splits, kept; double pbo, prob_oos_loss, slope, intercept; } hs_cscv_result;
/* §9.5 on S = groups (even, 2 <= S <= P, S <= HS_CSCV_MAX_GROUPS).  lambdas, is_metric, oos_metric: NULL or
 * room for hs_cscv_splits(groups) doubles each, in split order (NaN for a dropped split): λ, and the chosen
 * combo's in-sample and out-of-sample metric; chosen: NULL or room for as many size_t (the in-sample best,
 * SIZE_MAX for a dropped split).  Memory: (4·S + 4)·N doubles and N indices whatever the number of splits,
 * plus 2 doubles a split when is_metric or oos_metric is NULL (the degradation line needs them).  Its passes
 * across combos run on the ISA a sweep would pick ($HMASWEEP_ISA, else the widest): one the CPU cannot run
 * is HS_ERR_ISA. */
HS_API hs_status hs_cscv(const double *equity, size_t n_periods, size_t n_combos, size_t groups,
                         hs_cscv_result *out, double *lambdas, double *is_metric, double *oos_metric,
                         size_t *chosen, hs_error *err);
/* §9.6.  chosen: the combo judged (c*), sr its period_sharpe, trials the N used, var_sr the variance of the
 * finite Sharpes, sr0 the expected maximum under the null, dsr and psr0 (NaN where §9.6 says). */
typedef struct { size_t chosen; double sr, trials, var_sr, sr0, dsr, psr0; } hs_dsr_result;
/* From hs_period_stats_of's out (n_combos of them, over n_periods periods).  n_trials <= 0: N = the number
 * of combos with a finite period_sharpe; otherwise the effective number of trials (finite).  chosen ==
 * SIZE_MAX: the default c* (the largest finite period_sharpe, ties the lowest index; none finite: chosen
 * stays SIZE_MAX and every figure is NaN); otherwise that combo (< n_combos). */
HS_API hs_status hs_deflated_sharpe(const hs_period_stats *stats, size_t n_combos, size_t n_periods, double n_trials,
                                    size_t chosen, hs_dsr_result *out, hs_error *err);
typedef struct { size_t train, test, folds; int anchored; double oos_sharpe; } hs_walk_forward_result;
/* The number of folds of a walk-forward (§9.7): floor((P - train) / test) when train + test <= P, else 0. */
HS_API size_t hs_walk_forward_folds(size_t n_periods, size_t train, size_t test);
/* §9.7, rolling (anchored 0) or anchored.  1 <= train, test <= P and at least one fold (train + test <= P),
 * else HS_ERR_USAGE naming them.  choices: NULL or room for the folds (each fold's c*); oos_curve: NULL or
 * room for folds x test doubles, the stitched out-of-sample curve (test periods in order). */
HS_API hs_status hs_walk_forward(const double *equity, size_t n_periods, size_t n_combos, size_t train, size_t test,
                                 int anchored, size_t *choices, double *oos_curve, hs_walk_forward_result *out,
                                 hs_error *err);

/* ---- introspection ------------------------------------------------------------------------------ */
#define HS_VERSION_MAJOR 1
#define HS_VERSION_MINOR 4
#define HS_VERSION_PATCH 0
/* The library's version, "MAJOR.MINOR.PATCH" (the SONAME is libhmasweep.so.MAJOR). */
HS_API const char *hs_version(void);

/* One registered variant, as hs_sweep would run it here. */
typedef struct {
    const char *name;      /* registry name (static storage) */
    const char *summary;   /* one line (static storage) */
    int tier;              /* 0 bit-identical to the reference, 1 passes the gate (docs/spec.md §5) */
    int threaded;          /* 1: OpenMP across combos, hs_sweep_options.threads applies */
    char isas_built[64];   /* comma-separated ISAs built into this library, e.g. "scalar,sse2,avx2" */
    char isas_runnable[64]; /* those of them this CPU runs */
    char default_isa[16];  /* what hs_sweep picks with isa = NULL: the same code decides */
    const char *role;      /* "reference", "port", "production" or "experiment" (gap-study instruments) */
    /* 1.2 (hs_variant_describe_sized only; older callers' structs end above): */
    const char *kernel;    /* the kernel family it runs (static storage); variants may share one */
} hs_variant_info;

/* The default variant (hs_sweep_options.variant = NULL): an alias of the registry. */
#define HS_DEFAULT_VARIANT "best"
/* The variant an alias names (and, when summary is non-NULL, the alias's one-line summary), or NULL when
 * `name` is not an alias (registry.def HS_ALIAS).  Aliases are accepted wherever a variant name is. */
HS_API const char *hs_variant_alias(const char *name, const char **summary);

/* Number of registered variants (src/variants/registry.def). */
HS_API size_t hs_variant_count(void);
/* Describe variant `index` (< hs_variant_count()) into the first `out_size` bytes of *out: pass
 * sizeof(hs_variant_info).  hs_variant_info only grows at the end, and only the fields out_size covers
 * are written, so a program built against an older header keeps working.  Fails (HS_ERR_ISA, message from
 * hs_sweep's own choice) when $HMASWEEP_ISA names an ISA this CPU cannot run; the other fields are filled
 * even then.  Role "experiment" marks the gap study's instruments, which front ends leave out of lists. */
HS_API hs_status hs_variant_describe_sized(size_t index, hs_variant_info *out, size_t out_size, hs_error *err);
/* The same for the 1.1 fields (name .. role): the call of programs built against 1.1 (deprecated in 1.4). */
HS_API hs_status hs_variant_describe(size_t index, hs_variant_info *out, hs_error *err)
    HS_DEPRECATED("use hs_variant_describe_sized(index, out, sizeof *out, err)");
/* SHA-256 of the series' bytes (little-endian f64), as 64 hex digits and a NUL (docs/spec.md §1's check). */
HS_API void hs_series_sha256(const double *close, size_t n_bars, char hex[65]);

#ifdef __cplusplus
}
#endif
#endif
