#!/usr/bin/env python3
"""Time the numba peer's sweep with both clocks: wall and this process's CPU time.

  python3 study/gap/numba_time.py --input SERIES.f64 [--repeat N] [--output OUT.json]

The peer (peers/numba/hma_numba.py) is imported unchanged and driven exactly as its own command line does
(read_series, default_grid, windows_from_length, warm-up compile on a tiny series, then `sweep`), but each
timed sweep is bracketed by time.perf_counter() *and* time.process_time().  On a shared machine the wall
clock also counts the time other processes hold the core; CPU time does not, which makes it the steady
measure there (study/gap/timing.py uses it for every arm: the Rust and C arms' CPU time comes from their
process's rusage, which is their sweep plus a few milliseconds of start-up).  NUMBA_CPU_NAME is honoured
as numba itself honours it.  Output: the peer's JSON plus "cpu_seconds" (median) and "cpu_seconds_all".
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "peers", "numba"))
import hma_numba as h  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--output")
    a = ap.parse_args()
    close = h.read_series(a.input)
    lengths = h.default_grid()
    wins = [h.windows_from_length(L) for L in lengths]
    windows = np.ascontiguousarray(np.array(wins, dtype=np.int64).reshape(-1, 6))
    tiny = h.make_close(1, 64, 0.0008, 100.0)
    h.sweep(tiny, np.array([h.windows_from_length(6)], dtype=np.int64), h.FEE)
    wall, cpu = [], []
    pnl = trades = None
    for _ in range(a.repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        pnl, trades = h.sweep(close, windows, h.FEE)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    import llvmlite
    import numba
    doc = {"variant": "numba", "bars": int(close.shape[0]), "seconds": statistics.median(wall), "seconds_all": wall,
           "cpu_seconds": statistics.median(cpu), "cpu_seconds_all": cpu, "numba": numba.__version__,
           "llvmlite": llvmlite.__version__,
           "combos": [{"length": int(L), "windows": [int(v) for v in w], "trades": int(trades[k]),
                       "pnl": float(pnl[k])} for k, (L, w) in enumerate(zip(lengths, wins))]}
    text = json.dumps(doc, indent=1)
    if a.output:
        open(a.output, "w").write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
