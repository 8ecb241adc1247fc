"""The architectures of the boundary study (issue 11, §2): how the sweep reaches the kernel.

Each architecture is an object with
  name, group, study   (the article's row name, or None), kernel (variant it runs)
  missing()            None when it can run here, else why not (its dependency has not landed, a tool
                       is absent); a missing architecture is reported as missing, never faked
  start() / stop()     bring its server up / down (pinned, see Placement)
  run()                one timed sweep: returns (pnl array, trades array); the caller times it

Every server is started pinned to the server vCPU, the client process is pinned to the client vCPU
(run.py records both).  Servers and clients here speak docs/protocol.md / docs/spec.md §6 through frames.py.
"""
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

import frames

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FEE = 0.0009  # only passed to the numba peer, which takes it as an argument (docs/spec.md §4)


class Env:
    """What the architectures share: binaries, the series, the windows, placement."""

    def __init__(self, build, close, windows, server_cpu, tmp):
        self.build = build
        self.cli = os.path.join(build, "hmasweep")
        self.json_server = os.path.join(build, "study", "hs_json_server")
        self.ipc_client = os.path.join(build, "study", "hs_ipc_client")
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "peers", "rust", "target"))
        self.rust = {k: os.path.join(target, "release", "rust_engine_" + k) for k in ("safe", "unchecked")}
        self.close = close
        self.windows = windows
        self.server_cpu = server_cpu
        self.tmp = tmp
        self._serve_help = None

    def pin(self):
        cpu = self.server_cpu
        return (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None

    def serve_available(self):
        """`hmasweep serve` (the engine issue) is on main when its --help answers."""
        if self._serve_help is None:
            try:
                p = subprocess.run([self.cli, "serve", "--help"], capture_output=True, text=True, timeout=20)
                self._serve_help = p.stdout + p.stderr if p.returncode == 0 else ""
            except (OSError, subprocess.TimeoutExpired):
                self._serve_help = ""
        return bool(self._serve_help)

    def serve_supports(self, flag):
        return self.serve_available() and flag in self._serve_help


_SEQ = [0]


def unique_path(env, stem):
    """A socket path no other server of this run uses (two servers on one path would race: a client
    could reach the old listener while the new one binds)."""
    _SEQ[0] += 1
    return os.path.join(env.tmp, f"{stem}_{_SEQ[0]}.sock")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """A server process, pinned; ready when a client can connect to its address."""

    def __init__(self, env, argv, address, ready_timeout=30.0):
        serve = len(argv) > 1 and argv[1] == "serve"
        if serve:
            argv = argv + ["--ready"]  # `hmasweep serve` prints "ready URL..." once it listens
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE if serve else subprocess.DEVNULL,
                                     stderr=open(os.path.join(env.tmp, "server.log"), "ab"),
                                     preexec_fn=env.pin())
        self.address = address
        deadline = time.monotonic() + ready_timeout
        if serve:
            ready, _, _ = select.select([self.proc.stdout], [], [], ready_timeout)
            line = self.proc.stdout.readline().decode() if ready else ""
            if not line.startswith("ready"):
                self.stop()
                raise RuntimeError(f"{' '.join(argv)}: no ready line ({line.strip()!r}; see {env.tmp}/server.log)")
            return
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{argv[0]} exited {self.proc.returncode} before listening "
                                   f"(see {env.tmp}/server.log)")
            try:
                frames.connect(address).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{argv[0]} did not listen on {address} within {ready_timeout} s")
                time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# The study holds each connection for the whole run, and a lane uses an architecture every other round:
# at load 10-16 a round took ~135 s (2026-12-03), so the server's default 5-minute idle close broke
# three architectures' connections (Broken pipe).  An hour bounds a forgotten server all the same.
# The same holds for admission: a connection is opened when its architecture starts and sends its first
# frame only when the round reaches it, and with the lanes and a loaded machine that passed the server's
# default 5 s (--admit-timeout-ms): every C server's unix/tcp arm then failed with Broken pipe
# (prof_ipc_quick in CI, 2026-12-05, while a benchmark ran on the other vCPU).
STUDY_IDLE_TIMEOUT_MS = 3_600_000
STUDY_TIMEOUT_ARGS = ["--idle-timeout-ms", str(STUDY_IDLE_TIMEOUT_MS), "--admit-timeout-ms", str(STUDY_IDLE_TIMEOUT_MS)]


