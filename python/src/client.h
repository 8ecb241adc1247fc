/* hmasweep._core's binding of the C client (python/src/client.c, client_live.c): the _CClient object
 * and what its two files share.  An internal header of python/src/. */
#ifndef HS_PY_CLIENT_H
#define HS_PY_CLIENT_H

#include <stdatomic.h>

#include "core.h"
#include "hmasweep_client.h"

/* ---- the C client (include/hmasweep_client.h): hmasweep.Client's only path, for every URL ------------
 * hmasweep.Client runs on the library's client for every transport (unix, tcp, shm, and a connected
 * socket through hs_client_from_fds), so the wire codec exists once, in C.  The GIL is released for
 * every round trip.  Errors are ValueError (the server refused the request) or ConnectionError
 * (HS_ERR_IO: the connection broke) with the client's message; last_error() gives the server's code or
 * HS_CLIENT_E_*.  Ctrl-C: cclient_interrupted runs the signal handlers while a call waits.  Threads:
 * one call at a time (CClient's lock, below). */
typedef struct {
    PyObject_HEAD
    hs_client *c;
    /* The thread model (docs/python.md "Threads"): one call at a time.  Every method takes `lock` with
     * the GIL released, so calls from several threads queue; close() from another thread sets `closing`,
     * which the interrupt hook reads within 50 ms, so the call in flight stops (HS_ERR_CANCELLED), and
     * then frees the client under the lock: never while a call uses it.  Issue 29 item 1: close() during
     * a call freed the client under it (SIGSEGV 3 of 3), and 4 threads on one Client failed 1,199 of
     * 1,200 calls. */
    PyThread_type_lock lock;
    unsigned long owner;   /* the thread holding lock (0: none): a call re-entered from it is refused */
    atomic_int closing;    /* close() was called: the call in flight stops, later calls are refused */
    int last_error;        /* hs_client_last_error after the latest call; HS_CLIENT_E_BROKEN once closed */
} CClient;

/* Every method: the body (NAME_body) runs holding the lock. */
#define CCLIENT_LOCKED(name)                                             \
    static PyObject *name(CClient *self, PyObject *arg) {                \
        if (!cclient_acquire(self)) return NULL;                         \
        return cclient_release(self, name##_body(self, arg));           \
    }

/* A call that takes one u32 (a handle or a session) and returns nothing: FREE, LIVE_CLOSE. */
PyObject *cclient_u32_call(CClient *self, PyObject *arg, hs_status (*call)(hs_client *, uint32_t, hs_error *));

/* The live session's bodies (python/src/client_live.c), each run holding the lock (CCLIENT_LOCKED). */
PyObject *cclient_live_open_body(CClient *self, PyObject *args);
PyObject *cclient_live_append_body(CClient *self, PyObject *args);
PyObject *cclient_live_close_body(CClient *self, PyObject *arg);

/* hmasweep._core._CClient */
extern PyTypeObject CClientType;

#endif
