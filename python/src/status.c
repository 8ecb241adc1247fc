/* hmasweep._core: what every call does around the library — its errors as Python exceptions, and Ctrl-C and
 * progress while the library runs (python/src/core.h). */
#include "core.h"

#include <time.h>

/* HS_ERR_NOMEM: MemoryError; HS_ERR_IO (a client's connection failed): ConnectionError, an OSError;
 * every other status: ValueError. */
PyObject *raise_status(hs_status st, const hs_error *err) {
    if (st == HS_ERR_CANCELLED && PyErr_Occurred()) return NULL; /* the callback's KeyboardInterrupt */
    PyErr_SetString(st == HS_ERR_NOMEM ? PyExc_MemoryError : st == HS_ERR_IO ? PyExc_ConnectionError : PyExc_ValueError,
                    err->msg);
    return NULL;
}

/* A freshly filled array, or (dropping it) the library's error. */
PyObject *array_or_raise(PyArrayObject *a, hs_status st, const hs_error *err) {
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
void poll_attach(hs_sweep_options *opt, poll_state *ps, PyObject *report) {
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

PyMethodDef hs_py_status_methods[] = {
    {"_set_interruptible", py_set_interruptible, METH_O,
     "_set_interruptible($module, on, /)\n--\n\nTurn the Ctrl-C hook on or off (to measure its cost); returns the old setting."},
    {NULL, NULL, 0, NULL}};
