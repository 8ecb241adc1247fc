/* hmasweep._core: what a sweep returns — the SweepResult type (its fields, r.to_frame(), r.equity_frame(),
 * r.wins ...), STATS_DTYPE, and the derived statistics (python/src/core.h). */
#include "core.h"

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
static PyStructSequence_Desc result_desc = {
    "hmasweep.SweepResult", "SweepResult(sequence, dict={})\n--\n\nThe result of hmasweep.sweep(): one entry per combo in every array.", result_fields,
    5};
PyTypeObject *SweepResult;

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
PyArray_Descr *stats_descr;
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
    return add_object(module, "STATS_DTYPE", (PyObject *)stats_descr); /* the module's reference, beside ours */
}

/* SweepResult keeps the reference the type's creation gave (sweep() makes its results from it), and the
 * module takes one of its own; so does STATS_DTYPE.  Before, PyModule_AddObject leaked them when it failed. */
int result_types_init(PyObject *module) {
    if (make_stats_descr(module) < 0) return -1;
    if (!(SweepResult = PyStructSequence_NewType(&result_desc)) || add_result_methods(SweepResult) < 0) return -1;
    return add_object(module, "SweepResult", (PyObject *)SweepResult);
}

/* A new (dims) array of STATS_DTYPE records, laid out as hs_stats[]. */
PyArrayObject *new_stats_array(int nd, npy_intp *dims) {
    Py_INCREF(stats_descr);
    return (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, stats_descr, nd, dims, NULL, NULL, 0, NULL);
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

PyMethodDef hs_py_result_methods[] = {
    {"_derive", py_derive, METH_VARARGS, derive_doc},
    {NULL, NULL, 0, NULL}};
