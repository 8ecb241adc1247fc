"""The CLI on Ctrl-C (issue 18 §2): a real SIGINT stops `hmasweep run` and `run --inputs` at once; what
a universe run wrote before it is whole series, in order.  The process ends by SIGINT's default action,
so a shell sees status 130 (128 + SIGINT)."""
import signal
import subprocess
import time


def start(cli, args, **kw):
    return subprocess.Popen([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_run_inputs_keeps_finished_rows(cli, tmp_path):
    for i in range(1, 13):
        subprocess.run([cli, "gen", "--output", str(tmp_path / f"s{i:02d}.f64"), "--seed", str(i), "--bars",
                        "300000"], check=True, capture_output=True)
    out = tmp_path / "rows.csv"
    with open(out, "wb") as f:
        p = subprocess.Popen([cli, "run", "--inputs", str(tmp_path / "s*.f64"), "--variant", "unchecked",
                              "--threads", "1", "--format", "csv"], stdout=f, stderr=subprocess.PIPE)
        t0 = time.monotonic()
        time.sleep(2.0)
        assert p.poll() is None  # still sweeping (12 x 300,000 bars x 80 combos, unchecked: over a minute)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
        stopped = time.monotonic() - sent
    assert p.returncode == -signal.SIGINT, p.returncode  # a shell's $? is 130
    lines = out.read_text().splitlines()
    symbols = [line.split(",")[0].strip('"') for line in lines[1:]]
    finished = sorted(set(symbols))
    assert len(finished) < 12 and len(symbols) == 80 * len(finished), (finished, len(symbols))
    assert finished == [f"s{i:02d}" for i in range(1, len(finished) + 1)]
    print(f"run --inputs: stopped {stopped * 1000:.0f} ms after SIGINT with {len(finished)} of 12 series' rows")


def test_run_stops(cli, tmp_path):
    series = tmp_path / "long.f64"
    subprocess.run([cli, "gen", "--output", str(series), "--bars", "2000000"], check=True, capture_output=True)
    p = start(cli, ["run", "--input", str(series), "--variant", "unchecked", "--threads", "1"])
    time.sleep(1.0)
    assert p.poll() is None  # still sweeping
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    print(f"run: stopped {(time.monotonic() - sent) * 1000:.0f} ms after SIGINT")
    assert p.returncode == -signal.SIGINT
