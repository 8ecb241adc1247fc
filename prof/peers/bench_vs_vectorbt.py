#!/usr/bin/env python3
"""Interleaved benchmark: the vectorbt peer and the numba reference against hmasweep's `best`, one run.

  PYTHONPATH=build/release/python python3 prof/peers/bench_vs_vectorbt.py [--rounds 3] [--output OUT.json]

The default sweep (seed 42, 150,000 bars, 80 combos), all three in this one process on the same bytes
(hmasweep.series()).  Each round runs, in this order: vectorbt (peers/vectorbt/hma_vectorbt.py `run`: the
user's numba d, the sign flips, Portfolio.from_signals over 80 columns, the trade records), numba single
thread (peers/numba/hma_numba.py `sweep`), and hmasweep.sweep(close) (variant "best", the median of 3
calls).  Everything is compiled and warmed first.  Per arm: median of the rounds and min-max; the ratios
are of the medians.  Every round's trades are checked: vectorbt's and numba's per combo equal ours
(473,381 in all).  Wall clock; the load average before and after is recorded (the machine is shared).
Writes reports/vectorbt_vs_best.json unless --output says otherwise.
"""
import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import hmasweep

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cpu_name():
    with open("/proc/cpuinfo") as f:
        return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), platform.machine())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--output", default=os.path.join(ROOT, "reports", "vectorbt_vs_best.json"))
    a = ap.parse_args()
    vbt_peer = load("hma_vectorbt", "peers/vectorbt/hma_vectorbt.py")
    numba_peer = vbt_peer.numba_peer
    close = hmasweep.series()
    ours = hmasweep.sweep(close)
    windows = np.ascontiguousarray(ours.windows)
    # warm up: compile numba and vectorbt on a short series (hma_vectorbt.main does the same)
    vbt_peer.run(close[:2000], windows[:2])
    numba_peer.sweep(close[:2000], windows[:2], numba_peer.FEE)
    times = {"vectorbt": [], "numba 1T": [], "best": []}
    load_before = os.getloadavg()
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        rec = vbt_peer.run(close, windows)
        times["vectorbt"].append(time.perf_counter() - t0)
        trades, _, _ = vbt_peer.book(rec, len(windows))
        assert trades.tolist() == ours.trades.tolist(), "vectorbt's trades differ from ours"
        t0 = time.perf_counter()
        _, n_trades = numba_peer.sweep(close, windows, numba_peer.FEE)
        times["numba 1T"].append(time.perf_counter() - t0)
        assert n_trades.tolist() == ours.trades.tolist(), "numba's trades differ from ours"
        best = []
        for _ in range(3):
            t0 = time.perf_counter()
            r = hmasweep.sweep(close)
            best.append(time.perf_counter() - t0)
        assert r.trades.tolist() == ours.trades.tolist()
        times["best"].append(statistics.median(best))
    med = {k: statistics.median(v) for k, v in times.items()}
    doc = {
        "command": "PYTHONPATH=build/release/python python3 prof/peers/bench_vs_vectorbt.py --rounds %d" % a.rounds,
        "cpu": cpu_name(), "cpus": os.cpu_count(), "load_before": load_before, "load_after": os.getloadavg(),
        "vectorbt": vbt_peer.vbt.__version__, "numba": vbt_peer.numba.__version__,
        "best_variant": r.variant, "best_isa": r.isa, "best_threads": r.threads,
        "bars": int(close.shape[0]), "combos": int(len(windows)), "trades_total": int(ours.trades.sum()),
        "seconds": times, "median": med,
        "min_max": {k: [min(v), max(v)] for k, v in times.items()},
        "ratio_vs_best": {k: med[k] / med["best"] for k in times},
    }
    with open(a.output, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for k in times:
        print("%-9s median %.4f s (%.4f-%.4f)  %.0fx best" % (k, med[k], min(times[k]), max(times[k]), med[k] / med["best"]))
    print("trades equal in every round (%d); load %s -> %s; %s" % (doc["trades_total"], load_before, doc["load_after"], doc["cpu"]))


if __name__ == "__main__":
    sys.exit(main())
