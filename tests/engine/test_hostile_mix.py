#!/usr/bin/env python3
"""Issue 20's hostile mix: one server (fd limit 96, `ulimit -n` set for it alone) under every attack of
the issue at once, on loopback, while a witness client that connected first keeps asking for a small
sweep and must get the right answer every time.

  phase A, 3 s  fd exhaustion (150 Unix clients that say HELLO and stay: the server runs out of fds),
                64 TCP peers that never authenticate or never send a byte (reconnecting when closed);
                no computing at all: the server's CPU must stay low (the old accept loop spun at 99%
                and wrote gigabytes of log) and its log small (one line per 10 s);
  phase B, 5 s  the same, plus memory pinning (ECHO just under 16 MiB, then LOAD 1 bar, repeated) and
                oversized work (sweeps refused by --max-work, and sweeps that run into the 2 s frame
                deadline, one after the other).

Figures printed: the witness's latency (p50, p99, max, count), the server's peak RSS, its CPU share in
each phase, its log size.  Asserted: every witness call right (each bounded by a 10 s socket timeout),
peak RSS under 300 MB, CPU in phase A under 0.3 of one core (a ratio measured here, not a time), log
under 8 KB, and afterwards a fresh client is served.  Every loop is bounded in count and in time.

usage: test_hostile_mix.py path/to/hmasweep [emulator prefix...]"""
import os, resource, socket, statistics, struct, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import Checks, Conn, load_frame, raw, results, witness_fixture

