/* hmasweep._core: the C client's live session — live_open, live_append and live_close of _CClient
 * (include/hmasweep_client.h, docs/protocol.md), each run holding the client's lock (python/src/client.h). */
#include "client.h"

/* live_open(handle, windows, stats=False, fee=None): with stats, a protocol-2 session (LIVE_OPEN_STATS,
 * the fee, None: the default) whose appends carry the statistics (live_append(..., True)). */
PyObject *cclient_live_open_body(CClient *self, PyObject *args) {
    unsigned long handle;
    PyObject *win_obj, *fee_obj = Py_None;
    double fee;
    int has_fee, with_stats = 0;
    if (!PyArg_ParseTuple(args, "kO|pO:live_open", &handle, &win_obj, &with_stats, &fee_obj) ||
        !fee_arg(fee_obj, &fee, &has_fee))
        return NULL;
    PyArrayObject *win = combos_from_windows(win_obj);
    if (!win) return NULL;
    hs_error err;
    hs_status st;
    uint32_t session = 0;
    const hs_windows *combos = PyArray_DATA(win);
    size_t n = (size_t)PyArray_DIM(win, 0);
    hs_sweep_options o = HS_SWEEP_OPTIONS_INIT; /* a fee (None: the default) makes a statistics session */
    if (with_stats) o.has_fee = 1, o.fee = fee;
    Py_BEGIN_ALLOW_THREADS
    st = hs_client_live_open_opt(self->c, (uint32_t)handle, combos, n, &o, &session, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(win);
    return st == HS_OK ? PyLong_FromUnsignedLong(session) : raise_status(st, &err);
}

/* live_append(session, bars, n_combos) -> (pnl, trades, position int8, crossed bool): fresh arrays. */
PyObject *cclient_live_append_body(CClient *self, PyObject *args) {
    unsigned long session;
    PyObject *bars_obj;
    Py_ssize_t m;
    int with_stats = 0;
    if (!PyArg_ParseTuple(args, "kOn|p:live_append", &session, &bars_obj, &m, &with_stats))
        return NULL;
    PyArrayObject *bars = as_close(bars_obj);
    if (!bars) return NULL;
    npy_intp n = m;
    PyArrayObject *pnl = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_DOUBLE);
    PyArrayObject *trades = pnl ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT64) : NULL;
    PyArrayObject *pos = trades ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_INT8) : NULL;
    PyArrayObject *crossed = pos ? (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_BOOL) : NULL;
    PyArrayObject *stats = crossed && with_stats ? new_stats_array(1, &n) : NULL;
    PyObject *out = NULL;
    if (crossed && (stats || !with_stats)) {
        hs_error err;
        hs_status st;
        const double *px = PyArray_DATA(bars);
        size_t k = (size_t)PyArray_DIM(bars, 0);
        double *p = PyArray_DATA(pnl);
        int64_t *t = PyArray_DATA(trades);
        int8_t *q = PyArray_DATA(pos);
        uint8_t *x = PyArray_DATA(crossed); /* numpy bool is one byte, 0 or 1: the wire's crossed */
        hs_stats *sp = stats ? PyArray_DATA(stats) : NULL;
        hs_sweep_options o = HS_SWEEP_OPTIONS_INIT;
        o.stats = sp; /* NULL for a plain append */
        Py_BEGIN_ALLOW_THREADS
        st = hs_client_live_append_opt(self->c, (uint32_t)session, px, k, (size_t)m, p, t, q, x, &o, &err);
        Py_END_ALLOW_THREADS
        if (st != HS_OK) {
            raise_status(st, &err);
        } else if (with_stats) {
            out = Py_BuildValue("(OOOOO)", pnl, trades, pos, crossed, stats);
        } else {
            out = Py_BuildValue("(OOOO)", pnl, trades, pos, crossed);
        }
    }
    Py_DECREF(bars);
    Py_XDECREF(pnl), Py_XDECREF(trades), Py_XDECREF(pos), Py_XDECREF(crossed), Py_XDECREF(stats);
    return out;
}

PyObject *cclient_live_close_body(CClient *self, PyObject *arg) {
    return cclient_u32_call(self, arg, hs_client_live_close);
}
