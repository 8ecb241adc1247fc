#!/usr/bin/env python3
"""Issue 10, defect 9: `hmasweep wire` bounds the work one frame may request, n_bars × Σ over combos of
(windows + 256) ≤ 2^36 (the engine's default, docs/protocol.md; the 256 per bar-combo since issue 20 §2).
A small frame (3,000 bars, 1,255 combos of six windows of 3,000, 31 KB) asking for 3000 × 22,911,280 >
2^36 gets a limit error reply (code 16) naming the limit and exit 1, without sweeping (it had taken 15-17
s before the limit; the subprocess timeout below is only a hang guard, not a timing assertion).  The frame
one combo smaller is served: its windows span the whole series, so no HMA value exists and every combo
has 0 trades and PnL 0.

usage: test_wire_work_limit.py path/to/hmasweep [emulator prefix...]"""
import os, struct, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine"))
from wire_client import Checks, frame

cli = sys.argv[1:]
check = Checks()
LIMIT = 1 << 36
N_BARS = 3000
close = [100.0 + (i % 7) for i in range(N_BARS)]
full = [N_BARS] * 6  # windows from 1 to n_bars are valid; these are the largest


def wire(data):
    p = subprocess.run(cli + ["wire", "--variant", "sliding"], input=data, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode()


PER_COMBO = 6 * N_BARS + 256  # one combo's work per bar: its windows + 256 (src/engine/codec.h)
over = LIMIT // (N_BARS * PER_COMBO) + 1  # 1255: the first combo count over the limit
assert N_BARS * PER_COMBO * over > LIMIT and N_BARS * PER_COMBO * (over - 1) <= LIMIT

rc, out, err = wire(frame(0, close, [full] * over))
check(rc == 1 and "exceeds the limit of %d" % LIMIT in err, f"over the limit: exit {rc}, stderr {err.strip()!r}")
(prefix,) = struct.unpack_from("<I", out, 0) if len(out) >= 4 else (0,)
check(prefix & 0x80000000 and len(out) == 4 + (prefix & 0x7FFFFFFF), f"over the limit: not one error reply ({len(out)} bytes)")
if len(out) >= 8:
    (code,) = struct.unpack_from("<I", out, 4)
    msg = out[8:200].decode(errors="replace")
    check(code == 16 and "work n_bars × Σ(windows + 256 per combo) = 3000 × %d exceeds the limit" % (over * PER_COMBO) in msg,
          f"over the limit: reply code {code}, {msg[:120]!r}")

n = over - 1
rc, out, err = wire(frame(0, close, [full] * n))
check(rc == 0, f"just under the limit: exit {rc}, stderr {err.strip()!r}")
check(len(out) == 4 + 16 * n and struct.unpack_from("<I", out, 0)[0] == 16 * n,
      f"just under the limit: reply of {len(out)} bytes, want {4 + 16 * n}")
if len(out) == 4 + 16 * n:
    pnl = struct.unpack_from("<%dd" % n, out, 4)
    trades = struct.unpack_from("<%dq" % n, out, 4 + 8 * n)
    check(all(t == 0 for t in trades) and all(p == 0.0 for p in pnl),
          "windows over the whole series must give 0 trades and PnL 0")

check.done("test_wire_work_limit")
