"""The study's curves and tables (issue 11, §3): echo curve, serialization tax, spawn cost, per-bar
break-even.  Every latency point is a distribution of single round trips (p50, p99) with the placement
of client and server recorded beside it."""
import json
import os
import pickle
import subprocess
import time

import numpy as np

import arch
import frames

ECHO_SIZES = [1, 10, 100, 1000, 10000, 100000, 150000]


def _reps(n, quick):
    r = 2000 if n <= 1000 else 400 if n <= 10000 else 100
    return max(5, r // 40) if quick else r


# A point stops after its reps or after this long, whichever comes first (but never under ECHO_MIN_REPS):
# across vCPUs a 150,000-float echo on the loaded box had a 10-45 ms tail, and one curve took 9.5 s.
ECHO_POINT_BUDGET_S = 1.0
ECHO_MIN_REPS = 30


def _time_calls(call, reps):
    """Single-call latencies (ns) of `call`, at most `reps` of them, bounded by ECHO_POINT_BUDGET_S."""
    ns, t_end = [], time.perf_counter_ns() + int(ECHO_POINT_BUDGET_S * 1e9)
    for i in range(reps):
        t0 = time.perf_counter_ns()
        call()
        t1 = time.perf_counter_ns()
        ns.append(t1 - t0)
        if t1 > t_end and i + 1 >= min(reps, ECHO_MIN_REPS):
            break
    return ns


def _stats(ns):
    a = np.asarray(ns, dtype=np.float64) / 1e3  # µs
    return {"p50_us": float(np.percentile(a, 50)), "p99_us": float(np.percentile(a, 99)),
            "min_us": float(a.min()), "n": int(a.size)}


def _echo_python(conn, close, n, reps, form):
    x = np.ascontiguousarray(close[:n])
    empty = np.zeros((0, 6), dtype="<i8")
    out = memoryview(np.empty(n, dtype="<f8")).cast("B")
    call = (lambda: conn.call_study(frames.OP_ECHO, x, empty)) if form == "study" else \
        (lambda: conn.call(frames.OP_ECHO, x, empty, out=out))
    got = call()  # warm-up, and the echo must be verbatim
    if bytes(got) != x.tobytes():
        raise RuntimeError(f"echo of {n} floats is not verbatim")
    return _stats(_time_calls(call, reps))


def _package_client():
    try:
        import hmasweep
        return hmasweep.Client
    except (ImportError, AttributeError):
        return None


def _echo_package(addr, close, sizes, quick):
    """The Python package's own client (hmasweep.Client: sendmsg/recv_into in Python for unix/tcp, the
    library's C client under the GIL-free binding for shm)."""
    url = "tcp://" + addr[4:] if addr.startswith("tcp:") else addr
    c = _package_client()(url)
    res = {}
    try:
        for n in sizes:
            x = np.ascontiguousarray(close[:n])
            out = np.empty(n, dtype="<f8")
            c.echo(x, out=out)
            if out.tobytes() != x.tobytes():
                raise RuntimeError(f"package echo of {n} floats is not verbatim")
            res[str(n)] = _stats(_time_calls(lambda: c.echo(x, out=out), _reps(n, quick)))
    finally:
        c.close()
    return res


def _echo_c(env, addr, sizes, quick):
    """The C client's echo curve (hs_ipc_client echo): one JSON line per size."""
    reps = ",".join(str(_reps(n, quick)) for n in sizes)
    p = subprocess.run([env.ipc_client, "echo", "--address", addr, "--series", os.path.join(env.tmp, "series.f64"),
                        "--sizes", ",".join(map(str, sizes)), "--reps", reps,
                        "--budget-ms", str(int(ECHO_POINT_BUDGET_S * 1e3)), "--min-reps", str(ECHO_MIN_REPS)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hs_ipc_client echo {addr}: exit {p.returncode}: {p.stderr[-300:]}")
    return {str(r["n"]): {k: r[k] for k in ("p50_us", "p99_us", "min_us", "n_reps")} for r in
            (json.loads(line) for line in p.stdout.splitlines() if line.strip())}


def fit_floor_bandwidth(points):
    """The study's model T = floor + 2b/bandwidth, b = payload bytes one way, by least squares on the
    p50s weighted by 1/T (so the flat small-payload end counts as much as the steep end)."""
    b = np.array([8.0 * n for n, _ in points])
    t = np.array([v for _, v in points]) * 1e-6
    w = 1.0 / t
    A = np.stack([np.ones_like(b), 2 * b], axis=1) * w[:, None]
    (floor, inv_bw), *_ = np.linalg.lstsq(A, t * w, rcond=None)
    return {"floor_us": float(floor * 1e6), "bandwidth_gb_s": float(1.0 / inv_bw / 1e9) if inv_bw > 0 else None}


def echo_curves(env, quick, log, client_cpu):
    sizes = [n for n in ECHO_SIZES if n <= env.close.size] if not quick else [1, 100, 1000]
    other = 0 if env.server_cpu != 0 else 1
    res = {"sizes": sizes, "curves": [], "placement": {"same": [env.server_cpu, env.server_cpu],
                                                       "cross": [other, env.server_cpu]}}
    servers = [("rust", "unix"), ("rust", "tcp")]
    if env.serve_available():
        servers += [("c", "unix"), ("c", "tcp")]
        if env.serve_supports("--shm"):
            servers += [("c", "shm")]
    for engine, transport in servers:
        if engine == "rust":
            if not os.access(env.rust["safe"], os.X_OK):
                continue
            if transport == "unix":
                path = arch.unique_path(env, "echo_rust")
                argv, addr = [env.rust["safe"], "--unix", path], "unix:" + path
            else:
                port = arch.free_port()
                argv, addr = [env.rust["safe"], "--tcp", f"127.0.0.1:{port}"], f"tcp:127.0.0.1:{port}"
        else:
            argv, addr = arch.serve_argv(env, transport, "unchecked")
        try:
            srv = arch.Server(env, argv, addr)
        except RuntimeError as e:
            log(f"  echo {engine}/{transport}: could not start: {e}")
            continue
        try:
            clients = []
            if transport != "shm":
                clients += [("python", "study"), ("python", "ours")]
            if engine == "c" and _package_client() is not None:
                clients += [("python", "package")]
            if engine == "c" and os.access(env.ipc_client, os.X_OK):
                clients += [("c", "ours")]
            for client, form in clients:
                for placement in ("same", "cross"):
                    cpu = env.server_cpu if placement == "same" else other
                    if placement == "cross" and (os.cpu_count() or 1) < 2:
                        continue
                    # the full curve at the same vCPU; across vCPUs the floor and one large point
                    pts = sizes if placement == "same" else [n for n in sizes if n in (1, 1000, sizes[-1])]
                    os.sched_setaffinity(0, {cpu})
                    try:
                        if form == "package":
                            points = _echo_package(addr, env.close, pts, quick)
                        elif client == "c":
                            c_res = _echo_c_pinned(env, addr, pts, quick, cpu)
                            points = {str(n): c_res[str(n)] for n in pts}
                        else:
                            conn = frames.Conn(addr)
                            points = {str(n): _echo_python(conn, env.close, n, _reps(n, quick), form) for n in pts}
                            conn.close()
                    finally:
                        os.sched_setaffinity(0, {client_cpu})
                    curve = {"engine": engine, "transport": transport, "client": client, "form": form,
                             "placement": placement, "client_cpu": cpu, "server_cpu": env.server_cpu,
                             "points": points}
                    if placement == "same" and len(pts) >= 3:
                        curve["fit"] = fit_floor_bandwidth([(n, points[str(n)]["p50_us"]) for n in pts])
                    res["curves"].append(curve)
                    log(f"  echo {engine}/{transport} {client}/{form} {placement}: "
                        f"1 float p50 {points[str(pts[0])]['p50_us']:.1f} µs")
        finally:
            srv.stop()
    return res


def _echo_c_pinned(env, addr, pts, quick, cpu):
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})  # the child inherits this process's affinity
    try:
        return _echo_c(env, addr, pts, quick)
    finally:
        os.sched_setaffinity(0, old)


# ---- serialization -----------------------------------------------------------------------------------
def _timeit(fn, reps):
    ns = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ns.append(time.perf_counter_ns() - t0)
    return float(np.median(ns)) / 1e3


def serialization(quick):
    """150,000 float64 (a positive random walk like the close series), encode and decode, median µs."""
    rng = np.random.default_rng(42)
    x = 100.0 * np.exp(np.cumsum(rng.standard_normal(150_000) * 0.0008))
    fast, slow = (5, 2) if quick else (200, 15)
    rows = []

    def add(name, enc, dec, reps, note=""):
        blob = enc()
        back = np.asarray(dec(blob), dtype=np.float64)
        exact = back.shape == x.shape and np.array_equal(back.view(np.uint64), x.view(np.uint64))
        rows.append({"format": name, "encode_us": _timeit(enc, reps), "decode_us": _timeit(lambda: dec(blob), reps),
                     "bytes": len(blob.encode()) if isinstance(blob, str) else len(blob) if isinstance(blob, (bytes, bytearray)) else blob.size, "exact": bool(exact),
                     "note": note})

    add("raw tobytes / frombuffer", lambda: x.tobytes(), lambda b: np.frombuffer(b, dtype="<f8"), fast,
        "frombuffer is a view: no copy")
    add("raw, the study's form (astype(\"<f8\").tobytes())", lambda: x.astype("<f8").tobytes(),
        lambda b: np.frombuffer(b, dtype="<f8").copy(), fast, "astype copies even when the dtype matches")
    add("pickle protocol 5", lambda: pickle.dumps(x, protocol=5), pickle.loads, fast)
    add("json.dumps(list) / json.loads", lambda: json.dumps(x.tolist()), lambda s: np.array(json.loads(s)), slow,
        "the article's text path")
    try:
        import orjson
        add("orjson (OPT_SERIALIZE_NUMPY)", lambda: orjson.dumps(x, option=orjson.OPT_SERIALIZE_NUMPY),
            lambda b: np.array(orjson.loads(b)), slow)
    except ImportError:
        rows.append({"format": "orjson", "missing": "orjson is not installed"})
    try:
        import msgpack
        add("msgpack (list of floats)", lambda: msgpack.packb(x.tolist()), lambda b: np.array(msgpack.unpackb(b)), slow)
    except ImportError:
        rows.append({"format": "msgpack", "missing": "msgpack is not installed"})
    try:
        import pyarrow as pa

        def arrow_enc():
            sink = pa.BufferOutputStream()
            batch = pa.RecordBatch.from_arrays([pa.array(x)], names=["close"])
            with pa.ipc.new_stream(sink, batch.schema) as w:
                w.write_batch(batch)
            return sink.getvalue()

        add("Arrow IPC stream (pyarrow)", arrow_enc,
            lambda b: pa.ipc.open_stream(b).read_all().column(0).to_numpy(), fast, "decode is zero-copy")
    except ImportError:
        rows.append({"format": "Arrow IPC", "missing": "pyarrow is not installed"})
    return {"n": int(x.size), "rows": rows}


# ---- spawn ---------------------------------------------------------------------------------------------
def spawn_cost(env, quick):
    """Start an engine, one tiny echo on stdin, read the reply, wait for exit: the per-call price of a
    spawn, with no sweep behind it."""
    reps = 3 if quick else 30
    req = frames.study_request(frames.OP_ECHO, env.close[:1], np.zeros((0, 6)))
    res = {}
    cands = {"c (hmasweep wire)": [env.cli, "wire"]}
    if os.access(env.rust["safe"], os.X_OK):
        cands["rust (rust_engine_safe --stdin)"] = [env.rust["safe"], "--stdin"]
    for name, argv in cands.items():
        ns = []
        for _ in range(reps):
            t0 = time.perf_counter_ns()
            p = subprocess.run(argv, input=req, capture_output=True, preexec_fn=env.pin())
            ns.append(time.perf_counter_ns() - t0)
            if p.returncode != 0:
                raise RuntimeError(f"spawn {name}: exit {p.returncode}")
        res[name] = {"p50_ms": float(np.median(ns)) / 1e6, "min_ms": min(ns) / 1e6, "max_ms": max(ns) / 1e6,
                     "n": reps}
    return res


# ---- per-bar break-even -----------------------------------------------------------------------------
# Across vCPUs every append is a cross-vCPU wake-up each way (~100-300 µs here), so 150,000 of them took
# 44-49 s per transport on the loaded box: a bounded count gives the same per-call figure in a tenth of
# the time.  Same-vCPU rows and in process keep the full 150,000 bars.
CROSS_PERBAR_BARS = 15_000


def _batch_reference(env, n_bars, length):
    """(PnL, trades) of one combo over the first n_bars by a batch sweep (`hmasweep run`): what the last
    live append must equal, bit for bit."""
    path = os.path.join(env.tmp, f"perbar_{n_bars}.f64")
    np.ascontiguousarray(env.close[:n_bars], dtype="<f8").tofile(path)
    p = subprocess.run([env.cli, "run", "--variant", "unchecked", "--input", path, "--format", "json",
                        "--lengths", str(length)], capture_output=True, text=True, check=True)
    c = json.loads(p.stdout)["combos"][0]
    return float(c["pnl"]), int(c["trades"])


def _perbar_once(env, addr, wfile, bars, cpu):
    """hs_ipc_client perbar, pinned to `cpu` (None: this process's vCPU)."""
    old = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})  # the child inherits this process's affinity
    try:
        return subprocess.run([env.ipc_client, "perbar", "--address", addr, "--series",
                               os.path.join(env.tmp, "series.f64"), "--windows", wfile, "--bars", str(bars)],
                              capture_output=True, text=True)
    finally:
        os.sched_setaffinity(0, old)


