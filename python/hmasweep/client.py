"""A client for `hmasweep serve`: the wire protocol v1 (docs/protocol.md) in raw bytes.

Copies cost money (issue 7 §4: on the study's VM a fresh 1.2 MB buffer cost ~300 µs in page faults), so
a request is never built by concatenating bytes: the 13-byte header and the array bodies go out in one
sendmsg() (a gather write, like writev) straight from the arrays' buffers, and a reply is received with
recv_into() straight into freshly allocated result arrays.  `sweep()` takes the same arguments and
returns the same SweepResult as the in-process hmasweep.sweep().
"""

from __future__ import annotations

import socket
import struct
import time
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core

OP_SWEEP, OP_ECHO, OP_HELLO, OP_LOAD, OP_SWEEP_HANDLE, OP_FREE = 0, 1, 2, 3, 4, 5
OP_LIVE_OPEN, OP_LIVE_APPEND, OP_LIVE_CLOSE, OP_AUTH = 6, 7, 8, 9
PROTOCOL_VERSION = 1
_ERROR_BIT = 0x80000000
_U32_MAX = 0xFFFFFFFF
#: An error reply is a code and a short message; a longer one is a protocol error (the C client's cap).
_ERROR_REPLY_MAX = 4096
#: Seconds a Client call may take, the whole round trip, unless Client(timeout=...) says otherwise: the
#: C client's HS_CLIENT_DEFAULT_TIMEOUT_MS.  A mute server cannot block a caller longer than this.
DEFAULT_TIMEOUT = 30.0
# hs_client_last_error's codes for a broken connection (include/hmasweep_client.h).
_E_IO, _E_TIMEOUT, _E_PROTOCOL, _E_BROKEN = -1, -2, -3, -4


class ServerError(Exception):
    """An error reply from the server (docs/protocol.md, "Error replies"): `code` and the message.
    The connection stays usable."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__("server error %d: %s" % (code, message))
        self.code = code
        self.message = message


class ServerValueError(ServerError, ValueError):
    """Codes 1 (bad data) and 2 (bad request): what the in-process sweep() raises as ValueError."""


class ProtocolError(ServerError):
    """The connection failed in the middle of a frame (closed, I/O error, a reply that does not fit the
    protocol): the stream is out of step, so the Client drops it and every later call raises
    ConnectionBroken.  code is 0."""

    def __init__(self, message):
        Exception.__init__(self, message)
        self.code = 0
        self.message = message


class ClientTimeout(ProtocolError, TimeoutError):
    """The round trip did not finish within the Client's timeout.  Its reply may still arrive, so the
    connection is dropped: the next call raises ConnectionBroken instead of reading it as its own."""


class ConnectionBroken(ProtocolError, ConnectionError):
    """An earlier call on this Client failed mid-frame; nothing was sent.  Open a new Client."""


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


def _timeout_ms(timeout):
    """Seconds (None: forever, ~24 days) as the C client's milliseconds."""
    return 2**31 - 1 if timeout is None else min(2**31 - 1, max(1, int(timeout * 1000)))


def _bytes_view(a):
    """A flat byte view of a C-contiguous array (no copy)."""
    return memoryview(a).cast("B")


