#!/usr/bin/env python3
"""The default thread count against fixed ones, quiet and with a busy loop on every CPU (issue 28 item 2;
src/api/team.c; the table: reports/thread_choice.md).  A benchmark, not a test: it asserts nothing.

usage: PYTHONPATH=build/release/python python3 prof/thread_choice.py [--rounds N] [--out FILE.md]

For each size (bars x combos) and each condition, hs.sweep runs with threads=0 (the library's choice),
1 and 2.  Rounds interleave everything: each round runs the quiet half, then starts one busy loop per
CPU (`os.cpu_count()` processes spinning in pure Python), waits 0.3 s, runs the busy half and stops them;
inside a half the (size, threads) cells run in a shuffled order, each one call timed (the best of
`reps` calls for sweeps under 2 ms, so timer and scheduling noise do not dominate).  Each cell is the
median [min-max] over rounds; "x best" is the default's median over the faster fixed choice's median.
The load average is printed before and after.
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
CHOICES = [0, 1, 2]


def busy_loops(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--out")
    args = ap.parse_args()
    data = {}
    for bars, combos in SIZES:
        close = hs.series(bars=bars)
        lengths = {20: hs.grid(6, 60, 20), 195: list(range(6, 201)), 80: hs.grid(6, 200, 80)}[combos]
        t, _ = time_call(close, lengths, 1, 3)
        data[(bars, combos)] = (close, lengths, 5 if t < 0.002 else 1)
    cells = [(s, c) for s in data for c in CHOICES]
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
    lines.append("| size (bars x combos) | condition | default (threads=0) | threads=1 | threads=2 | default ran with | default / best fixed |")
    lines.append("|---|---|---|---|---|---|---|")
    worst = 0.0
    for size in data:
        for cond in ("quiet", "busy"):
            med = {}
            cells_txt = []
            for c in CHOICES:
                xs = results[(cond, size, c)]
                med[c] = statistics.median(xs)
                cells_txt.append("%.3f [%.3f-%.3f]" % (1e3 * med[c], 1e3 * min(xs), 1e3 * max(xs)))
            used = ran_with[(cond, size, 0)]
            used_txt = ", ".join("%d thread%s x%d" % (u, "" if u == 1 else "s", used.count(u)) for u in sorted(set(used)))
            ratio = med[0] / min(med[1], med[2])
            worst = max(worst, ratio)
            lines.append("| %d x %d | %s | %s | %s | %s | %s | %.2f |" % (size[0], size[1], cond, *cells_txt, used_txt, ratio))
    lines.append("")
    lines.append("Times in ms, median [min-max] over the rounds.  Worst default / best fixed: %.2f." % worst)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