def per_bar(env, quick, log, lengths):
    """One-bar LIVE_APPENDs over each transport against the same appends in process (the C client
    hs_ipc_client does both, so the client's own cost is the same on every row).  Each row's final
    (PnL, trades) is gated against a batch sweep over the same bars."""
    if not env.serve_available():
        return {"missing": "`hmasweep serve` (the engine issue) is not on main yet"}
    if not os.access(env.ipc_client, os.X_OK):
        return {"missing": "hs_ipc_client (the C client) is not built"}
    bars = min(env.close.size, 3000 if quick else 150_000)
    cross_bars = min(bars, 2000 if quick else CROSS_PERBAR_BARS)
    refs = {n: _batch_reference(env, n, lengths[0]) for n in {bars, cross_bars}}
    rows = {}
    transports = ["inproc", "unix", "tcp"] + (["shm"] if env.serve_supports("--shm") else [])
    wfile = os.path.join(env.tmp, "windows_perbar.i64")
    np.ascontiguousarray(env.windows[:1], dtype="<i8").tofile(wfile)
    other = 0 if env.server_cpu != 0 else 1
    for tr in transports:
        srv = None
        try:
            addr = "inproc"
            if tr != "inproc":
                argv, addr = arch.serve_argv(env, tr, "unchecked")
                srv = arch.Server(env, argv, addr)
            # in process: the client's vCPU; over a transport: client on the server's vCPU, then across
            places = [("", None, bars)] if tr == "inproc" else [(" same", env.server_cpu, bars),
                                                                (" cross", other, cross_bars)]
            for label, cpu, n in places:
                key = tr + label
                p = _perbar_once(env, addr, wfile, n, cpu)
                if p.returncode != 0 and "no live mode" in p.stderr:
                    rows[key] = {"missing": "live mode over the wire (the live issue) is not on main yet"}
                    continue
                if p.returncode != 0:
                    rows[key] = {"error": p.stderr[-300:]}
                    log(f"  perbar {key}: ERROR {p.stderr[-200:]}")
                    continue
                rows[key] = r = json.loads(p.stdout)
                r["client_cpu"] = cpu if cpu is not None else sorted(os.sched_getaffinity(0))[0]
                r["server_cpu"] = env.server_cpu if tr != "inproc" else None
                rp, rt = refs[n]
                same = r["trades"][0] == rt and np.float64(r["pnl"][0]).tobytes() == np.float64(rp).tobytes()
                r["gate"] = "ok, bit-identical" if same else f"FAIL: {r['pnl'][0]!r}/{r['trades'][0]} vs {rp!r}/{rt}"
                log(f"  perbar {key}: {r.get('total_s', 0):.3f} s for {r['appends']} appends, final {r['gate']}")
        except Exception as e:
            rows[tr] = {"error": str(e)}
        finally:
            if srv:
                srv.stop()
    return {"bars": bars, "cross_bars": cross_bars, "combos": 1, "length": int(lengths[0]), "rows": rows}


