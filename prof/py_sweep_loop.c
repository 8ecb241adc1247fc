/* hmasweep._sweep_loop — prof/py_overhead's C side: `reps` back-to-back hs_sweep calls made from C with the
 * arguments hmasweep.sweep() passes (a float64 close, an (n, 6) windows array, a variant), timed with the
 * GIL released.  py_overhead subtracts this from the Python call to get the binding's overhead
 * (reports/python.md, docs/python.md "Call overhead").
 *
 * A measurement tool, not part of the product: its own extension module, built by python/CMakeLists.txt into
 * the build tree's package only (never into the wheel), so that hmasweep._core holds no measurement hook
 * (issue 30 §4; it was _core._c_sweep_loop).  ctest prof_py_sweep_loop_smoke checks that it runs. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stdlib.h>
#include <time.h>

#include "hmasweep.h"

PyDoc_STRVAR(sweep_loop_doc,
             "sweep_loop($module, close, windows, variant, reps, /)\n"
             "--\n"
             "\n"
             "-> float.  "
             "Seconds for `reps` back-to-back hs_sweep calls made from C with the same arguments sweep() passes\n"
             "(prof/py_overhead subtracts this from the Python call to get the binding's overhead).");

static PyObject *py_sweep_loop(PyObject *self, PyObject *args) {
    PyObject *close_obj, *win_obj;
    const char *variant;
    Py_ssize_t reps;
    if (!PyArg_ParseTuple(args, "OOzn:sweep_loop", &close_obj, &win_obj, &variant, &reps)) return NULL;
    PyArrayObject *close = (PyArrayObject *)PyArray_FROM_OTF(close_obj, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *win = close ? (PyArrayObject *)PyArray_FROM_OTF(win_obj, NPY_INT64, NPY_ARRAY_IN_ARRAY) : NULL;
    PyObject *out = NULL;
    if (!win) goto done;
    if (PyArray_NDIM(close) != 1 || PyArray_NDIM(win) != 2 || PyArray_DIM(win, 1) != 6) {
        PyErr_SetString(PyExc_ValueError, "sweep_loop takes a 1-D close and (n, 6) windows");
        goto done;
    }
    size_t n = (size_t)PyArray_DIM(win, 0);
    hs_result *res = malloc((n ? n : 1) * sizeof *res);
    if (!res) {
        PyErr_NoMemory();
        goto done;
    }
    hs_sweep_options opt = {.variant = variant, .isa = NULL, .threads = 0};
    hs_error err;
    hs_status st = HS_OK;
    struct timespec t0, t1;
    const double *px = PyArray_DATA(close);
    size_t n_bars = (size_t)PyArray_DIM(close, 0);
    const hs_windows *combos = PyArray_DATA(win);
    Py_BEGIN_ALLOW_THREADS
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (Py_ssize_t r = 0; r < reps && st == HS_OK; r++) st = hs_sweep(px, n_bars, combos, n, res, &opt, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    Py_END_ALLOW_THREADS
    free(res);
    if (st != HS_OK) PyErr_SetString(PyExc_ValueError, err.msg);
    else out = PyFloat_FromDouble((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
done:
    Py_XDECREF(close);
    Py_XDECREF(win);
    return out;
}

static PyMethodDef methods[] = {{"sweep_loop", py_sweep_loop, METH_VARARGS, sweep_loop_doc}, {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hmasweep._sweep_loop",
                                    "prof/py_overhead's C loop of hs_sweep (a measurement tool, build tree only).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__sweep_loop(void) {
    import_array();
    return PyModule_Create(&module);
}
