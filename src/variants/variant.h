/* What a variant is, for the registry and the drivers.
 *
 * A variant = a combo kernel (one function per ISA it is built for) + a driver (serial, or OpenMP across
 * combos) + how much scratch each thread needs.  Variants that differ only in the driver share a kernel,
 * so `simd_wma_omp` and `best` are registry lines, not copies.
 */
#ifndef HS_VARIANT_H
#define HS_VARIANT_H

#include <stdatomic.h>
#include <stddef.h>

#include "hmasweep.h"
#include "isa.h"
#include "tier0.h"

/* One combo over the whole series.  `scratch` holds the kernel's scratch_buffers buffers of
 * hs_scratch_stride(n_bars) doubles each, 64-byte aligned, owned by the calling thread (NULL when the
 * variant asks for none and allocates per call, as the study's kernels did). */
/* A combo kernel that allocates per call (the ports) and could not returns this trade count; the
 * drivers turn it into HS_ERR_NOMEM. */
#define HS_TRADES_NOMEM (-1)
/* `keep` = 1 − fee (docs/spec.md §8, tier0.h hs_keep), the same for every combo of a sweep.  The outcome
 * carries the result and the six statistics, both from the one book (src/spec/tier0.h). */
/* `mtm`: the combo's equity tracker (equity.h) when the sweep asks for periods, else NULL; the kernel feeds
 * it the crosses (hs_book_step_mtm, hs_books_over_mtm), the driver makes and finishes it. */
typedef hs_outcome hs_combo_kernel(const double *close, size_t n_bars, const hs_windows *win, double keep,
                                   double *scratch, hs_mtm *mtm);
typedef hs_combo_kernel *hs_combo_fn;

/* A batch kernel runs up to HS_BATCH_MAX combos in one call (one per vector lane, e.g. sliding_lanes); the
 * drivers hand it combos of similar cost together.  `scratch` is the same per-thread scratch. */
#define HS_BATCH_MAX 8
typedef void hs_batch_kernel(const double *close, size_t n_bars, const hs_windows *win, size_t count, double keep,
                             hs_outcome *out, double *scratch, hs_mtm *mtm); /* mtm: count trackers, or NULL */
typedef hs_batch_kernel *hs_batch_fn;

/* A sweep's progress and cancel state (hs_sweep_options.progress, docs/library.md "Progress and
 * cancel").  Every thread counts the combos it finishes and skips what is left once `stop` is set; only
 * the calling thread (the OpenMP master, is_caller) calls the user's callback, so it is never called
 * concurrently.  The drivers get NULL when the caller set no callback: then nothing is counted. */
typedef struct {
    int (*fn)(void *user, size_t done, size_t total);
    void *user;
    size_t total;
    atomic_size_t done;
    atomic_int stop;
} hs_cancel;

static inline int hs_cancel_stopped(hs_cancel *c) {
    return c && atomic_load_explicit(&c->stop, memory_order_relaxed);
}

/* `n` more combos are finished; on the calling thread, ask the callback whether to go on. */
static inline void hs_cancel_tick(hs_cancel *c, size_t n, int is_caller) {
    if (!c) return;
    size_t done = atomic_fetch_add_explicit(&c->done, n, memory_order_relaxed) + n;
    if (is_caller && !hs_cancel_stopped(c) && c->fn(c->user, done < c->total ? done : c->total, c->total))
        atomic_store_explicit(&c->stop, 1, memory_order_relaxed);
}

/* A whole-sweep kernel (shape SWEEP, e.g. segments) runs every combo itself, with `threads` threads,
 * and owns its scratch (it lays the series out once per sweep for all combos); it reports its errors.
 * It ticks `cancel` (may be NULL) per combo and skips the combos left once it is stopped.  `stats`
 * (may be NULL) gets each combo's statistics beside out[]; `eq` (may be NULL: no periods) the equity
 * terms, whose trackers it makes, feeds and finishes per combo. */
typedef hs_status hs_sweep_kernel(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                                  double keep, hs_result *out, hs_stats *stats, int threads, hs_cancel *cancel,
                                  const hs_equity_terms *eq, hs_error *err);
typedef hs_sweep_kernel *hs_sweep_fn;

