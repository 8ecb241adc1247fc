"""Issue 29 item 1: one Client shared between threads (docs/python.md "Threads").

- 4 threads x 100 calls on one Client: every call answers, with its own thread's result, bit for bit the
  in-process sweep (before: 1,199 of 1,200 calls failed);
- close() from another thread while calls wait on a mute peer: the waiting call stops with
  ConnectionBroken saying the Client was closed (not the timeout, set far away), the queued ones too,
  and nothing is freed under a call (before: SIGSEGV, 3 of 3 runs);
- close() while 4 threads hammer a real server: each call either answers right or raises
  ConnectionBroken.
ctest runs this file in python_package, and under ASan in the asan preset (python_client_threads_asan)."""
import os
import socket
import subprocess
import threading

import numpy as np
import pytest

import hmasweep
from conftest import stop_process
from hmasweep.client import Client, ConnectionBroken

THREADS, CALLS = 4, 100


@pytest.fixture
def unix_server(cli, tmp_path):
    path = tmp_path / "hs.sock"
    proc = subprocess.Popen([cli, "serve", "--unix", str(path), "--variant", "unchecked", "--ready"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("ready"), proc.stderr.read()[-500:]
        yield "unix:" + str(path)
    finally:
        stop_process(proc)


def _run_threads(target, n):
    errors = []

    def guarded(k):
        try:
            target(k)
        except BaseException as e:  # noqa: BLE001 - reported below, by thread
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not [t for t in threads if t.is_alive()], "a thread is still inside a Client call"
    return errors


def test_four_threads_share_one_client(unix_server):
    series = [hmasweep.series(seed=k + 1, bars=400) for k in range(THREADS)]
    expected = [hmasweep.sweep(s, [6, 9], variant="unchecked") for s in series]
    answered = [0] * THREADS
    with Client(unix_server, timeout=60) as c:
        def work(k):
            for i in range(CALLS):
                r = c.sweep(series[k], [6, 9]) if i % 2 else c.sweep_handle(c.load(series[k]), [6, 9])
                assert r.pnl.tobytes() == expected[k].pnl.tobytes(), "thread %d call %d got another's result" % (k, i)
                np.testing.assert_array_equal(r.trades, expected[k].trades)
                answered[k] += 1
        errors = _run_threads(work, THREADS)
    assert not errors, errors[:5]
    assert answered == [CALLS] * THREADS


def _mute_peer():
    """A socketpair whose far end reads whatever comes and never answers."""
    ours, theirs = socket.socketpair()
    stop = threading.Event()

    def drain():
        theirs.settimeout(0.05)
        while not stop.is_set():
            try:
                if not theirs.recv(1 << 16):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        theirs.close()

    t = threading.Thread(target=drain)
    t.start()
    ours.settimeout(600)  # the round trip's limit: far beyond what the test waits
    return ours, stop, t


@pytest.mark.parametrize("round_", range(5))
def test_close_from_another_thread_stops_the_waiting_calls(round_):
    ours, stop, drainer = _mute_peer()
    c = Client.from_socket(ours)
    started = threading.Barrier(THREADS + 1)
    outcomes = []

    def call(k):
        started.wait()
        try:
            c.hello()
            outcomes.append("answered")
        except ConnectionBroken as e:
            outcomes.append("closed" if "closed" in str(e) else "other: " + str(e))

    try:
        threads = [threading.Thread(target=call, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        started.wait()
        threading.Event().wait(0.2)  # the first call waits on the peer, the others on the lock
        c.close()
        for t in threads:
            t.join(60)
        assert not [t for t in threads if t.is_alive()], "close() did not stop the waiting call"
        assert outcomes == ["closed"] * THREADS, outcomes
        with pytest.raises(ConnectionBroken, match="closed"):
            c.hello()
        c.close()  # twice: harmless
    finally:
        stop.set()
        drainer.join(10)


def test_close_while_threads_hammer_a_server(unix_server):
    s = hmasweep.series(seed=9, bars=2000)
    expected = hmasweep.sweep(s, [6, 31], variant="unchecked")
    for _ in range(3):
        c = Client(unix_server, timeout=60)
        counts = {"answered": 0, "closed": 0, "finished": 0}
        lock = threading.Lock()

        def work(k):
            for _ in range(200):
                try:
                    r = c.sweep(s, [6, 31])
                except ConnectionBroken:
                    with lock:
                        counts["closed"] += 1
                    return
                assert r.pnl.tobytes() == expected.pnl.tobytes()
                with lock:
                    counts["answered"] += 1
            with lock:  # a thread may finish its 200 calls before the close comes (a loaded machine)
                counts["finished"] += 1

        closer = threading.Timer(0.05, c.close)
        closer.start()
        errors = _run_threads(work, THREADS)
        closer.join()
        assert not errors, errors[:5]
        # every thread ends one of two ways: its 200 calls answered, or the close seen as ConnectionBroken
        assert counts["closed"] + counts["finished"] == THREADS, counts


def test_reentering_a_call_from_its_own_thread_is_refused():
    seen = []

    class Sneaky:
        """An array-like whose conversion, inside the C call, calls back into the same Client."""
        def __init__(self, client):
            self.client = client

        def __array__(self, dtype=None, copy=None):
            try:
                self.client._c.hello()
            except RuntimeError as e:
                seen.append(str(e))
            return np.ones(4)

    ours, stop, drainer = _mute_peer()
    c = Client.from_socket(ours)
    try:
        closer = threading.Timer(0.3, c.close)  # the echo then waits on the mute peer: close() stops it
        closer.start()
        with pytest.raises(ConnectionBroken, match="closed"):
            c._call(c._c.echo, Sneaky(c), np.empty(4))
        closer.join()
        assert seen and "re-entered" in seen[0], seen
    finally:
        stop.set()
        drainer.join(10)
