#!/usr/bin/env python3
"""The segments kernel's scaling study, one command:

  python3 study/segments/scaling.py [--cli build/release/hmasweep] [--quick] [--out reports]

Measures, through the CLI (`hmasweep run --format json --repeat R`, the median sweep time):
  - bars 10^3 .. 10^7 at the default grid (80 combos, L 6..200);
  - combos 1 .. 1,000 at 150,000 bars, grids 6:200:C and, for C >= 80, 6:1000:C (L up to 1,000);
  - threads 1 .. N (os.cpu_count()) on the default sweep (segments_omp);
and reports the time per bar-combo (which a linear kernel keeps flat), the measured FMA peak of one core
(study/segments/fma_peak.c, compiled here), the executed vector-op throughput of the default sweep against
it, and (when `perf` can sample cpu-clock) the share of time in each part of the kernel by symbol:
level1 + level2_signs + level2_masks (the d pass), lane_books (books), anchor_vec (re-anchoring and warm-up
anchors), recompute_d (uncertain bars).  Writes <out>/segments_scaling.json, <out>/segments_scaling.png
and prints a markdown summary.  Bounded: about 2-4 minutes on 2 cores (--quick: under a minute).  The
machine this project runs on is shared by several engineers: every figure carries the load average.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def run(cli, variant, threads, bars=150000, grid="6:200:80", repeat=3):
    out = subprocess.run([cli, "run", "--variant", variant, "--threads", str(threads), "--bars", str(bars),
                          "--grid", grid, "--repeat", str(repeat), "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    combos = len(r["combos"])
    return {"variant": variant, "threads": threads, "bars": bars, "grid": grid, "combos": combos,
            "isa": r["isa"], "seconds": r["seconds"], "ns_per_bar_combo": r["seconds"] / (bars * combos) * 1e9,
            "trades": sum(c["trades"] for c in r["combos"]), "windows": [c["windows"] for c in r["combos"]]}


def build_fma_peak(directory):
    """Compile study/segments/fma_peak.c into `directory`; its path, or None without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    exe = os.path.join(directory, "fma_peak")
    subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, "fma_peak.c")], check=True)
    return exe


def run_fma_peak(exe, seconds=0.3, pin=None):
    """The widest FMA width's row of one fma_peak run ({width, fma_per_ns, gflops}), best of its repeats."""
    cmd = (["taskset", "-c", str(pin)] if pin is not None else []) + [exe, str(seconds)]
    rows = [json.loads(l) for l in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()]
    return max(rows, key=lambda r: r["gflops"])


def fma_peak():
    with tempfile.TemporaryDirectory() as d:
        exe = build_fma_peak(d)
        return run_fma_peak(exe) if exe else None


def lanes_of(isa):
    """Doubles per vector (HS_VN) of a CLI-reported ISA, for the operation counts below."""
    return {"avx512": 8, "avx2": 4, "sse2": 2, "neon": 2}.get(isa, 1)