/* The doubles of scratch a kernel's layout uses for n bars, declared by the kernel itself next to the code
 * that carves it (HS_SCRATCH(k), one per kernel and ISA: layouts grow with HS_VN), or SIZE_MAX where its
 * parts would overlap.  The drivers allocate the registry's scratch_buffers buffers of
 * hs_scratch_stride(n) and refuse a variant whose layout does not fit them (hs_scratch_fits); the gate
 * checks it on every variant and ISA for many n. */
typedef size_t hs_scratch_kernel(size_t n_bars);
typedef hs_scratch_kernel *hs_scratch_fn;

typedef enum { HS_DRIVER_SERIAL, HS_DRIVER_OPENMP } hs_driver;

/* What the kernel is called with (registry.def `shape`). */
typedef enum { HS_SHAPE_COMBO, HS_SHAPE_BATCH, HS_SHAPE_SWEEP } hs_shape;

/* What the variant is for (registry.def `role`): experiments are gated but left out of the user's list. */
typedef enum { HS_ROLE_REFERENCE, HS_ROLE_PORT, HS_ROLE_PRODUCTION, HS_ROLE_EXPERIMENT } hs_role;

typedef struct {
    const char *name;
    const char *kernel;   /* the kernel family, hs_combo_<kernel>__<isa> */
    const char *summary;
    int tier;             /* 0 bit-identical to the reference, 1 passes the gate only (docs/spec.md §5) */
    hs_driver driver;
    int scratch_buffers;  /* per-thread buffers of n_bars doubles allocated before the sweep */
    hs_shape shape;
    hs_role role;
    hs_combo_fn fn[HS_ISA_COUNT]; /* NULL where not built */
    hs_batch_fn batch[HS_ISA_COUNT]; /* shape BATCH only; fn[] then runs one combo */
    hs_sweep_fn sweep[HS_ISA_COUNT]; /* shape SWEEP only; the drivers call it */
    hs_scratch_fn scratch_doubles[HS_ISA_COUNT]; /* what the kernel's layout uses; NULL where not built */
} hs_variant;

/* Bars whose sign a certified kernel could not trust and recomputed in tier-0 order, summed over every
 * sweep of the process (a relaxed atomic counter; the profiling tools read it, nothing else depends on
 * it).  Kernels add their per-sweep totals once. */
void hs_kernel_count_recomputed(long long bars);
long long hs_kernel_recomputed_total(void);

/* The registry: the product's variants (registry.def), or the table hs_registry_install installed. */
const hs_variant *hs_variants(size_t *count);
/* Replace the table hs_variants returns, before any other call (the gap study's instruments do it from a
 * constructor: study/gap/instruments/instruments.c); the table must list registry.def's variants first. */
void hs_registry_install(const hs_variant *table, size_t count);
/* By name, or by an alias's name (registry.def HS_ALIAS: `best`). */
const hs_variant *hs_variant_find(const char *name);
/* Where `sliding`'s combo function leaves its certified d in the scratch it was given (src/variants/sliding.c). */
const double *hs_sliding_certified_d(const double *scratch, size_t n);
/* hs_variant_alias and HS_DEFAULT_VARIANT are public (include/hmasweep.h). */

/* Buffer stride in doubles: n rounded up to a whole 64-byte line plus one spare line, so vector
 * tails may over-read a buffer end without leaving it. */
static inline size_t hs_scratch_stride(size_t n_bars) { return ((n_bars + 7) & ~(size_t)7) + 8; }

/* a + b, or SIZE_MAX when either is (a layout that does not fit stays unfit). */
static inline size_t hs_scratch_sum(size_t a, size_t b) { return a == SIZE_MAX || b == SIZE_MAX ? SIZE_MAX : a + b; }

/* Does variant v's kernel on `isa` fit the scratch the drivers give it for n bars? */
static inline int hs_scratch_fits(const hs_variant *v, hs_isa isa, size_t n_bars) {
    hs_scratch_fn need = v->scratch_doubles[isa];
    return need && need(n_bars) <= (size_t)v->scratch_buffers * hs_scratch_stride(n_bars);
}

/* Run a variant with a chosen ISA (validated by the caller: built, supported) and thread count, at the
 * default fee, no statistics wanted. */
hs_status hs_run_variant(const hs_variant *v, hs_isa isa, int threads, const double *close, size_t n_bars,
                         const hs_windows *combos, size_t n_combos, hs_result *out, hs_error *err);
