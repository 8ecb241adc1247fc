/* hmasweep._core — the CPython binding of the public C API (include/hmasweep.h).
 *
 * Why a hand-written C extension: the project is C, the per-call overhead budget is 2 µs (issue 8), and
 * the hot path here is one argument parse, one zero-copy view of `close`, the GIL released around
 * hs_sweep, and two result arrays split out of the hs_result pairs.  reports/python.md has the numbers.
 *
 * Zero-copy rule: `close` that is already a 1-D, C-contiguous, native-endian float64 ndarray is used in
 * place (same for any object numpy can view without copying: buffer-protocol exporters, pandas Series
 * backed by such an array).  Anything else (a list, float32, a strided view) is converted once.
 * Every library error arrives as ValueError (MemoryError for HS_ERR_NOMEM) with the library's message.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hmasweep.h"
#include "hmasweep_client.h"

/* HS_ERR_NOMEM: MemoryError; HS_ERR_IO (a client's connection failed): ConnectionError, an OSError;
 * every other status: ValueError. */
static PyObject *raise_status(hs_status st, const hs_error *err) {
    if (st == HS_ERR_CANCELLED && PyErr_Occurred()) return NULL; /* the callback's KeyboardInterrupt */
    PyErr_SetString(st == HS_ERR_NOMEM ? PyExc_MemoryError : st == HS_ERR_IO ? PyExc_ConnectionError : PyExc_ValueError,
                    err->msg);
    return NULL;
}

/* A freshly filled array, or (dropping it) the library's error. */
static PyObject *array_or_raise(PyArrayObject *a, hs_status st, const hs_error *err) {
    if (st == HS_OK) return (PyObject *)a;
    Py_DECREF(a);
    return raise_status(st, err);
}

/* ---- Ctrl-C and progress (hs_sweep_options.progress, docs/python.md "Ctrl-C") ----------------------
 * The library calls poll_python on the calling thread (this one, which released the GIL) every few
 * combos or blocks.  Taking the GIL each time would stall behind any other Python thread (up to the 5 ms
 * switch interval), so it reads a coarse clock first and takes the GIL at most every POLL_NS: there it
 * runs pending signal handlers (PyErr_CheckSignals: SIGINT raises KeyboardInterrupt) and the optional
 * report callable; an exception stops the sweep (HS_ERR_CANCELLED), and raise_status keeps it. */
#define POLL_NS 50000000L /* 50 ms: Ctrl-C takes effect within about that plus one block */
#ifdef CLOCK_MONOTONIC_COARSE
#define POLL_CLOCK CLOCK_MONOTONIC_COARSE /* ~20 ns a read on Linux (vDSO), against ~25 ns MONOTONIC */
#else
#define POLL_CLOCK CLOCK_MONOTONIC
#endif
typedef struct {
    PyObject *report; /* callable(done, total) or NULL */
    int64_t next_ns;  /* when to take the GIL again */
} poll_state;
static int interruptible = 1; /* _set_interruptible(False) turns the hook off, to measure its cost */

static int64_t poll_now_ns(void) {
    struct timespec t;
    clock_gettime(POLL_CLOCK, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int poll_python(void *user, size_t done, size_t total) {
    poll_state *ps = user;
    int64_t now = poll_now_ns();
    if (now < ps->next_ns && done < total) return 0;
    ps->next_ns = now + POLL_NS;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    if (!stop && ps->report) {
        PyObject *r = PyObject_CallFunction(ps->report, "nn", (Py_ssize_t)done, (Py_ssize_t)total);
        stop = r == NULL;
        Py_XDECREF(r);
    }
    PyGILState_Release(g);
    return stop;
}

/* Wire the hook into `opt` (struct_size must cover it). */
static void poll_attach(hs_sweep_options *opt, poll_state *ps, PyObject *report) {
    *ps = (poll_state){report, poll_now_ns() + POLL_NS};
    if (!interruptible && !report) return;
    opt->progress = poll_python;
    opt->progress_user = ps;
}

static PyObject *py_set_interruptible(PyObject *self, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    PyObject *was = PyBool_FromLong(interruptible);
    interruptible = on;
    return was;
}

/* ---- argument conversion ---------------------------------------------------------------------- */

/* A new reference to `obj` as a C-contiguous native float64 array of `ndim` dimensions: `obj` itself when it
 * already is one (the common case, checked first because PyArray_FROM_OTF costs ~100 ns more), else one copy.
 * Another number of dimensions: ValueError from `wrong_ndim`, a format with one %d (the dimensions given). */
static PyArrayObject *as_doubles(PyObject *obj, int ndim, const char *wrong_ndim) {
    PyArrayObject *a;
    if (PyArray_CheckExact(obj) && PyArray_TYPE((PyArrayObject *)obj) == NPY_DOUBLE &&
        PyArray_ISCARRAY_RO((PyArrayObject *)obj) && PyArray_ISNOTSWAPPED((PyArrayObject *)obj)) {
        Py_INCREF(obj);
        a = (PyArrayObject *)obj;
    } else {
        a = (PyArrayObject *)PyArray_FROM_OTF(obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
        if (!a) return NULL;
    }
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_ValueError, wrong_ndim, PyArray_NDIM(a));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyArrayObject *as_close(PyObject *obj) {
    return as_doubles(obj, 1, "close must be a 1-D series of prices, got a %d-D array");
}

/* An int64 array with C layout from any integer array-like (safe casting: floats are refused). */
static PyArrayObject *as_int64(PyObject *obj, const char *what) {
    if (PyArray_CheckExact(obj) && PyArray_TYPE((PyArrayObject *)obj) == NPY_INT64 &&
        PyArray_ISCARRAY_RO((PyArrayObject *)obj) && PyArray_ISNOTSWAPPED((PyArrayObject *)obj)) {
        Py_INCREF(obj);
        return (PyArrayObject *)obj;
    }
    /* Discover the dtype first: converting a list straight to int64 would truncate 6.5 to 6 silently. */
    PyArrayObject *any = (PyArrayObject *)PyArray_FROM_O(obj);
    if (!any) return NULL;
    if (!PyArray_ISINTEGER(any) && !(PyArray_SIZE(any) == 0 && PyArray_ISFLOAT(any))) {
        PyErr_Format(PyExc_ValueError, "%s must be integers, got dtype %s", what,
                     PyArray_ISFLOAT(any) ? "float" : "non-integer");
        Py_DECREF(any);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)any, NPY_INT64,
                                                         NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
    Py_DECREF(any);
    return a;
}

/* The combos as an (n, 6) int64 array: from `windows` (n × 6, or one row of 6), or from lengths (None =
 * the default grid, an int = one combo, a sequence = one combo each) through hs_windows_from_length. */
static PyArrayObject *combos_from_windows(PyObject *windows) {
    PyArrayObject *w = as_int64(windows, "windows");
    if (!w) return NULL;
    int nd = PyArray_NDIM(w);
    if (!((nd == 2 && PyArray_DIM(w, 1) == 6) || (nd == 1 && PyArray_DIM(w, 0) == 6))) {
        PyErr_SetString(PyExc_ValueError, "windows must have shape (n, 6): w0..w5 per combo (docs/spec.md §2 order)");
        Py_DECREF(w);
        return NULL;
    }
    npy_intp dims[2] = {nd == 2 ? PyArray_DIM(w, 0) : 1, 6};
    /* A fresh copy: the result owns its windows, whatever the caller does with the argument later. */
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64);
    if (out) memcpy(PyArray_DATA(out), PyArray_DATA(w), (size_t)dims[0] * 6 * sizeof(int64_t));
    Py_DECREF(w);
    return out;
}

static PyArrayObject *default_lengths(void) {
    npy_intp n = HS_DEFAULT_GRID_COUNT;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!a) return NULL;
    hs_error err;
    hs_status st = hs_grid(HS_DEFAULT_GRID_LO, HS_DEFAULT_GRID_HI, HS_DEFAULT_GRID_COUNT, PyArray_DATA(a), &err);
    return (PyArrayObject *)array_or_raise(a, st, &err);
}

static PyArrayObject *lengths_array(PyObject *lengths, const char *what) {
    if (lengths == Py_None) return default_lengths();
    if (PyLong_CheckExact(lengths)) { /* one length: skip numpy's scalar conversion (~0.3 µs here) */
        long long L = PyLong_AsLongLong(lengths);
        if (L == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "length is out of range (L must be >= 2 and fit in int64)");
            return NULL;
        }
        npy_intp one = 1;
        PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(1, &one, NPY_INT64);
        if (r) *(int64_t *)PyArray_DATA(r) = (int64_t)L;
        return r;
    }
    PyArrayObject *l = as_int64(lengths, what);
    if (!l) return NULL;
    if (PyArray_NDIM(l) > 1) {
        PyErr_Format(PyExc_ValueError, "%s must be an int or a 1-D sequence of ints", what);
        Py_DECREF(l);
        return NULL;
    }
    if (PyArray_NDIM(l) == 0) { /* one length: a 1-element array */
        npy_intp one = 1;
        PyArrayObject *r = (PyArrayObject *)PyArray_SimpleNew(1, &one, NPY_INT64);
        if (r) *(int64_t *)PyArray_DATA(r) = *(int64_t *)PyArray_DATA(l);
        Py_DECREF(l);
        return r;
    }
    return l;
}

static PyArrayObject *windows_from_lengths(PyArrayObject *lengths) {
    npy_intp dims[2] = {PyArray_DIM(lengths, 0), 6};
    PyArrayObject *w = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64);
    if (!w) return NULL;
    const int64_t *L = PyArray_DATA(lengths);
    hs_windows *out = PyArray_DATA(w); /* n × 6 int64, C order: the layout of hs_windows[n] */
    for (npy_intp k = 0; k < dims[0]; k++) {
        hs_error err;
        hs_status st = hs_windows_from_length(L[k], &out[k], &err);
        if (st != HS_OK) {
            Py_DECREF(w);
            return (PyArrayObject *)raise_status(st, &err);
        }
    }
    return w;
}

/* hma and hma3 come together, and replace lengths and windows. */
static int check_2d_arguments(PyObject *hma, PyObject *hma3, PyObject *lengths, PyObject *windows) {
    if (hma == Py_None || hma3 == Py_None) {
        PyErr_Format(PyExc_ValueError, "%s needs %s too: the 2-D grid sweeps every (HMA length, HMA3 length) pair",
                     hma == Py_None ? "hma3" : "hma", hma == Py_None ? "hma" : "hma3");
        return 0;
    }
    if (lengths != Py_None || windows != Py_None) {
        PyErr_Format(PyExc_ValueError, "hma/hma3 (the 2-D grid) replace %s; give one", lengths != Py_None ? "lengths" : "windows");
        return 0;
    }
    return 1;
}

/* An axis's length before it is converted (a range(2, 10**9) is 8 GB as an array): len() where the object
 * has one, 1 for an int, the default grid's for None; -1 when unknown (then checked after conversion). */
static Py_ssize_t axis_length(PyObject *o) {
    if (o == Py_None) return HS_DEFAULT_GRID_COUNT;
    if (PyLong_Check(o)) return 1;
    Py_ssize_t n = PyObject_Length(o);
    if (n < 0) PyErr_Clear();
    return n;
}

/* The 2-D grid is capped as the CLI's is (issue 29 item 8: hma=range(2, 10**9) tried to allocate about
 * 24 GB, and the OOM killer then hit other processes): at most HS_GRID_COUNT_MAX (1,000,000) pairs,
 * refused with ValueError naming the sizes and the memory the sweep would take (per combo: its windows,
 * its two lengths, pnl, trades, the C result and the statistics).  0 with the error set, else 1. */
static int check_grid_2d_size(Py_ssize_t nh, Py_ssize_t n3) {
    if (nh < 0 || n3 < 0) return 1;
    double combos = (double)nh * (double)n3;
    if (combos <= HS_GRID_COUNT_MAX) return 1;
    double per_combo = (double)(sizeof(hs_windows) + 2 * sizeof(int64_t) + sizeof(double) + sizeof(int64_t) +
                                sizeof(hs_result) + sizeof(hs_stats));
    char msg[300]; /* PyErr_Format has no %f */
    snprintf(msg, sizeof msg,
             "the 2-D grid hma x hma3 = %zd x %zd = %.0f combos is more than %d (HS_GRID_COUNT_MAX, the CLI's "
             "limit too); it would need about %.1f GB: sweep it in parts",
             nh, n3, combos, HS_GRID_COUNT_MAX, combos * per_combo / 1e9);
    PyErr_SetString(PyExc_ValueError, msg);
    return 0;
}

