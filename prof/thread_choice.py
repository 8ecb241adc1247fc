#!/usr/bin/env python3
"""The default thread count against fixed ones, quiet and with a busy loop on every CPU (issue 28 item 2;
src/team/team.c; the table: reports/thread_choice.md).  A benchmark, not a test: it asserts nothing.

usage: PYTHONPATH=build/release/python python3 prof/thread_choice.py [--rounds N] [--out FILE.md] [--threshold]

Both conditions in one go: for each size (bars x combos) and each condition, hs.sweep runs with
threads=0 (the library's choice), 1 and 2.  Rounds interleave everything: each round runs the quiet
half, then starts one busy loop per CPU (`os.cpu_count()` shells running `while :; do :; done`), waits
0.3 s, runs the busy half and stops them;
inside a half the (size, threads) cells run in a shuffled order, each one call timed (the best of
5 calls for sweeps under 2 ms, of 3 under 20 ms, so timer and scheduling noise do not dominate).  Each cell is the
median [min-max] over rounds; "x best" is the default's median over the faster fixed choice's median.
The load average is printed before and after.

--threshold measures where 2 threads start to pay (the work, bars x combos, of HS_TEAM_MIN_WORK in
src/team/team.h): threads=1 against threads=2 on 2,000 bars x 4..256 combos, quiet and busy, same rounds.
"""
import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import time

import hmasweep as hs

SIZES = [(1000, 20), (2148, 195), (3000, 80), (20000, 80), (150000, 80)]
THRESHOLD_SIZES = [(2000, c) for c in (4, 8, 16, 32, 64, 128, 256)]
CHOICES = [0, 1, 2]


def busy_loops(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def stop(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def time_call(close, lengths, threads, reps):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        r = hs.sweep(close, lengths, threads=threads)
        best = min(best, time.perf_counter() - t0)
    return best, r.threads


def half(cells, data, results, condition, ran_with):
    random.shuffle(cells)
    for size, threads in cells:
        close, lengths, reps = data[size]
        t, used = time_call(close, lengths, threads, reps)
        results.setdefault((condition, size, threads), []).append(t)
        ran_with.setdefault((condition, size, threads), []).append(used)


def cpu_name():
    """lscpu's model name, family and model (the figures' CPU, as HELPERS.md asks them named)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return platform.processor()
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    get = lambda k: fields.get(k, "?").strip()  # noqa: E731
    return "%s, family %s model %s" % (get("Model name"), get("CPU family"), get("Model"))


def cell(xs):
    return "%.3f [%.3f-%.3f]" % (1e3 * statistics.median(xs), 1e3 * min(xs), 1e3 * max(xs))


def choice_table(data, results, ran_with):
    """Median [min-max] per cell; the default's median and min over the better fixed choice's."""
    lines = ["| size (bars x combos) | condition | default (threads=0) | threads=1 | threads=2 | default ran with "
             "| default / best fixed (medians) | (minima) |", "|---|---|---|---|---|---|---|---|"]
    worst = worst_min = 0.0
    for size in data:
        for cond in ("quiet", "busy"):
            xs = {c: results[(cond, size, c)] for c in CHOICES}
            med = {c: statistics.median(xs[c]) for c in CHOICES}
            low = {c: min(xs[c]) for c in CHOICES}
            used = ran_with[(cond, size, 0)]
            used_txt = ", ".join("%d thread%s x%d" % (u, "" if u == 1 else "s", used.count(u)) for u in sorted(set(used)))
            ratio, ratio_min = med[0] / min(med[1], med[2]), low[0] / min(low[1], low[2])
            worst, worst_min = max(worst, ratio), max(worst_min, ratio_min)
            lines.append("| %d x %d | %s | %s | %s | %s | %s | %.2f | %.2f |" % (
                size[0], size[1], cond, *(cell(xs[c]) for c in CHOICES), used_txt, ratio, ratio_min))
    lines.append("")
    lines.append("Times in ms, median [min-max] over the rounds.  Worst default / best fixed: %.2f (medians), "
                 "%.2f (minima)." % (worst, worst_min))
    return lines


def threshold_table(data, results):
    """threads=1 against threads=2 per work size: where 2 threads start to pay (HS_TEAM_MIN_WORK)."""
    lines = ["| bars x combos | work | condition | threads=1 | threads=2 | 1 / 2 (medians) |", "|---|---|---|---|---|---|"]
    for size in data:
        for cond in ("quiet", "busy"):
            one, two = results[(cond, size, 1)], results[(cond, size, 2)]
            lines.append("| %d x %d | %d | %s | %s | %s | %.2f |" % (size[0], size[1], size[0] * size[1], cond, cell(one),
                                                                    cell(two), statistics.median(one) / statistics.median(two)))
    lines.append("")
    lines.append("Times in ms, median [min-max] over the rounds; 1 / 2 above 1.1: 2 threads pay.")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--out")
    ap.add_argument("--threshold", action="store_true", help="threads=1 against 2 over a ladder of work sizes")
    args = ap.parse_args()
    choices = [1, 2] if args.threshold else CHOICES
    data = {}
    for bars, combos in THRESHOLD_SIZES if args.threshold else SIZES:
        close = hs.series(bars=bars)
        lengths = list(range(6, 201)) if combos == 195 else hs.grid(6, 60 if combos <= 20 else 200, combos)
        t, _ = time_call(close, lengths, 1, 3)
        data[(bars, combos)] = (close, lengths, 5 if t < 0.002 else 3 if t < 0.02 else 1)
    cells = [(s, c) for s in data for c in choices]
    results, ran_with = {}, {}
    load0 = os.getloadavg()
    t0 = time.time()
    for r in range(args.rounds):
        half(list(cells), data, results, "quiet", ran_with)
        procs = busy_loops(os.cpu_count() or 1)
        try:
            time.sleep(0.3)
            half(list(cells), data, results, "busy", ran_with)
        finally:
            stop(procs)
        time.sleep(0.3)
        print("round %d/%d done (load %.1f)" % (r + 1, args.rounds, os.getloadavg()[0]), file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    lines = []
    lines.append("CPU: %s, %d CPUs online; %d rounds in %.0f s; load average before %.2f %.2f %.2f, after %.2f %.2f %.2f"
                 % (cpu_name(), os.cpu_count(), args.rounds, time.time() - t0, *load0, *load1))
    lines.append("")
    if args.threshold:
        lines += threshold_table(data, results)
    else:
        lines += choice_table(data, results, ran_with)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
