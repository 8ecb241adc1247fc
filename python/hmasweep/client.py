"""A client for `hmasweep serve`: the wire protocol v1 (docs/protocol.md) in raw bytes.

Copies cost money (issue 7 §4: on the study's VM a fresh 1.2 MB buffer cost ~300 µs in page faults), so
a request is never built by concatenating bytes: the 13-byte header and the array bodies go out in one
sendmsg() (a gather write, like writev) straight from the arrays' buffers, and a reply is received with
recv_into() straight into freshly allocated result arrays.  `sweep()` takes the same arguments and
returns the same SweepResult as the in-process hmasweep.sweep().
"""

import socket
import struct

import numpy as np

from . import _core

OP_SWEEP, OP_ECHO, OP_HELLO, OP_LOAD, OP_SWEEP_HANDLE, OP_FREE = 0, 1, 2, 3, 4, 5
OP_LIVE_OPEN, OP_LIVE_APPEND, OP_LIVE_CLOSE, OP_AUTH = 6, 7, 8, 9
PROTOCOL_VERSION = 1
_ERROR_BIT = 0x80000000
_U32_MAX = 0xFFFFFFFF


class ServerError(Exception):
    """An error reply from the server (docs/protocol.md, "Error replies"): `code` and the message."""

    def __init__(self, code, message):
        super().__init__("server error %d: %s" % (code, message))
        self.code = code
        self.message = message


class ServerValueError(ServerError, ValueError):
    """Codes 1 (bad data) and 2 (bad request): what the in-process sweep() raises as ValueError."""


class ProtocolError(ServerError):
    """The reply does not fit the protocol (wrong length, connection closed): the stream is unusable."""

    def __init__(self, message):
        super().__init__(0, message)


def _connect(url, timeout):
    if url.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = url[len("unix:"):]
    elif url.startswith("tcp://"):
        host, sep, port = url[len("tcp://"):].rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError("tcp URL %r: expected tcp://HOST:PORT" % url)
        address = (host.strip("[]"), int(port))
        sock = socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        raise ValueError("URL %r: expected unix:PATH, tcp://HOST:PORT or shm:NAME" % url)
    sock.settimeout(timeout)
    try:
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock


def _bytes_view(a):
    """A flat byte view of a C-contiguous array (no copy)."""
    return memoryview(a).cast("B")


