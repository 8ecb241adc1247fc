"""Measure the universe sweep and predict the big universe (reports/universe.md).

Measured here, interleaved, median of --repeats with min-max:
  * throughput of the kernel in bar-combos per second per core, at the default grid and at a grid up to
    L = 1,000 (the universe example's), single-threaded;
  * the same universe through `run --inputs` at 1 and 2 threads, and through hmasweep-mpi at 1-4 ranks
    (rank 0 coordinates when N > 1, so N ranks = N-1 workers; 3 and 4 ranks oversubscribe 2 cores);
Then the model: per-symbol cost, communication, imbalance, and the wall time of 3,000 symbols x 10 years
of minute bars x 1,000 lengths on 1, 8, 64 and 512 nodes of 32 cores.
"""
import argparse, json, math, os, platform, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return time.perf_counter() - t, p


def pick_variant(cli):
    out = subprocess.run([cli, "variants"], stdout=subprocess.PIPE, text=True).stdout
    for name in ("best", "segments_omp", "sliding_lanes_omp"):
        if any(line.split()[:1] == [name] for line in out.splitlines()):
            return name
    return "simd_wma_omp"


def make_universe(cli, d, count, bars_of):
    os.makedirs(d, exist_ok=True)
    exts = ["f64", "csv", "npy"]
    total = 0
    for i in range(count):
        bars = bars_of(i)
        total += bars
        subprocess.check_call([cli, "gen", "--output", f"{d}/s{i:04d}.{exts[i % 3]}", "--bars", str(bars),
                               "--seed", str(1000 + i)])
    return total


