/* hmasweep._core: the sweeps — sweep() (1-D and 2-D grids, raw windows, periods), _sweep_many and one
 * combo's trade log (python/src/core.h). */
#include "core.h"

#include <stdlib.h>
#include <string.h>
#include <limits.h>

/* ---- the combos of a 2-D grid ------------------------------------------------------------------- */

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

/* ---- sweep ------------------------------------------------------------------------------------ */


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

/* sweep's parameters, in order: close and lengths may come by position. */
enum { KW_CLOSE, KW_LENGTHS, KW_WINDOWS, KW_VARIANT, KW_ISA, KW_THREADS, KW_HMA, KW_HMA3, KW_FEE, KW_PERIODS, KW_PPY, KW_COUNT };
static const char *const sweep_names[KW_COUNT] = {"close", "lengths", "windows", "variant", "isa", "threads", "hma", "hma3",
                                                  "fee", "periods", "periods_per_year"};
static PyObject *sweep_interned[KW_COUNT];
const call_signature sweep_signature = {"sweep", KW_COUNT, 2, 1, sweep_names, sweep_interned};

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

/* `a` (a new reference) as an array only the result holds: itself when it owns its data and nothing else
 * refers to it (made here from a list or an int), else a copy.  r.lengths was the caller's own int64 array
 * (or a pandas Series' data) while r.windows was always a copy: a later change to the argument changed the
 * result (review-bbff220).  Steals `a`; NULL with an exception. */
static PyArrayObject *own_array(PyArrayObject *a) {
    if (Py_REFCNT(a) == 1 && PyArray_CHKFLAGS(a, NPY_ARRAY_OWNDATA)) return a;
    PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
    Py_DECREF(a);
    return copy;
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

/* sweep()'s options other than the arrays: read and checked in the order the messages have always come. */
typedef struct {
    const char *variant, *isa;
    int threads, has_fee, grid_2d;
    double fee;
} sweep_settings;

static int sweep_settings_of(PyObject *const *arg, sweep_settings *o) {
    *o = (sweep_settings){"best", NULL, 0, 0, 0, HS_DEFAULT_FEE};
    if (arg[KW_VARIANT] && !str_arg(arg[KW_VARIANT], "variant", &o->variant)) return 0;
    if (!o->variant) o->variant = "best";
    if (!str_arg(arg[KW_ISA], "isa", &o->isa)) return 0;
    if (arg[KW_THREADS]) {
        long t = PyLong_AsLong(arg[KW_THREADS]);
        if (t == -1 && PyErr_Occurred()) return 0;
        if (t < INT_MIN || t > INT_MAX) {
            PyErr_SetString(PyExc_ValueError, "threads is out of range");
            return 0;
        }
        o->threads = (int)t;
    }
    if (arg[KW_LENGTHS] != Py_None && arg[KW_WINDOWS] != Py_None) {
        PyErr_SetString(PyExc_ValueError, "give lengths or windows, not both");
        return 0;
    }
    if (!fee_arg(arg[KW_FEE], &o->fee, &o->has_fee)) return 0;
    o->grid_2d = arg[KW_HMA] != Py_None || arg[KW_HMA3] != Py_None;
    return !o->grid_2d || check_2d_arguments(arg[KW_HMA], arg[KW_HMA3], arg[KW_LENGTHS], arg[KW_WINDOWS]);
}

/* Every array of one sweep: the inputs as the library takes them, the outputs it fills, and the periods. */
typedef struct {
    PyArrayObject *close, *lengths, *windows, *hma_lengths, *hma3_lengths, *pnl, *trades, *stats, *equity, *mtm;
    period_args per;
} sweep_arrays;

static void sweep_arrays_clear(sweep_arrays *a) {
    PyArrayObject **all[] = {&a->close, &a->lengths, &a->windows, &a->hma_lengths, &a->hma3_lengths,
                             &a->pnl, &a->trades, &a->stats, &a->equity, &a->mtm};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) Py_CLEAR(*all[k]);
    period_args_clear(&a->per);
}

