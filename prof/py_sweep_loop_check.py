"""ctest prof_py_sweep_loop_smoke: prof/py_overhead's C loop (hmasweep._sweep_loop, prof/py_sweep_loop.c) runs
and times the sweep it is given (no time is asserted), and a bad variant is the library's ValueError naming it.

usage: python3 prof/py_sweep_loop_check.py BUILD_DIR/python"""
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402

from hmasweep import _sweep_loop, series, windows  # noqa: E402

close, combos = series(bars=1000), np.array([windows(6)])
seconds = _sweep_loop.sweep_loop(close, combos, "sliding", 3)
assert seconds > 0, seconds
try:
    _sweep_loop.sweep_loop(close, combos, "nope", 1)
except ValueError as e:
    assert "nope" in str(e), e
else:
    raise SystemExit("sweep_loop ran an unknown variant")
print("ok: 3 sweeps in %.6f s" % seconds)