class Client:
    """A connection to `hmasweep serve`.  url: "unix:PATH", "tcp://HOST:PORT" or "shm:NAME".

    unix and tcp are spoken here in Python (sendmsg/recv_into); shm:NAME goes through the library's C
    client (include/hmasweep_client.h: the rings live there), with the same methods and results, except
    the live-mode calls, which the C client does not have yet.

    token: the shared secret for a server listening beyond loopback (sent as AUTH before anything else).
    timeout: seconds for each socket operation (None = wait forever).
    """

    _c = None  # the C client, for shm: URLs

    def __init__(self, url, *, token=None, timeout=None):
        self.url = url
        self._hdr = bytearray(4)
        if url.startswith("shm:"):
            self._sock = None
            self._c = _core._CClient(url, -1 if timeout is None else max(1, int(timeout * 1000)))
        else:
            self._sock = _connect(url, timeout)
        if token is not None:
            self.auth(token)

    @classmethod
    def from_socket(cls, sock):
        """Wrap an already connected stream socket (e.g. one end of a socketpair to `hmasweep wire`)."""
        self = cls.__new__(cls)
        self._sock = sock
        self.url = "socket"
        self._hdr = bytearray(4)
        return self

    # ---- plumbing ---------------------------------------------------------------------------------
    def close(self):
        if self._c is not None:
            self._c.close()
        else:
            self._sock.close()

    def _c_call(self, method, *args):
        """Call the C client; turn its errors into the same exceptions the socket path raises."""
        try:
            return method(*args)
        except ValueError as e:
            code = self._c.last_error()
            if code > 0:
                raise (ServerValueError if code in (1, 2) else ServerError)(code, str(e)) from None
            if code < 0:
                raise ProtocolError(str(e)) from None
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, *parts):
        """[u32 body_len] + parts, in one sendmsg() where the kernel takes it all (it usually does)."""
        views = [memoryview(p).cast("B") if not isinstance(p, (bytes, bytearray)) else memoryview(p) for p in parts]
        body_len = sum(v.nbytes for v in views)
        if body_len > _U32_MAX:
            raise ValueError("request of %d bytes does not fit the u32 length prefix" % body_len)
        views.insert(0, memoryview(struct.pack("<I", body_len)))
        views = [v for v in views if v.nbytes]
        while views:
            sent = self._sock.sendmsg(views)
            while views and sent >= views[0].nbytes:
                sent -= views[0].nbytes
                views.pop(0)
            if views and sent:
                views[0] = views[0][sent:]

    def _recv_into(self, view):
        got, n = 0, view.nbytes
        while got < n:
            k = self._sock.recv_into(view[got:], n - got)
            if k == 0:
                raise ProtocolError("the server closed the connection mid-reply (%d of %d bytes)" % (got, n))
            got += k

    def _reply_length(self):
        """Read a reply's length prefix; raise the server's error when it is an error reply."""
        self._recv_into(memoryview(self._hdr))
        (length,) = struct.unpack("<I", self._hdr)
        if length & _ERROR_BIT:
            body = bytearray(length & ~_ERROR_BIT)
            self._recv_into(memoryview(body))
            if len(body) < 4:
                raise ProtocolError("error reply shorter than its code")
            (code,) = struct.unpack_from("<I", body)
            message = body[4:].decode("utf-8", "replace")
            raise (ServerValueError if code in (1, 2) else ServerError)(code, message)
        return length

    def _expect(self, n):
        length = self._reply_length()
        if length != n:
            raise ProtocolError("reply of %d bytes, expected %d" % (length, n))

    def _recv_results(self, m):
        self._expect(16 * m)
        pnl = np.empty(m, dtype="<f8")
        trades = np.empty(m, dtype="<i8")
        self._recv_into(_bytes_view(pnl))
        self._recv_into(_bytes_view(trades))
        return pnl, trades

    def _recv_u32(self):
        self._expect(4)
        buf = bytearray(4)
        self._recv_into(memoryview(buf))
        return struct.unpack("<I", buf)[0]

    # ---- requests ---------------------------------------------------------------------------------
    @staticmethod
    def _close_array(close):
        a = np.ascontiguousarray(close, dtype="<f8")  # no copy when it already is one
        if a.ndim != 1:
            raise ValueError("close must be a 1-D series of prices, got a %d-D array" % a.ndim)
        if a.shape[0] > _U32_MAX:
            raise ValueError("%d bars do not fit the protocol's u32 n_bars" % a.shape[0])
        return a

    @staticmethod
    def _combos(lengths, windows):
        if lengths is not None and windows is not None:
            raise ValueError("give lengths or windows, not both")
        if windows is not None:
            w = np.ascontiguousarray(windows, dtype="<i8")
            if w.shape == (6,):
                w = w.reshape(1, 6)
            if w.ndim != 2 or w.shape[1] != 6:
                raise ValueError("windows must have shape (n, 6): w0..w5 per combo (SPEC §2 order)")
            return None, w
        L = _core.grid() if lengths is None else np.atleast_1d(np.asarray(lengths, dtype=np.int64))
        return L, _core.windows(L)

    def sweep(self, close, lengths=None, *, windows=None, variant="best", isa=None, threads=0):
        """Sweep on the server: the same arguments and SweepResult as hmasweep.sweep().

        variant/isa/threads are chosen by the server (its --variant, --workers); they are accepted here
        so that code written for the in-process call runs unchanged.
        """
        a = self._close_array(close)
        L, w = self._combos(lengths, windows)
        if self._c is not None:
            pnl, trades = self._c_call(self._c.sweep, a, w)
        else:
            self._send(struct.pack("<BII", OP_SWEEP, a.shape[0], w.shape[0]), a, w)
            pnl, trades = self._recv_results(w.shape[0])
        return _core.SweepResult((pnl, trades, L, w, "server"))

    def echo(self, close, out=None):
        """Round-trip `close` through the server (op 1); the reply lands in `out` (allocated if None)."""
        a = self._close_array(close)
        if out is None:
            out = np.empty(a.shape[0], dtype="<f8")
        elif out.dtype != np.dtype("<f8") or not out.flags.c_contiguous or out.shape != a.shape:
            raise ValueError("out must be a C-contiguous float64 array of the same length as close")
        if self._c is not None:
            return self._c_call(self._c.echo, a, out)
        self._send(struct.pack("<BII", OP_ECHO, a.shape[0], 0), a)
        self._expect(a.nbytes)
        self._recv_into(_bytes_view(out))
        return out

    def hello(self):
        """Protocol version, limits and the server's variants (op 2) as a dict."""
        if self._c is not None:
            version, names, max_frame, max_work = self._c_call(self._c.hello)
            return {"protocol_version": version, "max_frame_bytes": max_frame, "max_work": max_work,
                    "variants": [n for n in names.split(",") if n]}
        self._send(struct.pack("<BI", OP_HELLO, PROTOCOL_VERSION))
        body = bytearray(self._reply_length())
        self._recv_into(memoryview(body))
        if len(body) < 28:
            raise ProtocolError("HELLO reply of %d bytes" % len(body))
        version, max_frame, max_work, max_loaded, names_len = struct.unpack_from("<IIQQI", body)
        names = body[28:28 + names_len].decode("utf-8", "replace")
        return {"protocol_version": version, "max_frame_bytes": max_frame, "max_work": max_work,
                "max_loaded_bytes_per_client": max_loaded, "variants": [n for n in names.split(",") if n]}

    def load(self, close):
        """Load a series into the server once (op 3); returns its handle for sweep_handle()."""
        a = self._close_array(close)
        if self._c is not None:
            return self._c_call(self._c.load, a)
        self._send(struct.pack("<BI", OP_LOAD, a.shape[0]), a)
        return self._recv_u32()

    def sweep_handle(self, handle, lengths=None, *, windows=None):
        """Sweep a loaded series (op 4): only the 48 bytes of windows per combo travel."""
        L, w = self._combos(lengths, windows)
        if self._c is not None:
            pnl, trades = self._c_call(self._c.sweep_handle, handle, w)
        else:
            self._send(struct.pack("<BII", OP_SWEEP_HANDLE, handle, w.shape[0]), w)
            pnl, trades = self._recv_results(w.shape[0])
        return _core.SweepResult((pnl, trades, L, w, "server"))

    def free(self, handle):
        """Drop a loaded series (op 5)."""
        if self._c is not None:
            return self._c_call(self._c.free, handle)
        self._send(struct.pack("<BI", OP_FREE, handle))
        self._expect(0)

    def live_open(self, handle, lengths=None, *, windows=None):
        """Open a live session over a loaded series and a grid of combos (op 6); returns the session."""
        _, w = self._combos(lengths, windows)
        self._no_c("live_open")
        self._send(struct.pack("<BII", OP_LIVE_OPEN, handle, w.shape[0]), w)
        session = self._recv_u32()
        self._live = getattr(self, "_live", {})
        self._live[session] = w.shape[0]
        return session

    def live_append(self, session, bars):
        """Append k >= 1 bars (op 7).  Returns (pnl, trades, position, crossed) per combo."""
        a = self._close_array(bars)
        m = getattr(self, "_live", {}).get(session)
        if m is None:
            raise ValueError("session %d was not opened by this client" % session)
        self._send(struct.pack("<BII", OP_LIVE_APPEND, session, a.shape[0]), a)
        self._expect(18 * m)
        pnl, trades = np.empty(m, "<f8"), np.empty(m, "<i8")
        position, crossed = np.empty(m, "i1"), np.empty(m, "u1")
        for arr in (pnl, trades, position, crossed):
            self._recv_into(_bytes_view(arr))
        return pnl, trades, position, crossed.astype(bool)

    def live_close(self, session):
        """Close a live session (op 8)."""
        self._send(struct.pack("<BI", OP_LIVE_CLOSE, session))
        self._expect(0)
        getattr(self, "_live", {}).pop(session, None)

    def _no_c(self, what):
        if self._c is not None:
            raise NotImplementedError("%s over shm: the C client has no live-mode calls yet" % what)

    def auth(self, token):
        """Present the shared-secret token (op 9)."""
        if isinstance(token, str):
            token = token.encode()
        if self._c is not None:
            return self._c_call(self._c.auth, token)
        self._send(struct.pack("<B", OP_AUTH), token)
        self._expect(0)