cli = sys.argv[1:]
check = Checks()
ref, close, wins, good = witness_fixture(cli)
want = ([r["pnl"] for r in ref], [r["trades"] for r in ref])
FD_LIMIT = 96
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def limit_fds():
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def sweep_frame(n_bars, windows):
    bars = struct.pack("<2d", 100.0, 100.1) * (n_bars // 2)
    body = struct.pack("<BII", 0, n_bars, len(windows)) + bars + b"".join(struct.pack("<6q", *w) for w in windows)
    return struct.pack("<I", len(body)) + body


with tempfile.TemporaryDirectory() as tmp:
    sock = os.path.join(tmp, "s.sock")
    token = os.path.join(tmp, "token")
    with open(token, "w") as f:
        f.write("hostile-mix-token-0123456789\n")
    os.chmod(token, 0o600)
    log = open(os.path.join(tmp, "server.log"), "wb")
    server = subprocess.Popen(cli + ["serve", "--ready", "--unix", sock, "--tcp", "127.0.0.1:0", "--token-file", token,
                                     "--variant", "unchecked", "--max-clients", "400", "--max-pending", "16",
                                     "--admit-timeout-ms", "1000", "--frame-deadline-ms", "2000", "--workers", "2",
                                     "--max-work", "10000000000", "--max-loaded-per-client", "1048576",
                                     "--max-loaded-total", "4194304"],
                              stdout=subprocess.PIPE, stderr=log, preexec_fn=limit_fds)
    urls = server.stdout.readline().decode().split()[1:]
    unix_url = next(u for u in urls if u.startswith("unix:"))
    host, port = next(u for u in urls if u.startswith("tcp://"))[6:].rsplit(":", 1)
    stop = threading.Event()
    latencies, wrong, outcomes = [], [], []

    def witness(conn):
        for _ in range(2000):  # bounded: ~100 ms apart over ~10 s
            if stop.is_set():
                return
            t0 = time.monotonic()
            try:
                code, body = conn.call(good)
                ok = code is None and results(body, len(ref)) == want
            except (OSError, ConnectionError) as e:
                ok, code = False, repr(e)
            latencies.append(time.monotonic() - t0)
            if not ok:
                wrong.append(code)
            time.sleep(0.1)

    def unauth_peer(k):
        for _ in range(200):  # reconnect when the server closes us; bounded
            if stop.is_set():
                return
            try:
                s = socket.create_connection((host, int(port)), timeout=3)
                if k % 2:
                    s.sendall(struct.pack("<IB", 5, 2))  # half a frame, never AUTH
                s.recv(256)  # until closed or refused
                s.close()
            except OSError:
                time.sleep(0.05)

    hogs = []

    def hog_fds():
        # Each hog is kept only once its HELLO is answered, i.e. once the server holds its fd: a hog the
        # server refused (pending budget full under load) is retried, so the fds really run out whatever
        # the scheduling (CI once saw a loaded run where they did not).  Bounded: 600 tries, 6 s.
        deadline = time.monotonic() + 6.0
        for _ in range(600):
            if stop.is_set() or len(hogs) >= 150 or time.monotonic() > deadline:
                return
            try:
                c = Conn(unix_url, timeout=2)
                code, _ = c.call(raw(2, "I", 1))  # HELLO: admitted, then idle
                if code is None:
                    hogs.append(c)
                    continue
                c.close()
            except (OSError, ConnectionError):
                pass
            time.sleep(0.01)

    def pinner(conn):
        echo_bars = (16 << 20) // 8 - 8
        echo = struct.pack("<IBII", 9 + 8 * echo_bars, 1, echo_bars, 0) + b"\0" * (8 * echo_bars)
        for _ in range(100):
            if stop.is_set():
                return
            try:
                conn.call(echo)
                conn.call(load_frame([101.0]))
            except (OSError, ConnectionError):
                return

    def oversized(conn):
        refused = sweep_frame(200000, [[100000] * 6] * 200)  # over --max-work: refused before it starts
        # 200,000 bars x 50 combos x (680 + 256) = 9.4e9 <= --max-work 1e10: ~8 s of reference work, refused
        # by the cost model before it runs (issue 29 item 2), or stopped at the 2 s frame deadline
        slow = sweep_frame(200000, [[100, 200, 14, 66, 100, 200]] * 50)
        for _ in range(50):
            if stop.is_set():
                return
            try:
                code, msg = conn.call(refused)
                outcomes.append("refused" if code == 16 and "exceeds the limit" in str(msg) else f"? {code}")
                code, msg = conn.call(slow)  # over the 2 s frame deadline: refused, or stopped
                outcomes.append("stopped" if code == 16 and "frame deadline" in str(msg) else f"? {code}")
            except (OSError, ConnectionError):
                return

    try:
        wconn = Conn(unix_url, timeout=10)
        pconn = Conn(unix_url, timeout=30)
        oconn = Conn(unix_url, timeout=30)
        for c in (wconn, pconn, oconn):  # admitted before the attack
            code, _ = c.call(good)
            check(code is None, "attacker/witness connections admitted")
        threads = [threading.Thread(target=witness, args=(wconn,))]
        threads += [threading.Thread(target=unauth_peer, args=(k,)) for k in range(64)]
        threads += [threading.Thread(target=hog_fds)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # let the fds run out
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        time.sleep(3.0)
        cpu_a = (cpu_seconds(server.pid) - cpu0) / (time.monotonic() - t0)
        log_a = os.path.getsize(log.name)
        more = [threading.Thread(target=pinner, args=(pconn,)), threading.Thread(target=oversized, args=(oconn,))]
        for t in more:
            t.start()
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        time.sleep(5.0)
        cpu_b = (cpu_seconds(server.pid) - cpu0) / (time.monotonic() - t0)
        stop.set()
        for c in hogs:
            c.close()
        for t in threads + more:
            t.join(60)
        for c in (wconn, pconn, oconn):
            c.close()
        rss = peak_rss_mb(server.pid)
        log_bytes = os.path.getsize(log.name)
        lat = sorted(latencies)
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
        print(f"hostile mix: witness {len(lat)} calls, wrong {len(wrong)}, latency p50 {statistics.median(lat) * 1e3:.1f} ms, "
              f"p99 {p99 * 1e3:.1f} ms, max {lat[-1] * 1e3:.1f} ms; server peak RSS {rss:.0f} MB; "
              f"CPU {cpu_a:.2f} cores in phase A (fds out, mute peers), {cpu_b:.2f} in phase B (+ pinning, oversized work); "
              f"log {log_a} bytes after A, {log_bytes} in all; hog connections {len(hogs)} (fd limit {FD_LIMIT}); oversized frames: {outcomes}")
        check(len(lat) >= 40 and not wrong, f"witness: {len(lat)} calls, wrong answers {wrong[:5]}")
        check(len(hogs) >= FD_LIMIT // 2, f"the fds ran out: {len(hogs)} admitted hog connections")
        check(len(outcomes) >= 2 and all(o in ("refused", "stopped") for o in outcomes),
              f"oversized work refused or stopped at the deadline: {outcomes}")
        check(b"Too many open files" in open(log.name, "rb").read(), "the server did run out of fds (its log says so)")
        check(rss < 400, f"server peak RSS {rss:.0f} MB (pinning would take 16 MiB a round)")
        check(cpu_a < 0.3, f"server CPU with its fds exhausted: {cpu_a:.2f} cores (the accept loop spins)")
        check(log_bytes < 8192, f"server log {log_bytes} bytes (not rate-limited)")
        time.sleep(1.5)  # the hogs' fds are back once the server sees them closed
        fresh = Conn(unix_url, timeout=10)
        code, body = fresh.call(good)
        check(code is None and results(body, len(ref)) == want, f"a fresh client is served afterwards: {code}")
        fresh.close()
    finally:
        stop.set()
        server.terminate()
        try:
            rc = server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            rc = "hung"
        log.close()
        with open(log.name, "rb") as f:
            head = f.read(600).decode(errors="replace")
        print("server log (head):", head.strip().replace("\n", " | "))
        check(rc == 0, f"server exit {rc} after SIGTERM")

check.done("test_hostile_mix")
