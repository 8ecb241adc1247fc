#!/usr/bin/env python3
"""The adversarial series in the benchmark set (issue 21): flat prices, ulp-alternating prices, one price
outside the certification range, one spike, a walk over many orders of magnitude, at the sizes of the
issue's measurements (tests/test_worst_case.c --bench).  Each series runs `best` (or the variants given)
against `unchecked` in one process; with --before BINARY (test_worst_case built against an older
library) the old and the new binary alternate series by series, so both see the same load.

    python3 study/segments/adversarial.py [--reps N] [--before OLD_BINARY] [--out reports/segments_adversarial.json]
"""
import argparse
import json
import os
import platform
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERIES = ["flat", "ulp", "out-of-range", "spike", "vol-0.3"]


def run(binary, series, reps, variants):
    cmd = [binary, "--reps", str(reps), "--bench", "--series", series] + variants
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(f"{' '.join(cmd)}: no result (rc {p.returncode}): {p.stderr[-500:]}")
    return rows


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build/release/tests/test_worst_case"))
    ap.add_argument("--before", help="test_worst_case linked against the old library")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variants", default="best")
    ap.add_argument("--series", default=",".join(SERIES))
    ap.add_argument("--out")
    a = ap.parse_args()
    variants = a.variants.split(",")
    out = {"cpu": cpu_name(), "load_before": os.getloadavg(), "reps": a.reps, "rows": []}
    for series in a.series.split(","):
        arms = [("after", a.binary)] + ([("before", a.before)] if a.before else [])
        for arm, binary in arms:
            t0 = time.time()
            for row in run(binary, series, a.reps, variants):
                row["arm"] = arm
                out["rows"].append(row)
                print(f"{arm:6s} {row['series']:13s} {row['bars']:7d} bars x {row['combos']:2d}  {row['variant']:13s} "
                      f"{row['seconds']:9.4f} s  unchecked {row['unchecked_seconds']:8.4f} s  ratio {row['ratio']:8.3f}"
                      f"  ({time.time() - t0:.0f} s)", flush=True)
    out["load_after"] = os.getloadavg()
    print(f"cpu {out['cpu']}, load {out['load_before'][0]:.1f} -> {out['load_after'][0]:.1f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
