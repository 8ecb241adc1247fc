"""A client for `hmasweep serve`: the library's C client (include/hmasweep_client.h) for every URL.

The wire protocol (docs/protocol.md) is coded once, in C (src/engine/codec.c): this module only converts
arguments and results, and turns the C client's errors into exceptions.  The C client sends a request as
one gather write straight from the arrays' buffers and receives a reply straight into the result arrays,
with the GIL released.  `sweep()` takes the same arguments and returns the same SweepResult as the
in-process hmasweep.sweep().  (The pure-Python codec lives on only as the docs/spec.md §6 conformance
client of the tests: tests/engine/wire_client.py.)
"""

from __future__ import annotations

import socket
import threading
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core

#: Seconds a Client call may take, the whole round trip, unless Client(timeout=...) says otherwise: the
#: C client's HS_CLIENT_DEFAULT_TIMEOUT_MS.  A mute server cannot block a caller longer than this.
DEFAULT_TIMEOUT = 30.0
_U32_MAX = 0xFFFFFFFF
# hs_client_last_error's codes for a broken connection (include/hmasweep_client.h).
_E_IO, _E_TIMEOUT, _E_PROTOCOL, _E_BROKEN, _E_INTERRUPTED = -1, -2, -3, -4, -5
_DEFAULT_FEE = _core.DEFAULT_FEE  # HS_DEFAULT_FEE, what fee=None books with


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


def _timeout_ms(timeout):
    """Seconds (None: forever, ~24 days) as the C client's milliseconds."""
    return 2**31 - 1 if timeout is None else min(2**31 - 1, max(1, int(timeout * 1000)))