/* close, the periods and the combos (raw windows, the 2-D grid, or lengths), then the outputs. */
static int sweep_arrays_of(PyObject *const *arg, int grid_2d, sweep_arrays *a) {
    if (!(a->close = as_close(arg[KW_CLOSE]))) return 0;
    if (!resolve_periods(arg[KW_CLOSE], arg[KW_PERIODS], arg[KW_PPY], (size_t)PyArray_DIM(a->close, 0), &a->per)) return 0;
    if (arg[KW_WINDOWS] != Py_None) {
        if (!(a->windows = combos_from_windows(arg[KW_WINDOWS]))) return 0;
    } else if (grid_2d) {
        if (!(a->windows = windows_2d(arg[KW_HMA], arg[KW_HMA3], &a->hma_lengths, &a->hma3_lengths))) return 0;
    } else {
        if (!(a->lengths = lengths_array(arg[KW_LENGTHS], "lengths"))) return 0;
        if (!(a->lengths = own_array(a->lengths))) return 0;
        if (!(a->windows = windows_from_lengths(a->lengths))) return 0;
    }
    npy_intp n = PyArray_DIM(a->windows, 0);
    if (!(a->pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE))) return 0;
    if (!(a->trades = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64))) return 0;
    if (!(a->stats = new_stats_array(1, &n))) return 0;
    if (a->per.ends) { /* E (P x n) and the drawdown (n), docs/spec.md §9.1-§9.3 */
        npy_intp dims[2] = {PyArray_DIM(a->per.ends, 0), n};
        if (!(a->equity = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE))) return 0;
        if (!(a->mtm = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE))) return 0;
    }
    return 1;
}

/* hs_sweep with the GIL released, into the arrays (pnl and trades split out of the hs_result pairs);
 * 0 with the library's error raised. */
static int run_sweep(sweep_arrays *a, const sweep_settings *o, hs_sweep_report *ran) {
    npy_intp n = PyArray_DIM(a->windows, 0);
    hs_result small[16], *res = small;
    if (n > (npy_intp)(sizeof small / sizeof small[0]) && !(res = malloc((size_t)n * sizeof *res))) {
        PyErr_NoMemory();
        return 0;
    }
    hs_sweep_options opt = {.variant = o->variant, .isa = o->isa, .threads = o->threads, .struct_size = sizeof opt,
                            .report = ran, .stats = PyArray_DATA(a->stats), .fee = o->fee, .has_fee = o->has_fee};
    if (a->per.ends) {
        opt.n_periods = (size_t)PyArray_DIM(a->per.ends, 0);
        opt.period_ends = PyArray_DATA(a->per.ends);
        opt.equity = PyArray_DATA(a->equity);
        opt.mtm_max_drawdown = PyArray_DATA(a->mtm);
    }
    poll_state ps;
    poll_attach(&opt, &ps, NULL);
    hs_error err;
    hs_status st;
    const double *px = PyArray_DATA(a->close);
    size_t n_bars = (size_t)PyArray_DIM(a->close, 0);
    const hs_windows *combos = PyArray_DATA(a->windows);
    Py_BEGIN_ALLOW_THREADS
    st = hs_sweep(px, n_bars, combos, (size_t)n, res, &opt, &err);
    Py_END_ALLOW_THREADS
    if (st == HS_OK) {
        double *p = PyArray_DATA(a->pnl);
        int64_t *t = PyArray_DATA(a->trades);
        for (npy_intp k = 0; k < n; k++) {
            p[k] = res[k].pnl;
            t[k] = res[k].trades;
        }
    } else {
        raise_status(st, &err);
    }
    if (res != small) free(res);
    return st == HS_OK;
}

