/* hmasweep._core's internal header: what the files of the extension share (python/src/).
 *
 * One extension module, hmasweep._core, in files by subject, as bottleneck splits its moving-window
 * functions from their argument parser:
 *   _core.c        the module: its method tables and PyInit__core
 *   args.c         parse_args (a call's positional and keyword arguments) and each argument's conversion
 *   status.c       the library's errors as exceptions; Ctrl-C and progress while it runs
 *   result.c       SweepResult, STATS_DTYPE and the derived statistics
 *   sweep.c        sweep(), _sweep_many, _trade_log
 *   indicators.c   _indicator (hs_wma, hs_hma, hs_hma3, hs_signal)
 *   data.c         series, standard_normal, grid, windows, variants, read_series, _write_file
 *   validation.c   the periods and the validation library (§9.3-§9.7)
 *   client.c       _CClient, the C client's binding (client.h), and client_live.c its live session
 *
 * Every file includes this header first: it includes Python.h (with PY_SSIZE_T_CLEAN) and numpy's C API.
 * numpy's API table is one per module: _core.c defines it (PY_ARRAY_UNIQUE_SYMBOL), the rest import it. */
#ifndef HS_PY_CORE_H
#define HS_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL hs_py_numpy_api
#ifndef HS_PY_CORE_MODULE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stddef.h>
#include <stdint.h>

#include "hmasweep.h"

/* ---- status.c ---------------------------------------------------------------------------------- */

/* The library's error as an exception (HS_ERR_NOMEM: MemoryError; HS_ERR_IO: ConnectionError; else
 * ValueError, with the library's message); NULL. */
PyObject *raise_status(hs_status st, const hs_error *err);
/* A freshly filled array, or (dropping it) the library's error. */
PyObject *array_or_raise(PyArrayObject *a, hs_status st, const hs_error *err);

/* Ctrl-C and a progress callable while the library runs (status.c says how). */
typedef struct {
    PyObject *report; /* callable(done, total) or NULL */
    int64_t next_ns;  /* when to take the GIL again */
} poll_state;
/* Wire the hook into `opt` (struct_size must cover it). */
void poll_attach(hs_sweep_options *opt, poll_state *ps, PyObject *report);

/* ---- args.c ------------------------------------------------------------------------------------ */

/* A call's signature for parse_args: its name (for the messages), its parameters' names in order, how many
 * may come by position, and how many are required (the first ones).  `interned` holds n str objects,
 * made once at import by intern_signature. */
typedef struct {
    const char *fn;
    int n, max_positional, required;
    const char *const *names;
    PyObject **interned;
} call_signature;
int intern_signature(const call_signature *sig);
/* A METH_FASTCALL | METH_KEYWORDS call's arguments into slot[0..n) (borrowed references), by position
 * then by keyword; a slot not given keeps what the caller put there.  0 with TypeError (the message
 * CPython's own parser gives) for too many positional arguments, an unknown or repeated keyword, or a
 * required argument missing. */
int parse_args(const call_signature *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **slot);

PyArrayObject *as_doubles(PyObject *obj, int ndim, const char *wrong_ndim);
PyArrayObject *as_close(PyObject *obj);
PyArrayObject *as_int64(PyObject *obj, const char *what);
PyArrayObject *combos_from_windows(PyObject *windows);
PyArrayObject *lengths_array(PyObject *lengths, const char *what);
PyArrayObject *windows_from_lengths(PyArrayObject *lengths);
int fee_arg(PyObject *obj, double *fee, int *has_fee);
int str_arg(PyObject *obj, const char *what, const char **out);
int nonnegative(const char *what, Py_ssize_t v);
int parse_seed(PyObject *obj, uint64_t *seed);
int parse_count(PyObject *obj, const char *what, npy_intp *n);

/* ---- result.c ---------------------------------------------------------------------------------- */

/* SweepResult's fields past the five of its tuple (by name only). */
enum { RESULT_HMA_LENGTHS = 7, RESULT_HMA3_LENGTHS, RESULT_BARS, RESULT_FEE, RESULT_STATS, RESULT_EQUITY, RESULT_MTM,
       RESULT_PERIOD_ENDS, RESULT_PERIOD_INDEX, RESULT_PERIODS_PER_YEAR };
extern PyTypeObject *SweepResult;
extern PyArray_Descr *stats_descr; /* STATS_DTYPE: hs_stats's layout */
/* A new (dims) array of STATS_DTYPE records, laid out as hs_stats[]. */
PyArrayObject *new_stats_array(int nd, npy_intp *dims);
/* SweepResult and STATS_DTYPE, made and added to the module; -1 with an exception. */
int result_types_init(PyObject *module);

/* ---- the module (_core.c) ---------------------------------------------------------------------- */

/* PyModule_AddObjectRef, also before Python 3.10: `value` is added with a new reference (the caller keeps
 * its own, success or not); -1 with an exception, also when value is NULL. */
int add_object(PyObject *module, const char *name, PyObject *value);

/* sweep's signature, interned at import (sweep.c) */
extern const call_signature sweep_signature;

/* Each file's functions, added to the module by PyInit__core. */
extern PyMethodDef hs_py_status_methods[], hs_py_sweep_methods[], hs_py_result_methods[], hs_py_data_methods[],
    hs_py_indicator_methods[], hs_py_validation_methods[];

/* The defaults as text, from include/hmasweep.h's HS_DEFAULT_GRID_* (sweep's and grid's docs). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define GRID_LO_TEXT STR(HS_DEFAULT_GRID_LO)
#define GRID_HI_TEXT STR(HS_DEFAULT_GRID_HI)
#define GRID_COUNT_TEXT STR(HS_DEFAULT_GRID_COUNT)

#endif