/* The 2-D grid (docs/spec.md §8) through hs_grid_2d: the (n_hma * n_hma3, 6) windows, HMA length outer, and
 * each combo's pair in *hma_out and *hma3_out. */
static PyArrayObject *windows_2d(PyObject *hma_obj, PyObject *hma3_obj, PyArrayObject **hma_out, PyArrayObject **hma3_out) {
    if (!check_grid_2d_size(axis_length(hma_obj), axis_length(hma3_obj))) return NULL;
    PyArrayObject *hma = lengths_array(hma_obj, "hma"), *hma3 = hma ? lengths_array(hma3_obj, "hma3") : NULL, *w = NULL;
    if (!hma || !hma3) goto done;
    npy_intp nh = PyArray_DIM(hma, 0), n3 = PyArray_DIM(hma3, 0);
    if (!check_grid_2d_size((Py_ssize_t)nh, (Py_ssize_t)n3)) goto done;
    npy_intp dims[2] = {nh * n3, 6};
    if (!(w = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64))) goto done;
    if (!(*hma_out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT64))) goto fail;
    if (!(*hma3_out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT64))) goto fail;
    hs_error err;
    hs_status st = hs_grid_2d(PyArray_DATA(hma), (size_t)nh, PyArray_DATA(hma3), (size_t)n3, PyArray_DATA(w), &err);
    if (st != HS_OK) {
        raise_status(st, &err);
        goto fail;
    }
    const int64_t *h = PyArray_DATA(hma), *t = PyArray_DATA(hma3);
    int64_t *ho = PyArray_DATA(*hma_out), *to = PyArray_DATA(*hma3_out);
    for (npy_intp c = 0; c < dims[0]; c++) ho[c] = h[c / n3], to[c] = t[c % n3];
    goto done;
fail:
    Py_CLEAR(w);
    Py_CLEAR(*hma_out);
    Py_CLEAR(*hma3_out);
done:
    Py_XDECREF(hma);
    Py_XDECREF(hma3);
    return w;
}

/* ---- SweepResult ------------------------------------------------------------------------------ */

static PyStructSequence_Field result_fields[] = {
    {"pnl", "float64 array (n,): summed PnL per combo, percentage points (docs/spec.md §4)"},
    {"trades", "int64 array (n,): closed trades per combo"},
    {"lengths", "int64 array (n,): the length L of each combo, or None when windows were given"},
    {"windows", "int64 array (n, 6): the six windows of each combo, docs/spec.md §2 order"},
    {"variant", "the registry variant that ran (what an alias such as 'best' named); 'server' from a Client"},
    {"isa", "the ISA it ran with (by name only, not in the tuple); None from a Client"},
    {"threads", "the threads it ran with (by name only, not in the tuple); None from a Client"},
    {"hma_lengths", "int64 array (n,): each combo's HMA length Lh (w0..w2), by name only; lengths for a 1-D grid"},
    {"hma3_lengths", "int64 array (n,): each combo's HMA3 length L3 (w3..w5), by name only; lengths for a 1-D grid"},
    {"bars", "the number of bars swept (by name only); None from a Client"},
    {"fee", "the round-trip fee the trades were booked with (docs/spec.md §8; by name only)"},
    {"stats", "structured array (n,) of STATS_DTYPE: docs/spec.md §8's six statistics per combo, as the library "
              "wrote them (r.wins, r.gross_profit ... are its fields); None from a Client sweep without stats"},
    {"equity", "float64 array (P, n): E, each combo's mark-to-market equity at the P period ends (docs/spec.md "
               "§9.1-§9.3), by name only; None without periods"},
    {"mtm_max_drawdown", "float64 array (n,): the largest fall of the per-bar mark-to-market equity from its peak, "
                         "percentage points (docs/spec.md §9.2), by name only; None without periods"},
    {"period_ends", "int64 array (P,): the bar that ends each period (docs/spec.md §9.3), by name only; None without "
                    "periods"},
    {"period_index", "the timestamps of the period ends (a pandas DatetimeIndex) when close had a DatetimeIndex, by "
                     "name only; else None"},
    {"periods_per_year", "the periods per year (given, or inferred: docs/python.md \"Periods and equity\"), by name "
                         "only; None when unknown"},
    {NULL, NULL}};
enum { RESULT_HMA_LENGTHS = 7, RESULT_HMA3_LENGTHS, RESULT_BARS, RESULT_FEE, RESULT_STATS, RESULT_EQUITY, RESULT_MTM,
       RESULT_PERIOD_ENDS, RESULT_PERIOD_INDEX, RESULT_PERIODS_PER_YEAR };
static PyStructSequence_Desc result_desc = {
    "hmasweep.SweepResult", "SweepResult(sequence, dict={})\n--\n\nThe result of hmasweep.sweep(): one entry per combo in every array.", result_fields,
    5};
static PyTypeObject *SweepResult;

/* r.to_frame() and r.equity_frame(): methods of the struct sequence, written in Python (hmasweep/results.py,
 * hmasweep/periods.py), so that pandas is imported only when a table is asked for. */
static PyObject *call_python(const char *module, const char *function, PyObject *self) {
    PyObject *mod = PyImport_ImportModule(module);
    if (!mod) return NULL;
    PyObject *frame = PyObject_CallMethod(mod, function, "(O)", self); /* (O): self is a tuple */
    Py_DECREF(mod);
    return frame;
}

static PyObject *result_to_frame(PyObject *self, PyObject *unused) {
    return call_python("hmasweep.results", "to_frame", self);
}

static PyObject *result_equity_frame(PyObject *self, PyObject *unused) {
    return call_python("hmasweep.periods", "equity_frame", self);
}

static PyMethodDef result_equity_frame_def = {
    "equity_frame", result_equity_frame, METH_NOARGS,
    "equity_frame($self, /)\n--\n\n-> pandas.DataFrame: r.equity, one row per period indexed by the period-end\n"
    "timestamps (or bars), one column per combo (docs/python.md \"Periods and equity\")."};

static PyMethodDef result_to_frame_def = {
    "to_frame", result_to_frame, METH_NOARGS,
    "to_frame($self, /)\n--\n\n-> pandas.DataFrame, one row per combo: lengths, windows, trades, pnl, the statistics\n"
    "and the derived ones (docs/python.md \"Statistics\")."};

/* r.wins, r.gross_profit, ...: the fields of r.stats (views, made when asked for), None without stats.
 * Name, numpy type and doc of each come from HS_STATS_FIELDS (include/hmasweep.h), the one list. */
#define STAT_NUMPY_i64 "<i8"
#define STAT_NUMPY_f64 "<f8"
#define STAT_TYPE_i64 "int64"
#define STAT_TYPE_f64 "float64"
typedef struct {
    const char *name, *numpy, *doc;
} stat_field;
#define STAT_FIELD(name, kind, doc) \
    {#name, STAT_NUMPY_##kind, STAT_TYPE_##kind " array (n,): " doc " (this field of r.stats, docs/spec.md §8)"},
static const stat_field stat_fields[] = {HS_STATS_FIELDS(STAT_FIELD)};
#undef STAT_FIELD
enum { N_STAT_FIELDS = sizeof stat_fields / sizeof stat_fields[0] };

static PyObject *result_stat_field(PyObject *self, void *closure) {
    PyObject *stats = PyStructSequence_GetItem(self, RESULT_STATS);
    if (!stats || stats == Py_None) Py_RETURN_NONE;
    return PyObject_GetItem(stats, (PyObject *)closure);
}

static int add_result_methods(PyTypeObject *type) {
    PyObject *descr = PyDescr_NewMethod(type, &result_to_frame_def);
    if (!descr) return -1;
    int rc = PyDict_SetItemString(type->tp_dict, "to_frame", descr);
    Py_DECREF(descr);
    if (rc == 0) {
        if (!(descr = PyDescr_NewMethod(type, &result_equity_frame_def))) return -1;
        rc = PyDict_SetItemString(type->tp_dict, "equity_frame", descr);
        Py_DECREF(descr);
    }
    static PyGetSetDef getters[N_STAT_FIELDS];
    for (int k = 0; rc == 0 && k < N_STAT_FIELDS; k++) {
        PyObject *name = PyUnicode_InternFromString(stat_fields[k].name);
        if (!name) return -1;
        getters[k] = (PyGetSetDef){stat_fields[k].name, result_stat_field, NULL, stat_fields[k].doc, name};
        if (!(descr = PyDescr_NewGetSet(type, &getters[k]))) return -1;
        rc = PyDict_SetItemString(type->tp_dict, stat_fields[k].name, descr);
        Py_DECREF(descr);
    }
    PyType_Modified(type);
    return rc;
}

/* STATS_DTYPE: hs_stats's layout, so the library writes a result's statistics straight into its array. */
static PyArray_Descr *stats_descr;
/* numpy packs the fields back to back; hs_stats does too when every field is 8 bytes and they add up. */
#define STAT_IS_8_BYTES(name, kind, doc) _Static_assert(sizeof(((hs_stats *)0)->name) == 8, #name " is 8 bytes");
HS_STATS_FIELDS(STAT_IS_8_BYTES)
#undef STAT_IS_8_BYTES
_Static_assert(sizeof(hs_stats) == 8 * N_STAT_FIELDS, "STATS_DTYPE is hs_stats: its fields back to back, no padding");

static int make_stats_descr(PyObject *module) {
    PyObject *spec = PyList_New(N_STAT_FIELDS);
    for (int k = 0; spec && k < N_STAT_FIELDS; k++) {
        PyObject *field = Py_BuildValue("(ss)", stat_fields[k].name, stat_fields[k].numpy);
        if (!field) Py_CLEAR(spec);
        else PyList_SET_ITEM(spec, k, field);
    }
    if (!spec) return -1;
    int ok = PyArray_DescrConverter(spec, &stats_descr);
    Py_DECREF(spec);
    if (!ok) return -1;
    PyObject *size = PyObject_GetAttrString((PyObject *)stats_descr, "itemsize");
    long itemsize = size ? PyLong_AsLong(size) : -1;
    Py_XDECREF(size);
    if (itemsize != (long)sizeof(hs_stats)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "STATS_DTYPE is not hs_stats's 48 bytes");
        return -1;
    }
    Py_INCREF(stats_descr);
    return PyModule_AddObject(module, "STATS_DTYPE", (PyObject *)stats_descr);
}

/* A new (dims) array of STATS_DTYPE records, laid out as hs_stats[]. */
static PyArrayObject *new_stats_array(int nd, npy_intp *dims) {
    Py_INCREF(stats_descr);
    return (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, stats_descr, nd, dims, NULL, NULL, 0, NULL);
}

/* The fee argument: None (the library's default) or a float; *has_fee says which.  Its range is the
 * library's to check (hs_check_fee: ValueError naming the value). */
static int fee_arg(PyObject *obj, double *fee, int *has_fee) {
    *fee = HS_DEFAULT_FEE, *has_fee = 0;
    if (!obj || obj == Py_None) return 1;
    if (PyBool_Check(obj) || !PyNumber_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "fee must be a float (a fraction such as 0.0009), got %s", Py_TYPE(obj)->tp_name);
        return 0;
    }
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        /* an int too large for a double (fee=10**400) is a bad fee, ValueError as the docs say, not the
         * OverflowError of the conversion (issue 29 item 10) */
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return 0;
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "fee is too large for a double: the round-trip cost as a fraction, 0 <= fee < 1");
        return 0;
    }
    *fee = v, *has_fee = 1;
    return 1;
}

/* ---- sweep ------------------------------------------------------------------------------------ */

