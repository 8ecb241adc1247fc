#!/usr/bin/env python3
"""Interleaved timing of gap-study arms: every round runs every arm once, in a fresh shuffled order.

  python3 study/gap/timing.py --series S.f64 --rounds R --arms numba,rust_safe,unchecked@clang14 \
                             [--out timing.json] [--seed 1] [--golden numba]

Each run is one process doing one full sweep (--repeat 1).  Two times are kept: the program's own wall
clock around the sweep ("seconds"; numba's import and JIT compile, start-up and reading the series are
outside it) and the CPU time of the sweep ("cpu_seconds": numba measures process_time() around it,
study/gap/numba_time.py; Rust and C report their process's rusage user+sys, the sweep plus a few ms).
On a shared machine the wall clock also counts time other processes hold the core; CPU time does not,
so the report uses CPU time and shows wall time beside it.
Per-arm samples from all rounds go to --out with each run's rusage (user/sys time, minor page faults of
the whole process) and the load average when it ran.  Every run's per-combo results are checked against
the --golden arm's (trades equal, |dPnL| <= 1e-6, docs/spec.md §5); a mismatch is an error.
A/B ratios are computed later from the same rounds (study/gap/report.py): ratio = B/A per round, median.
"""
import argparse
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arms  # noqa: E402


def gate(doc, ref):
    worst = 0.0
    a, b = doc["combos"], ref["combos"]
    if len(a) != len(b):
        raise RuntimeError("%s: %d combos, golden %d" % (doc["arm"], len(a), len(b)))
    for x, y in zip(a, b):
        if x["trades"] != y["trades"]:
            raise RuntimeError("%s: L=%s trades %s != %s" % (doc["arm"], x.get("length"), x["trades"], y["trades"]))
        worst = max(worst, abs(x["pnl"] - y["pnl"]))
    if worst > 1e-6:
        raise RuntimeError("%s: max |dPnL| %.3g > 1e-6" % (doc["arm"], worst))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--series", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--arms", required=True, help="comma-separated arms (study/gap/arms.py)")
    ap.add_argument("--out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--golden", default="numba")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()

    names = [arms.canonical(x) for x in a.arms.split(",") if x]
    golden = arms.canonical(a.golden)
    if golden not in names:
        names.insert(0, golden)
    if not a.no_build:
        arms.build(names)
    runnable = [n for n in names if arms.buildable(n)[0]]
    series = os.path.abspath(a.series)
    tmp = tempfile.mkdtemp(prefix="gaptime")
    rng = random.Random(a.seed)
    samples = {n: [] for n in runnable}
    ref = None
    t_start = time.time()
    for r in range(a.rounds):
        order = list(runnable)
        rng.shuffle(order)
        if ref is None:  # the golden arm first in round 1, so every run can be checked as it comes
            order.remove(golden)
            order.insert(0, golden)
        for n in order:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            doc = arms.run_arm(n, series, 1, tmp)
            if ref is None:
                ref = doc
            worst = gate(doc, ref)
            samples[n].append({"round": r, "seconds": doc["seconds"], "cpu_seconds": doc["cpu_seconds"],
                               "rusage": doc["rusage"], "load1": load, "max_dpnl": worst})
            print("timing: round %d/%d  %-28s %8.4f s wall %8.4f s cpu  load %.2f" % (
                r + 1, a.rounds, n, doc["seconds"], doc["cpu_seconds"], load or 0), file=sys.stderr, flush=True)
    result = {"series": os.path.basename(series), "bars": os.path.getsize(series) // 8, "rounds": a.rounds,
              "seed": a.seed, "golden": golden, "wall_seconds": time.time() - t_start,
              "golden_combo0": ref["combos"][0] if ref else None,
              "arms": {n: samples[n] for n in runnable},
              "skipped": {n: arms.buildable(n)[1] for n in names if n not in runnable}}
    text = json.dumps(result, indent=1)
    if a.out:
        open(a.out, "w").write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