# ---- preload: the boundary of 80 window-only calls --------------------------------------------------
PRELOAD_BARS = 16                    # the kernel's work on 16 bars is well under a µs: the calls are boundary
PRELOAD_WINDOWS = [[1, 2, 1, 1, 1, 2]]  # 9 trades on the first 16 bars: a gate value that can fail
PRELOAD_CALLS = 80                   # one per combo of the default sweep


def _preload_reference(close):
    """(PnL, trades) of the preload combo in process (the Python package), or None when it is absent."""
    try:
        import hmasweep
    except ImportError:
        return None
    r = hmasweep.sweep(close, windows=np.array(PRELOAD_WINDOWS), variant="unchecked")
    return float(r.pnl[0]), int(r.trades[0])


def _preload_gate(ref, pnl, trades):
    if ref is None:
        return "not gated (the Python package is absent)"
    ok = int(trades) == ref[1] and np.float64(pnl).tobytes() == np.float64(ref[0]).tobytes()
    return "ok, bit-identical" if ok else f"FAIL: {pnl!r}/{trades} vs {ref[0]!r}/{ref[1]}"


def _preload_python(addr, x, repeats, pipelined):
    """Python client (frames.py, ours): 80 SWEEP_HANDLE calls one after another, or all 80 written back
    to back and then the 80 replies read (pipelined).  Returns totals (ns) and the last reply."""
    conn = frames.Conn(addr)
    try:
        h = frames.load(conn, x)
        totals, last = [], None
        if pipelined:
            req = frames.sweep_handle_frame(h, PRELOAD_WINDOWS) * PRELOAD_CALLS
            frames.pipelined(conn, req, PRELOAD_CALLS, 16)  # warm-up
            for _ in range(repeats):
                t0 = time.perf_counter_ns()
                bodies = frames.pipelined(conn, req, PRELOAD_CALLS, 16)
                totals.append(time.perf_counter_ns() - t0)
            if len({bytes(b) for b in bodies}) != 1:
                raise RuntimeError("the 80 pipelined replies differ")
            last = frames.decode_sweep(bytes(bodies[-1]), 1)
        else:
            frames.sweep_handle(conn, h, PRELOAD_WINDOWS)  # warm-up
            for _ in range(repeats):
                t0 = time.perf_counter_ns()
                for _ in range(PRELOAD_CALLS):
                    last = frames.sweep_handle(conn, h, PRELOAD_WINDOWS)
                totals.append(time.perf_counter_ns() - t0)
        return totals, (float(last[0][0]), int(last[1][0]))
    finally:
        conn.close()