/* The defaults as text, from include/hmasweep.h's HS_DEFAULT_GRID_*. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define GRID_LO_TEXT STR(HS_DEFAULT_GRID_LO)
#define GRID_HI_TEXT STR(HS_DEFAULT_GRID_HI)
#define GRID_COUNT_TEXT STR(HS_DEFAULT_GRID_COUNT)

PyDoc_STRVAR(sweep_doc,
             "sweep($module, /, close, lengths=None, *, windows=None, hma=None, hma3=None, fee=None, variant='best',\n"
             "      isa=None, threads=0, periods=None, periods_per_year=None)\n"
             "--\n"
             "\n"
             "Returns a SweepResult (pnl, trades, lengths, windows, variant), with by name the statistics of\n"
             "docs/spec.md §8 (r.wins, r.gross_profit, ..., r.stats) and r.to_frame().\n"
             "Run the HMA/HMA3 stop-and-reverse backtest for every combo over `close`.\n"
             "\n"
             "close    1-D float64 prices (ndarray, pandas Series, list, any buffer); used in place when it is\n"
             "         already C-contiguous float64, converted once otherwise.\n"
             "lengths  None (the default grid " GRID_LO_TEXT ".." GRID_HI_TEXT ", " GRID_COUNT_TEXT " lengths), an int, or a sequence of ints L >= 2.\n"
             "windows  instead of lengths: (n, 6) ints, any six windows 1..len(close) per combo.\n"
             "hma, hma3  instead of lengths: the 2-D grid (docs/spec.md §8), every (Lh, L3) pair, hma outer;\n"
             "         w0..w2 from Lh, w3..w5 from L3.  r.hma_lengths and r.hma3_lengths give each combo's pair.\n"
             "fee      the round-trip cost, a fraction 0 <= fee < 1 (None: 0.0009, docs/spec.md §8).\n"
             "variant  registry name (see variants()); 'best' = the library's fastest tier-0 choice.\n"
             "isa      None = best the CPU runs; or an ISA's name, e.g. 'scalar' or 'avx2' (variants() lists each\n"
             "         variant's ISAs).\n"
             "threads  for OpenMP variants; 0 = default.\n"
             "periods  None, an int P (P equal periods), 'D', 'W' or 'M' (the last bar of each day, week or month of\n"
             "         close's DatetimeIndex) or the period ends (bar positions): r.equity (P x n), r.mtm_max_drawdown,\n"
             "         r.period_ends, r.period_index and r.equity_frame() (docs/spec.md §9.1-§9.3).\n"
             "periods_per_year  for annualised figures; None: inferred (docs/python.md \"Periods and equity\").\n"
             "A pandas close's DatetimeIndex must be strictly increasing (ValueError naming the first bad one).\n"
             "\n"
             "The GIL is released while the kernel runs.  Bad input raises ValueError with the library's message.");

/* Keyword names, interned once: a call's keyword names are interned too, so a pointer compare finds them.
 * Hand parsing under METH_FASTCALL instead of PyArg_ParseTupleAndKeywords: the latter cost ~0.3 µs per
 * call here, a sixth of the 2 µs budget (reports/python.md). */
enum { KW_CLOSE, KW_LENGTHS, KW_WINDOWS, KW_VARIANT, KW_ISA, KW_THREADS, KW_HMA, KW_HMA3, KW_FEE, KW_PERIODS, KW_PPY, KW_COUNT };
static const char *const kw_names[KW_COUNT] = {"close", "lengths", "windows", "variant", "isa", "threads", "hma", "hma3", "fee",
                                               "periods", "periods_per_year"};
static PyObject *kw_interned[KW_COUNT];

static int kw_index(PyObject *name) {
    for (int k = 0; k < KW_COUNT; k++)
        if (name == kw_interned[k]) return k;
    for (int k = 0; k < KW_COUNT; k++)
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, kw_names[k]) == 0) return k;
    return -1;
}

/* Optional str argument: NULL for None. */
static int str_arg(PyObject *obj, const char *what, const char **out) {
    if (obj == Py_None) {
        *out = NULL;
        return 1;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "sweep(): %s must be a str or None", what);
        return 0;
    }
    *out = PyUnicode_AsUTF8(obj);
    return *out != NULL;
}

/* A new reference to the ISA's name, one interned str per ISA (the few names there are), so a result's
 * isa field costs a strcmp, not an allocation, per call. */
static PyObject *interned_isa(const char *name) {
    static struct {
        char name[16];
        PyObject *obj;
    } cache[8];
    for (size_t k = 0; k < sizeof cache / sizeof cache[0]; k++) {
        if (!cache[k].obj) {
            snprintf(cache[k].name, sizeof cache[k].name, "%s", name);
            if (!(cache[k].obj = PyUnicode_InternFromString(name))) return NULL;
        }
        if (strcmp(cache[k].name, name) == 0) return Py_NewRef(cache[k].obj);
    }
    return PyUnicode_FromString(name);
}

/* Periods (docs/spec.md §9.3) and a pandas series' timestamps: hmasweep/periods.py's _resolve checks and builds
 * them (calendar rules need pandas).  Called only for a close that is not an ndarray or when periods are
 * asked for, so the plain-ndarray call costs what it did.  ends: NULL without periods, else P int64 ends;
 * labels and ppy: new references (None when absent). */
typedef struct {
    PyArrayObject *ends;
    PyObject *labels, *ppy;
} period_args;

static void period_args_clear(period_args *p) {
    Py_CLEAR(p->ends);
    Py_CLEAR(p->labels);
    Py_CLEAR(p->ppy);
}

static int resolve_periods(PyObject *close_obj, PyObject *periods, PyObject *ppy, size_t n_bars, period_args *out) {
    *out = (period_args){NULL, Py_NewRef(Py_None), Py_NewRef(Py_None)};
    if (PyArray_Check(close_obj) && periods == Py_None && ppy == Py_None) return 1;
    PyObject *mod = PyImport_ImportModule("hmasweep.periods");
    if (!mod) return 0;
    PyObject *got = PyObject_CallMethod(mod, "_resolve", "OOOn", close_obj, periods, ppy, (Py_ssize_t)n_bars);
    Py_DECREF(mod);
    PyObject *ends, *labels, *per_year;
    if (!got || !PyArg_ParseTuple(got, "OOO", &ends, &labels, &per_year)) {
        Py_XDECREF(got);
        return 0;
    }
    Py_SETREF(out->labels, Py_NewRef(labels));
    Py_SETREF(out->ppy, Py_NewRef(per_year));
    if (ends != Py_None) out->ends = as_int64(ends, "periods");
    Py_DECREF(got);
    return ends == Py_None || out->ends != NULL;
}

static PyObject *py_sweep(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *arg[KW_COUNT] = {NULL, Py_None, Py_None, NULL, Py_None, NULL, Py_None, Py_None, Py_None, Py_None, Py_None};
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "sweep() takes at most 2 positional arguments (%zd given)", nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) arg[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int k = kw_index(name);
        if (k < 0) {
            PyErr_Format(PyExc_TypeError, "sweep() got an unexpected keyword argument '%S'", name);
            return NULL;
        }
        if (k < nargs) {
            PyErr_Format(PyExc_TypeError, "sweep() got multiple values for argument '%s'", kw_names[k]);
            return NULL;
        }
        arg[k] = args[nargs + i];
    }
    if (!arg[KW_CLOSE]) {
        PyErr_SetString(PyExc_TypeError, "sweep() missing required argument 'close'");
        return NULL;
    }
    PyObject *close_obj = arg[KW_CLOSE], *lengths_obj = arg[KW_LENGTHS], *windows_obj = arg[KW_WINDOWS];
    const char *variant = "best", *isa = NULL;
    int threads = 0;
    if (arg[KW_VARIANT] && !str_arg(arg[KW_VARIANT], "variant", &variant)) return NULL;
    if (!variant) variant = "best";
    if (!str_arg(arg[KW_ISA], "isa", &isa)) return NULL;
    if (arg[KW_THREADS]) {
        long t = PyLong_AsLong(arg[KW_THREADS]);
        if (t == -1 && PyErr_Occurred()) return NULL;
        if (t < INT_MIN || t > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "threads is out of range");
            return NULL;
        }
        threads = (int)t;
    }
    if (lengths_obj != Py_None && windows_obj != Py_None) {
        PyErr_SetString(PyExc_ValueError, "give lengths or windows, not both");
        return NULL;
    }
    double fee;
    int has_fee;
    if (!fee_arg(arg[KW_FEE], &fee, &has_fee)) return NULL;
    int grid_2d = arg[KW_HMA] != Py_None || arg[KW_HMA3] != Py_None;
    if (grid_2d && !check_2d_arguments(arg[KW_HMA], arg[KW_HMA3], lengths_obj, windows_obj)) return NULL;
    PyArrayObject *close = NULL, *lengths = NULL, *windows = NULL, *pnl = NULL, *trades = NULL;
    PyArrayObject *hma_lengths = NULL, *hma3_lengths = NULL, *stats = NULL, *equity = NULL, *mtm = NULL;
    PyObject *result = NULL;
    hs_result small[16], *res = small;
    period_args per = {NULL, NULL, NULL};
    if (!(close = as_close(close_obj))) goto done;
    if (!resolve_periods(close_obj, arg[KW_PERIODS], arg[KW_PPY], (size_t)PyArray_DIM(close, 0), &per)) goto done;
    if (windows_obj != Py_None) {
        if (!(windows = combos_from_windows(windows_obj))) goto done;
    } else if (grid_2d) {
        if (!(windows = windows_2d(arg[KW_HMA], arg[KW_HMA3], &hma_lengths, &hma3_lengths))) goto done;
    } else {
        if (!(lengths = lengths_array(lengths_obj, "lengths"))) goto done;
        if (!(windows = windows_from_lengths(lengths))) goto done;
    }
    npy_intp n = PyArray_DIM(windows, 0);
    if (!(pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE))) goto done;
    if (!(trades = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64))) goto done;
    if (!(stats = new_stats_array(1, &n))) goto done;
    if (per.ends) { /* E (P x n) and the drawdown (n), docs/spec.md §9.1-§9.3 */
        npy_intp dims[2] = {PyArray_DIM(per.ends, 0), n};
        if (!(equity = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE))) goto done;
        if (!(mtm = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE))) goto done;
    }
    if (n > (npy_intp)(sizeof small / sizeof small[0]) && !(res = malloc((size_t)n * sizeof *res))) {
        PyErr_NoMemory();
        goto done;
    }
    hs_sweep_report ran; /* r.variant, r.isa, r.threads: what the library says ran (an alias resolved) */
    hs_sweep_options opt = {.variant = variant, .isa = isa, .threads = threads, .struct_size = sizeof opt, .report = &ran,
                            .stats = PyArray_DATA(stats), .fee = fee, .has_fee = has_fee};
    if (per.ends) {
        opt.n_periods = (size_t)PyArray_DIM(per.ends, 0);
        opt.period_ends = PyArray_DATA(per.ends);
        opt.equity = PyArray_DATA(equity);
        opt.mtm_max_drawdown = PyArray_DATA(mtm);
    }
    poll_state ps;
    poll_attach(&opt, &ps, NULL);
    hs_error err;
    hs_status st;
    const double *px = PyArray_DATA(close);
    size_t n_bars = (size_t)PyArray_DIM(close, 0);
    const hs_windows *combos = PyArray_DATA(windows);
    Py_BEGIN_ALLOW_THREADS
    st = hs_sweep(px, n_bars, combos, (size_t)n, res, &opt, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        raise_status(st, &err);
        goto done;
    }
    double *p = PyArray_DATA(pnl);
    int64_t *t = PyArray_DATA(trades);
    for (npy_intp k = 0; k < n; k++) {
        p[k] = res[k].pnl;
        t[k] = res[k].trades;
    }
    if (!(result = PyStructSequence_New(SweepResult))) goto done;
    PyObject *name = PyUnicode_FromString(ran.variant);
    if (!name) {
        Py_CLEAR(result);
        goto done;
    }
    PyStructSequence_SET_ITEM(result, 0, (PyObject *)pnl);
    PyStructSequence_SET_ITEM(result, 1, (PyObject *)trades);
    if (!lengths) {
        Py_INCREF(Py_None);
        lengths = (PyArrayObject *)Py_None;
    }
    if (!grid_2d) { /* the 1-D grid is the diagonal: Lh = L3 = L (one array, shared); None for raw windows */
        hma_lengths = lengths, hma3_lengths = lengths;
        Py_INCREF(lengths);
        Py_INCREF(lengths);
    }
    PyStructSequence_SET_ITEM(result, 2, (PyObject *)lengths);
    PyStructSequence_SET_ITEM(result, 3, (PyObject *)windows);
    PyStructSequence_SET_ITEM(result, 4, name);
    PyStructSequence_SET_ITEM(result, 5, interned_isa(ran.isa));
    PyStructSequence_SET_ITEM(result, 6, PyLong_FromLong(ran.threads));
    PyStructSequence_SET_ITEM(result, RESULT_HMA_LENGTHS, (PyObject *)hma_lengths);
    PyStructSequence_SET_ITEM(result, RESULT_HMA3_LENGTHS, (PyObject *)hma3_lengths);
    PyStructSequence_SET_ITEM(result, RESULT_BARS, PyLong_FromSize_t(n_bars));
    PyStructSequence_SET_ITEM(result, RESULT_FEE, PyFloat_FromDouble(fee));
    PyStructSequence_SET_ITEM(result, RESULT_STATS, (PyObject *)stats);
    PyStructSequence_SET_ITEM(result, RESULT_EQUITY, equity ? (PyObject *)equity : Py_NewRef(Py_None));
    PyStructSequence_SET_ITEM(result, RESULT_MTM, mtm ? (PyObject *)mtm : Py_NewRef(Py_None));
    equity = mtm = NULL;
    PyStructSequence_SET_ITEM(result, RESULT_PERIOD_ENDS, per.ends ? (PyObject *)per.ends : Py_NewRef(Py_None));
    PyStructSequence_SET_ITEM(result, RESULT_PERIOD_INDEX, per.labels);
    PyStructSequence_SET_ITEM(result, RESULT_PERIODS_PER_YEAR, per.ppy);
    per = (period_args){NULL, NULL, NULL};
    pnl = trades = lengths = windows = hma_lengths = hma3_lengths = stats = NULL; /* the result owns them now */
    if (!PyStructSequence_GET_ITEM(result, 5) || !PyStructSequence_GET_ITEM(result, 6) ||
        !PyStructSequence_GET_ITEM(result, RESULT_BARS) || !PyStructSequence_GET_ITEM(result, RESULT_FEE))
        Py_CLEAR(result);
