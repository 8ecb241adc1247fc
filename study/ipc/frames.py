"""docs/spec.md §6 frames from Python, in the two client forms the boundary study compares.

- `study_request` is the article's client verbatim: the request built by byte concatenation
  (`bytes([op]) + struct.pack(...)`, `close.astype("<f8").tobytes()`, ...), one new bytes object per
  step, then sent with `sendall`.
- `Conn.call` is ours: zero-copy send (`sendmsg` of the header and numpy's own buffers, no joined
  copy) and the reply received straight into a preallocated numpy array (`recv_into`).

Both speak to any docs/spec.md §6 / docs/protocol.md server: `hmasweep serve`, the Rust engine peer
(peers/rust, `rust_engine_*`), or a stdin engine through a pipe.  Error replies (bit 31 of the length
prefix, docs/protocol.md) raise `EngineError` with the server's message.
"""
import socket
import struct

import numpy as np

OP_SWEEP, OP_ECHO = 0, 1
ERROR_BIT = 0x80000000


class EngineError(RuntimeError):
    """The server refused a request (docs/protocol.md error reply)."""


def study_request(opcode, close, params):
    """The article's build_request, byte for byte (concatenation, as the study timed it)."""
    body = bytes([opcode]) + struct.pack("<II", len(close), len(params))
    body += close.astype("<f8").tobytes()
    body += np.asarray(params, dtype="<i8").reshape(-1).tobytes()
    return struct.pack("<I", len(body)) + body


def request_parts(opcode, close, windows):
    """Header and payload buffers of one request, without joining them (for sendmsg)."""
    close = np.ascontiguousarray(close, dtype="<f8")
    windows = _windows(windows)
    body_len = 9 + close.nbytes + windows.nbytes
    head = struct.pack("<IBII", body_len, opcode, close.size, windows.shape[0])
    return [head] + [memoryview(a.reshape(-1)).cast("B") for a in (close, windows) if a.size]


def decode_sweep(body, n_combos):
    """[n × f64 pnl][n × i64 trades] → (pnl array, trades array)."""
    pnl = np.frombuffer(body, dtype="<f8", count=n_combos)
    trades = np.frombuffer(body, dtype="<i8", count=n_combos, offset=8 * n_combos)
    return pnl, trades


def connect(address):
    """'unix:PATH' or 'tcp:HOST:PORT' → a connected socket (TCP with TCP_NODELAY)."""
    kind, _, rest = address.partition(":")
    if kind == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(rest)
    elif kind == "tcp":
        host, _, port = rest.rpartition(":")
        s = socket.create_connection((host, int(port)))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        raise ValueError(f"address {address!r}: expected unix:PATH or tcp:HOST:PORT")
    return s


class Conn:
    """One connection to an engine; reusable reply buffers."""

    def __init__(self, address):
        self.sock = connect(address)
        self.buf = bytearray(1 << 16)

    def close(self):
        self.sock.close()

    def _recv_exact_into(self, view):
        got = 0
        while got < len(view):
            k = self.sock.recv_into(view[got:])
            if k == 0:
                raise EngineError("the server closed the connection mid-reply")
            got += k

    def _reply_into(self, out=None):
        """Read one reply frame; into `out` (a writable buffer of the exact size) when given."""
        head = bytearray(4)
        self._recv_exact_into(memoryview(head))
        (n,) = struct.unpack("<I", head)
        if n & ERROR_BIT:
            body = bytearray(n & ~ERROR_BIT)
            self._recv_exact_into(memoryview(body))
            code = struct.unpack_from("<I", body)[0] if len(body) >= 4 else -1
            raise EngineError(f"error {code}: {bytes(body[4:]).decode(errors='replace')}")
        if out is not None and len(out) == n:
            self._recv_exact_into(out)
            return out
        if len(self.buf) < n:
            self.buf = bytearray(n)
        view = memoryview(self.buf)[:n]
        self._recv_exact_into(view)
        return view

    def send_parts(self, parts):
        total = sum(len(p) for p in parts)
        sent = self.sock.sendmsg(parts)
        if sent < total:  # a partial sendmsg: finish with the joined remainder (rare, large frames)
            self.sock.sendall(b"".join(bytes(p) for p in parts)[sent:])

    def call(self, opcode, close, windows, out=None):
        """Ours: zero-copy send, reply into `out` (e.g. a preallocated numpy array's memoryview)."""
        self.send_parts(request_parts(opcode, close, windows))
        return self._reply_into(out)

    def call_study(self, opcode, close, params):
        """The study's form: byte concatenation, sendall, reply as a fresh bytes object."""
        self.sock.sendall(study_request(opcode, close, params))
        return bytes(self._reply_into())

    def sweep(self, close, windows):
        windows = np.asarray(windows, dtype="<i8").reshape(-1, 6)
        return decode_sweep(self.call(OP_SWEEP, close, windows), windows.shape[0])

    def send_raw(self, data):
        self.sock.sendall(data)
        return bytes(self._reply_into())