def two_hundred(cli, d, variant):
    """200 series from mixed files, 5 broken on purpose: the broken ones reported, every other symbol's
    rows identical to `hmasweep run --input FILE` of that file alone."""
    make_universe(cli, d, 195, lambda i: 3000 + 211 * (i % 17))
    broken = {"broken_nan.csv": "close\n1.0\nnan\n2.0\n", "broken_negative.csv": "close\n1.0\n-2.0\n",
              "broken_empty.f64": "", "broken_text.csv": "close\nabc\n"}
    for name, text in broken.items():
        with open(f"{d}/{name}", "w") as f:
            f.write(text)
    subprocess.check_call([cli, "gen", "--output", f"{d}/broken_short.npy", "--bars", "50", "--seed", "5"])
    p = subprocess.run([cli, "run", "--inputs", d, "--format", "csv", "--variant", variant], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    rows = {}
    for line in p.stdout.splitlines()[1:]:
        sym = line.split(",", 1)[0].strip('"')
        rows.setdefault(sym, []).append(line)
    errors = {s: r[0].split(",", 10)[10].strip('"').replace(d, "DIR") for s, r in rows.items() if r[0].split(",")[1] == ""}
    same = 0
    for name in sorted(os.listdir(d)):
        sym = name.rsplit(".", 1)[0]
        if sym in errors:
            continue
        alone = subprocess.run([cli, "run", "--input", f"{d}/{name}", "--format", "csv", "--variant", "unchecked"],
                               stdout=subprocess.PIPE, text=True).stdout.splitlines()[1:]
        mine = [",".join(r.split(",")[1:10]) for r in rows[sym]]
        same += mine == [",".join(a.split(",")[1:]) for a in alone]
    return {"symbols": len(rows), "exit": p.returncode, "errors": errors, "identical_to_alone": same,
            "good": len(rows) - len(errors)}


def summarize(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": len(xs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(ROOT, "reports"))
    a = ap.parse_args()
    cli = os.path.join(a.build, "hmasweep")
    mpi = os.path.join(a.build, "mpi", "hmasweep-mpi")
    mpirun = shutil.which("mpirun")
    variant = pick_variant(cli)
    tmp = tempfile.mkdtemp(prefix="hs_universe_report_")
    try:
        # A universe whose symbols differ in length (60k..300k bars), as real ones do.
        n_sym = 24
        bars_total = make_universe(cli, f"{tmp}/u", n_sym, lambda i: 60000 + 10000 * ((i * 7) % 25))
        grid = ["--grid", "6:200:80"]
        combos = 80
        work = bars_total * combos
        arms = {
            "local_1_thread": [cli, "run", "--inputs", f"{tmp}/u", *grid, "--format", "csv", "--variant", variant, "--threads", "1"],
            "local_2_threads": [cli, "run", "--inputs", f"{tmp}/u", *grid, "--format", "csv", "--variant", variant, "--threads", "2"],
        }
        if mpirun and os.path.exists(mpi):
            for n in (1, 2, 3, 4):
                arms[f"mpi_{n}_ranks"] = [mpirun, "--oversubscribe", "-np", str(n), "-x", "OMP_NUM_THREADS=1", mpi,
                                          "--inputs", f"{tmp}/u", *grid, "--format", "csv", "--variant", variant,
                                          "--threads", "1"]
        times = {k: [] for k in arms}
        outputs = {}
        for _ in range(a.repeats):  # interleaved
            for k, cmd in arms.items():
                t, p = run(cmd)
                if p.returncode != 0:
                    sys.exit(f"{k} failed ({p.returncode}): {p.stderr[-500:]}")
                times[k].append(t)
                outputs[k] = p.stdout
        identical = all(o == outputs["local_1_thread"] for o in outputs.values())

        # Kernel throughput per core, single-threaded: default grid, and lengths up to 1,000 on 1M bars.
        kern = {}
        for label, bars, g in (("default grid 6:200:80, 150k bars", 150000, "6:200:80"),
                               ("grid 6:1000:40, 1M bars", 1000000, "6:1000:40")):
            c = int(g.split(":")[2])
            ts = []
            for _ in range(a.repeats):
                t, p = run([cli, "run", "--bars", str(bars), "--grid", g, "--variant", variant, "--threads", "1",
                            "--format", "csv"])
                ts.append(t)
            kern[label] = {"bars": bars, "combos": c, "seconds": summarize(ts),
                           "bar_combos_per_s": bars * c / statistics.median(ts)}
        r_long = kern["grid 6:1000:40, 1M bars"]["bar_combos_per_s"]

        res = {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "kernel": platform.release()},
               "variant": variant, "universe": {"symbols": n_sym, "bars": bars_total, "combos": combos,
                                                 "bar_combos": work},
               "times": {k: summarize(v) for k, v in times.items()}, "identical_rows": identical, "kernel": kern}
        res["two_hundred"] = two_hundred(cli, f"{tmp}/u200", variant)
        # Many short series through the C API: one hs_sweep_many against a loop of hs_sweep.
        many = json.loads(subprocess.check_output([os.path.join(a.build, "universe", "hs_bench_many"), "500", "5000",
                                                   str(max(3, a.repeats)), variant, "2"], text=True))
        res["many_series"] = many
        res["model"] = model(r_long)
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "universe.json"), "w") as f:
            json.dump(res, f, indent=1)
        write_report(res, os.path.join(a.out, "universe.md"))
        print(open(os.path.join(a.out, "universe.md")).read())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def model(r):
    """The universe example on N nodes of 32 cores, one rank per core, symbols handed out one at a time."""
    symbols, bars, combos = 3000, 10 * 252 * 390, 1000  # 10 years of US-session minute bars, 1,000 lengths
    per_symbol = bars * combos / r                       # seconds on one core
    dispatch = 100e-6                                    # per task at rank 0 (a round trip + bookkeeping)
    result_bytes = combos * 16
    rows = []
    for nodes in (1, 8, 64, 512):
        workers = nodes * 32 - 1
        rounds = math.ceil(symbols / workers)
        compute = rounds * per_symbol                    # the slowest worker: whole rounds of equal symbols
        comm = symbols * dispatch + symbols * result_bytes / 1e9  # serialised at rank 0, ~1 GB/s links
        ideal = symbols * per_symbol / workers
        rows.append({"nodes": nodes, "cores": nodes * 32, "rounds": rounds, "wall_s": compute + comm,
                     "ideal_s": ideal, "efficiency": ideal / (compute + comm), "busy_cores": min(workers, symbols)})
    # Splitting each symbol into 8-combo tasks (bit-identical: hs_sweep over a combo subset) removes the cap.
    tasks = symbols * math.ceil(combos / 8)
    per_task = per_symbol / math.ceil(combos / 8)
    split = []
    for nodes in (1, 8, 64, 512):
        workers = nodes * 32 - 1
        rounds = math.ceil(tasks / workers)
        wall = rounds * per_task + tasks * dispatch / max(1, min(workers, 64))
        split.append({"nodes": nodes, "wall_s": wall, "efficiency": tasks * per_task / workers / wall})
    return {"symbols": symbols, "bars": bars, "combos": combos, "bar_combos": symbols * bars * combos,
            "rate_per_core": r, "per_symbol_s": per_symbol, "dispatch_s": dispatch, "per_symbol": rows,
            "per_combo_batch": split}


