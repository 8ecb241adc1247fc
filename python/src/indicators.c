/* hmasweep._core: the indicators as arrays — hs_wma, hs_hma, hs_hma3 and hs_signal over a series, for
 * hmasweep.wma/hma/hma3/signal (python/src/core.h). */
#include "core.h"

#include <string.h>

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

PyMethodDef hs_py_indicator_methods[] = {
    {"_indicator", py_indicator, METH_VARARGS, indicator_doc},
    {NULL, NULL, 0, NULL}};