/* What a run asks for beyond the combos: the fee as keep (hs_keep), where the statistics go (stats[c]
 * beside out[c]; NULL = not wanted), the progress/cancel state (NULL: none), and the periods with where
 * E and mtm_max_drawdown go (equity.h; NULL: no periods, and the run costs what it did before §9). */
typedef struct {
    double keep;
    hs_stats *stats;
    hs_cancel *cancel;
    const hs_equity_terms *equity;
} hs_run_terms;
/* … with those terms: HS_ERR_CANCELLED when it was stopped. */
hs_status hs_run_variant_terms(const hs_variant *v, hs_isa isa, int threads, const double *close, size_t n_bars,
                               const hs_windows *combos, size_t n_combos, hs_result *out, const hs_run_terms *terms,
                               hs_error *err);

/* hs_sweep with E stored at equity[k·equity_stride + c] (0: n_combos, as hs_sweep; hs_sweep_many passes
 * its full row so each unit writes its own columns). */
hs_status hs_sweep_strided(const double *close, size_t n_bars, const hs_windows *combos, size_t n_combos,
                           hs_result *out, const hs_sweep_options *opt, size_t equity_stride, hs_error *err);
/* The periods an options struct asks for, checked, and the close's range table where `ranges` (sweep.c). */
hs_status hs_options_equity(const hs_sweep_options *known, const double *close, size_t n_bars, size_t n_combos,
                            size_t stride, int ranges, hs_equity_terms *terms, const hs_equity_terms **out,
                            void **owned, hs_error *err);


/* The number of threads a variant runs with for a --threads request (0 = default). */
int hs_variant_threads(const hs_variant *v, int requested);
/* What a sweep runs with: hs_variant_threads capped at HS_THREADS_MAX (a large OMP_NUM_THREADS) and at
 * what RLIMIT_NPROC lets this process create.  Computed once per call: the tasks it counts change once
 * the region has run. */
int hs_sweep_team(const hs_variant *v, int requested);
/* threads outside 0..HS_THREADS_MAX: HS_ERR_USAGE naming it. */
hs_status hs_check_threads(int threads, hs_error *err);

/* The ISA hs_sweep runs variant v with for a requested ISA name (NULL = the default, capped by
 * $HMASWEEP_ISA): one function for the sweep and for introspection. */
hs_status hs_choose_isa(const hs_variant *v, const char *requested, hs_isa *out, hs_error *err);

#include "opts.h" /* the options reader: hs_read_sweep_options, HS_OPTIONS_SIZE_*, hs_check_no_periods */

/* The kernels' names, written once: hs_combo_<kernel>__<isa>, hs_batch_<kernel>__<isa> (shape BATCH),
 * hs_sweep_<kernel>__<isa> (shape SWEEP), hs_scratch_<kernel>__<isa> (every kernel: hs_scratch_fn).  Multi-ISA kernel files are compiled once per ISA with
 * HS_ISA_NAME set (isa.def); HS_COMBO(k), HS_BATCH(k) and HS_SWEEP(k) name that ISA's function.  A file
 * may set HS_ISA_SUFFIX to name its copies apart (prof's seg_profile: prof_<isa>). */
#define HS_CAT3_(a, b, c) a##b##c
#define HS_CAT3(a, b, c) HS_CAT3_(a, b, c)
#define HS_COMBO_ISA(kernel, isa) HS_CAT3(hs_combo_, kernel, HS_CAT3(__, isa, ))
#define HS_BATCH_ISA(kernel, isa) HS_CAT3(hs_batch_, kernel, HS_CAT3(__, isa, ))
#define HS_SWEEP_ISA(kernel, isa) HS_CAT3(hs_sweep_, kernel, HS_CAT3(__, isa, ))
#define HS_SCRATCH_ISA(kernel, isa) HS_CAT3(hs_scratch_, kernel, HS_CAT3(__, isa, ))
#ifdef HS_ISA_NAME
#ifndef HS_ISA_SUFFIX
#define HS_ISA_SUFFIX HS_ISA_NAME
#endif
#define HS_COMBO(kernel) HS_COMBO_ISA(kernel, HS_ISA_SUFFIX)
#define HS_BATCH(kernel) HS_BATCH_ISA(kernel, HS_ISA_SUFFIX)
#define HS_SWEEP(kernel) HS_SWEEP_ISA(kernel, HS_ISA_SUFFIX)
#define HS_SCRATCH(kernel) HS_SCRATCH_ISA(kernel, HS_ISA_SUFFIX)
#endif

#endif
