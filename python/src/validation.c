/* hmasweep._core: the periods (docs/spec.md §9.3) and the validation library (§9.4-§9.7), thin calls for
 * hmasweep/periods.py and hmasweep/validation.py (python/src/core.h). */
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- periods (docs/spec.md §9.3): the library's, for hmasweep/periods.py ------------------------- */


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

PyMethodDef hs_py_validation_methods[] = {
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