done:
    if (res != small) free(res);
    Py_XDECREF(close);
    Py_XDECREF(lengths);
    Py_XDECREF(windows);
    Py_XDECREF(pnl);
    Py_XDECREF(trades);
    Py_XDECREF(hma_lengths);
    Py_XDECREF(hma3_lengths);
    Py_XDECREF(stats);
    Py_XDECREF(equity);
    Py_XDECREF(mtm);
    period_args_clear(&per);
    return result;
}

/* ---- periods (docs/spec.md §9.3): the library's, for hmasweep/periods.py ------------------------- */

/* The private bindings below take counts as Py_ssize_t: a negative one is a ValueError naming it. */
static int nonnegative(const char *what, Py_ssize_t v) {
    if (v >= 0) return 1;
    PyErr_Format(PyExc_ValueError, "%s = %zd: it must be a positive number", what, v);
    return 0;
}

static PyObject *py_period_ends(PyObject *self, PyObject *args) {
    Py_ssize_t bars, periods;
    if (!PyArg_ParseTuple(args, "nn:_period_ends", &bars, &periods)) return NULL;
    if (!nonnegative("periods", periods) || !nonnegative("bars", bars)) return NULL;
    npy_intp n = periods;
    PyArrayObject *ends = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!ends) return NULL;
    hs_error err; /* P = 0 or P > bars: the library's message, which names P */
    hs_status st = hs_period_ends((size_t)bars, (size_t)periods, periods ? PyArray_DATA(ends) : (int64_t *)&n, &err);
    return array_or_raise(ends, st, &err);
}

static PyObject *py_check_period_ends(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t bars;
    if (!PyArg_ParseTuple(args, "On:_check_period_ends", &obj, &bars)) return NULL;
    PyArrayObject *ends = as_int64(obj, "periods");
    if (!ends) return NULL;
    hs_error err;
    hs_status st = hs_check_period_ends(PyArray_DATA(ends), (size_t)PyArray_SIZE(ends), (size_t)(bars < 0 ? 0 : bars), &err);
    Py_DECREF(ends);
    if (st != HS_OK) return raise_status(st, &err);
    Py_RETURN_NONE;
}

/* ---- validation (docs/spec.md §9.4-§9.7): thin calls of src/validate/, for hmasweep/validation.py -------- */

/* E as a C-contiguous float64 (P, N) array; *P and *N its shape. */
static PyArrayObject *equity_arg(PyObject *obj, size_t *n_periods, size_t *n_combos) {
    PyArrayObject *e = as_doubles(obj, 2, "the equity matrix must be 2-D (periods x combos), got %d-D");
    if (!e) return NULL;
    *n_periods = (size_t)PyArray_DIM(e, 0), *n_combos = (size_t)PyArray_DIM(e, 1);
    return e;
}

_Static_assert(sizeof(hs_period_stats) == 6 * sizeof(double), "hs_period_stats is six doubles: an (N, 6) array");

/* _period_stats(E) -> (N, 6) float64: mean, sd, period_sharpe, sortino, skew, kurtosis per combo */
static PyObject *py_period_stats(PyObject *self, PyObject *obj) {
    size_t p, n;
    PyArrayObject *e = equity_arg(obj, &p, &n);
    if (!e) return NULL;
    npy_intp dims[2] = {(npy_intp)n, 6};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    hs_error err;
    hs_status st = HS_OK;
    if (out) {
        Py_BEGIN_ALLOW_THREADS
        st = hs_period_stats_of(PyArray_DATA(e), p, n, PyArray_DATA(out), &err);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(e);
    return out ? array_or_raise(out, st, &err) : NULL;
}

/* _cscv(E, groups) -> (groups, splits, kept, pbo, prob_oos_loss, slope, intercept, lambdas, is_metric,
 * oos_metric, chosen): the last four one entry per split (chosen int64, -1 for a dropped split). */
static PyObject *py_cscv(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t groups;
    if (!PyArg_ParseTuple(args, "On:_cscv", &obj, &groups)) return NULL;
    if (!nonnegative("groups", groups)) return NULL;
    size_t p, n;
    PyArrayObject *e = equity_arg(obj, &p, &n);
    if (!e) return NULL;
    npy_intp splits = (npy_intp)hs_cscv_splits((size_t)groups); /* 0 for a bad S: the call below names it */
    PyArrayObject *arr[4] = {NULL};
    size_t *chosen = NULL;
    PyObject *out = NULL;
    for (int k = 0; k < 3; k++)
        if (!(arr[k] = (PyArrayObject *)PyArray_SimpleNew(1, &splits, NPY_DOUBLE))) goto done;
    if (!(arr[3] = (PyArrayObject *)PyArray_SimpleNew(1, &splits, NPY_INT64))) goto done;
    if (!(chosen = malloc(((size_t)splits + 1) * sizeof *chosen))) {
        PyErr_NoMemory();
        goto done;
    }
    hs_cscv_result r;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_cscv(PyArray_DATA(e), p, n, (size_t)groups, &r, splits ? PyArray_DATA(arr[0]) : NULL,
                 splits ? PyArray_DATA(arr[1]) : NULL, splits ? PyArray_DATA(arr[2]) : NULL, splits ? chosen : NULL, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        raise_status(st, &err);
        goto done;
    }
    int64_t *c = PyArray_DATA(arr[3]);
    for (npy_intp k = 0; k < splits; k++) c[k] = chosen[k] == SIZE_MAX ? -1 : (int64_t)chosen[k];
    out = Py_BuildValue("(nnnddddNNNN)", (Py_ssize_t)r.groups, (Py_ssize_t)r.splits, (Py_ssize_t)r.kept, r.pbo,
                        r.prob_oos_loss, r.slope, r.intercept, arr[0], arr[1], arr[2], arr[3]);
    memset(arr, 0, sizeof arr); /* "N" took them, even on failure */
done:
    free(chosen);
    for (int k = 0; k < 4; k++) Py_XDECREF(arr[k]);
    Py_DECREF(e);
    return out;
}

/* _deflated_sharpe(stats (N, 6), periods, n_trials, chosen) -> (chosen or -1, sr, trials, var_sr, sr0, dsr, psr0);
 * n_trials <= 0: the combos with a finite Sharpe; chosen < 0: the default choice (§9.6). */
static PyObject *py_deflated_sharpe(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t periods, chosen;
    double trials;
    if (!PyArg_ParseTuple(args, "Ondn:_deflated_sharpe", &obj, &periods, &trials, &chosen)) return NULL;
    PyArrayObject *stats = (PyArrayObject *)PyArray_FROM_OTF(obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    if (!stats) return NULL;
    if (PyArray_NDIM(stats) != 2 || PyArray_DIM(stats, 1) != 6 || periods < 0) {
        PyErr_SetString(PyExc_ValueError, "_deflated_sharpe takes _period_stats' (N, 6) array and P >= 0");
        Py_DECREF(stats);
        return NULL;
    }
    hs_dsr_result r;
    hs_error err;
    hs_status st = hs_deflated_sharpe(PyArray_DATA(stats), (size_t)PyArray_DIM(stats, 0), (size_t)periods, trials,
                                      chosen < 0 ? SIZE_MAX : (size_t)chosen, &r, &err);
    Py_DECREF(stats);
    if (st != HS_OK) return raise_status(st, &err);
    return Py_BuildValue("(ndddddd)", r.chosen == SIZE_MAX ? (Py_ssize_t)-1 : (Py_ssize_t)r.chosen, r.sr, r.trials,
                         r.var_sr, r.sr0, r.dsr, r.psr0);
}

/* _walk_forward(E, train, test, anchored) -> (choices int64 (folds,), oos_curve (folds*test,), oos_sharpe) */
static PyObject *py_walk_forward(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t train, test;
    int anchored;
    if (!PyArg_ParseTuple(args, "Onnp:_walk_forward", &obj, &train, &test, &anchored)) return NULL;
    if (!nonnegative("walk_forward's train", train) || !nonnegative("walk_forward's test", test)) return NULL;
    size_t p, n;
    PyArrayObject *e = equity_arg(obj, &p, &n);
    if (!e) return NULL;
    npy_intp folds = (npy_intp)hs_walk_forward_folds(p, (size_t)train, (size_t)test);
    npy_intp points = folds * test;
    PyArrayObject *choices = (PyArrayObject *)PyArray_SimpleNew(1, &folds, NPY_INT64);
    PyArrayObject *curve = choices ? (PyArrayObject *)PyArray_SimpleNew(1, &points, NPY_DOUBLE) : NULL;
    size_t *picked = curve ? malloc(((size_t)folds + 1) * sizeof *picked) : NULL;
    PyObject *out = NULL;
    if (curve && !picked) PyErr_NoMemory();
    if (picked) {
        hs_walk_forward_result r;
        hs_error err;
        hs_status st;
        Py_BEGIN_ALLOW_THREADS
        st = hs_walk_forward(PyArray_DATA(e), p, n, (size_t)train, (size_t)test, anchored, picked,
                             PyArray_DATA(curve), &r, &err);
        Py_END_ALLOW_THREADS
        if (st != HS_OK) {
            raise_status(st, &err);
        } else {
            int64_t *c = PyArray_DATA(choices);
            for (npy_intp k = 0; k < folds; k++) c[k] = (int64_t)picked[k];
            out = Py_BuildValue("(NNd)", choices, curve, r.oos_sharpe);
            choices = curve = NULL;
        }
    }
    free(picked);
    Py_XDECREF(choices);
    Py_XDECREF(curve);
    Py_DECREF(e);
    return out;
}

/* ---- data ------------------------------------------------------------------------------------- */

static int parse_seed(PyObject *obj, uint64_t *seed) {
    unsigned long long v;
    if (!PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "seed must be an int");
        return 0;
    }
    v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "seed must be a non-negative integer below 2**64");
        return 0;
    }
    *seed = v;
    return 1;
}

static int parse_count(PyObject *obj, const char *what, npy_intp *n) {
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) return 0;
    if (v < 0) {
        PyErr_Format(PyExc_ValueError, "%s must be >= 0, got %zd", what, v);
        return 0;
    }
    *n = v;
    return 1;
}

