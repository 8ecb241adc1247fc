"""Ctrl-C (issue 18 §2): a real SIGINT, sent from outside, stops a long sweep() / sweep_many() in the
middle with KeyboardInterrupt (the library's progress hook, hs_sweep_options.progress, polled by
_core.c's poll_python).  The child measures when it caught the exception; CLOCK_MONOTONIC is shared by
the processes of one machine, so the latency is catch time minus send time.  No absolute time is
asserted: the sweep must stop in under a quarter of what the whole sweep takes, measured in the same run
(from a tenth of the bars)."""
import os
import signal
import subprocess
import sys
import time

import pytest

CHILD = r"""
import sys, time
import hmasweep
which, bars = sys.argv[1], int(sys.argv[2])
close = hmasweep.series(bars=bars)
t = time.monotonic()
hmasweep.sweep(close[: bars // 10], variant="unchecked", threads=1)
print("estimate", 10 * (time.monotonic() - t), flush=True)
done = []
try:
    print("start", time.monotonic(), flush=True)
    if which == "sweep":
        hmasweep.sweep(close, variant="unchecked", threads=1)
    else:
        hmasweep.sweep_many({"A": close, "B": close}, variant="unchecked", threads=1,
                            progress=lambda k, n: done.append((k, n)))
    print("finished", time.monotonic(), flush=True)
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), done[-1] if done else None, flush=True)
"""


@pytest.mark.parametrize("which", ["sweep", "sweep_many"])
def test_sigint_stops_a_long_sweep(which):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.Popen([sys.executable, "-c", CHILD, which, "200000"], stdout=subprocess.PIPE, text=True,
                             env=env)
    try:
        estimate = float(child.stdout.readline().split()[1])
        assert child.stdout.readline().startswith("start")
        # sweep_many ticks once per (series, 8-combo) unit (src/api/sweep_many.c): wait for a few
        time.sleep(min(0.5, estimate / 8) if which == "sweep" else estimate / 4)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=max(60, 3 * estimate))
    finally:
        child.kill()
    words = out.split()
    assert words and words[0] == "interrupted", out
    latency = float(words[1]) - sent
    print(f"{which}: SIGINT to KeyboardInterrupt {latency * 1000:.1f} ms (whole sweep ~{estimate:.1f} s)")
    assert 0 <= latency < estimate / 4, (latency, estimate)
    if which == "sweep_many":
        assert "None" not in out, out  # the progress callable was called, and not through to the end
        k, n = (int(x.strip("(),")) for x in words[2:4])
        assert 0 < k < n == 160, out


def test_progress_bar_and_fallback(capsys, monkeypatch):
    import hmasweep

    universe = {"A": hmasweep.series(bars=3000), "B": hmasweep.series(seed=2, bars=3000)}
    ref = hmasweep.sweep_many(universe, [6, 50], as_frame=False)
    seen = []
    rows = hmasweep.sweep_many(universe, [6, 50], as_frame=False, progress=lambda k, n: seen.append((k, n)))
    assert seen[-1] == (4, 4) and rows["pnl"].tobytes() == ref["pnl"].tobytes()
    pytest.importorskip("tqdm", reason="tqdm: not installed (pip install tqdm; tests/deps.sh installs it)")
    hmasweep.sweep_many(universe, [6, 50], progress=True)
    err = capsys.readouterr().err
    assert "sweep_many" in err and "4/4" in err, err  # tqdm's bar, at 100%
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # as if tqdm were not installed
    hmasweep.sweep_many(universe, [6, 50], progress=True)
    err = capsys.readouterr().err
    assert "sweep_many: 4/4 (series, combo) pairs (pip install tqdm for a bar)" in err, err
