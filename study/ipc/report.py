"""reports/ipc.md and its PNG plots, from the raw JSON only (so --report-only regenerates them)."""
import os

import study as S

PRELOAD_BOUND_MS = 2.0  # the issue's bound on the 80 window-only calls' boundary


def _f(x, fmt="{:.3f}"):
    return "—" if x is None else fmt.format(x)


def _arch_rows(raw):
    return raw.get("architectures", {})


def _median(raw, name):
    r = _arch_rows(raw).get(name, {})
    return r.get("median")


def _echo_curve(raw, engine, transport, client, form, placement="same"):
    for c in raw.get("echo", {}).get("curves", []):
        if (c["engine"], c["transport"], c["client"], c["form"], c["placement"]) == (engine, transport, client, form, placement):
            return c
    return None


def _floor(raw, engine, transport, client="python", form="study", placement="same"):
    c = _echo_curve(raw, engine, transport, client, form, placement)
    if not c:
        return None
    p = c["points"].get("1")
    return p and p["p50_us"]


def architectures_section(raw, L):
    archs = _arch_rows(raw)
    if not archs:
        L.append("_Architectures were not run (--skip arch)._\n")
        return
    numba = _median(raw, "in_process_numba")
    inc = _median(raw, "in_process_c")
    L.append(f"{raw['bars']:,} bars × {raw['combos']} combos; {raw['rounds']} interleaved rounds (every architecture "
             "once per round, order rotated); median and min–max over rounds; time = the client's view of one sweep "
             "(request built, sent, computed, reply decoded). Kernel `unchecked` = the C line-for-line port of the "
             "study's kernel (tier 0), `naive` = the same with checked indexing, "
             f"`{raw.get('fast_variant')}` = the fastest single-thread variant here. Rust `safe`/`unchecked` = the "
             "study's two builds (peers/rust). Client forms: *study* = the article's byte-concatenated request, "
             "*ours* = zero-copy send, reply into a preallocated array.\n")
    L.append("| architecture | kernel | transport · client | median s | min–max s | vs in_process_numba | vs in_process_c "
             "| study s (M2 Max) | study ratio | gate: trades, max abs ΔPnL, bits |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    group = None
    for name, r in archs.items():
        if r["group"] != group:
            group = r["group"]
            L.append(f"| **{group}** | | | | | | | | | |")
        st = S.SWEEP_S.get(r.get("study") or "")
        st_ratio = st / S.SWEEP_S["in_process"] if st else None
        where = f"{r['transport']} · {r['client']}"
        if "missing" in r or "median" not in r:
            why = r.get("missing") or r.get("error", "no runs")
            L.append(f"| `{name}` | {r['kernel']} | {where} | missing | {why} | | | {_f(st)} | "
                     f"{_f(st_ratio, '{:.2f}×')} | |")
            continue
        g = r.get("gate", {})
        gate = ("ok" if g.get("ok") else "**FAIL**") + f": {'=' if g.get('trades_equal') else '≠'}, " \
            f"{g.get('max_abs_dpnl', float('nan')):.1e}, {'identical' if g.get('bit_identical') else 'differ'}"
        L.append(f"| `{name}` | {r['kernel']} | {where} | {r['median']:.4f} | {r['min']:.4f}–{r['max']:.4f} | "
                 f"{_f(numba and r['median'] / numba, '{:.3f}×')} | {_f(inc and r['median'] / inc, '{:.3f}×')} | "
                 f"{_f(st)} | {_f(st_ratio, '{:.2f}×')} | {gate} |")
    L.append("")
    # boundary = architecture - the same kernel in process
    L.append("**Boundary, by difference** (architecture median − in-process median of the same kernel; "
             "the sweep's own run-to-run spread is in the min–max column, so a difference inside it is noise):\n")
    pairs = [("c_batch_unix", "in_process_c"), ("c_batch_unix_naive", None), ("c_chatty_unix", "c_batch_unix"),
             ("c_spawn_stdin", "c_batch_unix"), ("c_batch_tcp", "c_batch_unix"), ("c_preload_chatty", "in_process_c"),
             ("c_batch_shm", "in_process_c"), ("json_batch", "in_process_c"), ("json_batch_orjson", "in_process_c"),
             ("rust_chatty_unix", "rust_batch_unix"), ("rust_spawn_stdin", "rust_batch_unix"),
             ("c_batch_unix_fast", "in_process_c_fast"), ("c_batch_tcp_fast", "in_process_c_fast"),
             ("c_batch_shm_fast", "in_process_c_fast"), ("c_spawn_stdin_fast", "in_process_c_fast"),
             ("json_batch_fast", "in_process_c_fast")]
    study_d = {("rust_chatty_unix", "rust_batch_unix"): S.CHATTY_EXTRA_MS, ("rust_spawn_stdin", "rust_batch_unix"): S.SPAWN_MS}
    L.append("| architecture | minus | difference ms | share of the architecture's time | study ms |")
    L.append("|---|---|---|---|---|")
    for a, b in pairs:
        ma, mb = _median(raw, a), _median(raw, b) if b else None
        if ma is None or mb is None:
            continue
        d = (ma - mb) * 1e3
        L.append(f"| `{a}` | `{b}` | {d:+.1f} | {100 * d / 1e3 / ma:.1f}% | {_f(study_d.get((a, b)), '{:.0f}')} |")
    L.append("")


FIVE_ROWS = [  # (study row, Rust engine architecture, C engine architecture, what the row is)
    ("in_process", "in_process_numba", "in_process_c", "in process (the reference)"),
    ("rust_batch_unix", "rust_batch_unix", "c_batch_unix", "one batch round trip, Unix socket"),
    ("rust_batch_unchecked", "rust_batch_unchecked", "c_batch_unix_naive",
     "the build pair (Rust: get_unchecked; C: its pair, checked indexing)"),
    ("rust_spawn_stdin", "rust_spawn_stdin", "c_spawn_stdin", "spawn per sweep, request on stdin"),
    ("rust_chatty_unix", "rust_chatty_unix", "c_chatty_unix", "one round trip per combo, series re-sent"),
]


def five_rows_section(raw, L):
    """The study's table, row for row, for both engines from this one run."""
    archs = _arch_rows(raw)
    nb, ci = _median(raw, "in_process_numba"), _median(raw, "in_process_c")
    if not archs or not (nb or ci):
        return
    L.append("**The study's five rows, both engines, this run** (median s; the study's ratio is to in-process numba; "
             "ours to in-process numba and to the in-process C sweep of the same kernel):\n")
    L.append("| study row | study s | study ratio | Rust engine: arch (kernel) | s | ÷ numba | C engine: arch (kernel) "
             "| s | ÷ in_process_c |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for st, rust, c, what in FIVE_ROWS:
        ss = S.SWEEP_S[st]
        cells = []
        for name, base in ((rust, nb), (c, ci)):
            r, m = archs.get(name, {}), _median(raw, name)
            cells.append(f"`{name}` ({r.get('kernel', '?')}) | {_f(m, '{:.3f}')} | {_f(m and base and m / base, '{:.3f}×')}")
        L.append(f"| {st}: {what} | {ss:.3f} | {ss / S.SWEEP_S['in_process']:.2f}× | " + " | ".join(cells) + " |")
    L.append("")


def lanes_line(raw):
    """How the rounds were spread over vCPUs, and whether the vCPUs agree (the in-process C sweep's median on
    each), so a reader can judge the two-lane schedule."""
    lanes = raw["placement"].get("lanes") or [[raw["placement"]["client_cpu"], raw["placement"]["server_cpu"]]]
    r = _arch_rows(raw).get("in_process_c", {})
    by = {}
    for s_, pl in zip(r.get("seconds_all", []), r.get("placement_all", [])):
        by.setdefault(pl[0], []).append(s_)
    txt = (f"{len(lanes)} lanes at once, one per vCPU ({', '.join(f'client and servers on vCPU {p[0]}' for p in lanes)}); "
           "each architecture alternates lanes round by round (study/ipc/lanes.py)" if len(lanes) > 1 else
           f"one lane: client on vCPU {lanes[0][0]}, servers on vCPU {lanes[0][1]}")
    if len(by) > 1:
        import statistics
        txt += "; in_process_c median by vCPU: " + ", ".join(
            f"vCPU {c} {statistics.median(v):.3f} s ({len(v)} runs)" for c, v in sorted(by.items()))
    return txt


def echo_section(raw, L, out):
    e = raw.get("echo")
    if not e:
        L.append("_Echo curve not run._\n")
        return
    sizes = e["sizes"]
    L.append("Round trip of an ECHO frame carrying n floats (8n bytes each way); p50 / p99 in µs over single calls. "
             f"Placement *same* = client and server pinned to vCPU {e['placement']['same'][0]}; *cross* = client on "
             f"vCPU {e['placement']['cross'][0]}, server on vCPU {e['placement']['cross'][1]}. The study: Python "
             f"client (byte concatenation), Rust server, Unix socket: floor {S.ECHO_FLOOR_US} µs, "
             f"{S.ECHO_1_TO_1000_US[0]} → {S.ECHO_1_TO_1000_US[1]} µs from 1 to 1,000 floats, "
             f"{S.ECHO_150K_US:,} µs at 150,000 floats (M2 Max).\n")
    L.append("| server · transport | client · form | placement | " + " | ".join(f"{n:,}" for n in sizes) +
             " | fit floor µs | fit GB/s |")
    L.append("|---|---|---|" + "---|" * len(sizes) + "---|---|")
    for c in e["curves"]:
        cells = []
        for n in sizes:
            p = c["points"].get(str(n))
            cells.append(f"{p['p50_us']:.1f} / {p['p99_us']:.1f}" if p else "")
        fit = c.get("fit", {})
        L.append(f"| {c['engine']} · {c['transport']} | {c['client']} · {c['form']} | {c['placement']} "
                 f"(c{c['client_cpu']}/s{c['server_cpu']}) | " + " | ".join(cells) +
                 f" | {_f(fit.get('floor_us'), '{:.1f}')} | {_f(fit.get('bandwidth_gb_s'), '{:.2f}')} |")
    study_pts = {1: S.ECHO_1_TO_1000_US[0], 1000: S.ECHO_1_TO_1000_US[1], 150000: S.ECHO_150K_US}
    L.append("| study: rust · unix | python · study | M2 Max | " + " | ".join(
        f"{study_pts[n]:,}" if n in study_pts else "" for n in sizes) + f" | {S.ECHO_FLOOR_US} | {S.BANDWIDTH_GB_S} |")
    L.append("")
    sv = _shm_vs_unix(raw)
    if sv:
        L.append(f"**Shared memory vs Unix socket, 8-byte floor, same run:** shm best p50 {sv[0]:.2f} µs "
                 f"({_curve_where(sv[1])}), Unix best p50 {sv[2]:.2f} µs ({_curve_where(sv[3])}): shm is "
                 f"**{sv[4]:.1f}×** lower (the issue asks for ≥ 10×: {'met' if sv[4] >= 10 else 'NOT met in this run'}). "
                 "Across vCPUs both sides of the shm transport spin, so a message costs a cache-line transfer; on one "
                 "vCPU the waiter must yield, and the Unix socket's best is always on one vCPU (a socket wake-up "
                 "across vCPUs costs more, see the cross rows).\n")
    L.append("![echo curve](ipc/echo.png)\n")


def serialization_section(raw, L):
    s = raw.get("serialization")
    if not s:
        L.append("_Serialization not run._\n")
        return
    rows = s["rows"]
    raw_row = next((r for r in rows if r["format"].startswith("raw tobytes")), None)
    L.append(f"{s['n']:,} float64, median µs of repeated calls in one process; *exact* = decode(encode(x)) is "
             "bit-identical to x.\n")
    L.append("| format | encode µs | decode µs | bytes | exact | encode vs raw | study µs (M2 Max) | note |")
    L.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "missing" in r:
            L.append(f"| {r['format']} | missing: {r['missing']} | | | | | | |")
            continue
        st = S.SERIAL_RAW_US if "study's form" in r["format"] else S.SERIAL_JSON_US if r["format"].startswith("json") else None
        ratio = r["encode_us"] / raw_row["encode_us"] if raw_row else None
        L.append(f"| {r['format']} | {r['encode_us']:,.1f} | {r['decode_us']:,.1f} | {r['bytes']:,} | "
                 f"{'yes' if r['exact'] else 'no'} | {_f(ratio, '{:,.0f}×')} | {_f(st, '{:,.1f}')} | {r.get('note', '')} |")
    js = next((r for r in rows if r["format"].startswith("json") and "encode_us" in r), None)
    st = next((r for r in rows if "study's form" in r["format"]), None)
    if js and st:
        L.append(f"\nThe study's ratio, JSON encode ÷ raw encode in its own form: {S.SERIAL_RATIO}× on the M2 Max; "
                 f"here **{js['encode_us'] / st['encode_us']:,.0f}×** ({js['encode_us']:,.0f} µs ÷ {st['encode_us']:.1f} µs).\n")


def spawn_section(raw, L):
    s = raw.get("spawn")
    if not s:
        L.append("_Spawn not run._\n")
        return
    L.append("Measured directly: start the engine, one 1-float echo on stdin, read the reply, wait for exit "
             "(pinned to the server vCPU). Derived as the study did: spawn-per-sweep median − batch median.\n")
    L.append("| engine | spawn p50 ms | min–max ms | derived from the sweeps, ms | study ms (derived) |")
    L.append("|---|---|---|---|---|")
    for name, r in s.items():
        a, b = ("rust_spawn_stdin", "rust_batch_unix") if name.startswith("rust") else ("c_spawn_stdin", "c_batch_unix")
        ma, mb = _median(raw, a), _median(raw, b)
        d = (ma - mb) * 1e3 if ma is not None and mb is not None else None
        L.append(f"| {name} | {r['p50_ms']:.2f} | {r['min_ms']:.2f}–{r['max_ms']:.2f} | {_f(d, '{:+.1f}')} | "
                 f"{S.SPAWN_MS if name.startswith('rust') else ''} |")
    L.append("")


def _preload_rows(raw):
    return [r for r in raw.get("preload", {}).get("rows", []) if "total_ms" in r]


def _place(r):
    return f"{r['placement']} vCPU (c{r['client_cpu']}/s{r['server_cpu']})"


def _part(raw, key, what, L):
    """raw[key] when that part ran; None when it did not, with a line saying so when it was missing."""
    p = raw.get(key)
    if p and "missing" in p:
        L.append(f"_{what}: missing: {p['missing']}._\n")
        return None
    return p


def preload_section(raw, L):
    p = _part(raw, "preload", "Preload", L)
    if not p:
        return
    n = p["calls"]
    L.append(f"**Preload, boundary only:** LOAD a {p['bars']}-bar series once, then {n} SWEEP_HANDLE calls that "
             f"carry only one combo's windows (48 bytes); the kernel's work on {p['bars']} bars is well under a µs, so "
             f"the total is the boundary of the {n} calls. *sequential* = one call after another (the study's "
             f"prediction: {n} × a round trip ≈ {S.PRELOAD_PREDICTED_MS} ms, never built); *pipelined* = the {n} "
             f"requests written back to back on one connection, then the {n} replies read (one round trip of "
             "latency plus the per-message cost; the server answers frames in order); *package* = the Python "
             "package's client (over shm it calls the library's C client). Median (min–max) of "
             f"{max((r['repeats'] for r in _preload_rows(raw)), default=0)} repeats; every row's result is gated "
             "against the same combo in process.\n")
    L.append(f"| transport | client · form | placement (client/server vCPU) | {n} calls total ms | min–max ms | "
             f"per call µs | ≤ 2 ms | gate |")
    L.append("|---|---|---|---|---|---|---|---|")
    for r in p["rows"]:
        where = f"{r.get('client', '')} · {r.get('form', '')}"
        if "total_ms" not in r:
            L.append(f"| {r['transport']} | {where} | {r.get('placement', '')} | error: "
                     f"{r.get('error', '?')[:120]} | | | | |")
            continue
        L.append(f"| {r['transport']} | {where} | {_place(r)} | {r['total_ms']:.3f} | {r['min_ms']:.3f}–"
                 f"{r['max_ms']:.3f} | {1e3 * r['total_ms'] / n:.1f} | {'**yes**' if r['total_ms'] <= 2 else 'no'} | "
                 f"{r['gate']} |")
    meet = [r for r in _preload_rows(raw) if r["total_ms"] <= 2]
    if meet:
        L.append(f"\nWithin 2 ms: " + "; ".join(f"{r['transport']} · {r['client']} {r['form']} · {_place(r)}"
                                                  for r in meet) + ".")
    L.append("")


# ---- preload behind the fast kernel (issue 21, item 4; study/ipc/preload_fast.py) ------------------------
FAST_TARGET = 0.03  # the issue: boundary (architecture - in process, same kernel) <= 3% of the sweep


def _pf_inproc(p):
    """The in-process row on the server's vCPU: the same kernel on the same vCPU (each round's reference)."""
    return next(r for r in p["rows"] if r["name"] == "inproc" and r["cpu"] == p["server_cpu"])


def _pf_row_label(r):
    return f"in process (vCPU {r['cpu']})" if r["name"] == "inproc" else f"{r['name']}, SWEEP by handle"


def pf_stats(p, r):
    """One row's figures against the in-process row, paired round by round (same round, interleaved)."""
    import numpy as np
    ref = _pf_inproc(p)
    s, s0 = np.asarray(r["seconds"]), np.asarray(ref["seconds"])
    d = 1e6 * (s - s0)
    remote = r["name"] != "inproc"
    cpu = np.asarray(r["client_cpu_us"]) + (np.asarray(r["server_cpu_us"]) if remote else 0)
    wait = np.asarray(r["client_wait_us"]) + (np.asarray(r["server_wait_us"]) if remote else 0)
    return {"median_ms": 1e3 * float(np.median(s)), "min_ms": 1e3 * float(s.min()), "max_ms": 1e3 * float(s.max()),
            "ratio": float(np.median(s) / np.median(s0)), "diff_us": float(np.median(d)),
            "diff_q": (float(np.percentile(d, 25)), float(np.percentile(d, 75))),
            "share": float(np.median(d) / 1e6 / np.median(s0)),
            "cpu_us": float(np.median(cpu)), "wait_us": float(np.median(wait)),
            "cpu_diff_us": float(np.median(cpu - np.asarray(ref["client_cpu_us"]))),
            "wait_diff_us": float(np.median(wait - np.asarray(ref["client_wait_us"])))}


def _pf_parts(p, t):
    """The boundary's parts for transport t (µs): round trips warm/cold, the tiny sweep's boundary
    warm/cold, the server's dispatch (tiny boundary - round trip), the codec steps."""
    q = p["parts"]
    x = q["transports"][t]
    codec = sum(q["codec_ns"].values()) / 1e3
    tw = x["tiny_warm_us"]["p50"] - q["inproc_tiny_us"]["p50"]
    tc = x["tiny_cold_us"]["p50"] - q["inproc_tiny_cold_us"]["p50"]
    return {"rt_warm": x["echo_warm_us"]["p50"], "rt_cold": x["echo_cold_us"]["p50"], "tiny_warm": tw, "tiny_cold": tc,
            "dispatch": tw - x["echo_warm_us"]["p50"], "codec": codec}


def _pf_place(p):
    return f"{p['placement']}, {p.get('priority', 'default priority')}: client vCPU {p['client_cpu']}, server vCPU {p['server_cpu']}"


def _pf_load(p):
    b, a = p["loadavg_before"], p.get("loadavg_after", p["loadavg_before"])
    return f"load {b[0]:.1f} → {a[0]:.1f}"


def preload_fast_section(raw, L):
    pf = _part(raw, "preload_fast", "Preload behind the fast kernel", L)
    if not pf:
        return
    L.append(f"**Preload behind the fast kernel** (issue 21): one LOAD of the whole series per connection (timed "
             f"once, below), then each round one {raw['combos']}-combo SWEEP by handle ({48 * raw['combos']:,} bytes of "
             f"windows out, {16 * raw['combos']:,} bytes of results back) over each transport, and the same kernel "
             f"(`{pf['variant']}`, one thread) in process, in an order rotated by one each round "
             "(`hs_ipc_client handle`, the library's C client; one `hmasweep serve --threads 1` on all three "
             "transports, pinned). *Boundary* = the architecture's time − the in-process sweep on the server's vCPU "
             "in the same round, median over rounds (IQR beside it); *share* = that ÷ the in-process median; the "
             f"target is ≤ {100 * FAST_TARGET:g}%. *CPU* and *wait* = the scheduler's account (schedstat) of client + "
             "server during the sweep: time on a vCPU, and time runnable but waiting for one (other jobs on the "
             "vCPU); their *Δ* is paired against the in-process sweep likewise. Every row's results are "
             "bit-identical to the in-process sweep's (checked each round in C) and gated against the reference.\n")
    L.append("| placement | row | median ms | min–max ms | × in process | boundary µs (IQR) | share | ≤ 3% | CPU µs (Δ) "
             "| wait µs (Δ) | LOAD ms | gate |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in pf["placements"]:
        if "error" in p:
            L.append(f"| {_pf_place(p)} | error: {p['error'][:200]} | | | | | | | | | | |")
            continue
        for r in p["rows"]:
            st = pf_stats(p, r)
            ref = r is _pf_inproc(p)
            g = r.get("gate", {})
            gate = "ok, bit-identical" if g.get("ok") else f"**FAIL** {g}"
            L.append(f"| {_pf_place(p)} ({p['rounds']} rounds, {_pf_load(p)}) | {_pf_row_label(r)} | "
                     f"{st['median_ms']:.2f} | {st['min_ms']:.2f}–{st['max_ms']:.2f} | "
                     + ("1 (reference) | — | — | — | " if ref else
                        f"{st['ratio']:.3f}× | {st['diff_us']:+.0f} ({st['diff_q'][0]:+.0f} … {st['diff_q'][1]:+.0f}) | "
                        f"{100 * st['share']:.2f}% | {'**yes**' if st['share'] <= FAST_TARGET else 'no'} | ")
                     + f"{st['cpu_us']:,.0f}" + ("" if ref else f" ({st['cpu_diff_us']:+,.0f})") + f" | {st['wait_us']:,.0f}"
                     + ("" if ref else f" ({st['wait_diff_us']:+,.0f})") + " | "
                     + (f"{r['load_ms']:.2f}" if r["name"] != "inproc" else "—") + f" | {gate} |")
    L.append("")
    L.append("**Where the boundary's time goes** (same run, same connections, after the rounds; µs, p50): "
             "*round trip* = an ECHO as large as the request, back to back (*warm*) and after 20 ms idle (*cold*: "
             "both sides asleep, so a wake-up each way, as after a sweep); *tiny sweep* = the same SWEEP by handle on a "
             f"{next((p['parts']['tiny_bars'] for p in pf['placements'] if 'parts' in p), 0)}-bar series minus the same "
             "sweep in process (warm / cold): the boundary with next to no kernel; *dispatch* = tiny warm − round trip "
             "warm (the server's request handling, result buffers, the client's reply decode); *codec* = the engine's "
             "codec steps of one request timed in process (request header, parse, windows check, results copied into "
             "the reply: "
             + ", ".join(f"{k} {v:.0f} ns" for k, v in next((p["parts"]["codec_ns"] for p in pf["placements"]
                                                               if "parts" in p), {}).items())
             + ").\n")
    L.append("| placement | transport | round trip warm | round trip cold | tiny sweep boundary warm | … cold | dispatch "
             "| codec | sweep boundary (above) | CPU Δ | wait Δ |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in pf["placements"]:
        if "parts" not in p:
            continue
        for t in p["parts"]["transports"]:
            x = _pf_parts(p, t)
            st = pf_stats(p, next(r for r in p["rows"] if r["name"] == t))
            L.append(f"| {_pf_place(p)} | {t} | {x['rt_warm']:.1f} | {x['rt_cold']:.1f} | {x['tiny_warm']:.1f} | "
                     f"{x['tiny_cold']:.1f} | {x['dispatch']:.1f} | {x['codec']:.2f} | {st['diff_us']:+.0f} | "
                     f"{st['cpu_diff_us']:+.0f} | {st['wait_diff_us']:+.0f} |")
    L.append("")
    L.extend(preload_fast_verdict(pf))
    L.append("")


def _pf_why(n, s, x):
    """What the time of a row over the target went to, from the parts measured in the same run."""
    noise = s["diff_q"][0] < 0 < s["diff_q"][1]
    return (f"{n} {100 * s['share']:.2f}% ({s['diff_us']:+.0f} µs, IQR {s['diff_q'][0]:+.0f} … {s['diff_q'][1]:+.0f}): "
            f"two wake-ups (the cold round trip) {x['rt_cold']:.0f} µs, dispatch {x['dispatch']:.0f} µs, codec "
            f"{x['codec']:.1f} µs; client + server used {s['cpu_diff_us']:+.0f} µs of CPU and waited "
            f"{s['wait_diff_us']:+.0f} µs for a vCPU more than the in-process sweep"
            + (" (scheduling: other jobs ran while a side that had slept waited for its vCPU)"
               if s["wait_diff_us"] > 0.5 * s["diff_us"] else "")
            + (" — the IQR includes 0: this run cannot tell it from the sweep's own spread" if noise else ""))


def preload_fast_verdict(pf):
    """One line per placement: which rows meet the target, and for those that do not, what the time went to."""
    out = []
    for p in pf.get("placements", []):
        if "rows" not in p:
            continue
        meet, miss = [], []
        for r in p["rows"]:
            if r["name"] == "inproc":
                continue
            st = pf_stats(p, r)
            x = _pf_parts(p, r["name"])
            (meet if st["share"] <= FAST_TARGET else miss).append((r["name"], st, x))
        line = f"- **{_pf_place(p)}** ({_pf_load(p)}): "
        line += ("within 3%: " + ", ".join(f"{n} {100 * s['share']:.2f}% ({s['diff_us']:+.0f} µs)" for n, s, _ in meet)
                 if meet else "no transport within 3%")
        if miss:
            line += ". Over 3%: " + "; ".join(_pf_why(n, s, x) for n, s, x in miss)
        out.append(line + ".")
    return out


def _perbar_inproc_per_call(p):
    r = p.get("rows", {}).get("inproc", {})
    return r["total_s"] / r["appends"] if "total_s" in r else None


def perbar_section(raw, L):
    p = raw.get("perbar")
    if not p:
        L.append("_Per-bar break-even not run._\n")
        return
    if "missing" in p:
        L.append(f"_Per-bar break-even: missing: {p['missing']}._\n")
        return
    rows, inproc = p["rows"], _perbar_inproc_per_call(p)
    full = p["bars"]
    L.append(f"A live session opened on the first bars (the longest window), then one LIVE_APPEND of one bar for each "
             f"later bar (combo L={p.get('length', '?')}), from the C client, against the same appends in process "
             f"(hs_live_append). In process and on the server's vCPU: every bar of the {full:,}; across vCPUs the "
             f"first {p.get('cross_bars', full):,} bars (each append there is a cross-vCPU wake-up each way; the "
             "per-call figure is the same, the total is scaled). Boundary per call = per call − in-process per "
             f"call. Each row's final (PnL, trades) is gated against a batch sweep over the same bars. The study "
             f"derived {S.BARS:,} × {S.ECHO_FLOOR_US:g} µs ≈ {S.PER_BAR_IPC_S} s of pure IPC (M2 Max, never measured).\n")
    L.append(f"| transport · placement (client/server vCPU) | appends | measured s | per call µs | boundary per call µs "
             f"| boundary for {full:,} bars, s | final (PnL, trades) = batch |")
    L.append("|---|---|---|---|---|---|---|")
    for tr, r in rows.items():
        if "error" in r or "missing" in r:
            L.append(f"| {tr} | {'missing: ' + r['missing'] if 'missing' in r else 'error: ' + r['error'][:120]} | | | | | |")
            continue
        per = r["total_s"] / r["appends"]
        b = per - inproc if inproc is not None and tr != "inproc" else None
        sv = r.get("server_cpu")
        L.append(f"| {tr} (c{r.get('client_cpu')}/s{sv if sv is not None else '—'}) | {r['appends']:,} | "
                 f"{r['total_s']:.3f} | {1e6 * per:.2f} | {_f(b and 1e6 * b, '{:.2f}')} | "
                 f"{_f(b and b * (full - r.get('history', 0)), '{:.2f}')} | {r.get('gate', '—')} |")
    L.append("\n![per-bar break-even](ipc/perbar.png)\n")


def g_section(raw, L):
    floors = {}
    for c in raw.get("echo", {}).get("curves", []):
        if "1" in c["points"]:
            key = f"{c['engine']} · {c['transport']} · {c['client']} · {c['form']} · {c['placement']}"
            floors[key] = c["points"]["1"]["p50_us"]
    inc = _median(raw, "in_process_c") or _median(raw, "in_process_numba")
    if not floors or not inc:
        return
    combos = raw["combos"]
    per_bar = None
    pb = raw.get("perbar", {}).get("rows", {}).get("inproc")
    if pb and "total_s" in pb:
        per_bar = 1e6 * pb["total_s"] / pb.get("appends", raw["perbar"]["bars"])
    L.append("G = compute per call ÷ floor (the measured 1-float echo p50 of that transport and client). Compute: "
             f"per sweep = the in-process median ({inc:.3f} s), per combo = that ÷ {combos}, per bar = the measured "
             "in-process one-bar live append (one combo)" + ("" if per_bar else " (not measured: live mode missing)") +
             f". The study: per combo {S.PER_COMBO_US:,.0f} µs / {S.ECHO_FLOOR_US:g} µs ≈ {S.G_PER_COMBO:,}, per bar "
             f"{S.PER_BAR_US} µs / {S.ECHO_FLOOR_US:g} µs ≈ 1/{S.ECHO_FLOOR_US / S.PER_BAR_US:.0f}.\n")
    L.append("| floor (transport · client) | floor µs | G per sweep | G per combo | G per bar |")
    L.append("|---|---|---|---|---|")
    for k, f in sorted(floors.items(), key=lambda kv: kv[1]):
        L.append(f"| {k} | {f:.2f} | {1e6 * inc / f:,.0f} | {1e6 * inc / combos / f:,.0f} | "
                 f"{_f(per_bar and per_bar / f, '{:.3f}')} |")
    L.append(f"| study: rust · unix · python | {S.ECHO_FLOOR_US} | {1e6 * S.SWEEP_S['in_process'] / S.ECHO_FLOOR_US:,.0f} | {S.G_PER_COMBO:,} | "
             f"{S.PER_BAR_US / S.ECHO_FLOOR_US:.3f} |")
    L.append("")


def _echo_p50(raw, engine, transport, client, form, n, placement="same"):
    c = _echo_curve(raw, engine, transport, client, form, placement)
    p = c and c["points"].get(str(n))
    return p and p["p50_us"]


def _best_floor(raw, transport):
    """(p50 µs, curve) of the lowest 1-float echo over every client, form and placement of a transport."""
    cs = [c for c in raw.get("echo", {}).get("curves", []) if c["transport"] == transport and "1" in c["points"]]
    c = min(cs, key=lambda c: c["points"]["1"]["p50_us"]) if cs else None
    return c and (c["points"]["1"]["p50_us"], c)


def _curve_where(c):
    return (f"{c['engine']} server, {c['client']} client ({c['form']}), {c['placement']} vCPU "
            f"(client {c['client_cpu']}, server {c['server_cpu']})")


def _shm_vs_unix(raw):
    """The issue's shared-memory claim from one run: (shm floor, its curve, unix floor, its curve, ratio)."""
    bs, bu = _best_floor(raw, "shm"), _best_floor(raw, "unix")
    return bs and bu and (bs[0], bs[1], bu[0], bu[1], bu[0] / bs[0])


def _shm_vs_39ns(raw):
    """§7's figure from this run: our two-process shm floor beside the quoted single-thread 39 ns."""
    sv = _shm_vs_unix(raw)
    if not sv:
        return "In this run the shared-memory curve was not measured, so there is no two-process figure to set beside 39 ns."
    shm_us, shm_c, unix_us, unix_c, _ = sv
    return (f"**In this run:** the lowest two-process shm round trip was {shm_us:.2f} µs ({_curve_where(shm_c)}), "
            f"{shm_us * 1e3 / 39:.0f}× the quoted 39 ns; the Unix socket's best was {unix_us:.2f} µs "
            f"({_curve_where(unix_c)}).")


def findings_section(raw, L):
    """The study's claims beside ours, each computed from the raw JSON."""
    med = lambda n: _median(raw, n)
    out = []
    nb, rb, rc, rs, rch = (med(n) for n in ("in_process_numba", "rust_batch_unix", "rust_batch_unchecked",
                                            "rust_spawn_stdin", "rust_chatty_unix"))
    rt = _echo_p50(raw, "c", "unix", "c", "ours", raw["bars"])
    if nb and rb:
        out.append(f"- **Rust engine vs numba** (the study's open question): rust_batch_unix {rb / nb:.2f}× numba here, "
                   f"{S.SWEEP_S['rust_batch_unix'] / S.SWEEP_S['in_process']:.2f}× on the M2 Max"
                   + (f"; the unchecked build {rc / nb:.2f}× (study {S.SWEEP_S['rust_batch_unchecked'] / S.SWEEP_S['in_process']:.2f}×)" if rc else "")
                   + f". Almost all of it is compute, not boundary: the batch round trip is {_f(rt and rt / 1e3, '{:.2f}')} "
                   f"ms (echo of {raw['bars']:,} floats, C client, §2) in a {rb:.1f} s sweep. peers/README.md and "
                   "reports/gap.md attribute the gap on x86 (rustc's x86-64 baseline target, the unsigned int→float "
                   "conversion in the unchecked build).")
    cb, ci = med("c_batch_unix"), med("in_process_c")
    if cb and ci:
        spread = _arch_rows(raw)["in_process_c"]["max"] - _arch_rows(raw)["in_process_c"]["min"]
        agree = abs(cb - ci) <= max(spread, 0.01 * ci)
        out.append(f"- **One batch round trip:** c_batch_unix − in_process_c = {1e3 * (cb - ci):+.1f} ms "
                   f"({100 * (cb - ci) / ci:+.2f}% of the sweep; the in-process sweep's own min–max spread is "
                   f"{1e3 * spread:.0f} ms). The study: ≈ 0.1 %, noise. "
                   + ("Agrees: the difference is within the run-to-run spread." if agree else
                      "Differs: the difference is larger than the run-to-run spread (see the echo curve for the "
                      "round trip's own cost)."))
    cc = med("c_chatty_unix")
    if cc and cb:
        out.append(f"- **Chatty:** c_chatty_unix − c_batch_unix = {1e3 * (cc - cb):+.0f} ms ({raw['combos'] - 1} extra "
                   f"{8 * raw['bars'] / 1e6:.1f} MB requests); rust_chatty_unix − rust_batch_unix = "
                   f"{_f(rch and rb and 1e3 * (rch - rb), '{:+.0f}')} ms; the study {S.CHATTY_EXTRA_MS:.0f} ms.")
    rows = _preload_rows(raw)
    if rows:
        meet = [r for r in rows if r["total_ms"] <= PRELOAD_BOUND_MS]
        miss = [r for r in rows if r["total_ms"] > PRELOAD_BOUND_MS]
        fmt = lambda r: f"{r['transport']} {r['client']} {r['form']} {r['placement']} {r['total_ms']:.2f}"
        out.append(f"- **Preload (never built by the study; predicted ≈ {S.PRELOAD_PREDICTED_MS} ms; the issue's bound "
                   f"{PRELOAD_BOUND_MS:g} ms; totals in ms, transport client form placement):** within the bound: "
                   + ("; ".join(map(fmt, meet)) or "none") + ". Over it: " + ("; ".join(map(fmt, miss)) or "none")
                   + ". Sequential calls pay a round trip each; "
                   "across vCPUs that is a wake-up each way, pipelining pays it once (§1, preload table).")
    sv = _shm_vs_unix(raw)
    if sv:
        out.append(f"- **Shared memory vs Unix socket** (8-byte floor, same run): shm {sv[0]:.2f} µs ({_curve_where(sv[1])}) "
                   f"vs Unix {sv[2]:.2f} µs ({_curve_where(sv[3])}): **{sv[4]:.1f}×** lower; the issue asks ≥ 10×: "
                   + ("met." if sv[4] >= 10 else "NOT met in this run."))
    cs = med("c_spawn_stdin")
    if rs and rb:
        out.append(f"- **Spawn:** rust_spawn_stdin − rust_batch_unix = {1e3 * (rs - rb):+.0f} ms, c_spawn_stdin − "
                   f"c_batch_unix = {_f(cs and cb and 1e3 * (cs - cb), '{:+.0f}')} ms (the study: {S.SPAWN_MS:.0f} ms). "
                   "A difference of two multi-second medians is within their spread; the direct measurement (§4) is "
                   "the better figure.")
    js, jo, fast_in = med("json_batch"), med("json_batch_orjson"), med("in_process_c_fast")
    if js and ci:
        out.append(f"- **JSON end to end** (jansson server, json/orjson client): json_batch − in_process_c = "
                   f"{1e3 * (js - ci):+.0f} ms, orjson {_f(jo and 1e3 * (jo - ci), '{:+.0f}')} ms. Behind the fastest "
                   f"kernel: json_batch_fast {_f(med('json_batch_fast'), '{:.4f}')} s vs {_f(fast_in, '{:.4f}')} s in process.")
    for b in ("c_batch_unix_fast", "c_batch_tcp_fast", "c_batch_shm_fast", "c_spawn_stdin_fast"):
        m = med(b)
        if m and fast_in:
            out.append(f"- **{b}:** {m:.4f} s vs {fast_in:.4f} s in process: the boundary is "
                       f"{100 * (m - fast_in) / m:.0f}% of the time behind a {fast_in * 1e3:.1f} ms kernel.")
    if raw.get("preload_fast", {}).get("placements"):
        out.append("- **Preload behind the fast kernel** (LOAD once, then the whole sweep by handle, against the same "
                   "kernel in process in the same rounds; the issue's target: boundary ≤ 3% of the sweep; §1):")
        out.extend("  " + line for line in preload_fast_verdict(raw["preload_fast"]))
    p1 = _echo_p50(raw, "rust", "unix", "python", "study", 1)
    pN = _echo_p50(raw, "rust", "unix", "python", "study", raw["bars"])
    if p1:
        out.append(f"- **Echo, the study's own setup** (Rust engine, Unix socket, Python client in the study's form, "
                   f"client and server on one vCPU): floor {p1:.1f} µs (study {S.ECHO_FLOOR_US}), {raw['bars']:,} floats "
                   f"{_f(pN, '{:,.0f}')} µs (study {S.ECHO_150K_US:,}). "
                   + (f"The floor is {p1 / S.ECHO_FLOOR_US:.1f}× the study's: on this 2-vCPU KVM guest client and server "
                      "share one vCPU, so every round trip is two context switches; across vCPUs (§2) it is two "
                      "wake-ups." if p1 > S.ECHO_FLOOR_US else "The floor is at or below the study's."))
    if out:
        L.append("## 0. Findings: the study's claims beside ours\n")
        L.extend(out)
        L.append("")


def plots(raw, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ["matplotlib is not installed: no plots"]
    made = []
    e = raw.get("echo")
    if e:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        for c in e["curves"]:
            if c["placement"] != "same":
                continue
            xs = [int(n) for n in c["points"]]
            ax.plot(xs, [c["points"][str(n)]["p50_us"] for n in xs], marker="o",
                    label=f"{c['engine']} server, {c['transport']}, {c['client']} client ({c['form']})")
        ax.plot([1, 1000, 150000], [S.ECHO_1_TO_1000_US[0], S.ECHO_1_TO_1000_US[1], S.ECHO_150K_US], "k--", marker="s",
                label="study: Rust server, unix, Python client (M2 Max)")
        ax.set_xscale("log"); ax.set_yscale("log")
        ax.set_xlabel("floats per echo (8 bytes each, each way)"); ax.set_ylabel("round trip p50 (µs)")
        ax.set_title(f"Echo curve (client and server on vCPU {e['placement']['same'][0]})")
        ax.grid(True, which="both", alpha=0.3); ax.legend(fontsize=7)
        fig.tight_layout(); fig.savefig(os.path.join(out, "echo.png"), dpi=110); plt.close(fig)
        made.append("echo.png")
    archs = {k: v for k, v in raw.get("architectures", {}).items() if "median" in v}
    if archs:
        fig, ax = plt.subplots(figsize=(9, 0.35 * len(archs) + 1.5))
        names = list(archs)[::-1]
        ax.barh(range(len(names)), [archs[n]["median"] for n in names], color="tab:blue", label="ours (this machine)")
        err = [[archs[n]["median"] - archs[n]["min"] for n in names], [archs[n]["max"] - archs[n]["median"] for n in names]]
        ax.errorbar([archs[n]["median"] for n in names], range(len(names)), xerr=err, fmt="none", ecolor="k", lw=0.8)
        st = [S.SWEEP_S.get(archs[n].get("study") or "", None) for n in names]
        ys = [i for i, v in enumerate(st) if v]
        ax.scatter([st[i] for i in ys], ys, color="tab:red", marker="D", zorder=3, label="study (M2 Max), same row")
        ax.set_yticks(range(len(names))); ax.set_yticklabels(names, fontsize=8)
        ax.set_xlabel("sweep seconds (median, min–max)"); ax.set_title("Architectures: ours beside the study's")
        ax.legend(fontsize=8); ax.grid(True, axis="x", alpha=0.3)
        fig.tight_layout(); fig.savefig(os.path.join(out, "architectures.png"), dpi=110); plt.close(fig)
        made.append("architectures.png")
    p = raw.get("perbar", {})
    if p.get("rows"):
        rows = {k: v for k, v in p["rows"].items() if "total_s" in v}
        if rows:
            fig, ax = plt.subplots(figsize=(7, 4))
            ks = list(rows)
            # the total for every bar after the history: measured, or scaled from the bounded cross-vCPU rows
            full = [rows[k]["total_s"] / rows[k]["appends"] * (p["bars"] - rows[k].get("history", 0)) for k in ks]
            ax.bar(ks, full, color="tab:green", label="C client (across vCPUs: scaled from the bounded count)")
            ax.axhline(S.PER_BAR_IPC_S, color="tab:red", ls="--",
                       label=f"study: derived {S.BARS:,} × {S.ECHO_FLOOR_US:g} µs (boundary only)")
            inc = _median(raw, "in_process_numba")
            if inc:
                ax.axhline(inc, color="k", ls=":", label="the whole batch sweep in process (numba)")
            ax.set_ylabel(f"seconds for {p['bars']:,} one-bar appends"); ax.set_title("Per-bar break-even")
            ax.legend(fontsize=8); fig.tight_layout(); fig.savefig(os.path.join(out, "perbar.png"), dpi=110); plt.close(fig)
            made.append("perbar.png")
    return made


def write(raw, out, report_md):
    os.makedirs(out, exist_ok=True)
    plots(raw, out)
    if report_md is None:
        return
    L = []
    m, v, pl = raw["machine"], raw["versions"], raw["placement"]
    L.append("# The boundary study: what it costs to put the kernel behind a process boundary\n")
    L.append("Generated by `python3 study/ipc/run.py` from `reports/ipc/raw.json` (regenerate the text and plots "
             "alone with `--report-only`). Issue 11; the study is docs/spec.md §7 and the article in `shared/seed/`.\n")
    L.append(f"**all_ok: {str(raw.get('all_ok')).lower()}** — every architecture that ran gave per-combo (PnL, "
             "trades) equal to the in-process reference (`hmasweep run`, the C reference port): trades equal, "
             "|ΔPnL| ≤ 1e-6, and bit-identical (every kernel here is tier 0).\n")
    load = m["loadavg_before"][0]  # after the run it includes the run's own lanes
    if raw["rounds"] < 10 or load > m["logical_cpus"]:
        L.append(f"> **Read the sweep-level rows with care.** This run used {raw['rounds']} interleaved rounds"
                 + (" (fewer than the 10 the issue asks for)"
                    if raw["rounds"] < 10 else "")
                 + f", on {m['logical_cpus']} vCPUs with a load average of {load:.1f} when it started. Multi-second "
                 "sweeps were slowed by whatever overlapped them, so differences between whole-sweep medians (the "
                 "'by difference' table, spawn and chatty derived from sweeps) are dominated by that noise, not by the "
                 "boundary. The pinned latency figures (echo curve, preload, per-bar, spawn measured directly) are "
                 "single short calls repeated many times and are the usable figures. `python3 study/ipc/run.py` on a "
                 "quiet machine gives the 10-round table.\n")
    L.append("## Machine and conditions\n")
    L.append(f"- {m['cpu']}, {m['logical_cpus']} vCPUs (KVM guest: {m['hypervisor']}), {m['mem_gib']} GiB; AVX2 "
             f"{m['avx2']}, AVX-512 {m['avx512f']}. Load average before {tuple(round(x, 2) for x in m['loadavg_before'])}, "
             f"after {tuple(round(x, 2) for x in m.get('loadavg_after', (0, 0, 0)))}"
             + (" (**shared**: other jobs were running when it started)." if load > 0.5 else
                " (quiet when it started; the load after includes the run's own processes)."))
    L.append(f"- Placement of the architectures: {lanes_line(raw)}. Curves, preload, spawn and per-bar run alone "
             f"afterwards: server on vCPU {pl['server_cpu']}, client on the same vCPU and across (sched_setaffinity).")
    L.append("- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".")
    L.append(f"- Started {raw['started_utc']} UTC; the whole run took {raw.get('wall_seconds', 0):.0f} s"
             + (" (quick mode)" if raw.get("quick") else "") + (": " + ", ".join(
                 f"{k} {v:.0f} s" for k, v in raw["part_seconds"].items()) if raw.get("part_seconds") else "") + ".")
    L.append(f"- The study's machine: {S.MACHINE}.")
    for n in raw.get("notes", []):
        L.append(f"- Note: {n}")
    L.append("")
    findings_section(raw, L)
    L.append("## 1. The architectures (the study's table and past it)\n")
    five_rows_section(raw, L)
    architectures_section(raw, L)
    L.append("![architectures](ipc/architectures.png)\n")
    preload_section(raw, L)
    preload_fast_section(raw, L)
    L.append("## 2. The echo curve\n")
    echo_section(raw, L, out)
    L.append("## 3. Serialization of 150,000 float64\n")
    serialization_section(raw, L)
    L.append("## 4. Spawn\n")
    spawn_section(raw, L)
    L.append("## 5. Per-bar break-even, measured\n")
    perbar_section(raw, L)
    L.append("## 6. Granularity ratio G from measured floors\n")
    g_section(raw, L)
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "commentary.md")).read()
    L.append(text.replace("<!-- this-run: shm-vs-39ns -->", _shm_vs_39ns(raw)))
    with open(report_md, "w") as f:
        f.write("\n".join(L) + "\n")
