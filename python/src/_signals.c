/* hmasweep._signals: the entries of many combos at once (src/api/signals.c), for hmasweep.signals
 * (python/hmasweep/signals.py).  A module of its own, beside hmasweep._core, so that the binding of one
 * function does not grow _core.c. */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <numpy/arrayobject.h>

#include "signals.h"

/* _entries(close, windows, threads, /) -> int8 array (n_combos, n_bars): +1 long entry, -1 short, 0 none.
 * close: C-contiguous float64 (n,); windows: C-contiguous int64 (n_combos, 6).  The GIL is released. */
static PyObject *entries(PyObject *self, PyObject *args) {
    (void)self;
    PyArrayObject *close, *windows;
    int threads;
    if (!PyArg_ParseTuple(args, "O!O!i:_entries", &PyArray_Type, &close, &PyArray_Type, &windows, &threads)) return NULL;
    if (PyArray_TYPE(close) != NPY_FLOAT64 || PyArray_NDIM(close) != 1 || !PyArray_IS_C_CONTIGUOUS(close) ||
        PyArray_TYPE(windows) != NPY_INT64 || PyArray_NDIM(windows) != 2 || PyArray_DIM(windows, 1) != 6 ||
        !PyArray_IS_C_CONTIGUOUS(windows)) {
        PyErr_SetString(PyExc_TypeError, "_entries: close must be C-contiguous float64 (n,), windows int64 (m, 6)");
        return NULL;
    }
    npy_intp dims[2] = {PyArray_DIM(windows, 0), PyArray_DIM(close, 0)};
    PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT8);
    if (!out) return NULL;
    hs_error err = {0};
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_signals_entries((const double *)PyArray_DATA(close), (size_t)dims[1], (const hs_windows *)PyArray_DATA(windows),
                            (size_t)dims[0], (int8_t *)PyArray_DATA(out), threads, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        Py_DECREF(out);
        PyErr_SetString(st == HS_ERR_NOMEM ? PyExc_MemoryError : PyExc_ValueError, err.msg);
        return NULL;
    }
    return (PyObject *)out;
}

static PyMethodDef methods[] = {
    {"_entries", entries, METH_VARARGS,
     "_entries(close, windows, threads, /)\n--\n\nint8 (n_combos, n_bars): +1 long entry, -1 short entry, 0 none."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_signals", "The entries of many combos (hmasweep.signals).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__signals(void) {
    import_array();
    return PyModule_Create(&module);
}
