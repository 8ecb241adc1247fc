#!/usr/bin/env python3
"""Fair service under load (issue 29 item 2): a witness's latency while heavy clients send the heaviest
frames the limits admit, against the same witness alone, on one `hmasweep serve` over a Unix socket
(loopback only).

  witness  one connection, SWEEP frames of BARS bars x 1 combo, one after another (the issue's 150,000 x 1)
  heavy    HEAVY connections, each sending SWEEP frames of H_BARS bars x H_COMBOS combos of windows all 1,
           one after another until the witness is done.  100,000 x 1,500 is about the heaviest such frame
           the cost model admits (cli/server/session.c: 3 x 1,500 x 100,000 x 63.5 ns = 28.6 s at worst, under
           the 30 s frame deadline); main's --max-work alone admitted 100,000 x 2,500 (6.6e10 units, under
           2^36), which the cost model now refuses before it runs (47.6 s at worst)

  --heavy-live   the heavy clients send LIVE_APPENDs instead: each opens a live session of H_COMBOS combos
           of small windows on 20 bars, then appends H_BARS bars per frame (the issue's 10k x 10k took
           17 s each, holding a worker the whole time)

Reported (one JSON line per phase, and a table): the witness's p50, p99 and max latency, its count, the
server's peak RSS (VmHWM) and its CPU seconds (utime + stime from /proc) over the phase.  Every loop is
bounded in count and in time (--witness-calls, --max-seconds).

  fair_load.py CLI [--smoke] [--witness-calls N] [--max-seconds S] ...

--smoke (ctest prof_fair_load_smoke): small frames, and the check that bounds a ratio measured in this run,
never a time: the witness's p99 under load over the time of one heavy frame alone must stay under
--max-ratio (default 0.25).  Before the FIFO slots and the slices (cli/server/session.c), a witness waited
behind whole heavy frames, so that ratio was near 1 or above."""
import argparse, json, os, struct, sys, tempfile, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "engine"))
from wire_client import Conn, Server, frame, load_frame, raw  # noqa: E402


def series(n, seed):
    """A positive random walk (deterministic), as doubles."""
    x, out, s = 100.0, [], seed * 2654435761 % 2**32 or 1
    for _ in range(n):
        s = (1103515245 * s + 12345) % 2**31
        x *= 1.0 + ((s / 2**31) - 0.5) * 0.002
        out.append(x)
    return out


def proc_cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))] if xs else float("nan")


def phase(server, url, name, args, heavy):
    stop = threading.Event()
    heavy_frames = [0] * heavy
    heavy_errors = []
    big = heavy_frame(args) if heavy else b""

    def heavy_client(k):
        c = Conn(url, timeout=args.frame_deadline_ms / 1000 + 30)
        try:
            big_k = open_live(c, args, big) if args.heavy_live else big
            while not stop.is_set() and heavy_frames[k] < 10000:
                code, _ = c.call(big_k)
                heavy_frames[k] += 1
                if code not in (None, 16):
                    heavy_errors.append(code)
        finally:
            c.close()

    threads = [threading.Thread(target=heavy_client, args=(k,)) for k in range(heavy)]
    for t in threads:
        t.start()
    if heavy:
        time.sleep(args.settle)  # the heavy frames are running
    cpu0 = proc_cpu_seconds(server.p.pid)
    wit = frame(0, series(args.bars, 3), [[3, 6, 2, 1, 2, 3]])
    c = Conn(url, timeout=args.frame_deadline_ms / 1000 + 30)
    lat, errors, t_end = [], [], time.monotonic() + args.max_seconds
    while len(lat) < args.witness_calls and time.monotonic() < t_end:
        t0 = time.perf_counter()
        code, body = c.call(wit)
        lat.append(time.perf_counter() - t0)
        if code is not None:
            errors.append(code)
    c.close()
    cpu = proc_cpu_seconds(server.p.pid) - cpu0
    stop.set()
    for t in threads:
        t.join(args.frame_deadline_ms / 1000 + 60)
    row = {"phase": name, "heavy_clients": heavy, "witness_calls": len(lat), "witness_errors": len(errors),
           "p50_ms": 1e3 * percentile(lat, 0.50), "p99_ms": 1e3 * percentile(lat, 0.99), "max_ms": 1e3 * max(lat),
           "server_rss_peak_mb": server.rss_kb() / 1024, "server_cpu_s": cpu, "heavy_frames": sum(heavy_frames),
           "heavy_error_codes": sorted(set(heavy_errors))}
    print(json.dumps(row), flush=True)
    return row


LIVE_WINDOWS = [2, 4, 2, 1, 2, 2]


