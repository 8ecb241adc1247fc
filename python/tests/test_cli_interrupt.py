"""The CLI on Ctrl-C and on a kill (issue 18 §2).

- A real SIGINT stops `hmasweep run`, `run --inputs` and `trades` in the middle of the work: the library's
  progress hook reads the flag the CLI's handler sets (cli/options.c cli_catch_sigint), what is finished is
  flushed, a line on stderr says so, and the exit status is 130 (128 + SIGINT), by exit(), not by the
  signal's default action.
- A universe run writes and flushes its rows as each batch of symbols finishes (a long series is a batch
  alone, cli/universe.c), so a run killed by SIGKILL after k symbols keeps the rows of those k, whole,
  in universe order, and they equal `run --input` of each symbol alone.
- `--progress` is on by default when stderr is a terminal.
Every wait is a bounded loop; no time is asserted (the stop latency is printed)."""
import csv
import io
import os
import pty
import signal
import subprocess
import time

import pytest

N_SERIES, BARS = 12, 150000  # unchecked, 1 thread: ~3 s a series here, a minute in all


@pytest.fixture(scope="module")
def universe(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("universe")
    for i in range(1, N_SERIES + 1):
        subprocess.run([cli, "gen", "--output", str(d / f"s{i:02d}.f64"), "--seed", str(i), "--bars", str(BARS)],
                       check=True, capture_output=True)
    return d


def start_universe(cli, universe, out, **kw):
    f = open(out, "wb")
    p = subprocess.Popen([cli, "run", "--inputs", str(universe / "s*.f64"), "--variant", "unchecked", "--threads",
                          "1", "--format", "csv"], stdout=f, stderr=subprocess.PIPE, **kw)
    f.close()
    return p


def interrupt(p):
    """SIGINT to p, then its (stdout, stderr, seconds from the signal to its exit); p never outlives this."""
    try:
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        return out, err, time.monotonic() - sent
    finally:
        p.kill()
        p.wait()


def symbols_in(path):
    lines = path.read_text().splitlines()
    return [row[0] for row in csv.reader(lines[1:])]


def wait_for_symbols(p, path, k, limit_s=300):
    """Until the output holds k symbols' rows (bounded: limit_s, or the process ends)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and p.poll() is None:
        if len(set(symbols_in(path))) >= k:
            return
        time.sleep(0.1)
    raise AssertionError(f"{k} symbols' rows did not appear (exit {p.poll()})")


def check_whole_symbols(cli, universe, path):
    """The rows are whole symbols, in universe order, each equal to `run --input` of that symbol alone."""
    lines = path.read_text().splitlines()
    rows = list(csv.reader(lines[1:]))
    finished = sorted(set(r[0] for r in rows))
    assert len(rows) == 80 * len(finished), (finished, len(rows))
    assert finished == [f"s{i:02d}" for i in range(1, len(finished) + 1)], finished
    alone = subprocess.run([cli, "run", "--input", str(universe / "s01.f64"), "--variant", "unchecked", "--format",
                            "csv"], check=True, capture_output=True, text=True).stdout
    ref = list(csv.DictReader(io.StringIO(alone)))
    mine = [r for r in rows if r[0] == "s01"]
    assert [(r[8], r[9]) for r in mine] == [(c["trades"], c["pnl"]) for c in ref]  # trades, pnl, as printed
    return finished


def test_run_inputs_sigint_keeps_finished_rows(cli, universe, tmp_path):
    out = tmp_path / "rows.csv"
    p = start_universe(cli, universe, out)
    try:
        wait_for_symbols(p, out, 1)
    finally:
        _, err, stopped = interrupt(p)
    assert p.returncode == 130, (p.returncode, err)  # exit(130), not killed by the signal (-2)
    assert b"interrupted (SIGINT)" in err and b"symbols were written" in err, err
    finished = check_whole_symbols(cli, universe, out)
    assert 1 <= len(finished) < N_SERIES, finished
    print(f"run --inputs: exit 130 {stopped * 1000:.0f} ms after SIGINT, {len(finished)} of {N_SERIES} symbols kept")


def test_run_inputs_killed_keeps_finished_rows(cli, universe, tmp_path):
    out = tmp_path / "rows.csv"
    p = start_universe(cli, universe, out)
    try:
        wait_for_symbols(p, out, 2)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == -signal.SIGKILL
    finished = check_whole_symbols(cli, universe, out)
    assert 2 <= len(finished) < N_SERIES, finished
    print(f"run --inputs killed (SIGKILL): {len(finished)} of {N_SERIES} symbols' rows kept, whole")


@pytest.mark.parametrize("command", ["run", "trades"])
def test_run_and_trades_stop(cli, tmp_path, command):
    series = tmp_path / "long.f64"
    subprocess.run([cli, "gen", "--output", str(series), "--bars", "1500000"], check=True, capture_output=True)
    args = ["--variant", "unchecked", "--threads", "1"] if command == "run" else ["--length", "1000"]
    p = subprocess.Popen([cli, command, "--input", str(series), *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)
        assert p.poll() is None  # still working (run: 80 combos of 1.5M bars; trades: L = 1000, ~4 s)
    finally:
        out, err, stopped = interrupt(p)
    assert p.returncode == 130, (p.returncode, err)
    assert b"interrupted (SIGINT)" in err and out == b"", (out[:200], err)
    print(f"{command}: exit 130 {stopped * 1000:.0f} ms after SIGINT")


def test_progress_on_by_default_on_a_terminal(cli, universe):
    """No --progress: stderr is a terminal (a pty), so the k/N line is there."""
    master, slave = pty.openpty()
    try:
        p = subprocess.run([cli, "run", "--inputs", str(universe / "s01.f6?"), "--lengths", "6"],
                           stdout=subprocess.DEVNULL, stderr=slave, timeout=120)
        os.close(slave)
        slave = None
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the pty is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    assert p.returncode == 0
    assert b"1/1 symbols" in seen and b"ETA" in seen, seen