/* The SweepResult, which takes the arrays over (they are NULL after, whatever happened). */
static PyObject *sweep_result(sweep_arrays *a, const sweep_settings *o, const hs_sweep_report *ran) {
    PyObject *result = PyStructSequence_New(SweepResult);
    PyObject *name = result ? PyUnicode_FromString(ran->variant) : NULL;
    if (!name) {
        Py_XDECREF(result);
        return NULL;
    }
    if (!a->lengths) a->lengths = (PyArrayObject *)Py_NewRef(Py_None);
    if (!o->grid_2d) { /* the 1-D grid is the diagonal: Lh = L3 = L (one array, shared); None for raw windows */
        a->hma_lengths = (PyArrayObject *)Py_NewRef(a->lengths);
        a->hma3_lengths = (PyArrayObject *)Py_NewRef(a->lengths);
    }
    PyStructSequence_SET_ITEM(result, 0, (PyObject *)a->pnl);
    PyStructSequence_SET_ITEM(result, 1, (PyObject *)a->trades);
    PyStructSequence_SET_ITEM(result, 2, (PyObject *)a->lengths);
    PyStructSequence_SET_ITEM(result, 3, (PyObject *)a->windows);
    PyStructSequence_SET_ITEM(result, 4, name);
    PyStructSequence_SET_ITEM(result, 5, interned_isa(ran->isa));
    PyStructSequence_SET_ITEM(result, 6, PyLong_FromLong(ran->threads));
    PyStructSequence_SET_ITEM(result, RESULT_HMA_LENGTHS, (PyObject *)a->hma_lengths);
    PyStructSequence_SET_ITEM(result, RESULT_HMA3_LENGTHS, (PyObject *)a->hma3_lengths);
    PyStructSequence_SET_ITEM(result, RESULT_BARS, PyLong_FromSize_t((size_t)PyArray_DIM(a->close, 0)));
    PyStructSequence_SET_ITEM(result, RESULT_FEE, PyFloat_FromDouble(o->fee));
    PyStructSequence_SET_ITEM(result, RESULT_STATS, (PyObject *)a->stats);
    PyStructSequence_SET_ITEM(result, RESULT_EQUITY, a->equity ? (PyObject *)a->equity : Py_NewRef(Py_None));
    PyStructSequence_SET_ITEM(result, RESULT_MTM, a->mtm ? (PyObject *)a->mtm : Py_NewRef(Py_None));
    PyStructSequence_SET_ITEM(result, RESULT_PERIOD_ENDS, a->per.ends ? (PyObject *)a->per.ends : Py_NewRef(Py_None));
    PyStructSequence_SET_ITEM(result, RESULT_PERIOD_INDEX, a->per.labels);
    PyStructSequence_SET_ITEM(result, RESULT_PERIODS_PER_YEAR, a->per.ppy);
    a->per = (period_args){NULL, NULL, NULL}; /* the result owns them now */
    a->pnl = a->trades = a->lengths = a->windows = a->hma_lengths = a->hma3_lengths = a->stats = a->equity = a->mtm = NULL;
    if (!PyStructSequence_GET_ITEM(result, 5) || !PyStructSequence_GET_ITEM(result, 6) ||
        !PyStructSequence_GET_ITEM(result, RESULT_BARS) || !PyStructSequence_GET_ITEM(result, RESULT_FEE))
        Py_CLEAR(result);
    return result;
}

