"""A client for the hmasweep engine written from the text of docs/spec.md §6 and docs/protocol.md alone: struct
and sockets, nothing from this repository's code.  Shared by the engine's conformance and fault tests."""
import json, os, socket, struct, subprocess, sys, time

# Under ASan the quarantine keeps up to 256 MB of freed memory resident: the servers these tests start
# measure their peak RSS, so the quarantine is kept small (no effect on other builds).
os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16").lstrip(":")


class Checks:
    """Counts checks; `done(name)` prints the tally and exits 1 if any failed."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)

    def done(self, name):
        print(f"{name}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed else 0)


def frame(op, close, windows, body_len=None):
    """docs/spec.md §6: [u32 body_len][u8 opcode][u32 n_bars][u32 n_combos][f64 close...][6 x i64 per combo]."""
    body = struct.pack("<BII", op, len(close), len(windows)) + struct.pack("<%dd" % len(close), *close)
    body += b"".join(struct.pack("<6q", *w) for w in windows)
    return struct.pack("<I", len(body) if body_len is None else body_len) + body


def raw(op, fmt="", *fields, tail=b""):
    body = struct.pack("<B" + fmt, op, *fields) + tail
    return struct.pack("<I", len(body)) + body


def stats_frame(close, windows, fee):
    """docs/protocol.md "Version 2", op 10: [u8 10][u32 n_bars][u32 n_combos][f64 fee][close][windows]."""
    body = struct.pack("<BIId", 10, len(close), len(windows), fee) + struct.pack("<%dd" % len(close), *close)
    body += b"".join(struct.pack("<6q", *w) for w in windows)
    return struct.pack("<I", len(body)) + body


def equity_frame(op, first, windows, fee, n_periods, close=None):
    """docs/protocol.md "Version 3": op 13 [u8 13][u32 n_bars][u32 n_combos][f64 fee][u32 n_periods][close]
    [windows], or op 14 [u8 14][u32 handle][u32 n_combos][f64 fee][u32 n_periods][windows] (first = handle)."""
    body = struct.pack("<BIIdI", op, first, len(windows), fee, n_periods)
    if close is not None:
        body += struct.pack("<%dd" % len(close), *close)
    body += b"".join(struct.pack("<6q", *w) for w in windows)
    return struct.pack("<I", len(body)) + body


def equity_results(body, n, n_periods):
    """An op 13/14 reply: (pnl, trades, {field: values}, mtm_max_drawdown, E rows) after op 10's arrays."""
    pnl, trades, st = stats_results(body, n)
    mtm = list(struct.unpack_from("<%dd" % n, body, 64 * n))
    flat = struct.unpack_from("<%dd" % (n * n_periods), body, 72 * n)
    return pnl, trades, st, mtm, [list(flat[k * n:(k + 1) * n]) for k in range(n_periods)]


STATS_FIELDS = ("wins", "gross_profit", "gross_loss", "sum_sq", "max_drawdown", "bars_held")


def stats_results(body, n):
    """An op 10/11 reply: (pnl, trades, {field: values}) from its eight arrays of n."""
    pnl, trades = results(body, n)
    kinds = "qddddq"  # wins i64, four f64, bars_held i64
    out = {}
    for k, (name, kind) in enumerate(zip(STATS_FIELDS, kinds)):
        out[name] = list(struct.unpack_from("<%d%s" % (n, kind), body, 8 * n * (2 + k)))
    return pnl, trades, out


def load_frame(close):
    return raw(3, "I", len(close), tail=struct.pack("<%dd" % len(close), *close))


def sweep_handle_frame(handle, windows):
    return raw(4, "II", handle, len(windows), tail=b"".join(struct.pack("<6q", *w) for w in windows))