PyDoc_STRVAR(series_doc,
             "series($module, /, seed=42, bars=150000, vol=0.0008, start=100.0)\n"
             "--\n"
             "\n"
             "-> ndarray.  "
             "The canonical close series (docs/spec.md §1): start * exp(cumsum(vol * z)), z = numpy's\n"
             "default_rng(seed).standard_normal(bars) bit for bit, exp = SLEEF's 1-ulp exp.  The defaults hash\n"
             "to 88e4ef5a…c028.");

static PyObject *py_series(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"seed", "bars", "vol", "start", NULL};
    PyObject *seed_obj = NULL, *bars_obj = NULL;
    double vol = HS_DEFAULT_VOL, start = HS_DEFAULT_START;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOdd:series", kwlist, &seed_obj, &bars_obj, &vol, &start))
        return NULL;
    uint64_t seed = HS_DEFAULT_SEED;
    npy_intp bars = HS_DEFAULT_BARS;
    if (seed_obj && !parse_seed(seed_obj, &seed)) return NULL;
    if (bars_obj && !parse_count(bars_obj, "bars", &bars)) return NULL;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &bars, NPY_DOUBLE);
    if (!a) return NULL;
    hs_error err;
    hs_status st;
    double *out = PyArray_DATA(a);
    Py_BEGIN_ALLOW_THREADS
    st = hs_make_close(seed, (size_t)bars, vol, start, out, &err);
    Py_END_ALLOW_THREADS
    return array_or_raise(a, st, &err);
}

PyDoc_STRVAR(standard_normal_doc,
             "standard_normal($module, seed, n, /)\n"
             "--\n"
             "\n"
             "-> ndarray.  "
             "numpy.random.default_rng(seed).standard_normal(n), bit for bit, computed by the library.");

static PyObject *py_standard_normal(PyObject *self, PyObject *args) {
    PyObject *seed_obj, *n_obj;
    if (!PyArg_ParseTuple(args, "OO:standard_normal", &seed_obj, &n_obj)) return NULL;
    uint64_t seed;
    npy_intp n;
    if (!parse_seed(seed_obj, &seed) || !parse_count(n_obj, "n", &n)) return NULL;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    if (!a) return NULL;
    double *out = PyArray_DATA(a);
    Py_BEGIN_ALLOW_THREADS
    hs_standard_normal(seed, (size_t)n, out);
    Py_END_ALLOW_THREADS
    return (PyObject *)a;
}

PyDoc_STRVAR(grid_doc, "grid($module, /, lo=" GRID_LO_TEXT ", hi=" GRID_HI_TEXT ", count=" GRID_COUNT_TEXT ")\n--\n\n-> int64 ndarray.  The lengths trunc(linspace(lo, hi, count)) (docs/spec.md §2).");

static PyObject *py_grid(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"lo", "hi", "count", NULL};
    long long lo = HS_DEFAULT_GRID_LO, hi = HS_DEFAULT_GRID_HI;
    PyObject *count_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|LLO:grid", kwlist, &lo, &hi, &count_obj)) return NULL;
    npy_intp count = HS_DEFAULT_GRID_COUNT;
    if (count_obj && !parse_count(count_obj, "count", &count)) return NULL;
    PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, &count, NPY_INT64);
    if (!a) return NULL;
    hs_error err;
    hs_status st = hs_grid(lo, hi, (size_t)count, PyArray_DATA(a), &err);
    return array_or_raise(a, st, &err);
}

PyDoc_STRVAR(windows_doc,
             "windows($module, length, /)\n"
             "--\n"
             "\n"
             "-> int64 ndarray.  "
             "The six windows of length L (docs/spec.md §2): shape (6,) for an int, (n, 6) for a sequence of lengths.");

static PyObject *py_windows(PyObject *self, PyObject *arg) {
    PyArrayObject *l = as_int64(arg, "length");
    if (!l) return NULL;
    int scalar = PyArray_NDIM(l) == 0;
    if (PyArray_NDIM(l) > 1) {
        Py_DECREF(l);
        PyErr_SetString(PyExc_ValueError, "length must be an int or a 1-D sequence of ints");
        return NULL;
    }
    PyArrayObject *lengths = lengths_array((PyObject *)l, "lengths");
    Py_DECREF(l);
    if (!lengths) return NULL;
    PyArrayObject *w = windows_from_lengths(lengths);
    Py_DECREF(lengths);
    if (!w || !scalar) return (PyObject *)w;
    npy_intp six = 6;
    PyArray_Dims shape = {&six, 1};
    PyObject *row = PyArray_Newshape(w, &shape, NPY_CORDER);
    Py_DECREF(w);
    return row;
}

PyDoc_STRVAR(variants_doc,
             "variants($module, /)\n"
             "--\n"
             "\n"
             "-> list[dict].  "
             "The registry (src/variants/registry.def): name, kernel, tier, threaded, isas (built), runnable (the\n"
             "built ISAs this CPU executes) and summary, in registry order.");

/* "scalar,sse2" -> ["scalar", "sse2"] ("" -> []). */
static PyObject *isa_list(const char *csv) {
    if (!*csv) return PyList_New(0);
    PyObject *s = PyUnicode_FromString(csv), *sep = PyUnicode_FromString(",");
    PyObject *list = s && sep ? PyUnicode_Split(s, sep, -1) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(sep);
    return list;
}

/* The registry as the public API describes it (built and runnable ISAs: the same choice hs_sweep makes),
 * without the gap study's instruments (role "experiment"), as `hmasweep variants` lists it. */
