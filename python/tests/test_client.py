"""Client: the wire protocol in raw bytes.  Against `hmasweep wire` (the docs/spec.md §6 codec on a stream: a
socketpair as its stdin/stdout) now, and against `hmasweep serve` over a Unix socket and TCP when the CLI
has it.  Replies must equal the in-process sweep() bit for bit."""
import os
import socket
import subprocess

import numpy as np
import pytest

import hmasweep
from conftest import stop_process
from hmasweep.client import Client, ServerError


@pytest.fixture
def wire_client(cli):
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen([cli, "wire", "--variant", "unchecked"], stdin=theirs, stdout=theirs,
                            stderr=subprocess.PIPE)
    theirs.close()
    ours.settimeout(60)
    c = Client.from_socket(ours)
    yield c, proc
    c.close()
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_wire_sweep_equals_in_process(wire_client, golden):
    c, _ = wire_client
    close = hmasweep.series(seed=5, bars=3000)
    for lengths in ([2, 6, 9, 31], None):
        local = hmasweep.sweep(close, lengths, variant="unchecked")
        remote = c.sweep(close, lengths)
        np.testing.assert_array_equal(remote.trades, local.trades)
        assert remote.pnl.tobytes() == local.pnl.tobytes()
        np.testing.assert_array_equal(remote.windows, local.windows)
    # any six windows, not only those from L
    w = np.array([[3, 6, 2, 9, 2, 3], [1, 1, 1, 1, 1, 1], [40, 7, 5, 3, 30, 11]])
    remote = c.sweep(close, windows=w)
    local = hmasweep.sweep(close, windows=w, variant="unchecked")
    assert remote.lengths is None and remote.pnl.tobytes() == local.pnl.tobytes()
    np.testing.assert_array_equal(remote.trades, local.trades)
    # the default series' combo 0, through the wire: the fingerprint
    r = c.sweep(hmasweep.series(), [6])
    assert (r.trades[0], r.pnl[0]) == (57029, golden["pnl"][0])


def test_wire_echo_into_preallocated(wire_client):
    c, _ = wire_client
    close = hmasweep.series(seed=1, bars=150000)  # the study's 1.2 MB payload
    out = np.empty_like(close)
    back = c.echo(close, out=out)
    assert back is out and out.tobytes() == close.tobytes()
    assert c.echo(close[::3]).tobytes() == close[::3].tobytes()  # strided: converted once, then sent


def test_wire_bad_request_is_an_error(wire_client):
    """`hmasweep wire` answers a bad frame by closing the stream (its documented behaviour); the client
    reports that as a ServerError instead of hanging or returning zeros."""
    c, proc = wire_client
    bad = hmasweep.series(seed=1, bars=100).copy()
    bad[7] = np.nan
    with pytest.raises(ServerError):
        c.sweep(bad, [6])


def test_client_refuses_bad_input_locally():
    ours, theirs = socket.socketpair()
    try:
        c = Client.from_socket(ours)
        with pytest.raises(ValueError, match="1-D"):
            c.sweep(np.ones((2, 10)), [2])
        with pytest.raises(ValueError, match="not both"):
            c.sweep(np.ones(10), [2], windows=[1] * 6)
        with pytest.raises(ValueError, match=r"shape \(n, 6\)"):
            c.sweep(np.ones(10), windows=[1, 2, 3])
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("url", ["http://x", "tcp://nohostport", "unix", "stdio:"])
def test_bad_urls(url):
    """A URL of no known scheme or a malformed address: ValueError (the library's transport table)."""
    with pytest.raises(ValueError):
        Client(url)


@pytest.mark.parametrize("url", ["shm:no-such-server-here", "unix:/nonexistent/hmasweep.sock"])
def test_no_server_is_a_connection_error(url):
    """A well-formed URL where no server listens: ConnectionError (an OSError, as socket.connect raised)."""
    with pytest.raises(ConnectionError):
        Client(url)


def test_error_reply_keeps_the_connection():
    """A fake server answers with a protocol error reply (bit 31 set) then a good reply: the client
    raises ServerValueError for the first (a ValueError, as in process) and reads the second fine."""
    ours, theirs = socket.socketpair()
    try:
        msg = b"close[3] is NaN"
        theirs.sendall((0x80000000 | (4 + len(msg))).to_bytes(4, "little") + (1).to_bytes(4, "little") + msg)
        reply = np.array([1.5]).tobytes() + np.array([7], dtype="<i8").tobytes()
        theirs.sendall((16).to_bytes(4, "little") + reply)
        c = Client.from_socket(ours)
        with pytest.raises(ValueError, match=r"close\[3\] is NaN") as e:
            c.sweep(np.ones(10), [2])
        assert e.value.code == 1
        r = c.sweep(np.ones(10), [2])
        assert r.pnl.tolist() == [1.5] and r.trades.tolist() == [7]
    finally:
        ours.close()
        theirs.close()