class Conn:
    def __init__(self, url, timeout=30.0, relay=None):
        self.p = None
        if url.startswith("shm:"):
            # Python has no shared-memory transport: the same bytes go through shm_relay (a byte
            # carrier, stdin/stdout <-> shm:NAME, built next to hmasweep); framing stays this file's.
            self.p = subprocess.Popen([relay, url[4:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        elif url.startswith("unix:"):
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.settimeout(timeout)
            self.s.connect(url[5:])
        elif url.startswith("tcp://"):
            host, port = url[6:].rsplit(":", 1)
            self.s = socket.create_connection((host, int(port)), timeout=timeout)
        else:
            raise ValueError(url)

    def send(self, data):
        if self.p:
            self.p.stdin.write(data)
            self.p.stdin.flush()
        else:
            self.s.sendall(data)

    def recv_exact(self, n):
        if self.p:
            data = self.p.stdout.read(n)
            if len(data) < n:
                raise ConnectionError("closed after %d of %d bytes" % (len(data), n))
            return data
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = self.s.recv_into(view[got:])
            if k == 0:
                raise ConnectionError("closed after %d of %d bytes" % (got, n))
            got += k
        return bytes(buf)

    def reply(self):
        """(None, body) for a result, (code, message) for an error reply."""
        (prefix,) = struct.unpack("<I", self.recv_exact(4))
        body = self.recv_exact(prefix & 0x7FFFFFFF)
        if prefix & 0x80000000:
            return struct.unpack_from("<I", body)[0], body[4:].decode()
        return None, body

    def call(self, data):
        self.send(data)
        return self.reply()

    def closed(self):
        """True when the server has closed the connection (EOF)."""
        try:
            return self.s.recv(1) == b""
        except ConnectionResetError:  # closed with our unread bytes still in its buffer
            return True
        except socket.timeout:
            return False

    def close(self):
        if self.p:
            self.p.stdin.close()
            self.p.wait(30)
            self.p.stdout.close()
        else:
            self.s.close()


def results(body, n):
    return list(struct.unpack_from("<%dd" % n, body, 0)), list(struct.unpack_from("<%dq" % n, body, 8 * n))


def stdio_call(cli, data, *args):
    """stdin/stdout transport: `hmasweep serve` with no listener; returns the reply stream's frames."""
    p = subprocess.run(cli + ["serve", *args], input=data, capture_output=True, timeout=120)
    out, frames, off = p.stdout, [], 0
    while off + 4 <= len(out):
        (prefix,) = struct.unpack_from("<I", out, off)
        n = prefix & 0x7FFFFFFF
        body = out[off + 4: off + 4 + n]
        frames.append((struct.unpack_from("<I", body)[0], body[4:].decode()) if prefix & 0x80000000 else (None, body))
        off += 4 + n
    return p.returncode, frames


TOKEN = "s3cret-token-0123456789"


def write_token(folder):
    """A private token file (0600, as `serve --token-file` requires) holding TOKEN; its path."""
    path = os.path.join(folder, "token")
    with open(path, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(path, 0o600)
    return path


class Server:
    """`hmasweep serve --ready ...`: the URLs it listens on come from its ready line."""

    def __init__(self, cli, *args):
        self.p = subprocess.Popen(cli + ["serve", "--ready", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.p.stdout.readline().decode()
        if not line.startswith("ready"):
            err = self.p.stderr.read().decode()
            self.p.wait(10)
            raise RuntimeError("server did not start: %r %r" % (line, err))
        self.urls = line.split()[1:]

    def url(self, kind):
        return next(u for u in self.urls if u.startswith(kind))

    def rss_kb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def stop(self, timeout=60):
        # 60 s, not 20: under TSan on 2 vCPUs beside other server tests an idle server outlived SIGTERM
        # by 20 s once (CI, 2026-12-06); natively it exits at once.  A server still there after `timeout`
        # is killed, and what each of its threads was doing goes into the returned text (the failure's
        # message), so a hang in CI says where it was.
        self.p.terminate()
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            where = threads_of(self.p.pid)
            self.p.kill()
            self.p.wait()
            return "hung", self.p.stderr.read().decode() + "\n" + where
        return rc, self.p.stderr.read().decode()


def threads_of(pid):
    """Each thread of a live process: its name, state, the syscall it is in (/proc's number and arguments,
    or 'running') and its signal masks (SigBlk: blocked; SigPnd, ShdPnd: pending for it, for the process)."""
    lines = []
    try:
        for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
            base = "/proc/%d/task/%s/" % (pid, tid)
            fields = {}
            with open(base + "status") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key in ("Name", "State", "SigPnd", "ShdPnd", "SigBlk", "SigCgt"):
                        fields[key] = value.strip()
            try:
                with open(base + "syscall") as f:
                    call = f.read().strip()
            except OSError as e:
                call = "(syscall unreadable: %s)" % e
            lines.append("thread %s %s [%s] syscall %s; SigBlk %s SigPnd %s ShdPnd %s SigCgt %s" % (
                tid, fields.get("Name"), fields.get("State"), call, fields.get("SigBlk"), fields.get("SigPnd"),
                fields.get("ShdPnd"), fields.get("SigCgt")))
    except OSError as e:
        lines.append("threads of %d unreadable: %s" % (pid, e))
    return "\n".join(lines)


def gen_series(cli, *args):
    out = subprocess.run(cli + ["gen", "--output", "/dev/stdout", "--format", "f64", *args], check=True,
                         capture_output=True).stdout
    return list(struct.unpack("<%dd" % (len(out) // 8), out))


def run_json(cli, *args):
    return json.loads(subprocess.run(cli + ["run", "--format", "json", *args], check=True, capture_output=True).stdout)


def witness_fixture(cli):
    """The small sweep the fault and reliability tests use as their witness: (ref combos from `hmasweep run`,
    close, windows, the SWEEP frame) for 2,000 bars of seed 3 and lengths 4, 9, 30."""
    ref = run_json(cli, "--bars", "2000", "--seed", "3", "--lengths", "4,9,30")["combos"]
    close = gen_series(cli, "--bars", "2000", "--seed", "3")
    wins = [c["windows"] for c in ref]
    return ref, close, wins, frame(0, close, wins)
