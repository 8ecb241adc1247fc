#!/usr/bin/env python3
"""Issue 29 item 2: the server refuses, before it runs, a computation its cost model says may not finish
within the frame deadline (engine/session.c, docs/engine.md "The cost model"), with an error reply that
names the estimate and the limit.  Before, --max-work alone admitted 100,000 bars x 2,500 combos of
windows 1 (6.6e10 units, under 2^36), which then held a worker until the 30 s deadline stopped it.

  1. that frame is refused at once (code 16), the reply naming the estimate, the deadline and the model;
     the estimate is --cost-margin times the worst case (3 x);
  2. the model grows with the windows, and is linear in the combos: from a refused frame's figure, a frame of half its combos, whose
     estimate is then under the deadline, is not refused by the model (served, or at worst stopped at the
     deadline on a slow sanitizer build, never refused before it runs);
  3. --cost-margin 0 turns the refusal off;
  4. a LIVE_APPEND and a LIVE_OPEN over the deadline are refused the same way; the live session stays as
     it was (an append of one bar is still served).
No time is asserted.  usage: test_cost_model.py path/to/hmasweep [emulator prefix...]"""
import os, re, struct, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import Checks, Conn, Server, raw

cli = sys.argv[1:]
check = Checks()
ESTIMATE = re.compile(r"estimated ([0-9.e+]+) s \(([0-9.e+]+) x ([0-9.e+]+) s at worst\) exceeds the frame deadline of ([0-9.e+]+) s")


def bars_bytes(n_bars, price=100.0):
    return struct.pack("<2d", price, price * 1.001) * (n_bars // 2) + (struct.pack("<d", price) if n_bars % 2 else b"")


def sweep(n_bars, windows):
    body = struct.pack("<BII", 0, n_bars, len(windows)) + bars_bytes(n_bars) + b"".join(struct.pack("<6q", *w) for w in windows)
    return struct.pack("<I", len(body)) + body


def estimate(msg):
    """(estimate s, margin, worst-case s, deadline s) from a refusal, or None."""
    m = ESTIMATE.search(str(msg))
    return tuple(float(g) for g in m.groups()) if m else None


def refused(code, msg, what):
    e = estimate(msg)
    check(code == 16 and e is not None and "--cost-margin" in str(msg) and "cost model '" in str(msg),
          f"{what}: refused before it runs, naming the estimate and the limit: {code} {str(msg)[:240]!r}")
    return e


with tempfile.TemporaryDirectory() as tmp:
    sock = os.path.join(tmp, "s.sock")
    server = Server(cli, "--unix", sock, "--max-frame-bytes", "67108864", "--frame-deadline-ms", "30000")
    try:
        c = Conn(server.url("unix"), timeout=120)
        # 1. the frame
        code, msg = c.call(sweep(100000, [[1] * 6] * 2500))
        e = refused(code, msg, "100,000 bars x 2,500 combos of windows 1")
        if e:
            est, margin, worst, deadline = e
            check(margin == 3 and abs(est - margin * worst) <= 0.01 * est and est > deadline == 30,
                  f"the estimate is 3 x the worst case and over the 30 s deadline: {e}")
        code, body = c.call(sweep(2000, [[4, 9, 2, 3, 4, 9]] * 3))
        check(code is None and len(body) == 16 * 3, f"a small sweep on the same connection is served: {code}")
        c.close()
    finally:
        server.stop()

    # 2. linear in the combos: under a 4 s deadline, a frame refused at ~2x over, then half of it
    server = Server(cli, "--unix", sock, "--frame-deadline-ms", "4000")
    try:
        c = Conn(server.url("unix"), timeout=120)
        n = 40
        while n <= 100000:
            code, msg = c.call(sweep(20000, [[1] * 6] * n))
            e = estimate(msg)
            if e:
                break
            n *= 2
        check(e is not None and code == 16, f"a sweep of 20,000 bars x {n} combos of windows 1 refused at a 4 s deadline")
        if e:
            code, msg2 = c.call(sweep(20000, [[100] * 6] * n))
            e2 = estimate(msg2)
            check(code == 16 and e2 is not None and e2[2] > 5 * e[2],
                  f"windows of 100 cost more than windows of 1 in the model: {e2} vs {e}")
            half = n // 2 if e[0] < 2 * e[3] else int(n * e[3] / e[0] * 0.9)
            code, msg = c.call(sweep(20000, [[1] * 6] * half))
            check(estimate(msg) is None and (code is None or "stopped after" in str(msg)),
                  f"{half} combos (the model: {e[0] * half / n:.2f} s) are not refused before they run: {code} {str(msg)[:160]!r}")
        c.close()
    finally:
        server.stop()

    # 3. --cost-margin 0: no refusal by the model (the frame runs; the 0.3 s deadline stops it)
    server = Server(cli, "--unix", sock, "--frame-deadline-ms", "300", "--cost-margin", "0", "--max-frame-bytes", "67108864")
    try:
        c = Conn(server.url("unix"), timeout=120)
        code, msg = c.call(sweep(100000, [[1] * 6] * 2500))
        check(code == 16 and estimate(msg) is None and "stopped after" in str(msg),
              f"--cost-margin 0: the frame runs until the deadline stops it: {code} {str(msg)[:160]!r}")
        c.close()
    finally:
        server.stop()

    # 4. live work
    server = Server(cli, "--unix", sock, "--max-frame-bytes", "67108864", "--max-work", "10000000000000000",
                    "--max-loaded-per-client", "4294967296", "--max-loaded-total", "4294967296")
    try:
        c = Conn(server.url("unix"), timeout=120)
        code, body = c.call(raw(3, "I", 20, tail=bars_bytes(20)))
        short = struct.unpack("<I", body)[0] if code is None else 0
        small = [[2 + k % 5, 4 + k % 7, 2, 1 + k % 3, 2 + k % 5, 4 + k % 7] for k in range(2000)]
        code, body = c.call(raw(6, "II", short, len(small), tail=b"".join(struct.pack("<6q", *w) for w in small)))
        check(code is None, f"live open of 2,000 combos on 20 bars: {code} {body!r}")
        session = struct.unpack("<I", body)[0] if code is None else 0
        code, msg = c.call(raw(7, "II", session, 200000, tail=bars_bytes(200000)))
        refused(code, msg, "LIVE_APPEND of 200,000 bars x 2,000 combos")
        check("LIVE_APPEND of 200000 bars x 2000 combos" in str(msg), f"the refusal names the append: {str(msg)[:120]!r}")
        code, body = c.call(raw(7, "II", session, 1, tail=bars_bytes(1)))
        check(code is None and len(body) == 18 * 2000, f"the live session is as it was: one more bar served: {code}")
        code, body = c.call(raw(3, "I", 300000, tail=bars_bytes(300000)))
        long_ = struct.unpack("<I", body)[0] if code is None else 0
        wide = [[w // 2, w, 2, w // 3, w // 2, w] for w in range(400, 2400)]
        code, msg = c.call(raw(6, "II", long_, len(wide), tail=b"".join(struct.pack("<6q", *w) for w in wide)))
        refused(code, msg, "LIVE_OPEN over 300,000 bars x 2,000 wide combos")
        check("LIVE_OPEN's history replay" in str(msg), f"the refusal names the live open: {str(msg)[:120]!r}")
        c.close()
    finally:
        server.stop()

check.done("test_cost_model")