@pytest.fixture
def server(cli, tmp_path):
    path = tmp_path / "hs.sock"
    shm = "pytest-%d-%d" % (os.getpid(), id(tmp_path) % 100000)
    proc = subprocess.Popen([cli, "serve", "--unix", str(path), "--tcp", "127.0.0.1:0", "--shm", shm, "--ready"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = proc.stdout.readline()
        assert ready, "hmasweep serve did not report ready: " + proc.stderr.read()[-500:]
        yield str(path), ready
    finally:
        stop_process(proc)


def _urls(ready_line):
    return {u.split(":", 1)[0]: u for u in ready_line.split()[1:]}


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_serve(server, transport):
    _, ready = server
    url = _urls(ready)[transport]  # shm:NAME goes through the library's C client
    close = hmasweep.series(seed=3, bars=5000)
    local = hmasweep.sweep(close, variant="unchecked")
    with Client(url, timeout=60) as c:
        hello = c.hello()
        assert hello["protocol_version"] == 3 and "unchecked" in hello["variants"]  # this server speaks up to 3
        assert not [n for n in hello["variants"] if n.startswith("x_")]  # experiments are not offered
        r = c.sweep(close)
        assert r.pnl.tobytes() == local.pnl.tobytes()
        np.testing.assert_array_equal(r.trades, local.trades)
        np.testing.assert_array_equal(r.lengths, local.lengths)
        h = c.load(close)
        r2 = c.sweep_handle(h)
        assert r2.pnl.tobytes() == local.pnl.tobytes()
        w = np.array([[3, 6, 2, 9, 2, 3], [40, 7, 5, 3, 30, 11]])
        r3 = c.sweep_handle(h, windows=w)
        l3 = hmasweep.sweep(close, windows=w, variant="unchecked")
        assert r3.pnl.tobytes() == l3.pnl.tobytes()
        c.free(h)
        with pytest.raises(ServerError) as e:
            c.sweep_handle(h, [6])  # freed: unknown handle
        assert e.value.code == 17
        big = hmasweep.series(seed=8, bars=150000)
        assert c.echo(big).tobytes() == big.tobytes()
        bad = close.copy()
        bad[10] = -1.0
        with pytest.raises(ValueError, match=r"close\[10\]"):
            c.sweep(bad, [6])
        with pytest.raises(ValueError):
            c.sweep(close, windows=[1, 1, 1, 1, 1, 6000])
        assert c.sweep(close, [6]).pnl[0] == local.pnl[0]  # still usable after the error replies


def test_serve_fingerprint(server):
    """The fingerprint through `hmasweep serve` (live mode on every transport: test_live_every_transport)."""
    path, _ = server
    with Client("unix:" + path, timeout=120) as c:
        r = c.sweep(hmasweep.series(), [6])
        assert (r.trades[0], r.pnl[0]) == (57029, -5165.5799542358627)


# ---- issue 20 item 5 and issue 18 §2 "The client": a failure mid-frame drops the connection ----------
from hmasweep.client import DEFAULT_TIMEOUT, ClientTimeout, ConnectionBroken, ProtocolError  # noqa: E402


def _results_reply(pnl, trades):
    body = np.array(pnl, "<f8").tobytes() + np.array(trades, "<i8").tobytes()
    return len(body).to_bytes(4, "little") + body


def test_timeout_drops_the_connection():
    """Issue 20 item 5: a call that times out leaves its reply on the way.  The old Client read it as the
    next call's own (trades [4] instead of [1876], no exception); now the next call raises."""
    ours, theirs = socket.socketpair()
    try:
        ours.settimeout(0.2)
        c = Client.from_socket(ours)
        with pytest.raises(ClientTimeout, match="dropped"):
            c.sweep(np.ones(10), [2])  # the server is slow: nothing within 0.2 s
        try:  # the late reply to call 1, then the reply to call 2
            theirs.sendall(_results_reply([0.5], [4]) + _results_reply([9.5], [1876]))
        except OSError:
            pass  # the client closed its end: nothing can be misread
        with pytest.raises(ConnectionBroken, match="broken"):
            c.sweep(np.ones(10), [3])
        with pytest.raises(ConnectionBroken):  # and stays so
            c.echo(np.ones(3))
    finally:
        ours.close()
        theirs.close()


def test_default_timeout_bounds_a_mute_server(tmp_path):
    """A listener that never answers: the call ends with ClientTimeout, never blocks forever; the default
    is DEFAULT_TIMEOUT (30 s, the C client's)."""
    import inspect
    assert inspect.signature(Client).parameters["timeout"].default == DEFAULT_TIMEOUT == 30.0
    path = str(tmp_path / "mute.sock")
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(path)
    mute.listen(4)
    try:
        with Client("unix:" + path, timeout=0.3) as c:
            import time
            t0 = time.monotonic()
            with pytest.raises(ClientTimeout):
                c.hello()
            assert time.monotonic() - t0 < 5
            with pytest.raises(ConnectionBroken):
                c.hello()
    finally:
        mute.close()


def test_huge_error_prefix_is_a_protocol_error():
    """Issue 20 item 12: an error prefix of 2^31 - 1 bytes is not an error reply (at most 4 KiB); the
    client refuses it at once instead of allocating 2 GiB and waiting for the bytes."""
    ours, theirs = socket.socketpair()
    try:
        ours.settimeout(5)
        theirs.sendall(b"\xff\xff\xff\xff\x01\x00\x00\x00")
        c = Client.from_socket(ours)
        with pytest.raises(ProtocolError, match="error reply of 2147483647 bytes"):
            c.sweep(np.ones(10), [2])
        with pytest.raises(ConnectionBroken):
            c.sweep(np.ones(10), [2])
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_late_reply_every_transport(server, transport):
    """Against the real server, on every transport (shm through the C client): a sweep that cannot
    finish within 1 ms times out, and the next call raises ConnectionBroken instead of reading its reply."""
    url = _urls(server[1])[transport]
    close = hmasweep.series(seed=3, bars=150000)
    with Client(url, timeout=30) as c:
        c.settimeout(0.001)
        with pytest.raises(ClientTimeout):
            # the golden run's 80 combos: ~15 ms on the server, and within the cost model's worst case
            # (2,000 combos of windows up to 2,005 are refused now: reports/fair.md "The cost model")
            c.sweep(close, np.arange(6, 86))
        import time
        time.sleep(0.3)  # its reply arrives meanwhile
        with pytest.raises(ConnectionBroken):
            c.sweep(close, np.arange(6, 86))


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_server_choices_honoured_or_refused(server, transport):
    """Issue 18: Client.sweep never ignores variant, isa or threads.  The protocol cannot choose them per
    request, so anything but what the server runs is a ValueError naming it; the server's own variant
    (hello()'s first) and None are accepted."""
    url = _urls(server[1])[transport]
    close = hmasweep.series(seed=3, bars=2000)
    with Client(url, timeout=60) as c:
        running = c.hello()["variants"][0]
        with pytest.raises(ValueError, match="variant='nope'.*the server runs"):
            c.sweep(close, [6], variant="nope")
        with pytest.raises(ValueError, match="isa='avx2'"):
            c.sweep(close, [6], isa="avx2")
        with pytest.raises(ValueError, match="threads=4"):
            c.sweep(close, [6], threads=4)
        ref = hmasweep.sweep(close, [6], variant="unchecked")
        for variant in (None, running):
            assert c.sweep(close, [6], variant=variant).pnl.tobytes() == ref.pnl.tobytes()


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_error_messages_not_doubled(server, transport):
    """Issue 18: "server error 17: server error 17: unknown handle" came through the C client (shm)."""
    url = _urls(server[1])[transport]
    with Client(url, timeout=60) as c:
        with pytest.raises(ServerError) as e:
            c.sweep_handle(12345, [6])
        assert e.value.code == 17 and str(e.value).count("server error") == 1, str(e.value)
        assert e.value.message.startswith("unknown handle"), e.value.message


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_live_every_transport(server, transport):
    """Issue 18: live mode over shm too (it raised NotImplementedError); final state = batch sweep."""
    url = _urls(server[1])[transport]
    close = hmasweep.series(seed=12, bars=3000)
    with Client(url, timeout=60) as c:
        h = c.load(close[:2000])
        session = c.live_open(h, [6, 20])
        for k in range(2000, 3000, 250):
            pnl, trades, position, crossed = c.live_append(session, close[k:k + 250])
        ref = hmasweep.sweep(close, [6, 20], variant="unchecked")
        assert pnl.tobytes() == ref.pnl.tobytes()
        np.testing.assert_array_equal(trades, ref.trades)
        assert position.dtype == np.int8 and crossed.dtype == bool
        assert set(position.tolist()) <= {-1, 0, 1}
        c.live_close(session)
        with pytest.raises(ValueError, match="not opened"):
            c.live_append(session, close[:1])


_CTRL_C_CHILD = r"""
import socket, sys, time
from hmasweep.client import Client, ConnectionBroken
how, path = sys.argv[1], sys.argv[2]
if how == "unix":  # a listener that accepts nothing and answers nothing
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(path)
    mute.listen(4)
    c = Client("unix:" + path, timeout=60)
else:  # a connected socket whose peer never answers
    ours, theirs = socket.socketpair()
    ours.settimeout(60)
    c = Client.from_socket(ours)
print("start", flush=True)
try:
    c.hello()
    print("answered", flush=True)
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
try:
    c.hello()
except ConnectionBroken:
    print("broken", flush=True)
"""


@pytest.mark.parametrize("how", ["unix", "from_socket"])
def test_ctrl_c_stops_a_waiting_call(how, tmp_path):
    """Ctrl-C while a Client call waits for a mute server (through the C client's interrupt hook): a real
    SIGINT from outside raises KeyboardInterrupt in the call, long before its 60 s timeout, and the
    connection is dropped (the next call raises ConnectionBroken: its reply could still come)."""
    import signal
    import sys
    import time
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.Popen([sys.executable, "-c", _CTRL_C_CHILD, how, str(tmp_path / "mute.sock")],
                             stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().startswith("start")
        time.sleep(0.3)  # inside hello()'s wait by now (it would wait 60 s)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
    finally:
        child.kill()
    words = out.split()
    assert words[:1] == ["interrupted"] and words[2:] == ["broken"], out
    latency = float(words[1]) - sent
    print(f"{how}: SIGINT to KeyboardInterrupt {latency * 1000:.1f} ms (the call's timeout: 60 s)")
    assert 0 <= latency < 15, latency  # a quarter of the timeout it would otherwise have waited


def test_from_socket_to_serve_stdio(cli, golden):
    """`hmasweep serve --listen stdio:` on one end of a socketpair, the Client on the other (through
    hs_client_from_fds): the fingerprint, bit for bit."""
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen([cli, "serve", "--listen", "stdio:"], stdin=theirs, stdout=theirs, stderr=subprocess.PIPE)
    theirs.close()
    ours.settimeout(120)
    try:
        with Client.from_socket(ours) as c:
            r = c.sweep(hmasweep.series(), [6])
            assert (r.trades[0], r.pnl[0]) == (57029, golden["pnl"][0])
        assert proc.wait(timeout=30) == 0  # end of input: the server exits 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


@pytest.mark.parametrize("transport", ["unix", "tcp", "shm"])
def test_stats_every_transport(server, transport):
    """Protocol 2 (docs/protocol.md "Version 2"): the fee in, the six statistics out, bit for bit what the
    in-process sweep gives, by SWEEP_STATS, SWEEP_HANDLE_STATS and a LIVE_OPEN_STATS session after every
    append; a bad fee is the server's error 2 naming it; op 0 still gives no statistics."""
    url = _urls(server[1])[transport]
    close = hmasweep.series(seed=4, bars=4000)
    lengths = [6, 9, 31]
    with Client(url, timeout=60) as c:
        for fee in (None, 0.0, 0.004):
            remote, local = c.sweep(close, lengths, fee=fee, stats=True), hmasweep.sweep(close, lengths, fee=fee)
            assert remote.stats.tobytes() == local.stats.tobytes() and remote.pnl.tobytes() == local.pnl.tobytes()
            np.testing.assert_array_equal(remote.trades, local.trades)
            assert remote.fee == local.fee and remote.bars == 4000
            assert remote.to_frame().equals(local.to_frame())
        assert c.sweep(close, lengths).stats is None  # op 0: docs/spec.md §6's reply, no statistics
        h = c.load(close[:3000])
        by_handle = c.sweep_handle(h, lengths, fee=0.002)
        assert by_handle.stats.tobytes() == hmasweep.sweep(close[:3000], lengths, fee=0.002).stats.tobytes()
        session = c.live_open(h, lengths, fee=0.002)
        for k in range(3000, 4000, 333):
            pnl, trades, position, crossed, stats = c.live_append(session, close[k:k + 333])
            ref = hmasweep.sweep(close[:k + 333], lengths, fee=0.002)
            assert stats.tobytes() == ref.stats.tobytes() and pnl.tobytes() == ref.pnl.tobytes()
        plain = c.live_open(h, lengths)
        assert len(c.live_append(plain, close[3000:3010])) == 4  # a v1 session keeps v1's reply
        for bad in (-0.5, 1.0, float("nan"), float("inf")):
            with pytest.raises(ServerError, match=r"fee = .*must be a finite fraction") as e:
                c.sweep(close, [6], fee=bad)
            assert e.value.code == 2
        assert c.sweep(close, [6], fee=0.0).trades[0] == c.sweep(close, [6]).trades[0]  # still usable


def test_stats_refused_by_a_v1_server(wire_client):
    """A server that answers HELLO with protocol 1 gets no stats request: the Client names the version."""
    c, _ = wire_client
    c._protocol = 1  # what hello() would have set against a version-1 server
    with pytest.raises(ServerError, match="speaks wire protocol version 1: the fee and the statistics need version 2"):
        c.sweep(hmasweep.series(bars=500), [6], stats=True)