def dpass_ops(windows, bars, lanes):
    """Vector operations of the d pass (src/variants/segments.c: level1, level2_signs, and each
    block's first step), counted from the source.  Level 1 runs every step from the combo's warm-up start,
    seg + max(w2, w5) - 1 steps: 25 ops a step (5 slides of 4, raw 2, raw3 3), 33 flops (8 multiply-adds
    as 2, the 7 subtractions that run as fma(x, -1, y) on FMA ISAs as the one flop they compute).  Level 2
    runs the segment's seg steps: 13 ops (2 slides of 4, d 2, certification 3: |d|, min, the sum of d),
    13 flops (the certification counts 0).  Returns (vector ops, flops, a lane each).  Chunks rerun by
    level2_masks (only where a lane is uncertain: a few per sweep on the default series) are not counted."""
    seg = -(-bars // lanes)
    ops = flops = 0
    for w in windows:
        steps = seg + max(w[2], w[5]) - 1
        ops += 25 * steps + 13 * seg
        flops += (33 * steps + 13 * seg) * lanes
    return ops, flops


def seg_block():
    """SEG_BLOCK, the steps between re-anchors, read from src/variants/segments.c (its one definition)."""
    with open(os.path.join(ROOT, "src", "variants", "segments.c")) as f:
        return int(re.search(r"#define SEG_BLOCK (\d+)", f.read()).group(1))


def anchor_ops(windows, bars, lanes, block=None):
    """Vector operations of the re-anchors (anchor_vec): per anchor 3 per window element (subtract,
    multiply, add; each a flop) over the five close windows at every block and the two second-level
    windows at every block of the segment.  Returns (vector ops, flops, a lane each)."""
    block = block or seg_block()
    seg = -(-bars // lanes)
    ops = 0
    for w in windows:
        warm = max(w[2], w[5]) - 1
        blocks1, blocks2 = -(-seg // block) + -(-warm // block), -(-seg // block)
        ops += 3 * ((w[0] + w[1] + w[3] + w[4] + w[5]) * blocks1 + (w[2] + w[5]) * blocks2)
    return ops, ops * lanes


def executed_ops(windows, bars, lanes, block=None):
    """Vector operations the kernel executes for these combos: the d pass (dpass_ops) and the re-anchors
    (anchor_ops); the books are scalar and counted as none.  Returns (vector ops, flops counting a
    multiply-add as 2, the certification's 4 non-arithmetic ops as 0, and a lane each)."""
    d, a = dpass_ops(windows, bars, lanes), anchor_ops(windows, bars, lanes, block)
    return d[0] + a[0], d[1] + a[1]


def profile_shares(cli):
    if not shutil.which("perf"):
        return None
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "perf.data")
        r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-o", data, cli, "run", "--variant",
                            "segments", "--threads", "1", "--repeat", "15"], capture_output=True, text=True)
        if r.returncode != 0:
            return None
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "symbol"], capture_output=True,
                             text=True).stdout
    parts = {"d pass (level1, level2_signs, level2_masks)": r"^level[12]", "books (lane_books)": r"lane_books",
             "re-anchor and warm-up anchors (anchor_vec)": r"anchor_vec", "recomputes (recompute_d)": r"recompute_d",
             "layout (fill_layout)": r"fill_layout"}
    total = {k: 0.0 for k in parts}
    kernel = 0.0
    for line in rep.splitlines():
        m = re.match(r"\s*([0-9.]+)%\s+\[\.\]\s+(\S+)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        for k, pat in parts.items():
            if re.search(pat, sym):
                total[k] += pct
                kernel += pct
    return {k: v / kernel * 100 for k, v in total.items()} if kernel else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "hmasweep"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "reports"))
    a = ap.parse_args()
    load_before = os.getloadavg()
    res = {"load_before": load_before, "cpus": os.cpu_count()}
    bars = [10**3, 10**4, 10**5, 10**6] + ([] if a.quick else [10**7])
    res["bars"] = [run(a.cli, "segments", 1, bars=b, repeat=3 if b < 10**7 else 1) for b in bars]
    combos = [1, 10, 80] + ([] if a.quick else [320, 1000])
    res["combos_L200"] = [run(a.cli, "segments", 1, grid="6:200:%d" % c) if c > 1 else
                          run(a.cli, "segments", 1, grid="6:6:1") for c in combos]
    res["combos_L1000"] = [run(a.cli, "segments", 1, grid="6:1000:%d" % c) for c in combos if c >= 80]
    res["omp_one_combo"] = [run(a.cli, v, t, grid="6:6:1", repeat=9) for v, t in
                            (("segments", 1), ("segments_omp", 1), ("segments_omp", 2), ("sliding_lanes_omp", 2))]
    res["threads"] = [run(a.cli, "segments_omp", t) for t in range(1, (os.cpu_count() or 1) + 1)]
    peak = fma_peak()
    res["fma_peak"] = peak
    base = res["threads"][0]
    lanes = lanes_of(base["isa"])
    ops, flops = executed_ops(base["windows"], base["bars"], lanes)
    res["default_1T"] = {"seconds": base["seconds"], "isa": base["isa"], "vector_ops": ops, "flops": flops,
                         "gflops": flops / base["seconds"] * 1e-9,
                         "share_of_fma_peak": flops / base["seconds"] * 1e-9 / peak["gflops"] if peak else None}
    res["shares"] = profile_shares(a.cli)
    res["load_after"] = os.getloadavg()
    for k in ("bars", "combos_L200", "combos_L1000", "omp_one_combo", "threads"):
        for r in res[k]:
            r.pop("windows", None)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "segments_scaling.json"), "w") as f:
        json.dump(res, f, indent=1)

    print("| series | point | isa | seconds | ns per bar-combo |\n|---|---|---|---|---|")
    for k, key in (("bars", "bars"), ("combos_L200", "combos"), ("combos_L1000", "combos"), ("threads", "threads")):
        for r in res[k]:
            print(f"| {k} | {r[key]} | {r['isa']} | {r['seconds']:.4f} | {r['ns_per_bar_combo']:.3f} |")
    for r in res["omp_one_combo"]:
        print(f"| 1 combo (L=6) | {r['variant']} {r['threads']}T | {r['isa']} | {r['seconds'] * 1e3:.2f} ms | "
              f"{r['ns_per_bar_combo']:.3f} |")
    d = res["default_1T"]
    if peak:
        print(f"FMA peak (one core, {peak['width']}-bit): {peak['gflops']:.1f} GFLOP/s; default sweep 1T "
              f"{d['isa']}: {d['gflops']:.1f} GFLOP/s executed = {d['share_of_fma_peak'] * 100:.0f}% of it")
    if res["shares"]:
        print("time shares (perf cpu-clock, segments 1T): " +
              ", ".join(f"{k} {v:.0f}%" for k, v in res["shares"].items()))
    print(f"load average before {load_before[0]:.2f}, after {res['load_after'][0]:.2f} (shared machine)")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(1, 3, figsize=(14, 4))
        ax[0].loglog([r["bars"] for r in res["bars"]], [r["ns_per_bar_combo"] for r in res["bars"]], "o-")
        ax[0].set_xlabel("bars (80 combos)")
        ax[0].set_ylabel("ns per bar-combo")
        for k, lab in (("combos_L200", "L <= 200"), ("combos_L1000", "L <= 1000")):
            ax[1].semilogx([r["combos"] for r in res[k]], [r["ns_per_bar_combo"] for r in res[k]], "o-", label=lab)
        ax[1].set_xlabel("combos (150,000 bars)")
        ax[1].legend()
        ax[2].plot([r["threads"] for r in res["threads"]], [r["ns_per_bar_combo"] for r in res["threads"]], "o-")
        ax[2].set_xlabel("threads (default sweep)")
        for x in ax:
            x.grid(True, alpha=0.3)
        fig.suptitle("segments: time per bar-combo (%s; shared machine, load %.1f)" % (d["isa"], load_before[0]))
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "segments_scaling.png"), dpi=90)
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)


if __name__ == "__main__":
    main()
