"""Types (issue 18 §2): `python -m mypy.stubtest hmasweep` is clean against the module under test, mypy
rejects what fails at run time (SweepResult is a struct sequence: no _asdict), the public functions and
Client have real signatures, and every builtin of _core carries a __text_signature__."""
import inspect
import os
import re
import subprocess
import sys
import textwrap

import pytest

import hmasweep
from hmasweep import _core

pytest.importorskip("mypy", reason="mypy: not installed (pip install mypy; tests/deps.sh and CI install it)")


def run_mypy(args, cwd):
    env = dict(os.environ)
    # the package under test (ctest_driver puts the build tree first on sys.path)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_stubtest_is_clean(tmp_path):
    r = run_mypy(["mypy.stubtest", "hmasweep"], tmp_path)
    print(r.stdout, r.stderr)
    assert r.returncode == 0 and "Success: no issues found" in r.stdout, r.stdout + r.stderr


PROGRAM = """\
import numpy as np
import hmasweep
r = hmasweep.sweep(hmasweep.series(bars=1000), [6])
ok_pnl: np.ndarray = r.pnl
ok_isa: "str | None" = r.isa
ok_n: "int | None" = r.threads
pnl, trades, lengths, windows, variant = r
r._asdict()                                                # E1: not a NamedTuple
bad_pnl: str = r.pnl                                       # E2: an ndarray
hmasweep.sweep_many({"A": [1.0, 2.0]}, lengths="six")      # E3: lengths are ints
c = hmasweep.Client("unix:/nowhere")
bad_variant: int = c.sweep([1.0, 2.0], [2]).variant        # E4: Client.sweep returns a SweepResult
hmasweep.trades([1.0, 2.0], length="6")                    # E5: length is an int
c.load([1.0], 7)                                           # E6: load takes one series
e: np.ndarray = hmasweep.sweep([1.0, 2.0], [2]).equity    # E7: None without periods
ok_e: np.ndarray = hmasweep.sweep([1.0, 2.0], [2], periods=2).equity
ok_dd: np.ndarray = hmasweep.sweep([1.0, 2.0], windows=[[1, 2, 1, 1, 1, 2]], periods=[0, 1]).mtm_max_drawdown
ok_ppy: "float | None" = hmasweep.sweep([1.0, 2.0], hma=[2], hma3=[2], periods=1).periods_per_year
v = hmasweep.validate(r, groups=4, walk_forward=(2, 1))
ok_pbo: float = v.pbo
hmasweep.validate(r, groups="16")                          # E8: groups is an int
"""


def test_mypy_rejects_what_fails_at_run_time(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    r = run_mypy(["mypy", "--no-incremental", "--no-error-summary", "prog.py"], tmp_path)
    errors = [line for line in r.stdout.splitlines() if ": error:" in line]
    flagged = {int(line.split(":")[1]) for line in errors}
    expected = {n + 1 for n, line in enumerate(PROGRAM.splitlines()) if "# E" in line}
    assert flagged == expected, r.stdout + r.stderr
    # hmasweep.sweep's overloads return SweepResult[...] parameters saying which fields it has (issue 28)
    assert any(re.search(r'"SweepResult(\[[^"]*\])?" has no attribute "_asdict"', line) for line in errors), r.stdout
    with pytest.raises(AttributeError):
        hmasweep.sweep(hmasweep.series(bars=1000), [6])._asdict()  # type: ignore[attr-defined]


def test_every_builtin_has_a_text_signature():
    builtins = [getattr(_core, n) for n in dir(_core) if inspect.isbuiltin(getattr(_core, n))]
    builtins += [m for n, m in vars(_core._CClient).items() if not n.startswith("__") and callable(m)]
    assert len(builtins) >= 20
    missing = [b.__qualname__ for b in builtins if not getattr(b, "__text_signature__", None)]
    assert not missing, missing
    assert str(inspect.signature(hmasweep.sweep)) == \
        "(close, lengths=None, *, windows=None, hma=None, hma3=None, fee=None, variant='best', isa=None, threads=0, " \
        "periods=None, periods_per_year=None)"
    assert list(inspect.signature(hmasweep.series).parameters) == ["seed", "bars", "vol", "start"]
    assert str(inspect.signature(_core._sweep_many)) == "(closes, windows, variant=None, isa=None, threads=0, progress=None, fee=None, /)"


def test_python_functions_are_annotated():
    for fn in (hmasweep.trades, hmasweep.trade_log, hmasweep.equity, hmasweep.sweep_many, hmasweep.report, hmasweep.Client.sweep,
               hmasweep.validate, hmasweep.plot_validation, hmasweep.Validation.to_frame,
               hmasweep.Client.__init__, hmasweep.Client.load, hmasweep.Client.live_append):
        sig = inspect.signature(fn)
        unannotated = [p for p in sig.parameters.values() if p.name != "self" and p.annotation is p.empty]
        assert not unannotated and sig.return_annotation is not sig.empty, (fn, sig)
