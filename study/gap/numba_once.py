#!/usr/bin/env python3
"""Run the numba peer's sweep once on a series, with only the sweep itself instrumented under callgrind.

  valgrind --tool=callgrind --instr-atstart=no python3 study/gap/numba_once.py SERIES.f64 LIBVGCTL.so

Imports peers/numba/hma_numba.py unchanged, compiles and warms up on a tiny series (not counted), then
brackets one sweep of the default grid with CALLGRIND_START/STOP_INSTRUMENTATION (study/gap/vgctl.c).
Prints combo 0's trades and PnL so the run can be checked."""
import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "peers", "numba"))
import hma_numba as h  # noqa: E402


def main():
    series, lib = sys.argv[1], sys.argv[2]
    vg = ctypes.CDLL(lib)
    close = h.read_series(series)
    wins = np.ascontiguousarray(np.array([h.windows_from_length(L) for L in h.default_grid()], dtype=np.int64))
    tiny = h.make_close(1, 64, 0.0008, 100.0)
    h.sweep(tiny, np.array([h.windows_from_length(6)], dtype=np.int64), h.FEE)
    vg.vgctl_start()
    pnl, trades = h.sweep(close, wins, h.FEE)
    vg.vgctl_stop()
    print("combo0 trades %d pnl %r" % (trades[0], pnl[0]))


if __name__ == "__main__":
    main()