def serve_argv(env, transport, variant, isa=None):
    """`hmasweep serve` on one transport; returns (argv, client address)."""
    argv = [env.cli, "serve", "--variant", variant] + STUDY_TIMEOUT_ARGS
    if isa:
        argv += ["--isa", isa]
    if transport == "unix":
        path = unique_path(env, f"serve_{variant}")
        return argv + ["--unix", path], "unix:" + path
    if transport == "tcp":
        port = free_port()
        return argv + ["--tcp", f"127.0.0.1:{port}"], f"tcp:127.0.0.1:{port}"
    if transport == "shm":
        name = unique_path(env, f"shm_{variant}")
        return argv + ["--shm", name], "shm:" + name
    raise ValueError(transport)


# ---- the architectures ------------------------------------------------------------------------------
class Arch:
    study = None
    kernel = None
    client = "python"
    transport = None

    def __init__(self, env):
        self.env = env

    def missing(self):
        return None

    def start(self):
        pass

    def stop(self):
        pass


class InProcessNumba(Arch):
    name, group, study, kernel, transport = "in_process_numba", "in process", "in_process", "numba", "none"

    def missing(self):
        try:
            import numba  # noqa: F401
        except ImportError:
            return "numba is not installed"
        return None

    def start(self):
        sys.path.insert(0, os.path.join(ROOT, "peers", "numba"))
        import hma_numba
        self.mod = hma_numba
        self.w = np.ascontiguousarray(self.env.windows, dtype=np.int64)
        hma_numba.sweep(self.env.close[:300], self.w[:1], FEE)  # JIT compile outside the timing

    def run(self):
        return self.mod.sweep(self.env.close, self.w, FEE)


class InProcessC(Arch):
    """The Python package (`import hmasweep`): the C variants with no boundary."""
    group, transport = "in process", "none"

    def __init__(self, env, variant, name="in_process_c"):
        super().__init__(env)
        self.name, self.kernel = name, variant

    def missing(self):
        # A sanitizer build's extension needs its runtime preloaded into Python (ipc.cmake sets this there;
        # python_client_threads_asan tests that build's extension): the in-process rows are left out.
        if os.environ.get("HS_IPC_NO_IN_PROCESS"):
            return f"the Python package is not loaded here ({os.environ['HS_IPC_NO_IN_PROCESS']})"
        try:
            import hmasweep  # noqa: F401
        except ImportError as e:
            return f"the Python package is not importable ({e})"
        return None if hasattr(__import__("hmasweep"), "sweep") else "hmasweep.sweep is absent"

    def start(self):
        import hmasweep
        self.hs = hmasweep
        self.w = np.ascontiguousarray(self.env.windows, dtype=np.int64)

    def run(self):
        r = self.hs.sweep(self.env.close, windows=self.w, variant=self.kernel)
        return _pnl_trades(r)


def _pnl_trades(r):
    """Accept the package's result shapes: (pnl, trades), an object with .pnl/.trades, or a dict."""
    if isinstance(r, tuple) and len(r) == 2:
        return np.asarray(r[0]), np.asarray(r[1])
    if isinstance(r, dict):
        return np.asarray(r["pnl"]), np.asarray(r["trades"])
    if hasattr(r, "pnl"):
        return np.asarray(r.pnl), np.asarray(r.trades)
    arr = np.asarray(r)
    if arr.dtype.names:
        return np.asarray(arr["pnl"]), np.asarray(arr["trades"])
    raise TypeError(f"unknown sweep result type {type(r)}")


class SocketBatch(Arch):
    """One round trip: the whole series and every combo in one request (docs/spec.md §6 op 0)."""

    def __init__(self, env, name, group, study, engine, kernel, transport, form):
        super().__init__(env)
        self.name, self.group, self.study, self.engine = name, group, study, engine
        self.kernel, self.transport, self.form = kernel, transport, form
        self.w = np.ascontiguousarray(env.windows, dtype="<i8")

    def missing(self):
        if self.engine == "rust":
            return None if os.access(self.env.rust[self.kernel], os.X_OK) else "cargo/the Rust engine is not built"
        if not self.env.serve_available():
            return "`hmasweep serve` (the engine issue) is not on main yet"
        return None

    def start(self):
        if self.engine == "rust":
            if self.transport == "unix":
                path = unique_path(self.env, f"rust_{self.kernel}")
                argv, addr = [self.env.rust[self.kernel], "--unix", path], "unix:" + path
            else:
                port = free_port()
                argv, addr = [self.env.rust[self.kernel], "--tcp", f"127.0.0.1:{port}"], f"tcp:127.0.0.1:{port}"
        else:
            argv, addr = serve_argv(self.env, self.transport, self.kernel)
        self.server = Server(self.env, argv, addr)
        self.conn = frames.Conn(addr)
        self.reply = np.empty(2 * len(self.w), dtype="<f8")  # ours: reply lands in a preallocated array

    def stop(self):
        self.conn.close()
        self.server.stop()

    def run(self):
        n = len(self.w)
        if self.form == "study":
            return frames.decode_sweep(self.conn.call_study(frames.OP_SWEEP, self.env.close, self.w), n)
        self.conn.call(frames.OP_SWEEP, self.env.close, self.w, out=memoryview(self.reply).cast("B"))
        return frames.decode_sweep(self.reply, n)


