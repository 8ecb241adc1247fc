#!/usr/bin/env python3
"""Interleaved benchmark: the fastest tier-0 variants against the numba reference, one run.

  python3 study/segments/bench_vs_numba.py [--cli build/release/hmasweep] [--rounds 5] [--output OUT.json]

Each round runs, in this order: numba single thread (`sweep`), numba `prange` on 2 threads, then the CLI's
sweep for each arm below, every arm the median of 3 sweeps in one process (numba: 3 calls; the CLI:
`--repeat 3`); the default sweep (seed 42, 150,000 bars, 80
combos) everywhere.  Per arm: median of the rounds, with min-max.  Wall clock (the machine is shared:
the load average before and after is recorded; interleaving spreads other jobs' load over every arm).
Every arm's trades are checked against numba's (473,381).  Then the FMA peak of one core is measured
(study/segments/fma_peak.c) and the executed operations of the default sweep (scaling.executed_ops) are
divided by the segments arms' median times: the share of the peak (2 threads: of two cores' peak).
The hot loop's own share: each round also runs study/segments/seg_profile.c (built as seg_profile_<isa>
next to the CLI, the CLI's ISA): the kernel with per-part clocks compiled in, one thread, three profiled
sweeps interleaved with three of the library's, bit-identical results checked; the d pass's executed
operations (scaling.dpass_ops) over its measured time (median and best of all profiled sweeps) is the
hot loop's share of the peak.  Writes reports/segments_vs_numba.json unless --output says otherwise.
Bounded: about 40-70 s at 5 rounds on a quiet machine (numba's 4-7 s per single-thread sweep dominates).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "peers", "numba"))
sys.path.insert(0, HERE)

ARMS = [  # (label, variant, threads)
    ("segments 1T", "segments", 1),
    ("segments_omp 2T (best)", "segments_omp", 2),
    ("sliding_lanes 1T", "sliding_lanes", 1),
    ("sliding_lanes_omp 2T", "sliding_lanes_omp", 2),
]


# One statistic for every arm: per round, the median of REPEAT sweeps in one process (the CLI's --repeat,
# and REPEAT calls of the numba function), so no arm's later, warm repeats or outlier rejection is
# missing from another's (architecture review H-7).
REPEAT = 3


def cli_sweep(cli, variant, threads):
    out = subprocess.run([cli, "run", "--variant", variant, "--threads", str(threads), "--repeat", str(REPEAT),
                          "--format", "json"], check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    cli_sweep.windows = [c["windows"] for c in r["combos"]]
    return r["seconds"], sum(c["trades"] for c in r["combos"]), r["isa"]


def seg_profile(exe, pin):
    """One run of seg_profile_<isa>: three profiled sweeps interleaved with three library sweeps."""
    cmd = (["taskset", "-c", str(pin)] if pin is not None else []) + [exe, "--rounds", "3"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "hmasweep"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile-dir", default=None,
                    help="where seg_profile_<isa> was built (default: study/ next to the CLI)")
    ap.add_argument("--output", default=os.path.join(ROOT, "reports", "segments_vs_numba.json"))
    a = ap.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    import numpy as np
    import hma_numba as h
    import numba

    close = h.make_close(42, 150000, 0.0008, 100.0)
    windows = np.ascontiguousarray(np.array([h.windows_from_length(L) for L in h.default_grid()],
                                            dtype=np.int64).reshape(-1, 6))
    h.sweep(close[:512], windows[:1], h.FEE)  # compile both outside the timing
    numba.set_num_threads(2)
    h.sweep_prange(close[:512], windows[:1], h.FEE)
    load_before = os.getloadavg()
    times = {"numba 1T": [], "numba prange 2T": []}
    times.update({arm[0]: [] for arm in ARMS})
    isa = {}
    profiled, round_peaks, round_dpass = [], [], []
    prof_dir = a.profile_dir or os.path.join(os.path.dirname(os.path.abspath(a.cli)), "study")
    import scaling
    tmp = tempfile.TemporaryDirectory()
    peak_exe = scaling.build_fma_peak(tmp.name)
    # The hot loop and the peak it is divided by are measured back to back on the same vCPU (the host's
    # fast and slow modes change within seconds: a peak from another minute would not be comparable).
    pin = (os.cpu_count() or 1) - 1 if shutil.which("taskset") else None
    for _ in range(a.rounds):
        for label, fn in (("numba 1T", h.sweep), ("numba prange 2T", h.sweep_prange)):
            reps = []
            for _ in range(REPEAT):
                t0 = time.perf_counter()
                pnl, trades = fn(close, windows, h.FEE)
                reps.append(time.perf_counter() - t0)
                assert int(trades.sum()) == 473381, (label, int(trades.sum()))
            times[label].append(statistics.median(reps))
        # numba's prange runs on libgomp ("omp" threading layer here), whose idle workers spin on after
        # the call and took a vCPU from the next arm: segments 1T right after a prange sweep 31.2 ms
        # median, after a 0.5 s pause 21.1 ms (4 pairs, 15:00 UTC, 2026-12-03, reports/segments.md).
        time.sleep(0.5)
        for label, variant, threads in ARMS:
            sec, total, isa[label] = cli_sweep(a.cli, variant, threads)
            assert total == 473381, (label, total)
            times[label].append(sec)
        exe = os.path.join(prof_dir, "seg_profile_" + isa["segments 1T"])
        if os.path.exists(exe):
            rows = seg_profile(exe, pin)
            profiled += rows
            round_dpass.append(min(r["dpass_s"] for r in rows))
            round_peaks.append(scaling.run_fma_peak(peak_exe, 0.1, pin)["gflops"] if peak_exe else None)
    load_after = os.getloadavg()
    base1 = statistics.median(times["numba 1T"])
    rows = []
    for label, ts in times.items():
        med = statistics.median(ts)
        rows.append({"arm": label, "isa": isa.get(label, "numba"), "median_s": med, "min_s": min(ts),
                     "max_s": max(ts), "x_numba_1T": base1 / med})
    own1 = {r["arm"]: r["median_s"] for r in rows}
    result = {"rounds": a.rounds, "load_before": load_before, "load_after": load_after,
              "cpu": subprocess.run(["sh", "-c", "lscpu | grep 'Model name' | sed 's/.*: *//'"],
                                    capture_output=True, text=True).stdout.strip(),
              "numba": numba.__version__, "rows": rows,
              "segments_omp_2T_over_1T": own1["segments 1T"] / own1["segments_omp 2T (best)"]}
    peak = scaling.run_fma_peak(peak_exe) if peak_exe else None
    lanes = scaling.lanes_of(isa["segments 1T"])
    ops, flops = scaling.executed_ops(cli_sweep.windows, 150000, lanes)
    result["fma_peak"] = peak
    result["executed"] = {"vector_ops": ops, "flops": flops}
    if peak:
        for label, cores in (("segments 1T", 1), ("segments_omp 2T (best)", 2)):
            result.setdefault("share_of_fma_peak", {})[label] = flops / own1[label] * 1e-9 / (cores * peak["gflops"])
    if profiled:
        assert all(p["trades"] == 473381 for p in profiled)
        _, dflops = scaling.dpass_ops(cli_sweep.windows, 150000, lanes)
        parts = {k: [p[k] for p in profiled] for k in ("library_s", "profiled_s", "dpass_s", "anchors_s", "books_s",
                                                        "rest_s")}
        summary = {k: {"median": statistics.median(v), "min": min(v), "max": max(v)} for k, v in parts.items()}
        # Shares of the profiled sweep, per sweep, then the median (each sweep's parts add up to it).
        shares = {k: statistics.median(p[k] / p["profiled_s"] for p in profiled)
                  for k in ("dpass_s", "anchors_s", "books_s", "rest_s")}
        hot = {"isa": profiled[0]["isa"], "sweeps": len(profiled), "pinned_vcpu": pin, "dpass_flops": dflops,
               "seconds": summary, "share_of_profiled_sweep": shares,
               "recomputed_bars_per_sweep": statistics.median(p.get("recomputed_bars", 0) for p in profiled)}
        if peak:
            hot["share_of_fma_peak_median"] = dflops / summary["dpass_s"]["median"] * 1e-9 / peak["gflops"]
            hot["share_of_fma_peak_best"] = dflops / summary["dpass_s"]["min"] * 1e-9 / peak["gflops"]
        if all(round_peaks):
            # Per round: the best d pass of its three sweeps over the peak measured right after it.
            per_round = [dflops / t * 1e-9 / g for t, g in zip(round_dpass, round_peaks)]
            hot["round_peaks_gflops"] = round_peaks
            hot["share_of_round_peak"] = {"per_round": per_round, "median": statistics.median(per_round),
                                          "min": min(per_round), "max": max(per_round)}
        result["hot_loop"] = hot
    print(f"| arm | isa | median s | min-max s | x numba 1T |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['arm']} | {r['isa']} | {r['median_s']:.4f} | {r['min_s']:.4f}-{r['max_s']:.4f} | "
              f"{r['x_numba_1T']:.1f} |")
    print(f"segments_omp 2T over segments 1T: {result['segments_omp_2T_over_1T']:.2f}x; "
          f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    if peak:
        print(f"FMA peak {peak['gflops']:.1f} GFLOP/s per core ({peak['width']}-bit); executed {flops / 1e6:.0f} MFLOP "
              "per sweep; share of the peak at the median: " +
              ", ".join(f"{k} {v * 100:.0f}%" for k, v in result["share_of_fma_peak"].items()))
    if profiled:
        sm = hot["seconds"]
        print(f"hot loop (d pass), seg_profile_{hot['isa']}, {hot['sweeps']} profiled sweeps interleaved with as many "
              f"library sweeps: d pass {sm['dpass_s']['median'] * 1e3:.1f} ms median "
              f"[{sm['dpass_s']['min'] * 1e3:.1f}-{sm['dpass_s']['max'] * 1e3:.1f}] of a profiled sweep of "
              f"{sm['profiled_s']['median'] * 1e3:.1f} ms (library sweep {sm['library_s']['median'] * 1e3:.1f} ms); "
              f"{dflops / 1e6:.0f} MFLOP executed in it; {hot['recomputed_bars_per_sweep']:.0f} bars recomputed per sweep")
        print("  shares of the profiled sweep: " + ", ".join(f"{k[:-2]} {v * 100:.0f}%"
                                                           for k, v in hot["share_of_profiled_sweep"].items()))
        if peak:
            print(f"  hot loop's share of the FMA peak ({peak['gflops']:.1f} GFLOP/s): "
                  f"{hot['share_of_fma_peak_median'] * 100:.0f}% at the median d pass, "
                  f"{hot['share_of_fma_peak_best'] * 100:.0f}% at the best")
        if "share_of_round_peak" in hot:
            sr = hot["share_of_round_peak"]
            print(f"  per round (best d pass of the round / peak measured right after it, pinned to vCPU {pin}): "
                  f"median {sr['median'] * 100:.0f}% [{sr['min'] * 100:.0f}-{sr['max'] * 100:.0f}%]; round peaks "
                  + ", ".join(f"{g:.1f}" for g in round_peaks) + " GFLOP/s")
    if a.output:
        with open(a.output, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