static PyObject *py_sweep(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *arg[KW_COUNT] = {NULL, Py_None, Py_None, NULL, Py_None, NULL, Py_None, Py_None, Py_None, Py_None, Py_None};
    sweep_settings o;
    if (!parse_args(&sweep_signature, args, nargs, kwnames, arg) || !sweep_settings_of(arg, &o)) return NULL;
    sweep_arrays a = {0};
    hs_sweep_report ran; /* r.variant, r.isa, r.threads: what the library says ran (an alias resolved) */
    PyObject *result = NULL;
    if (sweep_arrays_of(arg, o.grid_2d, &a) && run_sweep(&a, &o, &ran)) result = sweep_result(&a, &o, &ran);
    sweep_arrays_clear(&a);
    return result;
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

/* What one _sweep_many call holds: the series as arrays (and as the library's refs), the C outputs. */
typedef struct {
    Py_ssize_t n_series;
    npy_intp n_combos;
    PyArrayObject *windows, **arrays, *stats;
    hs_series_ref *refs;
    hs_result *rows;
    hs_error *errs;
    hs_status *status;
} many_call;

static void many_call_clear(many_call *c) {
    for (Py_ssize_t s = 0; c->arrays && s < c->n_series; s++) Py_XDECREF(c->arrays[s]);
    free(c->arrays), free(c->refs), free(c->rows), free(c->errs), free(c->status);
    Py_XDECREF(c->windows);
    Py_XDECREF(c->stats);
}

/* The windows, the buffers, and each series of `seq` (a tuple) as a float64 array; 0 with an exception. */
static int many_call_of(PyObject *seq, PyObject *windows_obj, many_call *c) {
    c->n_series = PyTuple_GET_SIZE(seq);
    if (!(c->windows = combos_from_windows(windows_obj))) return 0;
    c->n_combos = PyArray_DIM(c->windows, 0);
    npy_intp dims[2] = {c->n_series, c->n_combos};
    size_t cells = (size_t)c->n_series * (size_t)c->n_combos, ns = (size_t)c->n_series + 1;
    c->arrays = calloc(ns, sizeof *c->arrays);
    c->refs = malloc(ns * sizeof *c->refs);
    c->rows = malloc((cells + 1) * sizeof *c->rows);
    c->errs = malloc(ns * sizeof *c->errs);
    c->status = malloc(ns * sizeof *c->status);
    if (!c->arrays || !c->refs || !c->rows || !c->errs || !c->status) {
        PyErr_NoMemory();
        return 0;
    }
    if (!(c->stats = new_stats_array(2, dims))) return 0; /* hs_sweep_many's layout: [s * n_combos + c] */
    for (Py_ssize_t s = 0; s < c->n_series; s++) {
        if (!(c->arrays[s] = as_close(PyTuple_GET_ITEM(seq, s)))) return 0;
        c->refs[s] = (hs_series_ref){NULL, PyArray_DATA(c->arrays[s]), (size_t)PyArray_DIM(c->arrays[s], 0)};
    }
    return 1;
}

/* (pnl, trades, errors, stats) from a finished call; the stats array goes to the tuple. */
static PyObject *many_result(many_call *c) {
    npy_intp dims[2] = {c->n_series, c->n_combos};
    size_t cells = (size_t)c->n_series * (size_t)c->n_combos;
    PyArrayObject *pnl = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyArrayObject *trades = pnl ? (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT64) : NULL;
    PyObject *errors = trades ? PyList_New(c->n_series) : NULL;
    if (!errors) {
        Py_XDECREF(pnl);
        Py_XDECREF(trades);
        return NULL;
    }
    double *p = PyArray_DATA(pnl);
    int64_t *t = PyArray_DATA(trades);
    for (size_t k = 0; k < cells; k++) p[k] = c->rows[k].pnl, t[k] = c->rows[k].trades;
    for (Py_ssize_t s = 0; s < c->n_series; s++) {
        PyObject *e = c->status[s] == HS_OK ? Py_NewRef(Py_None) : PyUnicode_FromString(c->errs[s].msg);
        if (!e) {
            Py_DECREF(pnl), Py_DECREF(trades), Py_DECREF(errors);
            return NULL;
        }
        PyList_SET_ITEM(errors, s, e);
    }
    /* "N" hands the four references over whether or not the tuple is made (CPython releases them itself
     * when it fails), so they are forgotten here either way: releasing them again was a double release
     * when the tuple's allocation failed. */
    PyObject *stats = (PyObject *)c->stats;
    c->stats = NULL;
    return Py_BuildValue("(NNNN)", (PyObject *)pnl, (PyObject *)trades, errors, stats);
}

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
    many_call c = {0};
    PyObject *result = NULL;
    if (many_call_of(seq, windows_obj, &c)) {
        hs_sweep_options opt = {.variant = variant, .isa = isa, .threads = threads,
                                .struct_size = sizeof opt, .stats = PyArray_DATA(c.stats), .fee = fee, .has_fee = has_fee};
        poll_state ps;
        poll_attach(&opt, &ps, report == Py_None ? NULL : report);
        const hs_windows *combos = PyArray_DATA(c.windows);
        hs_error err;
        hs_status st;
        Py_BEGIN_ALLOW_THREADS
        st = hs_sweep_many(c.refs, (size_t)c.n_series, combos, (size_t)c.n_combos, c.rows, c.status, c.errs, NULL, &opt,
                           &err);
        Py_END_ALLOW_THREADS
        result = st == HS_OK ? many_result(&c) : raise_status(st, &err);
    }
    many_call_clear(&c);
    Py_DECREF(seq);
    return result;
}

PyMethodDef hs_py_sweep_methods[] = {
    {"sweep", (PyCFunction)(void (*)(void))py_sweep, METH_FASTCALL | METH_KEYWORDS, sweep_doc},
    {"_sweep_many", py_sweep_many, METH_VARARGS, sweep_many_doc},
    {"_trade_log", py_trade_log, METH_VARARGS, trade_log_doc},
    {NULL, NULL, 0, NULL}};