class SocketChatty(SocketBatch):
    """One round trip per combo, the whole series re-sent each time (the stateless sweep endpoint)."""

    def run(self):
        pnl, trades = np.empty(len(self.w)), np.empty(len(self.w), dtype=np.int64)
        for k in range(len(self.w)):
            p, t = frames.decode_sweep(self.conn.call_study(frames.OP_SWEEP, self.env.close, self.w[k:k + 1]), 1)
            pnl[k], trades[k] = p[0], t[0]
        return pnl, trades


class Preload(SocketBatch):
    """Stateful: LOAD the series once per sweep, then one SWEEP_HANDLE per combo (windows only)."""

    def missing(self):
        m = super().missing()
        if m:
            return m
        return None if "LOAD" in (self.env._serve_help or "") or self.env.serve_available() else "no LOAD"

    def run(self):
        pnl, trades = np.empty(len(self.w)), np.empty(len(self.w), dtype=np.int64)
        h = frames.load(self.conn, self.env.close)
        for k in range(len(self.w)):
            p, t = frames.sweep_handle(self.conn, h, self.w[k:k + 1])
            pnl[k], trades[k] = p[0], t[0]
        frames._send_op(self.conn, frames.OP_FREE, [h])
        return pnl, trades


class SpawnStdin(Arch):
    """Spawn the engine binary per sweep, the request on stdin, the reply from stdout."""
    transport = "stdin"

    def __init__(self, env, name, group, study, engine, kernel):
        super().__init__(env)
        self.name, self.group, self.study, self.engine, self.kernel = name, group, study, engine, kernel
        self.w = np.ascontiguousarray(env.windows, dtype="<i8")

    def missing(self):
        if self.engine == "rust":
            return None if os.access(self.env.rust[self.kernel], os.X_OK) else "cargo/the Rust engine is not built"
        return None if os.access(self.env.cli, os.X_OK) else "hmasweep is not built"

    def argv(self):
        if self.engine == "rust":
            return [self.env.rust[self.kernel], "--stdin"]
        return [self.env.cli, "wire", "--variant", self.kernel]

    def run(self):
        req = frames.study_request(frames.OP_SWEEP, self.env.close, self.w)
        p = subprocess.run(self.argv(), input=req, capture_output=True, preexec_fn=self.env.pin())
        if p.returncode != 0:
            raise RuntimeError(f"{self.name}: exit {p.returncode}: {p.stderr.decode()[-300:]}")
        (body,) = frames.read_stdout_reply(p.stdout)
        return frames.decode_sweep(body, len(self.w))


class JsonBatch(Arch):
    """The microservice: the article's JSON body, jansson on the server, json/orjson in the client."""
    transport = "unix"

    def __init__(self, env, name, kernel, lib):
        super().__init__(env)
        self.name, self.group, self.kernel, self.lib = name, "what the study did not measure", kernel, lib
        self.params = [[int(v) for v in w] for w in env.windows]

    def missing(self):
        if not os.access(self.env.json_server, os.X_OK):
            return "hs_json_server not built (needs jansson: apt libjansson-dev)"
        if self.lib == "orjson":
            try:
                import orjson  # noqa: F401
            except ImportError:
                return "orjson is not installed"
        return None

    def start(self):
        path = unique_path(self.env, f"json_{self.kernel}")
        self.server = Server(self.env, [self.env.json_server, "--unix", path, "--variant", self.kernel],
                             "unix:" + path)
        self.sock = frames.connect("unix:" + path)
        if self.lib == "orjson":
            import orjson
            self.dumps = lambda o: orjson.dumps(o, option=orjson.OPT_SERIALIZE_NUMPY)
            self.loads = orjson.loads
        else:
            self.dumps = lambda o: json.dumps(o).encode()
            self.loads = json.loads

    def stop(self):
        self.sock.close()
        self.server.stop()

    def run(self):
        close = self.env.close if self.lib == "orjson" else self.env.close.tolist()
        body = self.dumps({"op": "sweep", "close": close, "params": self.params})
        self.sock.sendall(len(body).to_bytes(4, "little") + body)
        reply = self.loads(_recv_frame(self.sock))
        if "error" in reply:
            raise RuntimeError(f"{self.name}: {reply['error']}")
        return np.asarray(reply["pnl"], dtype=np.float64), np.asarray(reply["trades"], dtype=np.int64)