class Client:
    """A connection to `hmasweep serve`.  url: "unix:PATH", "tcp://HOST:PORT" or "shm:NAME".

    unix and tcp are spoken here in Python (sendmsg/recv_into); shm:NAME goes through the library's C
    client (include/hmasweep_client.h: the rings live there), with the same methods, results and
    exceptions (docs/python.md "Client").

    token: the shared secret for a server listening beyond loopback (sent as AUTH before anything else).
    timeout: seconds each call may take, the whole round trip (default DEFAULT_TIMEOUT, 30 s; None
    waits forever).  A call that fails mid-frame (timeout, I/O error, a reply out of protocol) raises
    ClientTimeout or ProtocolError and drops the connection: its reply may still be on the way, so every
    later call raises ConnectionBroken rather than read it as its own.  An error reply (ServerError)
    leaves the connection usable.
    """

    _c = None  # the C client, for shm: URLs
    _sock = None
    _broken = None  # why the connection was dropped
    _server_variant = None

    def __init__(self, url: str, *, token: Optional[bytes] = None, timeout: Optional[float] = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self._hdr = bytearray(4)
        self._timeout = timeout
        self._live: dict[int, int] = {}  # session -> its combos
        if url.startswith("shm:"):
            self._c = _core._CClient(url, _timeout_ms(timeout))
        else:
            self._sock = _connect(url, timeout)
        if token is not None:
            self.auth(token)

    def settimeout(self, timeout: Optional[float]) -> None:
        """Change the limit of each later call's round trip (seconds; None waits forever)."""
        self._timeout = timeout
        if self._c is not None:
            self._c.set_timeout(_timeout_ms(timeout))

    @classmethod
    def from_socket(cls, sock: socket.socket) -> Client:
        """Wrap an already connected stream socket (e.g. one end of a socketpair to `hmasweep wire`); its
        own timeout (sock.gettimeout()) becomes the round-trip timeout."""
        self = cls.__new__(cls)
        self._sock = sock
        self.url = "socket"
        self._hdr = bytearray(4)
        self._timeout = sock.gettimeout()
        self._live = {}
        return self

    # ---- plumbing ---------------------------------------------------------------------------------
    def close(self) -> None:
        if self._c is not None:
            self._c.close()
        elif self._sock is not None:
            self._sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drop(self, why):
        """The stream is out of step: close it; every later call raises ConnectionBroken."""
        self._broken = why
        if self._sock is not None:
            self._sock.close()

    def _call(self, fn, *args):
        """One round trip on the socket path, under the Client's deadline; a failure mid-frame drops the
        connection (see the class docstring)."""
        if self._broken is not None:
            raise ConnectionBroken("the connection to %s is broken (an earlier call failed mid-frame: %s); "
                                   "open a new Client" % (self.url, self._broken))
        self._deadline = None if self._timeout is None else time.monotonic() + self._timeout
        try:
            return fn(*args)
        except ProtocolError as e:
            self._drop(e.message)
            raise
        except ServerError:  # an error reply, read whole: the stream is in step
            raise
        except socket.timeout:
            self._drop("timed out")
            raise ClientTimeout("%s: no reply within the timeout (%s s); the connection is dropped"
                                % (self.url, self._timeout)) from None
        except OSError as e:
            self._drop(str(e))
            raise ProtocolError("%s: %s; the connection is dropped" % (self.url, e)) from e
        except ValueError:  # refused before a byte was sent (_send's size check)
            raise
        except BaseException:  # KeyboardInterrupt mid-frame: the reply is still coming
            self._drop("interrupted mid-frame")
            raise

    def _c_call(self, method, *args):
        """Call the C client; turn its errors into the same exceptions the socket path raises."""
        try:
            return method(*args)
        except (ValueError, ConnectionError) as e:
            code, text = self._c.last_error(), str(e)
            if code > 0:
                prefix = "server error %d: " % code  # the C client's message carries it; ServerError adds it
                message = text[len(prefix):] if text.startswith(prefix) else text
                raise (ServerValueError if code in (1, 2) else ServerError)(code, message) from None
            if code == _E_TIMEOUT:
                raise ClientTimeout(text + "; the connection is dropped") from None
            if code == _E_BROKEN:
                raise ConnectionBroken(text) from None
            if code < 0:
                raise ProtocolError(text + "; the connection is dropped") from None
            raise

    def _remaining(self):
        if self._deadline is None:
            return None
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("timed out")
        return left

    def _send(self, *parts):
        """[u32 body_len] + parts, in one sendmsg() where the kernel takes it all (it usually does)."""
        views = [memoryview(p).cast("B") if not isinstance(p, (bytes, bytearray)) else memoryview(p) for p in parts]
        body_len = sum(v.nbytes for v in views)
        if body_len > _U32_MAX:
            raise ValueError("request of %d bytes does not fit the u32 length prefix" % body_len)
        views.insert(0, memoryview(struct.pack("<I", body_len)))
        views = [v for v in views if v.nbytes]
        while views:
            self._sock.settimeout(self._remaining())
            sent = self._sock.sendmsg(views)
            while views and sent >= views[0].nbytes:
                sent -= views[0].nbytes
                views.pop(0)
            if views and sent:
                views[0] = views[0][sent:]

    def _recv_into(self, view):
        got, n = 0, view.nbytes
        while got < n:
            self._sock.settimeout(self._remaining())
            k = self._sock.recv_into(view[got:], n - got)
            if k == 0:
                raise ProtocolError("the server closed the connection mid-reply (%d of %d bytes)" % (got, n))
            got += k

    def _reply_length(self):
        """Read a reply's length prefix; raise the server's error when it is an error reply."""
        self._recv_into(memoryview(self._hdr))
        (length,) = struct.unpack("<I", self._hdr)
        if length & _ERROR_BIT:
            length &= ~_ERROR_BIT
            if not 4 <= length <= _ERROR_REPLY_MAX:
                raise ProtocolError("error reply of %d bytes (an error reply is 4 to %d)" % (length, _ERROR_REPLY_MAX))
            body = bytearray(length)
            self._recv_into(memoryview(body))
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
                raise ValueError("windows must have shape (n, 6): w0..w5 per combo (docs/spec.md §2 order)")
            return None, w
        L = _core.grid() if lengths is None else np.atleast_1d(np.asarray(lengths, dtype=np.int64))
        return L, _core.windows(L)

    def _check_server_options(self, variant, isa, threads):
        """The protocol carries no variant, ISA or thread count: the server runs its own (`serve
        --variant/--isa/--threads`).  A request for anything else is refused, never ignored."""
        if isa is not None:
            raise ValueError("Client.sweep: isa=%r cannot be chosen per request; the server runs its "
                             "`serve --isa` (pass isa=None)" % (isa,))
        if threads not in (0, None):
            raise ValueError("Client.sweep: threads=%r cannot be chosen per request; the server runs its "
                             "`serve --threads` (pass threads=0)" % (threads,))
        if variant is not None:
            if self._server_variant is None:
                self._server_variant = (self.hello()["variants"] or [""])[0]
            if variant != self._server_variant:
                raise ValueError("Client.sweep: variant=%r, but the server runs %r (`serve --variant`) and the "
                                 "protocol cannot choose another per request (pass variant=None)"
                                 % (variant, self._server_variant))

    def sweep(self, close: npt.ArrayLike, lengths: _core._Lengths = None, *, windows: Optional[npt.ArrayLike] = None,
              variant: Optional[str] = None, isa: Optional[str] = None, threads: int = 0) -> _core.SweepResult:
        """Sweep on the server: the same arguments and SweepResult as hmasweep.sweep().

        The server runs its own variant, ISA and threads (`serve --variant --isa --threads`): variant may
        name the one it runs (hello()["variants"][0]) or be None; isa must be None and threads 0.
        Anything else raises ValueError (it would not be honoured).
        """
        self._check_server_options(variant, isa, threads)
        a = self._close_array(close)
        L, w = self._combos(lengths, windows)
        if self._c is not None:
            pnl, trades = self._c_call(self._c.sweep, a, w)
        else:
            pnl, trades = self._call(self._sweep_frame, a, w)
        return _core.SweepResult((pnl, trades, L, w, "server"))

    def _sweep_frame(self, a, w):
        self._send(struct.pack("<BII", OP_SWEEP, a.shape[0], w.shape[0]), a, w)
        return self._recv_results(w.shape[0])

    def echo(self, close: npt.ArrayLike, out: Optional[npt.NDArray[np.float64]] = None) -> npt.NDArray[np.float64]:
        """Round-trip `close` through the server (op 1); the reply lands in `out` (allocated if None)."""
        a = self._close_array(close)
        if out is None:
            out = np.empty(a.shape[0], dtype="<f8")
        elif out.dtype != np.dtype("<f8") or not out.flags.c_contiguous or out.shape != a.shape:
            raise ValueError("out must be a C-contiguous float64 array of the same length as close")
        if self._c is not None:
            return self._c_call(self._c.echo, a, out)
        return self._call(self._echo_frame, a, out)

    def _echo_frame(self, a, out):
        self._send(struct.pack("<BII", OP_ECHO, a.shape[0], 0), a)
        self._expect(a.nbytes)
        self._recv_into(_bytes_view(out))
        return out

    def hello(self) -> dict[str, Any]:
        """Protocol version, limits and the server's variants (op 2) as a dict; the first variant is the
        one its sweeps run."""
        if self._c is not None:
            version, names, max_frame, max_work = self._c_call(self._c.hello)
            return {"protocol_version": version, "max_frame_bytes": max_frame, "max_work": max_work,
                    "variants": [n for n in names.split(",") if n]}
        return self._call(self._hello_frame)

    def _hello_frame(self):
        self._send(struct.pack("<BI", OP_HELLO, PROTOCOL_VERSION))
        length = self._reply_length()
        if length > _ERROR_REPLY_MAX:
            raise ProtocolError("HELLO reply of %d bytes (at most %d)" % (length, _ERROR_REPLY_MAX))
        body = bytearray(length)
        self._recv_into(memoryview(body))
        if len(body) < 28:
            raise ProtocolError("HELLO reply of %d bytes" % len(body))
        version, max_frame, max_work, max_loaded, names_len = struct.unpack_from("<IIQQI", body)
        names = body[28:28 + names_len].decode("utf-8", "replace")
        return {"protocol_version": version, "max_frame_bytes": max_frame, "max_work": max_work,
                "max_loaded_bytes_per_client": max_loaded, "variants": [n for n in names.split(",") if n]}

    def load(self, close: npt.ArrayLike) -> int:
        """Load a series into the server once (op 3); returns its handle for sweep_handle()."""
        a = self._close_array(close)
        if self._c is not None:
            return self._c_call(self._c.load, a)
        return self._call(self._u32_frame, struct.pack("<BI", OP_LOAD, a.shape[0]), a)

    def _u32_frame(self, *parts):
        self._send(*parts)
        return self._recv_u32()

    def _empty_frame(self, *parts):
        self._send(*parts)
        self._expect(0)

    def sweep_handle(self, handle: int, lengths: _core._Lengths = None, *,
                     windows: Optional[npt.ArrayLike] = None) -> _core.SweepResult:
        """Sweep a loaded series (op 4): only the 48 bytes of windows per combo travel."""
        L, w = self._combos(lengths, windows)
        if self._c is not None:
            pnl, trades = self._c_call(self._c.sweep_handle, handle, w)
        else:
            pnl, trades = self._call(self._handle_frame, handle, w)
        return _core.SweepResult((pnl, trades, L, w, "server"))

    def _handle_frame(self, handle, w):
        self._send(struct.pack("<BII", OP_SWEEP_HANDLE, handle, w.shape[0]), w)
        return self._recv_results(w.shape[0])

    def free(self, handle: int) -> None:
        """Drop a loaded series (op 5)."""
        if self._c is not None:
            return self._c_call(self._c.free, handle)
        self._call(self._empty_frame, struct.pack("<BI", OP_FREE, handle))

    def live_open(self, handle: int, lengths: _core._Lengths = None, *, windows: Optional[npt.ArrayLike] = None) -> int:
        """Open a live session over a loaded series and a grid of combos (op 6); returns the session."""
        _, w = self._combos(lengths, windows)
        if self._c is not None:
            session = self._c_call(self._c.live_open, handle, w)
        else:
            session = self._call(self._u32_frame, struct.pack("<BII", OP_LIVE_OPEN, handle, w.shape[0]), w)
        self._live[session] = w.shape[0]
        return session

    def live_append(self, session: int, bars: npt.ArrayLike) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64],
                                                                   npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
        """Append k >= 1 bars (op 7).  Returns (pnl, trades, position, crossed) per combo."""
        a = self._close_array(bars)
        m = self._live.get(session)
        if m is None:
            raise ValueError("session %d was not opened by this client" % session)
        if self._c is not None:
            return self._c_call(self._c.live_append, session, a, m)
        return self._call(self._append_frame, session, a, m)

    def _append_frame(self, session, a, m):
        self._send(struct.pack("<BII", OP_LIVE_APPEND, session, a.shape[0]), a)
        self._expect(18 * m)
        pnl, trades = np.empty(m, "<f8"), np.empty(m, "<i8")
        position, crossed = np.empty(m, "i1"), np.empty(m, "u1")
        for arr in (pnl, trades, position, crossed):
            self._recv_into(_bytes_view(arr))
        return pnl, trades, position, crossed.astype(bool)

    def live_close(self, session: int) -> None:
        """Close a live session (op 8)."""
        if self._c is not None:
            self._c_call(self._c.live_close, session)
        else:
            self._call(self._empty_frame, struct.pack("<BI", OP_LIVE_CLOSE, session))
        self._live.pop(session, None)

    def auth(self, token: bytes) -> None:
        """Present the shared-secret token (op 9)."""
        if isinstance(token, str):
            token = token.encode()
        if self._c is not None:
            return self._c_call(self._c.auth, token)
        self._call(self._empty_frame, struct.pack("<B", OP_AUTH), token)
