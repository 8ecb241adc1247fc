#!/usr/bin/env python3
"""The boundary study, one command: build what it needs, time every architecture interleaved, put each
one's per-combo results through the equivalence gate, measure the echo curve, the serialization tax,
the spawn cost and the per-bar break-even, and regenerate reports/ipc.md (+ PNG plots) from the raw
JSON kept beside it (reports/ipc/raw.json).

  python3 study/ipc/run.py               # the full study (default sweep, >= 10 interleaved rounds)
  python3 study/ipc/run.py --quick       # smoke run (small series, 2 rounds, tiny curves; ctest/CI)
  python3 study/ipc/run.py --report-only # regenerate reports/ipc.md and the plots from raw.json

Placement: the client (this process) is pinned to --client-cpu and every server to --server-cpu
(default both on vCPU 1: on this VM a wake-up that crosses vCPUs costs 50-100 µs; the echo floor is
also measured across vCPUs).  Exit status 0 when all_ok, 1 when an architecture failed the gate,
2 for bad usage.
"""
import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import arch  # noqa: E402
import lanes  # noqa: E402
import micro  # noqa: E402
import preload_fast  # noqa: E402
import report  # noqa: E402


def sh(argv, **kw):
    return subprocess.run(argv, check=True, **kw)


def build(build_dir):
    """Configure and build only what the study runs (the CLI, the JSON server, the C client), and the
    Rust engine when cargo is there.  Returns notes on what could not be built."""
    notes = []
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        sh(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"], stdout=subprocess.DEVNULL)
    targets = ["hmasweep"]
    help_out = subprocess.run(["cmake", "--build", build_dir, "--target", "help"], capture_output=True,
                              text=True).stdout
    for t in ("hs_json_server", "hs_ipc_client", "_core"):
        if t in help_out:
            targets.append(t)
        else:
            notes.append(f"target {t} is not configured (its dependency is missing)" if t != "_core" else
                         "the Python package's _core is not configured (no Python headers/numpy)")
    sh(["cmake", "--build", build_dir, "-j2", "--target", *targets], stdout=subprocess.DEVNULL)
    if shutil.which("cargo"):
        sh(["cargo", "build", "--release", "--offline", "--quiet"], cwd=os.path.join(ROOT, "peers", "rust"))
    else:
        notes.append("cargo is not installed: the Rust engine rows are missing")
    return notes


def versions(env):
    def out(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "absent"

    v = {"python": platform.python_version(), "numpy": np.__version__, "cc": out(["cc", "--version"]),
         "rustc": out(["rustc", "-V"]), "kernel": platform.release()}
    for mod in ("numba", "orjson", "msgpack", "pyarrow", "matplotlib", "hmasweep"):
        try:
            m = __import__(mod)
            v[mod] = getattr(m, "__version__", None) or ".".join(map(str, getattr(m, "version", ()))) or "present"
        except ImportError:
            v[mod] = "absent"
    try:
        v["jansson"] = subprocess.run(["pkg-config", "--modversion", "jansson"], capture_output=True,
                                      text=True).stdout.strip() or "absent"
    except OSError:
        v["jansson"] = "absent"
    return v


def machine():
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    flags = open("/proc/cpuinfo").read()
    return {"cpu": cpu, "logical_cpus": os.cpu_count(), "avx2": " avx2" in flags, "avx512f": " avx512f" in flags,
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "loadavg_before": os.getloadavg(), "hypervisor": " hypervisor" in flags}


def fastest_variant(cli):
    """The fastest single-thread tier-0 variant in the registry: segments when it is registered (the
    `best` alias is its OpenMP form; one thread keeps the comparison fair on a shared 2-vCPU box), else
    sliding_lanes, else sliding, else the reference."""
    names = subprocess.run([cli, "variants"], capture_output=True, text=True).stdout
    for v in ("segments", "sliding_lanes", "sliding", "unchecked"):
        if v in names.split() or f"\n{v}" in names or names.startswith(v):
            return v
    return "unchecked"


def gate(ref, got):
    """trades equal, |dPnL| <= 1e-6, and (tier 0) bit-identical."""
    rp, rt = ref
    p, t = got
    if len(p) != len(rp):
        return {"ok": False, "why": f"{len(p)} combos, reference has {len(rp)}"}
    dp = float(np.max(np.abs(np.asarray(p, dtype=np.float64) - rp))) if len(p) else 0.0
    trades_eq = bool(np.array_equal(np.asarray(t, dtype=np.int64), rt))
    bits = bool(np.array_equal(np.asarray(p, dtype="<f8").view("<u8"), np.asarray(rp, dtype="<f8").view("<u8")))
    return {"ok": trades_eq and dp <= 1e-6 and bits, "trades_equal": trades_eq, "max_abs_dpnl": dp,
            "bit_identical": bits}


def _new_row(a):
    return {"group": a.group, "study": a.study, "kernel": a.kernel, "transport": a.transport,
            "client": a.client, "seconds_all": [], "placement_all": []}


def _summarise(row):
    s = row["seconds_all"]
    if s:
        row["median"] = float(np.median(s))
        row["min"], row["max"] = float(min(s)), float(max(s))


def run_architectures(archs, rounds, ref, places, lane_args, log):
    """Interleaved: each round runs every available architecture once, the order rotated by one per
    round, spread over the lanes (lanes.py: one worker per (client, server) vCPU pair).  Every sweep's
    results go through the gate against `ref`.  Returns {name: row}."""
    res = {a.name: _new_row(a) for a in archs}
    pool = lanes.Lanes(places, *lane_args)
    try:
        for name, why in pool.missing.items():
            res[name]["missing"] = why
            log(f"  {name}: missing: {why}")
        live = [n for n in pool.names if n not in pool.missing]

        def on_result(name, place, reply):
            row = res[name]
            if reply[0] != "ok":
                row["error"] = reply[1]
                log(f"  {name}: ERROR {reply[1]}")
                return
            _, dt, p, t = reply
            row["seconds_all"].append(dt)
            row["placement_all"].append(list(place))
            g = gate(ref, (p, t))
            if "gate" not in row or not g["ok"]:
                row["gate"] = g

        for r in range(rounds):
            order = live[r % len(live):] + live[:r % len(live)] if live else []
            pool.run_round([n for n in order if "error" not in res[n]], r, on_result)
            log(f"  round {r + 1}/{rounds} done")
    finally:
        pool.close()
    for row in res.values():
        _summarise(row)
    return res


def all_ok(raw, skip):
    """True when every architecture that ran passed the gate and every preload and per-bar row that ran
    gave the in-process result; a part whose dependency is absent is reported missing, not failed."""
    archs = raw.get("architectures", {})
    ran = [r for r in archs.values() if "missing" not in r]
    ok = ("arch" in skip or any("median" in r for r in ran)) and all(r.get("gate", {}).get("ok") for r in ran)
    ok = ok and not any("error" in r for r in ran)
    rows = list(raw.get("perbar", {}).get("rows", {}).values()) + raw.get("preload", {}).get("rows", [])
    for p in raw.get("preload_fast", {}).get("placements", []):
        ok = ok and "error" not in p and all(r["gate"]["ok"] for r in p.get("rows", []))
    for r in rows:
        if "missing" in r:
            continue
        if "error" in r or str(r.get("gate", "")).startswith("FAIL"):
            ok = False
    return bool(ok)


def gate_preload_fast(pf, ref):
    """Gate every preload-on-fast-kernel row (its last sweep) against the reference; keep only the verdict."""
    for p in pf.get("placements", []):
        for r in p.get("rows", []):
            r["gate"] = gate(ref, (r.pop("pnl"), r.pop("trades")))


def build_all(a):
    """The build step of the run (or, with --no-build, only the Rust engine, which ctest does not build)."""
    if not a.no_build:
        return build(a.build)
    if shutil.which("cargo"):
        sh(["cargo", "build", "--release", "--offline", "--quiet"], cwd=os.path.join(ROOT, "peers", "rust"))
    return []


def reference(cli, series, lengths):
    """The gate's reference: the in-process sweep of the C reference port (`hmasweep run`)."""
    p = subprocess.run([cli, "run", "--variant", "unchecked", "--input", series, "--format", "json", "--lengths",
                        ",".join(map(str, lengths))], capture_output=True, text=True, check=True)
    combos = json.loads(p.stdout)["combos"]
    return np.array([c["pnl"] for c in combos]), np.array([c["trades"] for c in combos], dtype=np.int64)


def lane_places(a, ncpu):
    """(client vCPU, server vCPU) per lane.  Two lanes (lanes.py) put each one's client and servers
    together on its own vCPU; one lane keeps --client-cpu/--server-cpu as given."""
    if a.lanes > 1 and a.client_cpu == a.server_cpu and ncpu >= 2:
        others = [c for c in range(ncpu) if c != a.server_cpu]
        return [[c, c] for c in [a.server_cpu] + others[:a.lanes - 1]]
    return [[a.client_cpu, a.server_cpu]]


def main(argv=None):
    # SIGTERM (ctest's timeout, a kill) unwinds like an exception, so every `finally` stops its servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke run: small series, 2 rounds, tiny curves")
    ap.add_argument("--report-only", action="store_true", help="regenerate the report from the raw JSON")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 10; --quick 2)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "ipc"), help="CMake build directory")
    ap.add_argument("--out", default=None, help="raw JSON and plots directory (default reports/ipc; "
                    "--quick: a temporary directory)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in --build (ctest)")
    last = (os.cpu_count() or 1) - 1
    ap.add_argument("--client-cpu", type=int, default=min(1, last))
    ap.add_argument("--server-cpu", type=int, default=min(1, last))
    ap.add_argument("--lanes", type=int, default=min(2, os.cpu_count() or 1),
                    help="architectures timed in this many lanes at once, one vCPU each (default 2 when there "
                    "are 2 vCPUs; 1 = one after another, with --client-cpu/--server-cpu)")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: arch,fast,echo,serial,spawn,perbar")
    a = ap.parse_args(argv)
    report_md = os.path.join(ROOT, "reports", "ipc.md")
    out = a.out or (tempfile.mkdtemp(prefix="ipc_quick_") if a.quick else os.path.join(ROOT, "reports", "ipc"))
    raw_path = os.path.join(out, "raw.json")
    if a.report_only:
        raw = json.load(open(raw_path))
        report.write(raw, out, report_md)
        print(f"report: {report_md} (from {raw_path})")
        return 0 if raw.get("all_ok") else 1
    ncpu = os.cpu_count() or 1
    if not (0 <= a.client_cpu < ncpu and 0 <= a.server_cpu < ncpu):
        ap.error(f"--client-cpu/--server-cpu must be in 0..{ncpu - 1}")
    rounds = a.rounds or (2 if a.quick else 10)
    skip = set(filter(None, a.skip.split(",")))
    t_start = time.time()

    def log(msg):
        print(f"[{time.time() - t_start:6.1f}s] {msg}", flush=True)

    parts = {}

    def timed(part, fn):
        """Run one part of the study, logging it and recording its wall time (raw['part_seconds'])."""
        log(part)
        t0 = time.time()
        try:
            return fn()
        finally:
            parts[part] = round(time.time() - t0, 1)

    notes = timed("build", lambda: build_all(a))
    os.sched_setaffinity(0, {a.client_cpu})
    pkg = os.path.join(a.build, "python")
    if os.path.isdir(os.path.join(pkg, "hmasweep")) and not os.environ.get("HS_IPC_NO_IN_PROCESS"):
        sys.path.insert(0, pkg)  # the Python package as built in this tree (docs/python.md)
    tmp = tempfile.mkdtemp(prefix="ipc_run_")
    try:
        cli = os.path.join(a.build, "hmasweep")
        series = os.path.join(tmp, "series.f64")
        gen = [cli, "gen", "--output", series] + (["--bars", "3000"] if a.quick else [])
        sh(gen)
        close = np.fromfile(series, dtype="<f8")
        sys.path.insert(0, os.path.join(ROOT, "peers", "numba"))
        from hma_numba import default_grid, windows_from_length
        lengths = default_grid() if not a.quick else default_grid()[::10]
        windows = np.array([windows_from_length(L) for L in lengths], dtype=np.int64)
        env = arch.Env(a.build, close, windows, a.server_cpu, tmp)
        fast = fastest_variant(cli)
        places = lane_places(a, ncpu)
        raw = {"quick": a.quick, "rounds": rounds, "bars": int(close.size), "combos": int(len(windows)),
               "lengths": [int(L) for L in lengths],
               "placement": {"client_cpu": a.client_cpu, "server_cpu": a.server_cpu, "lanes": places,
                             "note": "client = this Python process (or hs_ipc_client), server = every engine process"},
               "machine": machine(), "versions": versions(env), "fast_variant": fast, "notes": notes,
               "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
        ref = timed("reference", lambda: reference(cli, series, lengths))
        if "arch" not in skip:
            raw["architectures"] = timed(
                "architectures", lambda: run_architectures(arch.architectures(env, fast), rounds, ref, places,
                                                           (a.build, close, windows, tmp, fast), log))
            raw["preload"] = timed("preload", lambda: micro.preload_boundary(env, quick=a.quick))
        if "fast" not in skip:
            raw["preload_fast"] = timed("preload_fast", lambda: preload_fast.preload_fast(env, fast, a.quick, log))
            gate_preload_fast(raw["preload_fast"], ref)
        if "echo" not in skip:
            raw["echo"] = timed("echo", lambda: micro.echo_curves(env, quick=a.quick, log=log, client_cpu=a.client_cpu))
        if "serial" not in skip:
            raw["serialization"] = timed("serialization", lambda: micro.serialization(quick=a.quick))
        if "spawn" not in skip:
            raw["spawn"] = timed("spawn", lambda: micro.spawn_cost(env, quick=a.quick))
        if "perbar" not in skip:
            raw["perbar"] = timed("perbar", lambda: micro.per_bar(env, quick=a.quick, log=log, lengths=lengths))
        raw["part_seconds"] = parts
        raw["machine"]["loadavg_after"] = os.getloadavg()
        raw["wall_seconds"] = time.time() - t_start
        raw["all_ok"] = all_ok(raw, skip)
        os.makedirs(out, exist_ok=True)
        with open(raw_path, "w") as f:
            json.dump(raw, f, indent=1)
        report.write(raw, out, None if a.quick else report_md)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, r in raw.get("architectures", {}).items():
        state = r.get("missing") and f"missing ({r['missing']})" or r.get("error") and f"ERROR {r['error']}" \
            or f"{r['median']:.4f} s  gate {'ok' if r['gate']['ok'] else 'FAIL ' + str(r['gate'])}"
        print(f"  {name:24s} {state}")
    print(f"all_ok: {str(raw['all_ok']).lower()}   raw: {raw_path}   wall {raw['wall_seconds']:.0f} s   parts "
          + ", ".join(f"{k} {v:.0f} s" for k, v in raw.get("part_seconds", {}).items()))
    return 0 if raw["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