def _recv_frame(sock):
    head = _recv_exact(sock, 4)
    return _recv_exact(sock, int.from_bytes(head, "little"))


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise RuntimeError("the server closed the connection")
        got += k
    return bytes(buf)


class CClient(Arch):
    """An architecture whose client is C (hs_ipc_client): shared memory, and the C-client rows."""
    client = "c"

    def __init__(self, env, name, group, kernel, transport, mode):
        super().__init__(env)
        self.name, self.group, self.kernel, self.transport, self.mode = name, group, kernel, transport, mode

    def missing(self):
        if not self.env.serve_available():
            return "`hmasweep serve` (the engine issue) is not on main yet"
        if self.transport == "shm" and not self.env.serve_supports("--shm"):
            return "`hmasweep serve --shm` (the shared-memory issue) is not on main yet"
        if not os.access(self.env.ipc_client, os.X_OK):
            return "hs_ipc_client (the C client of the engine issue) is not built"
        return None

    def start(self):
        argv, addr = serve_argv(self.env, self.transport, self.kernel)
        self.server = Server(self.env, argv, addr)
        self.addr = addr
        self.series = os.path.join(self.env.tmp, "series.f64")
        self.wfile = os.path.join(self.env.tmp, "windows.i64")
        if not os.path.exists(self.wfile):
            np.ascontiguousarray(self.env.windows, dtype="<i8").tofile(self.wfile)

    def stop(self):
        self.server.stop()

    def run_timed(self, rounds):
        """The C client times `rounds` sweeps itself (one connection); returns (seconds list, pnl, trades)."""
        p = subprocess.run([self.env.ipc_client, "sweep", "--address", self.addr, "--series", self.series,
                            "--windows", self.wfile, "--rounds", str(rounds), "--mode", self.mode],
                           capture_output=True, text=True, preexec_fn=None)
        if p.returncode != 0:
            raise RuntimeError(f"{self.name}: hs_ipc_client exit {p.returncode}: {p.stderr[-300:]}")
        out = json.loads(p.stdout)
        return out["seconds"], np.asarray(out["pnl"]), np.asarray(out["trades"], dtype=np.int64)


def architectures(env, fast):
    """Every architecture of the issue's table, in report order.  `fast` = (variant, isa) of the fastest
    single-thread variant, run behind each boundary."""
    S, N = "the study's rows, our engine", "what the study did not measure"
    R = "the study's rows, its engine"
    a = [
        InProcessNumba(env),
        InProcessC(env, "unchecked"),
        SocketBatch(env, "c_batch_unix", S, "rust_batch_unix", "c", "unchecked", "unix", "study"),
        SocketBatch(env, "c_batch_unix_naive", S, "rust_batch_unix", "c", "naive", "unix", "study"),
        SocketChatty(env, "c_chatty_unix", S, "rust_chatty_unix", "c", "unchecked", "unix", "study"),
        SpawnStdin(env, "c_spawn_stdin", S, "rust_spawn_stdin", "c", "unchecked"),
        SocketBatch(env, "rust_batch_unix", R, "rust_batch_unix", "rust", "safe", "unix", "study"),
        SocketBatch(env, "rust_batch_unchecked", R, "rust_batch_unchecked", "rust", "unchecked", "unix", "study"),
        SocketChatty(env, "rust_chatty_unix", R, "rust_chatty_unix", "rust", "safe", "unix", "study"),
        SpawnStdin(env, "rust_spawn_stdin", R, "rust_spawn_stdin", "rust", "safe"),
        SocketBatch(env, "c_batch_tcp", N, None, "c", "unchecked", "tcp", "ours"),
        Preload(env, "c_preload_chatty", N, None, "c", "unchecked", "unix", "ours"),
        CClient(env, "c_batch_shm", N, "unchecked", "shm", "batch"),
        JsonBatch(env, "json_batch", "unchecked", "json"),
        JsonBatch(env, "json_batch_orjson", "unchecked", "orjson"),
    ]
    v = fast
    F = "the fastest variant behind each boundary"
    a += [
        InProcessC(env, v, name="in_process_c_fast"),
        SocketBatch(env, "c_batch_unix_fast", F, None, "c", v, "unix", "ours"),
        SocketBatch(env, "c_batch_tcp_fast", F, None, "c", v, "tcp", "ours"),
        CClient(env, "c_batch_shm_fast", F, v, "shm", "batch"),
        SpawnStdin(env, "c_spawn_stdin_fast", F, None, "c", v),
        JsonBatch(env, "json_batch_fast", v, "orjson"),
    ]
    for x in a[-6:]:
        x.group = F
    return a