def _preload_package(addr, x, repeats):
    """The Python package's client (hmasweep.Client; over shm it calls the library's C client)."""
    c = _package_client()(addr)
    try:
        h = c.load(x)
        r = c.sweep_handle(h, windows=np.array(PRELOAD_WINDOWS))
        totals = []
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            for _ in range(PRELOAD_CALLS):
                r = c.sweep_handle(h, windows=np.array(PRELOAD_WINDOWS))
            totals.append(time.perf_counter_ns() - t0)
        return totals, (float(r.pnl[0]), int(r.trades[0]))
    finally:
        c.close()


def _preload_c(env, addr, repeats):
    """hs_ipc_client preload: the C client, 80 sequential calls per repeat."""
    p = subprocess.run([env.ipc_client, "preload", "--address", addr, "--series", os.path.join(env.tmp, "series.f64"),
                        "--rounds", str(repeats)], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hs_ipc_client preload {addr}: exit {p.returncode}: {p.stderr[-200:]}")
    out = json.loads(p.stdout)
    return [1e6 * t for t in out["totals_ms"]], (float(out["pnl"][0]), int(out["trades"][0]))


def _preload_clients(env, transport):
    """(client, form) pairs that can reach `transport`."""
    out = [] if transport == "shm" else [("python", "sequential"), ("python", "pipelined")]
    if _package_client() is not None and transport == "shm":
        out.append(("python", "package"))
    if os.access(env.ipc_client, os.X_OK):
        out.append(("c", "sequential"))
    return out


def preload_boundary(env, quick):
    """LOAD a 16-bar series once, then 80 SWEEP_HANDLE calls of one combo: the kernel has nothing to do,
    so the 80 calls' total is their boundary.  Every transport, client and placement (same vCPU as the
    server, and across vCPUs); every row's result is gated against the same combo in process."""
    if not env.serve_available():
        return {"missing": "`hmasweep serve` (the engine issue) is not on main yet"}
    x = np.ascontiguousarray(env.close[:PRELOAD_BARS])
    ref = _preload_reference(x)
    repeats = 3 if quick else 21
    other = 0 if env.server_cpu != 0 else 1
    rows = []
    for tr in ("unix", "tcp") + (("shm",) if env.serve_supports("--shm") else ()):
        srv = None
        try:
            argv, addr = arch.serve_argv(env, tr, "unchecked")
            srv = arch.Server(env, argv, addr)
            for client, form in _preload_clients(env, tr):
                for placement, cpu in (("same", env.server_cpu), ("cross", other)):
                    row = {"transport": tr, "client": client, "form": form, "placement": placement,
                           "client_cpu": cpu, "server_cpu": env.server_cpu}
                    rows.append(row)
                    old = os.sched_getaffinity(0)
                    os.sched_setaffinity(0, {cpu})  # this process, and the C client it starts
                    try:
                        if client == "c":
                            totals, last = _preload_c(env, addr, repeats)
                        elif form == "package":
                            totals, last = _preload_package("shm:" + addr[4:] if tr == "shm" else addr, x, repeats)
                        else:
                            totals, last = _preload_python(addr, x, repeats, form == "pipelined")
                    except Exception as e:
                        row["error"] = str(e)[-300:]
                        continue
                    finally:
                        os.sched_setaffinity(0, old)
                    t = np.asarray(totals) / 1e6
                    row.update(total_ms=float(np.median(t)), min_ms=float(t.min()), max_ms=float(t.max()),
                               repeats=len(totals), gate=_preload_gate(ref, *last))
        except Exception as e:
            rows.append({"transport": tr, "error": str(e)[-300:]})
        finally:
            if srv:
                srv.stop()
    return {"bars": PRELOAD_BARS, "calls": PRELOAD_CALLS, "windows": PRELOAD_WINDOWS, "rows": rows}
