"""The default thread count (issue 28 item 2; src/team/team.c, docs/library.md "Threads"): a small sweep runs
on one thread, HMASWEEP_THREADS and threads= override the choice.  Each case runs in a child process,
because the library reads its environment once; OMP_NUM_THREADS=4 makes OpenMP's own default 4 threads
whatever this machine's CPU count, so the library's choice is what the report shows."""
import os
import subprocess
import sys

CHILD = """
import hmasweep as hs
close = hs.series(bars={bars})
try:
    r = hs.sweep(close, hs.grid(6, 60, {combos}){extra})
    print(r.threads)
except ValueError as e:
    print("ValueError:", e)
"""


def threads_used(bars, combos, extra="", **env):
    e = dict(os.environ, OMP_NUM_THREADS="4")
    e.pop("HMASWEEP_THREADS", None)
    e.update(env)
    out = subprocess.run([sys.executable, "-c", CHILD.format(bars=bars, combos=combos, extra=extra)], env=e,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_small_sweep_runs_on_one_thread():
    # 1,000 bars x 5 combos = 5,000 bar-combos, under the 8,192 (HS_TEAM_MIN_WORK) below which a team cannot pay
    assert threads_used(1000, 5) == "1"


def test_one_combo_runs_on_one_thread():
    assert threads_used(50000, 1) == "1"


def test_threads_argument_overrides_the_choice():
    assert threads_used(1000, 10, ", threads=3") == "3"


def test_hmasweep_threads_overrides_the_choice():
    assert threads_used(1000, 10, HMASWEEP_THREADS="3") == "3"
    assert threads_used(1000, 10, ", threads=2", HMASWEEP_THREADS="3") == "2"  # threads= wins


def test_hmasweep_threads_malformed_is_refused_by_name():
    for bad in ("abc", "0", "-2", "5000", "2x"):
        out = threads_used(1000, 10, HMASWEEP_THREADS=bad)
        assert out.startswith("ValueError:") and "HMASWEEP_THREADS=%s" % bad in out, out


def test_a_large_sweep_runs_openmps_default_whatever_the_load():
    """Over the work threshold the choice is OpenMP's default (4 here), from the work alone: no load
    reading, so a busy machine gets the same count (the team never waits for a worker that has not
    started: src/team/team.c)."""
    assert threads_used(20000, 80) == "4"
