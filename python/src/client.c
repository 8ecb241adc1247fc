/* hmasweep._core: the C client's binding, _CClient (include/hmasweep_client.h; python/src/client.h): its
 * lock and thread model, the connection, and the sweep, echo, load, hello and auth calls.  The live
 * session's calls are in client_live.c. */
#include "client.h"

#include <limits.h>
#include <stdlib.h>

static const char client_closed[] = "the Client is closed";
static const char client_closed_during[] = "the Client was closed by another thread during this call";

/* hs_client_set_interrupt's hook: called on the waiting thread (GIL released) after a signal cut its
 * wait short and at least every 50 ms.  close() from another thread stops the call (HS_ERR_CANCELLED);
 * so does a KeyboardInterrupt (or any exception a handler raised), and raise_status keeps it. */
static int cclient_interrupted(void *user) {
    CClient *self = user;
    if (atomic_load(&self->closing)) return 1;
    PyGILState_STATE g = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0;
    PyGILState_Release(g);
    return stop;
}

/* Wait (GIL released) for the call in flight; 0 with an exception when the client is closed or this
 * thread is already inside a call on it (an argument's __array__ calling back into the Client). */
static int cclient_acquire(CClient *self) {
    if (!self->lock) {
        PyErr_SetString(PyExc_ConnectionError, client_closed);
        return 0;
    }
    if (self->owner == PyThread_get_thread_ident()) {
        PyErr_SetString(PyExc_RuntimeError, "a Client call re-entered from the thread already inside one");
        return 0;
    }
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    if (!self->c) {
        PyThread_release_lock(self->lock);
        self->last_error = HS_CLIENT_E_BROKEN;
        PyErr_SetString(PyExc_ConnectionError, client_closed);
        return 0;
    }
    self->owner = PyThread_get_thread_ident();
    return 1;
}

/* Free the client, once; the caller holds the lock (or is the last reference). */
static void cclient_drop(CClient *self) {
    if (self->c) hs_client_close(self->c);
    self->c = NULL;
    self->last_error = HS_CLIENT_E_BROKEN;
}

/* End a call: its error code kept for last_error(); a call that close() stopped raises ConnectionError
 * saying so; a close() that came from this very thread during the call (deferred) frees the client now. */
static PyObject *cclient_release(CClient *self, PyObject *result) {
    self->last_error = hs_client_last_error(self->c);
    self->owner = 0;
    if (atomic_load(&self->closing)) {
        if (!result) PyErr_SetString(PyExc_ConnectionError, client_closed_during);
        cclient_drop(self);
    }
    PyThread_release_lock(self->lock);
    return result;
}


/* _CClient(url, timeout_ms) connects by URL; _CClient(None, timeout_ms, fd=N) takes over a connected
 * socket's fd (closed with the client, even when this fails). */
static int cclient_init(CClient *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"url", "timeout_ms", "fd", NULL};
    const char *url;
    int timeout_ms = -1, fd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "z|ii:_CClient", kwlist, &url, &timeout_ms, &fd)) return -1;
    if (!url && fd < 0) {
        PyErr_SetString(PyExc_ValueError, "_CClient: give a URL or fd=");
        return -1;
    }
    if (self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "_CClient.__init__ called twice");
        return -1;
    }
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = url ? hs_client_connect(url, timeout_ms, &self->c, &err) : hs_client_from_fds(fd, fd, timeout_ms, &self->c, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) {
        self->c = NULL;
        self->last_error = HS_CLIENT_E_BROKEN;
        raise_status(st, &err);
        return -1;
    }
    hs_client_set_interrupt(self->c, cclient_interrupted, self);
    return 0;
}