def heavy_frame(args):
    """A heavy client's frame: a SWEEP, or (--heavy-live) the bars of a LIVE_APPEND (its session id is put
    in by open_live)."""
    if args.heavy_live:
        return struct.pack("<%dd" % args.heavy_bars, *series(args.heavy_bars, 7))
    return frame(0, series(args.heavy_bars, 7), [[1, 1, 1, 1, 1, 1]] * args.heavy_combos)


def open_live(c, args, bars):
    """LOAD 20 bars, LIVE_OPEN H_COMBOS combos of small windows on them: the LIVE_APPEND frame for bars."""
    code, body = c.call(load_frame(series(20, 5)))
    handle = struct.unpack("<I", body)[0]
    code, body = c.call(raw(6, "II", handle, args.heavy_combos, tail=struct.pack("<6q", *LIVE_WINDOWS) * args.heavy_combos))
    if code is not None:
        raise RuntimeError("LIVE_OPEN refused: %s %r" % (code, body))
    return raw(7, "II", struct.unpack("<I", body)[0], args.heavy_bars, tail=bars)


def heavy_frame_seconds(url, args):
    """One heavy frame alone, the best of --heavy-reps: what a witness used to wait behind."""
    big = heavy_frame(args)
    c = Conn(url, timeout=args.frame_deadline_ms / 1000 + 30)
    if args.heavy_live:
        big = open_live(c, args, big)
    best = float("inf")
    for _ in range(args.heavy_reps):
        t0 = time.perf_counter()
        c.call(big)
        best = min(best, time.perf_counter() - t0)
    c.close()
    print(json.dumps({"phase": "one heavy frame alone", "seconds": best}), flush=True)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli", nargs="+")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--bars", type=int, default=150000)
    ap.add_argument("--heavy", type=int, default=2)
    ap.add_argument("--heavy-bars", type=int, default=100000)
    ap.add_argument("--heavy-combos", type=int, default=1500)
    ap.add_argument("--witness-calls", type=int, default=300)
    ap.add_argument("--max-seconds", type=float, default=60)
    ap.add_argument("--settle", type=float, default=1.0)
    ap.add_argument("--heavy-reps", type=int, default=1)
    ap.add_argument("--frame-deadline-ms", type=int, default=30000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-ratio", type=float, default=0.25)
    ap.add_argument("--heavy-live", action="store_true")
    ap.add_argument("--pin-server", default="", help="CPU list for the server (taskset -c), e.g. 1")
    ap.add_argument("--pin-clients", default="", help="CPU list for this process, the witness and heavy clients, e.g. 0")
    args = ap.parse_args()
    if args.pin_clients:
        os.sched_setaffinity(0, {int(c) for c in args.pin_clients.split(",")})
    if args.smoke:  # small, for ctest: ~10 s
        args.bars, args.heavy_bars, args.heavy_combos = 20000, 50000, 300
        args.witness_calls, args.max_seconds, args.settle, args.heavy_reps = 40, 20, 0.3, 2
    with tempfile.TemporaryDirectory() as tmp:
        pin = ["taskset", "-c", args.pin_server] if args.pin_server else []
        server = Server(pin + args.cli, "--unix", os.path.join(tmp, "s.sock"), "--workers", str(args.workers),
                        "--frame-deadline-ms", str(args.frame_deadline_ms), "--max-frame-bytes", "67108864")
        try:
            url = server.url("unix")
            if args.heavy == 0:  # the witness alone only (an A/B of two servers' base latency)
                phase(server, url, "witness alone", args, 0)
                return 0
            heavy_s = heavy_frame_seconds(url, args)
            alone = phase(server, url, "witness alone", args, 0)
            loaded = phase(server, url, "witness + %d heavy" % args.heavy, args, args.heavy)
        finally:
            server.stop()
    print("| phase | witness calls | p50 ms | p99 ms | max ms | server peak RSS MB | server CPU s | heavy frames |")
    print("|---|---|---|---|---|---|---|---|")
    for r in (alone, loaded):
        print("| %s | %d | %.1f | %.1f | %.1f | %.0f | %.1f | %d |" % (r["phase"], r["witness_calls"], r["p50_ms"], r["p99_ms"],
                                                                  r["max_ms"], r["server_rss_peak_mb"], r["server_cpu_s"],
                                                                  r["heavy_frames"]))
    ratio = loaded["p99_ms"] / 1e3 / heavy_s
    print("one heavy frame alone: %.2f s; witness p99 under load / one heavy frame: %.3f" % (heavy_s, ratio))
    if args.smoke:
        ok = ratio < args.max_ratio and not alone["witness_errors"] and not loaded["witness_errors"] \
            and loaded["witness_calls"] == args.witness_calls
        print("prof_fair_load_smoke: %s (ratio %.3f, limit %.2f; witness errors %d/%d)" %
              ("OK" if ok else "FAIL", ratio, args.max_ratio, alone["witness_errors"], loaded["witness_errors"]))
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
