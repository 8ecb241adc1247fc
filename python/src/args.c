/* hmasweep._core: the arguments of every call — one parser of a call's positional and keyword arguments
 * (parse_args, as bottleneck's parse_args/mover), and the conversions of each kind of argument to what the
 * library takes (python/src/core.h). */
#include "core.h"

#include <string.h>

/* ---- the parser ------------------------------------------------------------------------------- */

/* Hand parsing under METH_FASTCALL instead of PyArg_ParseTupleAndKeywords: the latter cost ~0.3 µs per
 * call in sweep, a sixth of its 2 µs budget (reports/python.md).  A call's keyword names are interned, so
 * a pointer compare against the signature's interned names finds them; any other str is compared as text. */
static int keyword_index(const call_signature *sig, PyObject *name) {
    for (int k = 0; k < sig->n; k++)
        if (name == sig->interned[k]) return k;
    for (int k = 0; k < sig->n; k++)
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, sig->names[k]) == 0) return k;
    return -1;
}

int intern_signature(const call_signature *sig) {
    for (int k = 0; k < sig->n; k++)
        if (!(sig->interned[k] = PyUnicode_InternFromString(sig->names[k]))) return -1;
    return 0;
}

int parse_args(const call_signature *sig, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **slot) {
    if (nargs > sig->max_positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", sig->fn,
                     sig->max_positional, nargs);
        return 0;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) slot[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        int k = keyword_index(sig, name);
        if (k < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%S'", sig->fn, name);
            return 0;
        }
        if (k < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", sig->fn, sig->names[k]);
            return 0;
        }
        slot[k] = args[nargs + i];
    }
    for (int k = 0; k < sig->required; k++)
        if (!slot[k]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", sig->fn, sig->names[k]);
            return 0;
        }
    return 1;
}

/* ---- argument conversion ---------------------------------------------------------------------- */

/* A new reference to `obj` as a C-contiguous native float64 array of `ndim` dimensions: `obj` itself when it
 * already is one (the common case, checked first because PyArray_FROM_OTF costs ~100 ns more), else one copy.
 * Another number of dimensions: ValueError from `wrong_ndim`, a format with one %d (the dimensions given). */
PyArrayObject *as_doubles(PyObject *obj, int ndim, const char *wrong_ndim) {
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

PyArrayObject *as_close(PyObject *obj) {
    return as_doubles(obj, 1, "close must be a 1-D series of prices, got a %d-D array");
}

/* An int64 array with C layout from any integer array-like (safe casting: floats are refused). */
PyArrayObject *as_int64(PyObject *obj, const char *what) {
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
PyArrayObject *combos_from_windows(PyObject *windows) {
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

PyArrayObject *lengths_array(PyObject *lengths, const char *what) {
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

PyArrayObject *windows_from_lengths(PyArrayObject *lengths) {
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

/* The fee argument: None (the library's default) or a float; *has_fee says which.  Its range is the
 * library's to check (hs_check_fee: ValueError naming the value). */
int fee_arg(PyObject *obj, double *fee, int *has_fee) {
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

/* Optional str argument: NULL for None. */
int str_arg(PyObject *obj, const char *what, const char **out) {
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

/* The private bindings below take counts as Py_ssize_t: a negative one is a ValueError naming it. */
int nonnegative(const char *what, Py_ssize_t v) {
    if (v >= 0) return 1;
    PyErr_Format(PyExc_ValueError, "%s = %zd: it must be a positive number", what, v);
    return 0;
}

int parse_seed(PyObject *obj, uint64_t *seed) {
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

int parse_count(PyObject *obj, const char *what, npy_intp *n) {
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) return 0;
    if (v < 0) {
        PyErr_Format(PyExc_ValueError, "%s must be >= 0, got %zd", what, v);
        return 0;
    }
    *n = v;
    return 1;
}