def hms(s):
    if s >= 3600:
        return f"{s / 3600:.2f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.1f} s"


def write_report(res, path):
    t = res["times"]
    m = res["model"]
    u = res["universe"]
    base = t["local_1_thread"]["median"]
    L = []
    L.append("# Universe sweep: scaling on this machine, and on paper\n")
    L.append("Regenerate: `bash mpi/universe_report` (about 4-8 minutes on 2 cores). Raw figures: `reports/universe.json`.\n")
    L.append(f"Machine: {res['machine']['cpu']}, {res['machine']['cores']} vCPUs, Linux {res['machine']['kernel']}. "
             f"Variant: `{res['variant']}`. Timings are whole commands (process start, reading the files, "
             f"output), median of {t['local_1_thread']['runs']} interleaved runs with min-max; the machine was "
             "shared with other work, so read ratios, not absolutes.\n")
    L.append(f"## Measured: {u['symbols']} symbols ({u['bars']:,} bars in all, 60k-300k each, f64/CSV/npy mixed) x {u['combos']} combos\n")
    L.append("| run | wall s (median) | min-max | bar-combos/s | per core | speed-up | efficiency |")
    L.append("|---|---|---|---|---|---|---|")
    for k, v in t.items():
        cores = 1 if k == "local_1_thread" else 2 if k == "local_2_threads" else min(2, max(1, int(k.split("_")[1]) - 1))
        workers = 1 if k.startswith("local_1") else 2 if k.startswith("local_2") else max(1, int(k.split("_")[1]) - 1)
        rate = u["bar_combos"] / v["median"]
        su = base / v["median"]
        L.append(f"| `{k}` | {v['median']:.3f} | {v['min']:.3f}-{v['max']:.3f} | {rate:.3g} | {rate / cores:.3g} | "
                 f"{su:.2f}x | {su / workers:.0%} of {workers} worker{'s' if workers > 1 else ''} |")
    L.append("")
    L.append(f"Every run's rows are byte-identical to `local_1_thread`: **{res['identical_rows']}**.\n")
    L.append("- N ranks = 1 coordinator + N-1 workers when N > 1 (the coordinator waits without spinning), so "
             "`mpi_2_ranks` has one worker and `mpi_3_ranks` two. This machine has 2 vCPUs: 4 ranks oversubscribe it, "
             "and their efficiency is the 2-core ceiling, not MPI's cost.\n")
    th = res["two_hundred"]
    L.append(f"### 200 series from mixed files, 5 broken on purpose\n")
    L.append(f"`hmasweep run --inputs DIR --format csv --variant {res['variant']}` over 195 generated series "
             f"(f64, CSV, npy; 3,000-6,400 bars) and 5 broken files: exit status {th['exit']}, {len(th['errors'])} error "
             f"rows, and {th['identical_to_alone']} of {th['good']} good symbols byte-identical to "
             "`hmasweep run --input FILE --variant unchecked` of that file alone (the reference variant, one "
             "process per file). The error rows:\n")
    for sym, msg in sorted(th["errors"].items()):
        L.append(f"- `{sym}`: {msg}")
    L.append("")
    ms = res["many_series"]
    L.append(f"### Many short series: {ms['series']} symbols x {ms['bars']:,} bars x {ms['combos']} combos, `{ms['variant']}`, {ms['threads']} threads\n")
    L.append("| through the C API | seconds (median, min-max) |")
    L.append("|---|---|")
    L.append(f"| one `hs_sweep_many` call | {ms['sweep_many_s'][0]:.3f} ({ms['sweep_many_s'][1]:.3f}-{ms['sweep_many_s'][2]:.3f}) |")
    L.append(f"| {ms['series']} `hs_sweep` calls | {ms['loop_of_sweeps_s'][0]:.3f} ({ms['loop_of_sweeps_s'][1]:.3f}-{ms['loop_of_sweeps_s'][2]:.3f}) |")
    L.append("")
    L.append(f"The pooled call is {ms['loop_of_sweeps_s'][0] / ms['sweep_many_s'][0]:.2f}x faster, with identical results "
             f"(**{ms['identical']}**): one parallel region and one tail instead of {ms['series']}, and whole 8-combo "
             "units of several series keep both cores busy where one short series cannot.\n")
    L.append("### The kernel alone, one core\n")
    L.append("| case | seconds (median, min-max) | bar-combos/s/core |")
    L.append("|---|---|---|")
    for k, v in res["kernel"].items():
        s = v["seconds"]
        L.append(f"| {k} | {s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f}) | {v['bar_combos_per_s']:.3g} |")
    L.append("")
    L.append("## The model\n")
    L.append(f"- **Work.** {m['symbols']:,} symbols x {m['bars']:,} bars (10 years x 252 days x 390 minutes) x "
             f"{m['combos']:,} lengths = {m['bar_combos']:.2e} bar-combos.")
    L.append(f"- **Per-symbol cost.** bars x combos / r, with r = {m['rate_per_core']:.3g} bar-combos/s/core measured "
             f"above at lengths up to 1,000 (the running-sum kernels cost O(1) per bar whatever the window): "
             f"**{m['per_symbol_s']:.1f} s per symbol** on one core.")
    L.append(f"- **Communication.** Per symbol, one task message out and {m['combos'] * 16:,} bytes of results back; "
             f"at {m['dispatch_s'] * 1e6:.0f} µs per task at rank 0 that is {m['symbols'] * m['dispatch_s']:.2f} s in "
             "all, serialised, and the results are 48 MB: noise against the compute. Files are read where they are.")
    L.append("- **Imbalance.** Symbols are handed out whole, one at a time: the wall time is whole rounds of "
             "symbols on the slowest worker, and no more cores than symbols can be busy.\n")
    L.append("| nodes x 32 cores | busy cores | rounds | predicted wall | ideal (perfect split) | efficiency |")
    L.append("|---|---|---|---|---|---|")
    for r in m["per_symbol"]:
        L.append(f"| {r['nodes']} ({r['cores']:,}) | {r['busy_cores']:,} | {r['rounds']} | {hms(r['wall_s'])} | "
                 f"{hms(r['ideal_s'])} | {r['efficiency']:.0%} |")
    L.append("")
    L.append("At 64 and 512 nodes there are fewer symbols than cores, so whole-symbol tasks cap the speed-up. "
             "Splitting a symbol into 8-combo tasks (each a `hs_sweep` over a combo subset, bit-identical by "
             "construction) would give:\n")
    L.append("| nodes | predicted wall | efficiency |")
    L.append("|---|---|---|")
    for r in m["per_combo_batch"]:
        L.append(f"| {r['nodes']} | {hms(r['wall_s'])} | {r['efficiency']:.0%} |")
    L.append("")
    L.append("Assumptions: one rank per core and single-threaded kernels (the measured per-core rate; a 32-core "
             "node's memory bandwidth is not the limit for an O(1)-per-bar kernel whose working set is a few rings); "
             "equal-length symbols; the per-core rate of this VM's core (a different CPU changes r, and every time "
             "above scales with 1/r); no file-system contention (each symbol is ~8 MB read once). The split-task "
             "table is a prediction for a change not built: `hmasweep-mpi` hands out whole symbols today.\n")
    with open(path, "w") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    main()