static PyObject *py_variants(PyObject *self, PyObject *unused) {
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (size_t k = 0, n = hs_variant_count(); k < n; k++) {
        hs_variant_info info;
        /* every field but default_isa is filled even on HS_ERR_ISA */
        hs_variant_describe_sized(k, &info, sizeof info, NULL);
        if (strcmp(info.role, "experiment") == 0) continue;
        PyObject *built = isa_list(info.isas_built), *runs = isa_list(info.isas_runnable), *d = NULL;
        if (!built || !runs) goto fail;
        d = Py_BuildValue("{s:s,s:s,s:i,s:O,s:O,s:O,s:s}", "name", info.name, "kernel", info.kernel, "tier",
                          info.tier, "threaded", info.threaded ? Py_True : Py_False, "isas", built, "runnable", runs,
                          "summary", info.summary);
        if (!d || PyList_Append(list, d) < 0) goto fail;
        Py_DECREF(d);
        Py_DECREF(built);
        Py_DECREF(runs);
        continue;
    fail:
        Py_XDECREF(d);
        Py_XDECREF(built);
        Py_XDECREF(runs);
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static void free_capsule(PyObject *cap) { free(PyCapsule_GetPointer(cap, "hmasweep.series")); }

PyDoc_STRVAR(read_series_doc,
             "read_series($module, path, /)\n"
             "--\n"
             "\n"
             "-> ndarray.  "
             "Read a close series: raw little-endian f64 (.f64/.bin/.raw), CSV (one column or a 'close' column),\n"
             "or a 1-D float64 .npy.  The prices are checked (finite, > 0).  The array owns the library's\n"
             "buffer (no copy).");

static PyObject *py_read_series(PyObject *self, PyObject *arg) {
    PyObject *path_bytes = NULL;
    if (!PyUnicode_FSConverter(arg, &path_bytes)) return NULL;
    double *x = NULL;
    size_t n = 0;
    hs_error err;
    hs_status st;
    const char *path = PyBytes_AS_STRING(path_bytes);
    Py_BEGIN_ALLOW_THREADS
    st = hs_read_series(path, &x, &n, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_bytes);
    if (st != HS_OK) return raise_status(st, &err);
    npy_intp dims = (npy_intp)n;
    PyObject *a = PyArray_SimpleNewFromData(1, &dims, NPY_DOUBLE, x);
    PyObject *cap = a ? PyCapsule_New(x, "hmasweep.series", free_capsule) : NULL;
    if (!cap || PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) {
        Py_XDECREF(a);
        if (!cap) free(x);
        return NULL;
    }
    return a;
}

/* ---- the trade log (hs_trade_log) -------------------------------------------------------------- */
PyDoc_STRVAR(trade_log_doc,
             "_trade_log($module, close, windows, out, fee=None, /)\n"
             "--\n"
             "\n"
             "-> int.  "
             "Fill `out` (a structured array laid out as hs_trade) with one combo's trades; return the count.\n"
             "Use hmasweep.trades(), which sizes `out` and trims it.");

static PyObject *py_trade_log(PyObject *self, PyObject *args) {
    PyObject *close_obj, *win_obj, *fee_obj = Py_None;
    PyArrayObject *out;
    double fee;
    int has_fee;
    if (!PyArg_ParseTuple(args, "OOO!|O:_trade_log", &close_obj, &win_obj, &PyArray_Type, &out, &fee_obj)) return NULL;
    if (!fee_arg(fee_obj, &fee, &has_fee)) return NULL;
    if (!PyArray_ISCARRAY(out) || PyArray_ITEMSIZE(out) != sizeof(hs_trade) || PyArray_NDIM(out) != 1) {
        PyErr_SetString(PyExc_ValueError, "out must be a writable 1-D C-contiguous array of hs_trade records");
        return NULL;
    }
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    PyArrayObject *win = combos_from_windows(win_obj);
    if (!win) {
        Py_DECREF(close);
        return NULL;
    }
    if (PyArray_DIM(win, 0) != 1) {
        Py_DECREF(close);
        Py_DECREF(win);
        PyErr_SetString(PyExc_ValueError, "a trade log is for one combo: six windows");
        return NULL;
    }
    size_t n_trades = 0;
    hs_error err;
    hs_status st;
    const double *px = PyArray_DATA(close);
    size_t n_bars = (size_t)PyArray_DIM(close, 0);
    const hs_windows *combo = PyArray_DATA(win);
    hs_trade *dst = PyArray_DATA(out);
    size_t cap = (size_t)PyArray_DIM(out, 0);
    hs_sweep_options opt = HS_SWEEP_OPTIONS_INIT;
    opt.fee = fee, opt.has_fee = has_fee;
    poll_state ps;
    poll_attach(&opt, &ps, NULL); /* Ctrl-C, as in sweep (poll_python) */
    Py_BEGIN_ALLOW_THREADS
    st = hs_trade_log_opt(px, n_bars, combo, dst, cap, &n_trades, &opt, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(close);
    Py_DECREF(win);
    if (st != HS_OK) return raise_status(st, &err);
    return PyLong_FromSize_t(n_trades);
}

/* ---- the indicators as arrays (hs_wma, hs_hma, hs_hma3, hs_signal) ------------------------------- */
PyDoc_STRVAR(indicator_doc,
             "_indicator($module, kind, x, windows, /)\n"
             "--\n"
             "\n"
             "-> ndarray.  "
             "kind 'wma' (1 window), 'hma' (w0, w1, w2), 'hma3' (w3, w4, w5) or 'signal' (six): the tier-0 series\n"
             "over x, float64, NaN over the look-back.  Use hmasweep.wma/hma/hma3/signal.");

static PyObject *py_indicator(PyObject *self, PyObject *args) {
    const char *kind;
    PyObject *x_obj, *win_obj;
    if (!PyArg_ParseTuple(args, "sOO:_indicator", &kind, &x_obj, &win_obj)) return NULL;
    npy_intp want = !strcmp(kind, "wma") ? 1 : !strcmp(kind, "hma") || !strcmp(kind, "hma3") ? 3 : !strcmp(kind, "signal") ? 6 : 0;
    if (!want) return PyErr_Format(PyExc_ValueError, "unknown indicator '%s' (wma, hma, hma3, signal)", kind);
    PyArrayObject *x = as_close(x_obj), *win = x ? as_int64(win_obj, "windows") : NULL, *out = NULL;
    if (!win) goto done;
    if (PyArray_NDIM(win) != 1 || PyArray_DIM(win, 0) != want) {
        PyErr_Format(PyExc_ValueError, "%s takes %d window%s", kind, (int)want, want > 1 ? "s" : "");
        goto done;
    }
    npy_intp n = PyArray_DIM(x, 0);
    if (!(out = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE))) goto done;
    const double *px = PyArray_DATA(x);
    const int64_t *w = PyArray_DATA(win);
    double *dst = PyArray_DATA(out);
    hs_windows six = {{0}};
    memcpy(six.w, w, (size_t)want * sizeof *w);
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    switch (kind[0] == 'w' ? 0 : kind[0] == 's' ? 3 : kind[3] == '3' ? 2 : 1) {
    case 0: st = hs_wma(px, (size_t)n, w[0], dst, &err); break;
    case 1: st = hs_hma(px, (size_t)n, w[0], w[1], w[2], dst, &err); break;
    case 2: st = hs_hma3(px, (size_t)n, w[0], w[1], w[2], dst, &err); break;
    default: st = hs_signal(px, (size_t)n, &six, dst, &err); break;
    }
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        Py_CLEAR(out);
        raise_status(st, &err);
    }
done:
    Py_XDECREF(x);
    Py_XDECREF(win);
    return (PyObject *)out;
}

/* ---- measurement hook for prof/py_overhead ------------------------------------------------------ */

PyDoc_STRVAR(c_sweep_loop_doc,
             "_c_sweep_loop($module, close, windows, variant, reps, /)\n"
             "--\n"
             "\n"
             "-> float.  "
             "Seconds for `reps` back-to-back hs_sweep calls made from C with the same arguments sweep() passes\n"
             "(prof/py_overhead subtracts this from the Python call to get the binding's overhead).");

static PyObject *py_c_sweep_loop(PyObject *self, PyObject *args) {
    PyObject *close_obj, *win_obj;
    const char *variant;
    Py_ssize_t reps;
    if (!PyArg_ParseTuple(args, "OOzn:_c_sweep_loop", &close_obj, &win_obj, &variant, &reps)) return NULL;
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    PyArrayObject *win = combos_from_windows(win_obj);
    if (!win) {
        Py_DECREF(close);
        return NULL;
    }
    size_t n = (size_t)PyArray_DIM(win, 0);
    hs_result *res = malloc((n ? n : 1) * sizeof *res);
    hs_sweep_options opt = {.variant = variant, .isa = NULL, .threads = 0};
    hs_error err;
    hs_status st = HS_OK;
    struct timespec t0, t1;
    const double *px = PyArray_DATA(close);
    size_t n_bars = (size_t)PyArray_DIM(close, 0);
    const hs_windows *combos = PyArray_DATA(win);
    Py_BEGIN_ALLOW_THREADS
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (Py_ssize_t r = 0; r < reps && st == HS_OK && res; r++) st = hs_sweep(px, n_bars, combos, n, res, &opt, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    Py_END_ALLOW_THREADS
    free(res);
    Py_DECREF(close);
    Py_DECREF(win);
    if (!res) return PyErr_NoMemory();
    if (st != HS_OK) return raise_status(st, &err);
    return PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
}

/* ---- the C client (include/hmasweep_client.h): hmasweep.Client's only path, for every URL ------------
 * hmasweep.Client runs on the library's client for every transport (unix, tcp, shm, and a connected
 * socket through hs_client_from_fds), so the wire codec exists once, in C.  The GIL is released for
 * every round trip.  Errors are ValueError (the server refused the request) or ConnectionError
 * (HS_ERR_IO: the connection broke) with the client's message; last_error() gives the server's code or
 * HS_CLIENT_E_*.  Ctrl-C: cclient_interrupted runs the signal handlers while a call waits.  Threads:
 * one call at a time (CClient's lock, below). */
typedef struct {
    PyObject_HEAD
    hs_client *c;
    /* The thread model (docs/python.md "Threads"): one call at a time.  Every method takes `lock` with
     * the GIL released, so calls from several threads queue; close() from another thread sets `closing`,
     * which the interrupt hook reads within 50 ms, so the call in flight stops (HS_ERR_CANCELLED), and
     * then frees the client under the lock: never while a call uses it.  Issue 29 item 1: close() during
     * a call freed the client under it (SIGSEGV 3 of 3), and 4 threads on one Client failed 1,199 of
     * 1,200 calls. */
    PyThread_type_lock lock;
    unsigned long owner;   /* the thread holding lock (0: none): a call re-entered from it is refused */
    atomic_int closing;    /* close() was called: the call in flight stops, later calls are refused */
    int last_error;        /* hs_client_last_error after the latest call; HS_CLIENT_E_BROKEN once closed */
} CClient;

static const char client_closed[] = "the Client is closed";
static const char client_closed_during[] = "the Client was closed by another thread during this call";

/* hs_client_set_interrupt's hook: called on the waiting thread (GIL released) after a signal cut its
 * wait short and at least every 50 ms.  close() from another thread stops the call (HS_ERR_CANCELLED);
 * so does a KeyboardInterrupt (or any exception a handler raised), and raise_status keeps it. */
static int cclient_interrupted(void *user) {
    CClient *self = user;
    if (atomic_load(&self->closing)) return 1;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    PyGILState_Release(g);
    return stop;
}

/* Wait (GIL released) for the call in flight; 0 with an exception when the client is closed or this
 * thread is already inside a call on it (an argument's __array__ calling back into the Client). */
static int cclient_acquire(CClient *self) {
    if (!self->lock) {
        PyErr_SetString(PyExc_ConnectionError, client_closed);
        return 0;
    }
    if (self->owner == PyThread_get_thread_ident()) {
        PyErr_SetString(PyExc_RuntimeError, "a Client call re-entered from the thread already inside one");
        return 0;
    }
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    if (!self->c) {
        PyThread_release_lock(self->lock);
        self->last_error = HS_CLIENT_E_BROKEN;
        PyErr_SetString(PyExc_ConnectionError, client_closed);
        return 0;
    }
    self->owner = PyThread_get_thread_ident();
    return 1;
}

/* Free the client, once; the caller holds the lock (or is the last reference). */
static void cclient_drop(CClient *self) {
    if (self->c) hs_client_close(self->c);
    self->c = NULL;
    self->last_error = HS_CLIENT_E_BROKEN;
}

/* End a call: its error code kept for last_error(); a call that close() stopped raises ConnectionError
 * saying so; a close() that came from this very thread during the call (deferred) frees the client now. */
static PyObject *cclient_release(CClient *self, PyObject *result) {
    self->last_error = hs_client_last_error(self->c);
    self->owner = 0;
    if (atomic_load(&self->closing)) {
        if (!result) PyErr_SetString(PyExc_ConnectionError, client_closed_during);
        cclient_drop(self);
    }
    PyThread_release_lock(self->lock);
    return result;
}

/* Every method: the body (NAME_body) runs holding the lock. */
#define CCLIENT_LOCKED(name)                                             \
    static PyObject *name(CClient *self, PyObject *arg) {                \
        if (!cclient_acquire(self)) return NULL;                         \
        return cclient_release(self, name##_body(self, arg));           \
    }

/* _CClient(url, timeout_ms) connects by URL; _CClient(None, timeout_ms, fd=N) takes over a connected
 * socket's fd (closed with the client, even when this fails). */
static int cclient_init(CClient *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"url", "timeout_ms", "fd", NULL};
    const char *url;
    int timeout_ms = -1, fd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "z|ii:_CClient", kwlist, &url, &timeout_ms, &fd)) return -1;
    if (!url && fd < 0) {
        PyErr_SetString(PyExc_ValueError, "_CClient: give a URL or fd=");
        return -1;
    }
    if (self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "_CClient.__init__ called twice");
        return -1;
    }
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = url ? hs_client_connect(url, timeout_ms, &self->c, &err) : hs_client_from_fds(fd, fd, timeout_ms, &self->c, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        self->c = NULL;
        self->last_error = HS_CLIENT_E_BROKEN;
        raise_status(st, &err);
        return -1;
    }
    hs_client_set_interrupt(self->c, cclient_interrupted, self);
    return 0;
}