def read_stdout_reply(data):
    """The reply frames a stdin engine wrote, as a list of bodies; raises EngineError on an error reply."""
    out, off = [], 0
    while off < len(data):
        (n,) = struct.unpack_from("<I", data, off)
        if n & ERROR_BIT:
            body = data[off + 4: off + 4 + (n & ~ERROR_BIT)]
            raise EngineError(f"error {struct.unpack_from('<I', body)[0]}: {body[4:].decode(errors='replace')}")
        out.append(data[off + 4: off + 4 + n])
        off += 4 + n
    return out


# ---- the stateful opcodes of docs/protocol.md (hmasweep serve only) --------------------------------
OP_LOAD, OP_SWEEP_HANDLE, OP_FREE, OP_LIVE_OPEN, OP_LIVE_APPEND, OP_LIVE_CLOSE = 3, 4, 5, 6, 7, 8


def _windows(windows):
    """Windows as a contiguous (n, 6) little-endian int64 array, as every windows-carrying op sends them."""
    return np.ascontiguousarray(np.asarray(windows, dtype="<i8").reshape(-1, 6))


def _op_parts(opcode, head_fields, array=None):
    """[u32 len][u8 op][u32 fields...] as bytes, then the array's bytes as a memoryview (no copy)."""
    payload = b"" if array is None else memoryview(np.ascontiguousarray(array)).cast("B")
    head = struct.pack("<B%dI" % len(head_fields), opcode, *head_fields)
    parts = [struct.pack("<I", len(head) + len(payload)) + head]
    if len(payload):
        parts.append(payload)
    return parts


def _send_op(conn, opcode, head_fields, array=None):
    """Send one op's frame zero-copy and return its reply body."""
    conn.send_parts(_op_parts(opcode, head_fields, array))
    return conn._reply_into()


def load(conn, close):
    """LOAD: the series stays on the server; returns its handle."""
    close = np.ascontiguousarray(close, dtype="<f8")
    return struct.unpack("<I", _send_op(conn, OP_LOAD, [close.size], close))[0]


def sweep_handle(conn, handle, windows):
    """SWEEP_HANDLE: only the windows travel."""
    windows = _windows(windows)
    body = _send_op(conn, OP_SWEEP_HANDLE, [handle, windows.shape[0]], windows)
    return decode_sweep(body, windows.shape[0])


def live_open(conn, handle, windows):
    windows = _windows(windows)
    return struct.unpack("<I", _send_op(conn, OP_LIVE_OPEN, [handle, windows.shape[0]], windows))[0]


def live_append(conn, session, bars):
    """LIVE_APPEND k bars; returns the raw reply (pnl, trades, position, crossed per combo)."""
    bars = np.ascontiguousarray(bars, dtype="<f8")
    return _send_op(conn, OP_LIVE_APPEND, [session, bars.size], bars)


def live_close(conn, session):
    _send_op(conn, OP_LIVE_CLOSE, [session])


def sweep_handle_frame(handle, windows):
    """One SWEEP_HANDLE request frame as bytes (for pipelining: many frames written at once)."""
    windows = _windows(windows)
    return b"".join(_op_parts(OP_SWEEP_HANDLE, [handle, windows.shape[0]], windows))


def pipelined(conn, request, k, reply_bytes):
    """Write `request` (k frames back to back) in one sendall, then read the k replies, each a body of
    `reply_bytes`: one round trip of latency plus k messages' cost.  Returns the k bodies as one
    (k, reply_bytes) uint8 array.  The server reads frame by frame and answers in order (docs/protocol.md),
    so nothing is lost; all k replies must fit the socket buffers while the client is still writing, which
    holds for small frames (80 SWEEP_HANDLE replies are 1.6 KB)."""
    conn.sock.sendall(request)
    frame = 4 + reply_bytes
    buf = bytearray(k * frame)
    view = memoryview(buf)
    got = checked = 0
    while got < len(buf):
        n = conn.sock.recv_into(view[got:])
        if n == 0:
            raise EngineError("the server closed the connection mid-reply")
        got += n
        # an error reply has another length, and waiting for bytes that never come would hang: check
        # each frame's length prefix as soon as its 4 bytes are in
        prefixes_in = (got - 4) // frame + 1 if got >= 4 else 0
        for i in range(checked, prefixes_in):
            (m,) = struct.unpack_from("<I", buf, i * frame)
            if m != reply_bytes:
                raise EngineError(f"reply {i} of {k}: length prefix {m:#x}, expected {reply_bytes}"
                                  + (" (an error reply)" if m & ERROR_BIT else ""))
        checked = max(checked, prefixes_in)
    return np.frombuffer(buf, dtype=np.uint8).reshape(k, frame)[:, 4:]
