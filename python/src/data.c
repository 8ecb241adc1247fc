/* hmasweep._core: the data calls — the canonical series, numpy's normals, the grid and a length's windows,
 * the registry, reading a series and writing a file (python/src/core.h). */
#include "core.h"

#include <stdlib.h>
#include <string.h>

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
 * as `hmasweep variants` lists it (product variants only: the gap study's instruments are not in the library). */
static PyObject *py_variants(PyObject *self, PyObject *unused) {
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (size_t k = 0, n = hs_variant_count(); k < n; k++) {
        hs_variant_info info;
        /* every field but default_isa is filled even on HS_ERR_ISA */
        hs_variant_describe_sized(k, &info, sizeof info, NULL);
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

PyMethodDef hs_py_data_methods[] = {
    {"series", (PyCFunction)(void (*)(void))py_series, METH_VARARGS | METH_KEYWORDS, series_doc},
    {"standard_normal", py_standard_normal, METH_VARARGS, standard_normal_doc},
    {"grid", (PyCFunction)(void (*)(void))py_grid, METH_VARARGS | METH_KEYWORDS, grid_doc},
    {"windows", py_windows, METH_O, windows_doc},
    {"variants", py_variants, METH_NOARGS, variants_doc},
    {"read_series", py_read_series, METH_O, read_series_doc},
    {"_write_file", py_write_file, METH_VARARGS,
     "_write_file(path, data, /)\n--\n\nWrite bytes as hs_write_file does (temporary file + rename, mode and owner kept)."},
    {NULL, NULL, 0, NULL}};
