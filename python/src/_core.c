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
 *
 * The binding is split by subject (python/src/core.h lists the files); this file is the module: its
 * method tables, its constants and PyInit__core.
 */
#define HS_PY_CORE_MODULE /* defines numpy's API table (core.h) */
#include "core.h"

#include "client.h"

int add_object(PyObject *module, const char *name, PyObject *value) {
    if (!value) return -1;
#if PY_VERSION_HEX >= 0x030A0000
    return PyModule_AddObjectRef(module, name, value);
#else
    Py_INCREF(value);
    if (PyModule_AddObject(module, name, value) == 0) return 0;
    Py_DECREF(value);
    return -1;
#endif
}

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "hmasweep._core",
                                    "The C extension of hmasweep (the public C API, include/hmasweep.h).", -1,
                                    NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyMethodDef *tables[] = {hs_py_sweep_methods, hs_py_data_methods, hs_py_result_methods, hs_py_status_methods,
                             hs_py_indicator_methods, hs_py_validation_methods};
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        if (PyModule_AddFunctions(m, tables[k]) < 0) goto fail;
    if (intern_signature(&sweep_signature) < 0) goto fail;
    if (PyType_Ready(&CClientType) < 0 || add_object(m, "_CClient", (PyObject *)&CClientType) < 0) goto fail;
    if (result_types_init(m) < 0) goto fail;
    if (PyModule_AddIntConstant(m, "TRADE_RECORD_SIZE", (long)sizeof(hs_trade)) < 0) goto fail;
    PyObject *fee = PyFloat_FromDouble(HS_DEFAULT_FEE);
    int rc = add_object(m, "DEFAULT_FEE", fee);
    Py_XDECREF(fee);
    if (rc < 0) goto fail;
    /* hmasweep.__version__ is the library's own (hs_version); the wheel's metadata reads the same number
       from CMakeLists.txt, and python/build_wheel.sh --test checks that they agree. */
    if (PyModule_AddStringConstant(m, "__version__", hs_version()) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