class Client:
    """A connection to `hmasweep serve`.  url: "unix:PATH", "tcp://HOST:PORT" or "shm:NAME" (the library's
    transport table, docs/engine.md "Transports"); every URL goes through the library's C client, with the
    same methods, results and exceptions (docs/python.md "Client").

    token: the shared secret for a server listening beyond loopback (sent as AUTH before anything else).
    timeout: seconds each call may take, the whole round trip (default DEFAULT_TIMEOUT, 30 s; None
    waits forever).  A call that fails mid-frame (timeout, I/O error, a reply out of protocol, Ctrl-C)
    raises ClientTimeout, ProtocolError or KeyboardInterrupt and drops the connection: its reply may still
    be on the way, so every later call raises ConnectionBroken rather than read it as its own.  An error
    reply (ServerError) leaves the connection usable.  A URL of no known scheme or a malformed address
    raises ValueError; a server that is not there, ConnectionError.
    """

    _c: _core._CClient  # the C client: the only path
    _server_variant: Optional[str] = None
    _protocol: Optional[int] = None  # the server's protocol version, from the first HELLO

    def __init__(self, url: str, *, token: Optional[bytes] = None, timeout: Optional[float] = DEFAULT_TIMEOUT) -> None:
        self.url = url
        self._live: dict[int, int] = {}  # session -> its combos
        self._live_stats: set[int] = set()  # sessions opened with statistics (protocol 2)
        self._lock = threading.Lock()  # one round trip (and its error code) at a time: the thread model
        self._c = _core._CClient(url, _timeout_ms(timeout))
        if token is not None:
            self.auth(token)

    def settimeout(self, timeout: Optional[float]) -> None:
        """Change the limit of each later call's round trip (seconds; None waits forever)."""
        self._c.set_timeout(_timeout_ms(timeout))

    @classmethod
    def from_socket(cls, sock: socket.socket) -> Client:
        """Wrap an already connected stream socket (e.g. one end of a socketpair to `hmasweep wire` or
        `hmasweep serve --listen stdio:`); its own timeout (sock.gettimeout()) becomes the round-trip
        timeout.  The Client takes the socket over (sock is detached, and closed with the Client)."""
        self = cls.__new__(cls)
        self.url = "socket"
        self._live = {}
        self._live_stats = set()
        self._lock = threading.Lock()
        timeout = sock.gettimeout()
        self._c = _core._CClient(None, _timeout_ms(timeout), fd=sock.detach())
        return self

    # ---- plumbing ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection.  From another thread while a call waits, that call stops within about
        50 ms and raises ConnectionBroken; close() returns once it has, and never frees what a call
        uses.  Every later call raises ConnectionBroken.  Closing twice is harmless."""
        self._c.close()  # not under self._lock: it must reach the call in flight

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method, *args):
        """One round trip through the C client; its errors become this module's exceptions.  A failure
        mid-frame has already closed the connection there (every later call: ConnectionBroken).
        Threads: one round trip at a time (the others wait for the lock), so that the error code read
        after a failure is this call's (docs/python.md "Threads")."""
        with self._lock:
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
                raise  # refused before a byte was sent (a size the protocol cannot carry)

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

    def _need_stats_protocol(self) -> None:
        """The fee and the statistics need a protocol-2 server: refused here, naming the version, before
        anything is sent to one that speaks only version 1."""
        if self._protocol is None:
            self._protocol = int(self.hello()["protocol_version"])
        if self._protocol < 2:
            raise ServerValueError(2, "%s speaks wire protocol version %d: the fee and the statistics need version 2 "
                                      "(docs/protocol.md)" % (self.url, self._protocol))

    @staticmethod
    def _stats_result(pnl, trades, L, w, bars, fee, stats):
        return _core.SweepResult((pnl, trades, L, w, "server"),
                                 {"hma_lengths": L, "hma3_lengths": L, "bars": bars,
                                  "fee": _DEFAULT_FEE if fee is None else float(fee), "stats": stats})

    def sweep(self, close: npt.ArrayLike, lengths: _core._Lengths = None, *, windows: Optional[npt.ArrayLike] = None,
              fee: Optional[float] = None, stats: bool = False, variant: Optional[str] = None, isa: Optional[str] = None,
              threads: int = 0) -> _core.SweepResult:
        """Sweep on the server: the same arguments and SweepResult as hmasweep.sweep().

        fee or stats=True: protocol version 2 (SWEEP_STATS): the trades booked with `fee` (None: 0.0009),
        and the result carries the six statistics (r.stats, r.wins, ..., r.to_frame()) as in process.
        Without them, docs/spec.md §6's op 0 (r.stats is None).
        The server runs its own variant, ISA and threads (`serve --variant --isa --threads`): variant may
        name the one it runs (hello()["variants"][0]) or be None; isa must be None and threads 0.
        Anything else raises ValueError (it would not be honoured).
        """
        self._check_server_options(variant, isa, threads)
        a = self._close_array(close)
        L, w = self._combos(lengths, windows)
        if stats or fee is not None:
            self._need_stats_protocol()
            pnl, trades, st = self._call(self._c.sweep_stats, a, 0, w, fee)
            return self._stats_result(pnl, trades, L, w, a.shape[0], fee, st)
        pnl, trades = self._call(self._c.sweep, a, w)
        return _core.SweepResult((pnl, trades, L, w, "server"), {"hma_lengths": L, "hma3_lengths": L})

    def echo(self, close: npt.ArrayLike, out: Optional[npt.NDArray[np.float64]] = None) -> npt.NDArray[np.float64]:
        """Round-trip `close` through the server (op 1); the reply lands in `out` (allocated if None)."""
        a = self._close_array(close)
        if out is None:
            out = np.empty(a.shape[0], dtype="<f8")
        elif out.dtype != np.dtype("<f8") or not out.flags.c_contiguous or out.shape != a.shape:
            raise ValueError("out must be a C-contiguous float64 array of the same length as close")
        return self._call(self._c.echo, a, out)

    def hello(self) -> dict[str, Any]:
        """Protocol version, limits and the server's variants (op 2) as a dict; the first variant is the
        one its sweeps run."""
        version, names, max_frame, max_work = self._call(self._c.hello)
        return {"protocol_version": version, "max_frame_bytes": max_frame, "max_work": max_work,
                "variants": [n for n in names.split(",") if n]}

    def load(self, close: npt.ArrayLike) -> int:
        """Load a series into the server once (op 3); returns its handle for sweep_handle()."""
        a = self._close_array(close)
        return self._call(self._c.load, a)

    def sweep_handle(self, handle: int, lengths: _core._Lengths = None, *, windows: Optional[npt.ArrayLike] = None,
                     fee: Optional[float] = None, stats: bool = False) -> _core.SweepResult:
        """Sweep a loaded series (op 4): only the 48 bytes of windows per combo travel.  fee or stats=True:
        SWEEP_HANDLE_STATS (protocol 2), the result with the statistics (its bars is None)."""
        L, w = self._combos(lengths, windows)
        if stats or fee is not None:
            self._need_stats_protocol()
            pnl, trades, st = self._call(self._c.sweep_stats, None, handle, w, fee)
            return self._stats_result(pnl, trades, L, w, None, fee, st)
        pnl, trades = self._call(self._c.sweep_handle, handle, w)
        return _core.SweepResult((pnl, trades, L, w, "server"), {"hma_lengths": L, "hma3_lengths": L})

    def free(self, handle: int) -> None:
        """Drop a loaded series (op 5)."""
        self._call(self._c.free, handle)

    def live_open(self, handle: int, lengths: _core._Lengths = None, *, windows: Optional[npt.ArrayLike] = None,
                  fee: Optional[float] = None, stats: bool = False) -> int:
        """Open a live session over a loaded series and a grid of combos (op 6); returns the session.
        fee or stats=True: LIVE_OPEN_STATS (protocol 2): its trades booked with `fee`, and each
        live_append returns the statistics too."""
        _, w = self._combos(lengths, windows)
        with_stats = bool(stats or fee is not None)
        if with_stats:
            self._need_stats_protocol()
        session = self._call(self._c.live_open, handle, w, with_stats, fee)
        self._live[session] = w.shape[0]
        if with_stats:
            self._live_stats.add(session)
        return session

    def live_append(self, session: int, bars: npt.ArrayLike) -> Tuple[Any, ...]:
        """Append k >= 1 bars (op 7).  Returns (pnl, trades, position, crossed) per combo, and for a
        session opened with statistics (pnl, trades, position, crossed, stats): stats a STATS_DTYPE
        array equal to a batch sweep's over every bar so far."""
        a = self._close_array(bars)
        m = self._live.get(session)
        if m is None:
            raise ValueError("session %d was not opened by this client" % session)
        return self._call(self._c.live_append, session, a, m, session in self._live_stats)

    def live_close(self, session: int) -> None:
        """Close a live session (op 8)."""
        self._call(self._c.live_close, session)
        self._live.pop(session, None)
        self._live_stats.discard(session)

    def auth(self, token: bytes) -> None:
        """Present the shared-secret token (op 9)."""
        if isinstance(token, str):
            token = token.encode()
        self._call(self._c.auth, token)