static void cclient_dealloc(CClient *self) {
    cclient_drop(self); /* no call can be in flight: each holds a reference */
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* close(): stops the call in flight (within 50 ms, through the interrupt hook), waits for it to return,
 * then frees the client.  From inside a call on this thread (an argument's __array__), the call frees it
 * as it ends.  Closing twice is harmless. */
static PyObject *cclient_close(CClient *self, PyObject *unused) {
    (void)unused;
    if (!self->lock) Py_RETURN_NONE;
    atomic_store(&self->closing, 1);
    if (self->owner == PyThread_get_thread_ident()) Py_RETURN_NONE;
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    cclient_drop(self);
    PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

/* The latest call's code (0, the server's code, or HS_CLIENT_E_*); HS_CLIENT_E_BROKEN once closed.
 * Read without the lock: Client._call asks it under its own lock, right after its call. */
static PyObject *cclient_last_error(CClient *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(self->last_error);
}

/* (pnl, trades) split out of the client's hs_result pairs. */
static PyObject *results_tuple(const hs_result *res, npy_intp n) {
    PyArrayObject *pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    PyArrayObject *trades = pnl ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    if (!trades) {
        Py_XDECREF(pnl);
        return NULL;
    }
    double *p = PyArray_DATA(pnl);
    int64_t *t = PyArray_DATA(trades);
    for (npy_intp k = 0; k < n; k++) {
        p[k] = res[k].pnl;
        t[k] = res[k].trades;
    }
    return Py_BuildValue("(NN)", pnl, trades);
}

/* sweep(close, windows) or, with a handle, sweep_handle(handle, windows) -> (pnl, trades); with a fee object
 * (None: the default fee) protocol 2's SWEEP_STATS / SWEEP_HANDLE_STATS -> (pnl, trades, stats), stats a
 * STATS_DTYPE array the C client writes in place. */
static PyObject *cclient_sweep_common(CClient *self, PyObject *close_obj, unsigned long handle, PyObject *win_obj,
                                      PyObject *fee_obj) {
    double fee;
    int has_fee;
    if (fee_obj && !fee_arg(fee_obj, &fee, &has_fee)) return NULL;
    PyArrayObject *close = NULL, *win = combos_from_windows(win_obj), *stats = NULL;
    if (!win || (close_obj && !(close = as_close(close_obj)))) {
        Py_XDECREF(win);
        return NULL;
    }
    npy_intp n = PyArray_DIM(win, 0);
    hs_result *res = malloc((size_t)(n ? n : 1) * sizeof *res);
    PyObject *out = NULL;
    if (!res) {
        PyErr_NoMemory();
    } else if (!fee_obj || (stats = new_stats_array(1, &n))) {
        hs_error err;
        hs_status st;
        const hs_windows *combos = PyArray_DATA(win);
        const double *px = close ? PyArray_DATA(close) : NULL;
        size_t n_bars = close ? (size_t)PyArray_DIM(close, 0) : 0;
        hs_stats *sp = stats ? PyArray_DATA(stats) : NULL;
        /* with a fee argument (None: the default fee), a protocol-2 sweep with the statistics (op 10/11) */
        hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
        if (fee_obj) o.has_fee = 1, o.fee = fee, o.stats = sp;
        Py_BEGIN_ALLOW_THREADS
        st = close ? hs_client_sweep_opt(self->c, px, n_bars, combos, (size_t)n, res, &o, &err)
                   : hs_client_sweep_handle_opt(self->c, (uint32_t)handle, combos, (size_t)n, res, &o, &err);
        Py_END_ALLOW_THREADS
        out = st == HS_OK ? results_tuple(res, n) : raise_status(st, &err);
        if (out && stats) {
            PyObject *triple = Py_BuildValue("(OOO)", PyTuple_GET_ITEM(out, 0), PyTuple_GET_ITEM(out, 1), (PyObject *)stats);
            Py_SETREF(out, triple);
        }
    }
    free(res);
    Py_XDECREF(stats);
    Py_XDECREF(close);
    Py_DECREF(win);
    return out;
}

static PyObject *cclient_sweep_body(CClient *self, PyObject *args) {
    PyObject *close, *win;
    if (!PyArg_ParseTuple(args, "OO:sweep", &close, &win)) return NULL;
    return cclient_sweep_common(self, close, 0, win, NULL);
}
CCLIENT_LOCKED(cclient_sweep)

static PyObject *cclient_sweep_handle_body(CClient *self, PyObject *args) {
    unsigned long handle;
    PyObject *win;
    if (!PyArg_ParseTuple(args, "kO:sweep_handle", &handle, &win)) return NULL;
    return cclient_sweep_common(self, NULL, handle, win, NULL);
}
CCLIENT_LOCKED(cclient_sweep_handle)

/* Protocol 2: sweep_stats(close, 0, windows, fee) or, close None, on `handle`. */
static PyObject *cclient_sweep_stats_body(CClient *self, PyObject *args) {
    PyObject *close_obj, *win_obj, *fee_obj;
    unsigned long handle;
    if (!PyArg_ParseTuple(args, "OkOO:sweep_stats", &close_obj, &handle, &win_obj, &fee_obj)) return NULL;
    return cclient_sweep_common(self, close_obj == Py_None ? NULL : close_obj, handle, win_obj, fee_obj);
}
CCLIENT_LOCKED(cclient_sweep_stats)

static PyObject *cclient_echo_body(CClient *self, PyObject *args) {
    PyObject *close_obj;
    PyArrayObject *out;
    if (!PyArg_ParseTuple(args, "OO!:echo", &close_obj, &PyArray_Type, &out)) return NULL;
    if (!PyArray_ISCARRAY(out) || PyArray_TYPE(out) != NPY_DOUBLE || PyArray_NDIM(out) != 1) {
        PyErr_SetString(PyExc_ValueError, "out must be a writable C-contiguous 1-D float64 array");
        return NULL;
    }
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    if (PyArray_DIM(close, 0) != PyArray_DIM(out, 0)) {
        Py_DECREF(close);
        PyErr_SetString(PyExc_ValueError, "out must have the length of close");
        return NULL;
    }
    hs_error err;
    hs_status st;
    const double *px = PyArray_DATA(close);
    double *dst = PyArray_DATA(out);
    size_t n = (size_t)PyArray_DIM(close, 0);
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_echo(self->c, px, n, dst, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(close);
    if (st != HS_OK) return raise_status(st, &err);
    Py_INCREF(out);
    return (PyObject *)out;
}
CCLIENT_LOCKED(cclient_echo)

static PyObject *cclient_load_body(CClient *self, PyObject *close_obj) {
    PyArrayObject *close = as_close(close_obj);
    if (!close) return NULL;
    hs_error err;
    hs_status st;
    uint32_t handle = 0;
    const double *px = PyArray_DATA(close);
    size_t n = (size_t)PyArray_DIM(close, 0);
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_load(self->c, px, n, &handle, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(close);
    return st == HS_OK ? PyLong_FromUnsignedLong(handle) : raise_status(st, &err);
}
CCLIENT_LOCKED(cclient_load)

PyObject *cclient_u32_call(CClient *self, PyObject *arg, hs_status (*call)(hs_client *, uint32_t, hs_error *)) {
    unsigned long id = PyLong_AsUnsignedLong(arg);
    if ((id == (unsigned long)-1 && PyErr_Occurred())) return NULL;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = call(self->c, (uint32_t)id, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) return raise_status(st, &err);
    Py_RETURN_NONE;
}

static PyObject *cclient_free_body(CClient *self, PyObject *arg) { return cclient_u32_call(self, arg, hs_client_free); }
CCLIENT_LOCKED(cclient_free)

static PyObject *cclient_hello_body(CClient *self, PyObject *unused) {
    char names[4096];
    uint32_t version = 0, max_frame = 0;
    uint64_t max_work = 0;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_hello(self->c, &version, names, sizeof names, &max_frame, &max_work, &err);
    Py_END_ALLOW_THREADS
    if (st != HS_OK) return raise_status(st, &err);
    return Py_BuildValue("(IsIK)", version, names, max_frame, (unsigned long long)max_work);
}
CCLIENT_LOCKED(cclient_hello)

static PyObject *cclient_auth_body(CClient *self, PyObject *arg) {
    Py_buffer token;
    if (PyObject_GetBuffer(arg, &token, PyBUF_SIMPLE) < 0) return NULL;
    hs_error err;
    hs_status st;
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_auth(self->c, token.buf, (size_t)token.len, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&token);
    if (st != HS_OK) return raise_status(st, &err);
    Py_RETURN_NONE;
}
CCLIENT_LOCKED(cclient_auth)

/* The live session's calls: python/src/client_live.c. */
CCLIENT_LOCKED(cclient_live_open)
CCLIENT_LOCKED(cclient_live_append)
CCLIENT_LOCKED(cclient_live_close)

static PyObject *cclient_set_timeout_body(CClient *self, PyObject *arg) {
    long ms = PyLong_AsLong(arg);
    if ((ms == -1 && PyErr_Occurred())) return NULL;
    hs_client_set_timeout(self->c, ms > INT_MAX ? INT_MAX : (int)ms);
    Py_RETURN_NONE;
}
CCLIENT_LOCKED(cclient_set_timeout)

static PyMethodDef cclient_methods[] = {
    {"set_timeout", (PyCFunction)cclient_set_timeout, METH_O, "set_timeout($self, ms, /)\n--\n\nEach later round trip's limit"},
    {"live_open", (PyCFunction)cclient_live_open, METH_VARARGS, "live_open($self, handle, windows, stats=False, fee=None, /)\n--\n\n-> session"},
    {"live_append", (PyCFunction)cclient_live_append, METH_VARARGS,
     "live_append($self, session, bars, n_combos, stats=False, /)\n--\n\n-> (pnl, trades, position, crossed[, stats])"},
    {"live_close", (PyCFunction)cclient_live_close, METH_O, "live_close($self, session, /)\n--\n\nClose a live session."},
    {"sweep", (PyCFunction)cclient_sweep, METH_VARARGS, "sweep($self, close, windows, /)\n--\n\n-> (pnl, trades)"},
    {"sweep_handle", (PyCFunction)cclient_sweep_handle, METH_VARARGS, "sweep_handle($self, handle, windows, /)\n--\n\n-> (pnl, trades)"},
    {"sweep_stats", (PyCFunction)cclient_sweep_stats, METH_VARARGS,
     "sweep_stats($self, close, handle, windows, fee, /)\n--\n\n-> (pnl, trades, stats): protocol 2 (close None: on the handle)"},
    {"echo", (PyCFunction)cclient_echo, METH_VARARGS, "echo($self, close, out, /)\n--\n\n-> out"},
    {"load", (PyCFunction)cclient_load, METH_O, "load($self, close, /)\n--\n\n-> handle"},
    {"free", (PyCFunction)cclient_free, METH_O, "free($self, handle, /)\n--\n\nFree a loaded series."},
    {"hello", (PyCFunction)cclient_hello, METH_NOARGS, "hello($self, /)\n--\n\n-> (version, variants, max_frame_bytes, max_work)"},
    {"auth", (PyCFunction)cclient_auth, METH_O, "auth($self, token, /)\n--\n\nSend the shared secret (bytes)."},
    {"last_error", (PyCFunction)cclient_last_error, METH_NOARGS, "last_error($self, /)\n--\n\n0, the server's error code, or < 0 (I/O, timeout, protocol)"},
    {"close", (PyCFunction)cclient_close, METH_NOARGS, "close($self, /)\n--\n\nClose the connection."},
    {NULL, NULL, 0, NULL}};

PyTypeObject CClientType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hmasweep._core._CClient",
    .tp_basicsize = sizeof(CClient),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_CClient(url, timeout_ms=-1, fd=-1)\n--\n\nThe library's client (include/hmasweep_client.h): hmasweep.Client's only path.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)cclient_init,
    .tp_dealloc = (destructor)cclient_dealloc,
    .tp_methods = cclient_methods,
};