static void cclient_dealloc(CClient *self) {
    cclient_drop(self); /* no call can be in flight: each holds a reference */
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* close(): stops the call in flight (within 50 ms, through the interrupt hook), waits for it to return,
 * then frees the client.  From inside a call on this thread (an argument's __array__), the call frees it
 * as it ends.  Closing twice is harmless. */
static PyObject *cclient_close(CClient *self, PyObject *unused) {
    (void)unused;
    if (!self->lock) Py_RETURN_NONE;
    atomic_store(&self->closing, 1);
    if (self->owner == PyThread_get_thread_ident()) Py_RETURN_NONE;
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    cclient_drop(self);
    PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

/* The latest call's code (0, the server's code, or HS_CLIENT_E_*); HS_CLIENT_E_BROKEN once closed.
 * Read without the lock: Client._call asks it under its own lock, right after its call. */
static PyObject *cclient_last_error(CClient *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(self->last_error);
}

/* (pnl, trades) split out of the client's hs_result pairs. */
static PyObject *results_tuple(const hs_result *res, npy_intp n) {
    PyArrayObject *pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    PyArrayObject *trades = pnl ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    if (!trades) {
        Py_XDECREF(pnl);
        return NULL;
    }
    double *p = PyArray_DATA(pnl);
    int64_t *t = PyArray_DATA(trades);
    for (npy_intp k = 0; k < n; k++) {
        p[k] = res[k].pnl;
        t[k] = res[k].trades;
    }
    return Py_BuildValue("(NN)", pnl, trades);
}

/* sweep(close, windows) or, with a handle, sweep_handle(handle, windows) -> (pnl, trades); with a fee object
 * (None: the default fee) protocol 2's SWEEP_STATS / SWEEP_HANDLE_STATS -> (pnl, trades, stats), stats a
 * STATS_DTYPE array the C client writes in place. */
static PyObject *cclient_sweep_common(CClient *self, PyObject *close_obj, unsigned long handle, PyObject *win_obj,
                                      PyObject *fee_obj) {
    double fee;
    int has_fee;
    if (fee_obj && !fee_arg(fee_obj, &fee, &has_fee)) return NULL;
    PyArrayObject *close = NULL, *win = combos_from_windows(win_obj), *stats = NULL;
    if (!win || (close_obj && !(close = as_close(close_obj)))) {
        Py_XDECREF(win);
        return NULL;
    }
    npy_intp n = PyArray_DIM(win, 0);
    hs_result *res = malloc((size_t)(n ? n : 1) * sizeof *res);
    PyObject *out = NULL;
    if (!res) {
        PyErr_NoMemory();
    } else if (!fee_obj || (stats = new_stats_array(1, &n))) {
        hs_error err;
        hs_status st;
        const hs_windows *combos = PyArray_DATA(win);
        const double *px = close ? PyArray_DATA(close) : NULL;
        size_t n_bars = close ? (size_t)PyArray_DIM(close, 0) : 0;
        hs_stats *sp = stats ? PyArray_DATA(stats) : NULL;
        Py_BEGIN_ALLOW_THREADS
        if (!fee_obj) st = close ? hs_client_sweep(self->c, px, n_bars, combos, (size_t)n, res, &err)
                                 : hs_client_sweep_handle(self->c, (uint32_t)handle, combos, (size_t)n, res, &err);
        else st = close ? hs_client_sweep_stats(self->c, px, n_bars, combos, (size_t)n, fee, res, sp, &err)
                        : hs_client_sweep_handle_stats(self->c, (uint32_t)handle, combos, (size_t)n, fee, res, sp, &err);
        Py_END_ALLOW_THREADS
        out = st == HS_OK ? results_tuple(res, n) : raise_status(st, &err);
        if (out && stats) {
            PyObject *triple = Py_BuildValue("(OOO)", PyTuple_GET_ITEM(out, 0), PyTuple_GET_ITEM(out, 1), (PyObject *)stats);
            Py_SETREF(out, triple);
        }
    }
    free(res);
    Py_XDECREF(stats);
    Py_XDECREF(close);
    Py_DECREF(win);
    return out;
}

static PyObject *cclient_sweep_body(CClient *self, PyObject *args) {
    PyObject *close, *win;
    if (!PyArg_ParseTuple(args, "OO:sweep", &close, &win)) return NULL;
    return cclient_sweep_common(self, close, 0, win, NULL);
}
CCLIENT_LOCKED(cclient_sweep)

static PyObject *cclient_sweep_handle_body(CClient *self, PyObject *args) {
    unsigned long handle;
    PyObject *win;
    if (!PyArg_ParseTuple(args, "kO:sweep_handle", &handle, &win)) return NULL;
    return cclient_sweep_common(self, NULL, handle, win, NULL);
}
CCLIENT_LOCKED(cclient_sweep_handle)

/* Protocol 2: sweep_stats(close, 0, windows, fee) or, close None, on `handle`. */
static PyObject *cclient_sweep_stats_body(CClient *self, PyObject *args) {
    PyObject *close_obj, *win_obj, *fee_obj;
    unsigned long handle;
    if (!PyArg_ParseTuple(args, "OkOO:sweep_stats", &close_obj, &handle, &win_obj, &fee_obj)) return NULL;
    return cclient_sweep_common(self, close_obj == Py_None ? NULL : close_obj, handle, win_obj, fee_obj);
}
CCLIENT_LOCKED(cclient_sweep_stats)

static PyObject *cclient_echo_body(CClient *self, PyObject *args) {
    PyObject *close_obj;
    PyArrayObject *out;
    if (!PyArg_ParseTuple(args, "OO!:echo", &close_obj, &PyArray_Type, &out)) return NULL;
    if (!PyArray_ISCARRAY(out) || PyArray_TYPE(out) != NPY_DOUBLE || PyArray_NDIM(out) != 1) {
        PyErr_SetString(PyExc_ValueError, "out must be a writable C-contiguous 1-D float64 array");
        return NULL;
    }
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    if (PyArray_DIM(close, 0) != PyArray_DIM(out, 0)) {
        Py_DECREF(close);
        PyErr_SetString(PyExc_ValueError, "out must have the length of close");
        return NULL;
    }
    hs_error err;
    hs_status st;
    const double *px = PyArray_DATA(close);
    double *dst = PyArray_DATA(out);
    size_t n = (size_t)PyArray_DIM(close, 0);
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_echo(self->c, px, n, dst, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(close);
    if (st != HS_OK) return raise_status(st, &err);
    Py_INCREF(out);
    return (PyObject *)out;
}
CCLIENT_LOCKED(cclient_echo)

static PyObject *cclient_load_body(CClient *self, PyObject *close_obj) {
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    hs_error err;
    hs_status st;
    uint32_t handle = 0;
    const double *px = PyArray_DATA(close);
    size_t n = (size_t)PyArray_DIM(close, 0);
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_load(self->c, px, n, &handle, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(close);
    return st == HS_OK ? PyLong_FromUnsignedLong(handle) : raise_status(st, &err);
}
CCLIENT_LOCKED(cclient_load)

/* A call that takes one u32 (a handle or a session) and returns nothing: FREE, LIVE_CLOSE. */
static PyObject *cclient_u32_call(CClient *self, PyObject *arg, hs_status (*call)(hs_client *, uint32_t, hs_error *)) {
    unsigned long id = PyLong_AsUnsignedLong(arg);
    if ((id == (unsigned long)-1 && PyErr_Occurred())) return NULL;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = call(self->c, (uint32_t)id, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) return raise_status(st, &err);
    Py_RETURN_NONE;
}

static PyObject *cclient_free_body(CClient *self, PyObject *arg) { return cclient_u32_call(self, arg, hs_client_free); }
CCLIENT_LOCKED(cclient_free)

static PyObject *cclient_hello_body(CClient *self, PyObject *unused) {
    char names[4096];
    uint32_t version = 0, max_frame = 0;
    uint64_t max_work = 0;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_hello(self->c, &version, names, sizeof names, &max_frame, &max_work, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) return raise_status(st, &err);
    return Py_BuildValue("(IsIK)", version, names, max_frame, (unsigned long long)max_work);
}
CCLIENT_LOCKED(cclient_hello)

static PyObject *cclient_auth_body(CClient *self, PyObject *arg) {
    Py_buffer token;
    if (PyObject_GetBuffer(arg, &token, PyBUF_SIMPLE) < 0) return NULL;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_auth(self->c, token.buf, (size_t)token.len, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&token);
    if (st != HS_OK) return raise_status(st, &err);
    Py_RETURN_NONE;
}
CCLIENT_LOCKED(cclient_auth)

/* live_open(handle, windows, stats=False, fee=None): with stats, a protocol-2 session (LIVE_OPEN_STATS,
 * the fee, None: the default) whose appends carry the statistics (live_append(..., True)). */
static PyObject *cclient_live_open_body(CClient *self, PyObject *args) {
    unsigned long handle;
    PyObject *win_obj, *fee_obj = Py_None;
    double fee;
    int has_fee, with_stats = 0;
    if (!PyArg_ParseTuple(args, "kO|pO:live_open", &handle, &win_obj, &with_stats, &fee_obj) ||
        !fee_arg(fee_obj, &fee, &has_fee))
        return NULL;
    PyArrayObject *win = combos_from_windows(win_obj);
    if (!win) return NULL;
    hs_error err;
    hs_status st;
    uint32_t session = 0;
    const hs_windows *combos = PyArray_DATA(win);
    size_t n = (size_t)PyArray_DIM(win, 0);
    Py_BEGIN_ALLOW_THREADS
    if (with_stats) st = hs_client_live_open_stats(self->c, (uint32_t)handle, combos, n, fee, &session, &err);
    else st = hs_client_live_open(self->c, (uint32_t)handle, combos, n, &session, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(win);
    return st == HS_OK ? PyLong_FromUnsignedLong(session) : raise_status(st, &err);
}
CCLIENT_LOCKED(cclient_live_open)

/* live_append(session, bars, n_combos) -> (pnl, trades, position int8, crossed bool): fresh arrays. */
static PyObject *cclient_live_append_body(CClient *self, PyObject *args) {
    unsigned long session;
    PyObject *bars_obj;
    Py_ssize_t m;
    int with_stats = 0;
    if (!PyArg_ParseTuple(args, "kOn|p:live_append", &session, &bars_obj, &m, &with_stats))
        return NULL;
    PyArrayObject *bars = as_close(bars_obj);
    if (!bars) return NULL;
    npy_intp n = m;
    PyArrayObject *pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    PyArrayObject *trades = pnl ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    PyArrayObject *pos = trades ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT8) : NULL;
    PyArrayObject *crossed = pos ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_BOOL) : NULL;
    PyArrayObject *stats = crossed && with_stats ? new_stats_array(1, &n) : NULL;
    PyObject *out = NULL;
    if (crossed && (stats || !with_stats)) {
        hs_error err;
        hs_status st;
        const double *px = PyArray_DATA(bars);
        size_t k = (size_t)PyArray_DIM(bars, 0);
        double *p = PyArray_DATA(pnl);
        int64_t *t = PyArray_DATA(trades);
        int8_t *q = PyArray_DATA(pos);
        uint8_t *x = PyArray_DATA(crossed); /* numpy bool is one byte, 0 or 1: the wire's crossed */
        hs_stats *sp = stats ? PyArray_DATA(stats) : NULL;
        Py_BEGIN_ALLOW_THREADS
        st = with_stats ? hs_client_live_append_stats(self->c, (uint32_t)session, px, k, (size_t)m, p, t, q, x, sp, &err)
                        : hs_client_live_append(self->c, (uint32_t)session, px, k, (size_t)m, p, t, q, x, &err);
        Py_END_ALLOW_THREADS
        if (st != HS_OK) {
            raise_status(st, &err);
        } else if (with_stats) {
            out = Py_BuildValue("(OOOOO)", pnl, trades, pos, crossed, stats);
        } else {
            out = Py_BuildValue("(OOOO)", pnl, trades, pos, crossed);
        }
    }
    Py_DECREF(bars);
    Py_XDECREF(pnl), Py_XDECREF(trades), Py_XDECREF(pos), Py_XDECREF(crossed), Py_XDECREF(stats);
    return out;
}
CCLIENT_LOCKED(cclient_live_append)

static PyObject *cclient_live_close_body(CClient *self, PyObject *arg) {
    return cclient_u32_call(self, arg, hs_client_live_close);
}
CCLIENT_LOCKED(cclient_live_close)

static PyObject *cclient_set_timeout_body(CClient *self, PyObject *arg) {
    long ms = PyLong_AsLong(arg);
    if ((ms == -1 && PyErr_Occurred())) return NULL;
    hs_client_set_timeout(self->c, ms > INT_MAX ? INT_MAX : (int)ms);
    Py_RETURN_NONE;
}
CCLIENT_LOCKED(cclient_set_timeout)

static PyMethodDef cclient_methods[] = {
    {"set_timeout", (PyCFunction)cclient_set_timeout, METH_O, "set_timeout($self, ms, /)\n--\n\nEach later round trip's limit"},
    {"live_open", (PyCFunction)cclient_live_open, METH_VARARGS, "live_open($self, handle, windows, stats=False, fee=None, /)\n--\n\n-> session"},
    {"live_append", (PyCFunction)cclient_live_append, METH_VARARGS,
     "live_append($self, session, bars, n_combos, stats=False, /)\n--\n\n-> (pnl, trades, position, crossed[, stats])"},
    {"live_close", (PyCFunction)cclient_live_close, METH_O, "live_close($self, session, /)\n--\n\nClose a live session."},
    {"sweep", (PyCFunction)cclient_sweep, METH_VARARGS, "sweep($self, close, windows, /)\n--\n\n-> (pnl, trades)"},
    {"sweep_handle", (PyCFunction)cclient_sweep_handle, METH_VARARGS, "sweep_handle($self, handle, windows, /)\n--\n\n-> (pnl, trades)"},
    {"sweep_stats", (PyCFunction)cclient_sweep_stats, METH_VARARGS,
     "sweep_stats($self, close, handle, windows, fee, /)\n--\n\n-> (pnl, trades, stats): protocol 2 (close None: on the handle)"},
    {"echo", (PyCFunction)cclient_echo, METH_VARARGS, "echo($self, close, out, /)\n--\n\n-> out"},
    {"load", (PyCFunction)cclient_load, METH_O, "load($self, close, /)\n--\n\n-> handle"},
    {"free", (PyCFunction)cclient_free, METH_O, "free($self, handle, /)\n--\n\nFree a loaded series."},
    {"hello", (PyCFunction)cclient_hello, METH_NOARGS, "hello($self, /)\n--\n\n-> (version, variants, max_frame_bytes, max_work)"},
    {"auth", (PyCFunction)cclient_auth, METH_O, "auth($self, token, /)\n--\n\nSend the shared secret (bytes)."},
    {"last_error", (PyCFunction)cclient_last_error, METH_NOARGS, "last_error($self, /)\n--\n\n0, the server's error code, or < 0 (I/O, timeout, protocol)"},
    {"close", (PyCFunction)cclient_close, METH_NOARGS, "close($self, /)\n--\n\nClose the connection."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CClientType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hmasweep._core._CClient",
    .tp_basicsize = sizeof(CClient),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_CClient(url, timeout_ms=-1, fd=-1)\n--\n\nThe library's client (include/hmasweep_client.h): hmasweep.Client's only path.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)cclient_init,
    .tp_dealloc = (destructor)cclient_dealloc,
    .tp_methods = cclient_methods,
};

/* ---- many series (docs/universe.md) ----------------------------------------------------------- */

PyDoc_STRVAR(sweep_many_doc,
             "_sweep_many($module, closes, windows, variant=None, isa=None, threads=0, progress=None, fee=None, /)\n"
             "--\n"
             "\n"
             "-> (pnl, trades, errors, stats).  "
             "hs_sweep_many over a sequence of 1-D float64 series and one (n, 6) windows array: pnl and trades\n"
             "are (len(closes), n) arrays; errors[s] is None or the library's message for a series that failed\n"
             "(its rows are NaN / -1, its statistics zero); stats is a (len(closes), n) STATS_DTYPE array.\n"
             "progress(done, total), when given, is called every ~50 ms.\n"
             "hmasweep.sweep_many() is the public form.");

static PyObject *py_sweep_many(PyObject *self, PyObject *args) {
    PyObject *closes_obj, *windows_obj, *report = Py_None, *fee_obj = Py_None;
    const char *variant = NULL, *isa = NULL;
    int threads = 0, has_fee;
    double fee;
    if (!PyArg_ParseTuple(args, "OO|zziOO", &closes_obj, &windows_obj, &variant, &isa, &threads, &report, &fee_obj))
        return NULL;
    if (!fee_arg(fee_obj, &fee, &has_fee)) return NULL;
    if (report != Py_None && !PyCallable_Check(report)) {
        PyErr_SetString(PyExc_TypeError, "progress must be a callable(done, total) or None");
        return NULL;
    }
    /* A tuple, not PySequence_Fast: that returns a list itself, whose items are only borrowed, and
     * converting one item (its __array__, __float__) may run Python code that empties the list, which
     * freed the item in use and left the rest to be read past the list's end. */
    PyObject *seq = PySequence_Tuple(closes_obj);
    if (!seq) {
        if (PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_SetString(PyExc_TypeError, "closes must be a sequence of 1-D float64 series");
        return NULL;
    }
    Py_ssize_t n_series = PyTuple_GET_SIZE(seq);
    PyArrayObject *windows = combos_from_windows(windows_obj), **arrays = NULL, *pnl = NULL, *trades = NULL, *stats = NULL;
    hs_series_ref *refs = NULL;
    hs_result *rows = NULL;
    hs_error *errs = NULL, err;
    hs_status *status = NULL, st = HS_OK;
    PyObject *errors = NULL, *result = NULL;
    if (!windows) goto done;
    npy_intp n_combos = PyArray_DIM(windows, 0), dims[2] = {n_series, n_combos};
    size_t cells = (size_t)n_series * (size_t)n_combos;
    arrays = calloc((size_t)n_series + 1, sizeof *arrays);
    refs = malloc(((size_t)n_series + 1) * sizeof *refs);
    rows = malloc((cells + 1) * sizeof *rows);
    errs = malloc(((size_t)n_series + 1) * sizeof *errs);
    status = malloc(((size_t)n_series + 1) * sizeof *status);
    if (!arrays || !refs || !rows || !errs || !status) {
        PyErr_NoMemory();
        goto done;
    }
    if (!(stats = new_stats_array(2, dims))) goto done; /* hs_sweep_many's layout: [s * n_combos + c] */
    for (Py_ssize_t s = 0; s < n_series; s++) {
        if (!(arrays[s] = as_close(PyTuple_GET_ITEM(seq, s)))) goto done;
        refs[s] = (hs_series_ref){NULL, PyArray_DATA(arrays[s]), (size_t)PyArray_DIM(arrays[s], 0)};
    }
    hs_sweep_options opt = {.variant = variant, .isa = isa, .threads = threads,
                            .struct_size = sizeof opt, .stats = PyArray_DATA(stats), .fee = fee, .has_fee = has_fee};
    poll_state ps;
    poll_attach(&opt, &ps, report == Py_None ? NULL : report);
    const hs_windows *combos = PyArray_DATA(windows);
    Py_BEGIN_ALLOW_THREADS
    st = hs_sweep_many(refs, (size_t)n_series, combos, (size_t)n_combos, rows, status, errs, NULL, &opt, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        raise_status(st, &err);
        goto done;
    }
    if (!(pnl = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE))) goto done;
    if (!(trades = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64))) goto done;
    double *p = PyArray_DATA(pnl);
    int64_t *t = PyArray_DATA(trades);
    for (size_t k = 0; k < cells; k++) p[k] = rows[k].pnl, t[k] = rows[k].trades;
    if (!(errors = PyList_New(n_series))) goto done;
    for (Py_ssize_t s = 0; s < n_series; s++) {
        PyObject *e = status[s] == HS_OK ? Py_NewRef(Py_None) : PyUnicode_FromString(errs[s].msg);
        if (!e) goto done;
        PyList_SET_ITEM(errors, s, e);
    }
    /* "N" hands the four references over whether or not the tuple is made (CPython releases them itself
     * when it fails), so they are forgotten here either way: releasing them again at done was a double
     * release when the tuple's allocation failed. */
    result = Py_BuildValue("(NNNN)", (PyObject *)pnl, (PyObject *)trades, errors, (PyObject *)stats);
    pnl = trades = stats = NULL, errors = NULL;
done:
    for (Py_ssize_t s = 0; arrays && s < n_series; s++) Py_XDECREF(arrays[s]);
    free(arrays), free(refs), free(rows), free(errs), free(status);
    Py_XDECREF(windows);
    Py_XDECREF(pnl);
    Py_XDECREF(trades);
    Py_XDECREF(stats);
    Py_XDECREF(errors);
    Py_DECREF(seq);
    return result;
}

/* ---- derived statistics ----------------------------------------------------------------------- */

PyDoc_STRVAR(derive_doc,
             "_derive($module, pnl, trades, stats, bars, /)\n"
             "--\n"
             "\n"
             "-> (win_rate, profit_factor, mean_trade, std_trade, sharpe, exposure), float64 arrays shaped as pnl:\n"
             "the library's hs_stats_derive per combo (docs/spec.md §8), so every front end derives the same bits.");

static PyObject *py_derive(PyObject *self, PyObject *args) {
    PyObject *pnl_obj, *trades_obj, *stats_obj;
    Py_ssize_t bars;
    if (!PyArg_ParseTuple(args, "OOOn:_derive", &pnl_obj, &trades_obj, &stats_obj, &bars)) return NULL;
    if (bars < 0) {
        PyErr_SetString(PyExc_ValueError, "bars must be >= 0");
        return NULL;
    }
    PyArrayObject *pnl = (PyArrayObject *)PyArray_FROM_OTF(pnl_obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *trades = pnl ? as_int64(trades_obj, "trades") : NULL;
    Py_XINCREF(stats_descr);
    PyArrayObject *stats = trades ? (PyArrayObject *)PyArray_FromAny(stats_obj, stats_descr, 0, 0, NPY_ARRAY_IN_ARRAY, NULL)
                                  : NULL;
    if (!trades) Py_XDECREF(stats_descr);
    PyObject *out = NULL;
    PyArrayObject *cols[6] = {NULL};
    if (!stats) goto done;
    npy_intp n = PyArray_SIZE(pnl);
    if (PyArray_SIZE(trades) != n || PyArray_SIZE(stats) != n) {
        PyErr_SetString(PyExc_ValueError, "pnl, trades and stats must have one entry per combo each");
        goto done;
    }
    for (int k = 0; k < 6; k++)
        if (!(cols[k] = (PyArrayObject *)PyArray_SimpleNew(PyArray_NDIM(pnl), PyArray_DIMS(pnl), NPY_DOUBLE))) goto done;
    const double *p = PyArray_DATA(pnl);
    const int64_t *t = PyArray_DATA(trades);
    const hs_stats *st = PyArray_DATA(stats);
    for (npy_intp c = 0; c < n; c++) {
        hs_result r = {p[c], t[c]};
        hs_derived d;
        hs_stats_derive(&r, &st[c], (size_t)bars, &d);
        double v[6] = {d.win_rate, d.profit_factor, d.mean_trade, d.std_trade, d.sharpe, d.exposure};
        for (int k = 0; k < 6; k++) ((double *)PyArray_DATA(cols[k]))[c] = v[k];
    }
    /* "N" takes the six references even when the tuple cannot be made (as in _sweep_many). */
    out = Py_BuildValue("(NNNNNN)", cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]);
    memset(cols, 0, sizeof cols);
done:
    for (int k = 0; k < 6; k++) Py_XDECREF(cols[k]);
    Py_XDECREF(pnl);
    Py_XDECREF(trades);
    Py_XDECREF(stats);
    return out;
}

/* ---- module ----------------------------------------------------------------------------------- */

/* _write_file(path, data): hs_write_file (temporary file + rename, mode and owner kept, a foreign symlink
 * refused); hmasweep.report(path=) writes its page with it.  OSError naming the path on failure. */
static PyObject *py_write_file(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *path_obj;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "O&y*:_write_file", PyUnicode_FSConverter, &path_obj, &data)) return NULL;
    hs_error err;
    hs_status st;
    const char *path = PyBytes_AS_STRING(path_obj);
    Py_BEGIN_ALLOW_THREADS
    st = hs_write_file(path, data.buf, (size_t)data.len, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    Py_DECREF(path_obj);
    if (st != HS_OK) {
        PyErr_SetString(st == HS_ERR_NOMEM ? PyExc_MemoryError : st == HS_ERR_USAGE ? PyExc_ValueError : PyExc_OSError, err.msg);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"sweep", (PyCFunction)(void (*)(void))py_sweep, METH_FASTCALL | METH_KEYWORDS, sweep_doc},
    {"series", (PyCFunction)(void (*)(void))py_series, METH_VARARGS | METH_KEYWORDS, series_doc},
    {"standard_normal", py_standard_normal, METH_VARARGS, standard_normal_doc},
    {"grid", (PyCFunction)(void (*)(void))py_grid, METH_VARARGS | METH_KEYWORDS, grid_doc},
    {"windows", py_windows, METH_O, windows_doc},
    {"variants", py_variants, METH_NOARGS, variants_doc},
    {"read_series", py_read_series, METH_O, read_series_doc},
    {"_c_sweep_loop", py_c_sweep_loop, METH_VARARGS, c_sweep_loop_doc},
    {"_sweep_many", py_sweep_many, METH_VARARGS, sweep_many_doc},
    {"_write_file", py_write_file, METH_VARARGS,
     "_write_file(path, data, /)\n--\n\nWrite bytes as hs_write_file does (temporary file + rename, mode and owner kept)."},
    {"_derive", py_derive, METH_VARARGS, derive_doc},
    {"_set_interruptible", py_set_interruptible, METH_O,
     "_set_interruptible($module, on, /)\n--\n\nTurn the Ctrl-C hook on or off (to measure its cost); returns the old setting."},
    {"_trade_log", py_trade_log, METH_VARARGS, trade_log_doc},
    {"_indicator", py_indicator, METH_VARARGS, indicator_doc},
    {"_period_ends", py_period_ends, METH_VARARGS,
     "_period_ends($module, bars, periods, /)\n--\n\nhs_period_ends: docs/spec.md §9.3's P equal periods' ends (int64)."},
    {"_check_period_ends", py_check_period_ends, METH_VARARGS,
     "_check_period_ends($module, ends, bars, /)\n--\n\nhs_check_period_ends: ValueError naming the first bad end."},
    {"_period_stats", py_period_stats, METH_O,
     "_period_stats($module, equity, /)\n--\n\nhs_period_stats_of: (N, 6) mean, sd, period_sharpe, sortino, skew, kurtosis."},
    {"_cscv", py_cscv, METH_VARARGS,
     "_cscv($module, equity, groups, /)\n--\n\nhs_cscv: (groups, splits, kept, pbo, prob_oos_loss, slope, intercept,\n"
     "lambdas, is_metric, oos_metric, chosen)."},
    {"_deflated_sharpe", py_deflated_sharpe, METH_VARARGS,
     "_deflated_sharpe($module, stats, periods, n_trials, chosen, /)\n--\n\nhs_deflated_sharpe: (chosen, sr, trials,\n"
     "var_sr, sr0, dsr, psr0)."},
    {"_walk_forward", py_walk_forward, METH_VARARGS,
     "_walk_forward($module, equity, train, test, anchored, /)\n--\n\nhs_walk_forward: (choices, oos_curve, oos_sharpe)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hmasweep._core",
                                    "The C extension of hmasweep (the public C API, include/hmasweep.h).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    for (int k = 0; k < KW_COUNT; k++)
        if (!(kw_interned[k] = PyUnicode_InternFromString(kw_names[k]))) goto fail;
    if (PyType_Ready(&CClientType) < 0) goto fail;
    Py_INCREF(&CClientType);
    if (PyModule_AddObject(m, "_CClient", (PyObject *)&CClientType) < 0) {
        Py_DECREF(&CClientType);
        goto fail;
    }
    SweepResult = PyStructSequence_NewType(&result_desc);
    if (make_stats_descr(m) < 0) goto fail;
    if (!SweepResult || add_result_methods(SweepResult) < 0 ||
        PyModule_AddObject(m, "SweepResult", (PyObject *)SweepResult) < 0)
        goto fail;
    Py_INCREF(SweepResult); /* the module took one reference; the sweep function keeps its own */
    if (PyModule_AddIntConstant(m, "TRADE_RECORD_SIZE", (long)sizeof(hs_trade)) < 0) goto fail;
    if (PyModule_AddObject(m, "DEFAULT_FEE", PyFloat_FromDouble(HS_DEFAULT_FEE)) < 0) goto fail;
    /* hmasweep.__version__ is the library's own (hs_version); the wheel's metadata reads the same number
       from CMakeLists.txt, and python/build_wheel.sh --test checks that they agree. */
    if (PyModule_AddStringConstant(m, "__version__", hs_version()) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
