#!/usr/bin/env python3
"""The study's Rust engine (peers/rust, rust_engine_safe / rust_engine_unchecked) over the wire.

The canonical series (`hmasweep gen`) goes to the engine as docs/spec.md §6 frames; the per-combo replies must
equal tests/golden/default_run.json (made by the C reference, checked against numba) bit for bit:
- the safe build over a Unix socket, all 80 combos, in the study's own client form;
- the unchecked build over TCP (TCP_NODELAY), five combos, in our zero-copy form;
- the unchecked build in stdin mode, two requests on one stream;
and echo is verbatim, a bad request gets an error reply naming it while the connection goes on, an
oversized length prefix ends the connection with an error, bad stdin input exits 1.

Skipped (tests/skip_policy.py: exit 77, or a failure in CI for a tool not on tests/skips.allow) when cargo
or numpy is absent; the tools are checked before anything that needs them is imported.
usage: peers_rust_engine.py path/to/hmasweep
"""
import importlib.util, json, os, shutil, socket, struct, subprocess, sys, tempfile, time

import skip_policy  # tests/skip_policy.py, next to this file (standard library only)

if not shutil.which("cargo"):
    skip_policy.skip("cargo", "cargo is not on PATH (https://rustup.rs)")
if importlib.util.find_spec("numpy") is None:
    skip_policy.skip("numpy", "numpy is not importable (pip install numpy)")

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "study", "ipc"))
import numpy as np  # noqa: E402
import frames  # noqa: E402

cli = sys.argv[1:]
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "peers", "rust", "target"))
subprocess.run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=os.path.join(root, "peers", "rust"),
               check=True, env=dict(os.environ, CARGO_TARGET_DIR=target))
binary = {b: os.path.join(target, "release", "rust_engine_" + b) for b in ("safe", "unchecked")}

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


tmp = tempfile.mkdtemp(prefix="rust_engine_")
procs = []
try:
    series = os.path.join(tmp, "series.f64")
    subprocess.run(cli + ["gen", "--output", series], check=True)
    close = np.fromfile(series, dtype="<f8")
    golden = json.load(open(os.path.join(root, "tests", "golden", "default_run.json")))["combos"]
    windows = np.array([c["windows"] for c in golden], dtype="<i8")

    def agrees(pnl, trades, idx, what):
        want_t = [golden[i]["trades"] for i in idx]
        want_p = [golden[i]["pnl"] for i in idx]
        check(list(trades) == want_t, f"{what}: trades {list(trades)[:5]} != golden {want_t[:5]}")
        check(all(struct.pack("<d", a) == struct.pack("<d", b) for a, b in zip(pnl, want_p)),
              f"{what}: PnL not bit-identical to the golden file")

    def start(b, *args):
        p = subprocess.Popen([binary[b], *args], stderr=subprocess.PIPE, text=True)
        procs.append(p)
        line = p.stderr.readline().strip()  # "listening on unix:PATH" / "listening on tcp:HOST:PORT"
        check(line.startswith("listening on "), f"{b} {args}: no listening line ({line!r})")
        return line[len("listening on "):]

    # 1. safe build, Unix socket, all 80 combos, the study's client (byte concatenation)
    addr = start("safe", "--unix", os.path.join(tmp, "engine.sock"))
    c = frames.Conn(addr)
    body = c.call_study(frames.OP_SWEEP, close, windows)
    agrees(*frames.decode_sweep(body, len(golden)), range(len(golden)), "safe/unix/80 combos")
    small = close[:1000]
    check(c.call_study(frames.OP_ECHO, small, np.zeros((0, 6))) == small.tobytes(), "echo is not verbatim")
    try:
        c.send_raw(struct.pack("<IBII", 9, 7, 0, 0))
        check(False, "unknown opcode 7 was answered")
    except frames.EngineError as e:
        check("unknown opcode 7" in str(e), f"unknown opcode: {e}")
    try:
        c.sweep(close[:100], [[3, 6, 2, 1, 2, 101]])
        check(False, "window 101 over 100 bars was answered")
    except frames.EngineError as e:
        check("w5 = 101" in str(e), f"impossible window: {e}")
    bad = close[:50].copy()
    bad[7] = float("nan")
    try:
        c.sweep(bad, [[3, 6, 2, 1, 2, 3]])
        check(False, "a NaN price was answered")
    except frames.EngineError as e:
        check("price 7" in str(e), f"NaN price: {e}")
    pnl, trades = c.sweep(close, windows[:1])  # the connection is still usable after refusals
    agrees(pnl, trades, [0], "safe/unix after refusals")
    c.sock.sendall(struct.pack("<I", 0x7FFFFFFF))
    try:
        c._reply_into()
        check(False, "a 2 GiB length prefix was accepted")
    except frames.EngineError as e:
        check("exceeds the limit" in str(e), f"oversized frame: {e}")
    check(c.sock.recv(1) == b"", "the connection stays open after an oversized length prefix")
    c.close()

    # 2. unchecked build, TCP loopback, zero-copy client
    addr = start("unchecked", "--tcp", "127.0.0.1:0")
    c = frames.Conn(addr)
    pick = [0, 1, 2, 40, 79]
    agrees(*c.sweep(close, windows[pick]), pick, "unchecked/tcp")
    check(c.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0, "client TCP_NODELAY")
    c.close()

    # 3. unchecked build, stdin mode: two requests on one stream, then a bad stream
    req = frames.study_request(0, close, windows[[0, 2]]) + frames.study_request(1, close[:10], np.zeros((0, 6)))
    p = subprocess.run([binary["unchecked"], "--stdin"], input=req, capture_output=True, timeout=60)
    check(p.returncode == 0, f"stdin: exit {p.returncode}: {p.stderr.decode()}")
    bodies = frames.read_stdout_reply(p.stdout)
    check(len(bodies) == 2, f"stdin: {len(bodies)} replies for 2 requests")
    agrees(*frames.decode_sweep(bodies[0], 2), [0, 2], "unchecked/stdin")
    check(bodies[1] == close[:10].tobytes(), "stdin echo is not verbatim")
    p = subprocess.run([binary["safe"], "--stdin"], input=req[:-3], capture_output=True, timeout=60)
    check(p.returncode == 1 and "truncated body" in p.stderr.decode(), f"truncated stdin: exit {p.returncode}")
finally:
    for p in procs:
        p.kill()
        p.wait()
    shutil.rmtree(tmp, ignore_errors=True)

print(f"peers_rust_engine: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
