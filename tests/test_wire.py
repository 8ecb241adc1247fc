#!/usr/bin/env python3
"""The wire protocol (docs/spec.md §6) through `hmasweep wire`: sweep replies equal `hmasweep run` on the same
data bit for bit, echo returns the series verbatim, several frames on one stream are all answered, and
every malformed frame (truncated, inconsistent length, unknown opcode, bad prices, impossible windows,
empty stream) gets an error reply (docs/protocol.md) naming the problem and exit 1 — and where the frame
boundary is still known, the next frame is served.  Never a crash or a silent reply.

usage: test_wire.py path/to/hmasweep [emulator prefix...]"""
import json, os, struct, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine"))
from wire_client import Checks, frame

cli = sys.argv[1:]  # the CLI, possibly behind an emulator (qemu-aarch64 hmasweep)
check = Checks()


def wire(data, *args):
    p = subprocess.run(cli + ["wire", *args], input=data, capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode()


def run_json(*args):
    return json.loads(subprocess.run(cli + ["run", "--format", "json", *args], check=True, capture_output=True).stdout)


# The reference: a small synthetic run through the CLI, and the same series/windows through the wire.
ref = run_json("--bars", "3000", "--seed", "5", "--lengths", "2,6,9,31")
gen = subprocess.run(cli + ["gen", "--bars", "3000", "--seed", "5", "--output", "/dev/stdout", "--format", "f64"],
                     check=True, capture_output=True).stdout
close = list(struct.unpack("<%dd" % (len(gen) // 8), gen))
windows = [c["windows"] for c in ref["combos"]]

rc, out, err = wire(frame(0, close, windows) + frame(1, close, []) + frame(0, close, windows[:1]), "--variant", "sliding")
check(rc == 0, f"three frames: exit {rc}: {err}")
n = len(windows)
(l1,) = struct.unpack_from("<I", out, 0)
check(l1 == 16 * n, f"sweep reply body_len {l1}")
pnl = struct.unpack_from("<%dd" % n, out, 4)
trades = struct.unpack_from("<%dq" % n, out, 4 + 8 * n)
check(list(trades) == [c["trades"] for c in ref["combos"]], "trades differ from `hmasweep run`")
check(list(pnl) == [c["pnl"] for c in ref["combos"]], "PnL not bit-identical to `hmasweep run`")
off = 4 + 16 * n
(l2,) = struct.unpack_from("<I", out, off)
check(l2 == 8 * len(close) and out[off + 4: off + 4 + l2] == gen, "echo is not the series verbatim")
off += 4 + l2
(l3,) = struct.unpack_from("<I", out, off)
check(l3 == 16 and len(out) == off + 4 + 16, "third frame's reply missing or the stream has extra bytes")

good = frame(0, close, windows)


def error_replies(out):
    """The error replies in a reply stream: [(code, message)], or None when a non-error frame is in it."""
    found, off = [], 0
    while off + 4 <= len(out):
        (prefix,) = struct.unpack_from("<I", out, off)
        n = prefix & 0x7FFFFFFF
        if not prefix & 0x80000000:
            return None
        (code,) = struct.unpack_from("<I", out, off + 4)
        found.append((code, out[off + 8: off + 4 + n].decode()))
        off += 4 + n
    return found if off == len(out) else None


# (request bytes, text the error names, wire error code, whether the frame boundary is still known)
bad_cases = [
    (good[:2], "closed the connection in the middle of a frame", 16, False),
    (good[:7], "in the middle of a frame", 16, False),
    (good[:-5], "in the middle of a frame", 16, False),
    (frame(0, close, windows, body_len=len(good) - 4 + 8), "closed the connection in the middle", 16, False),
    (frame(0, close, windows, body_len=len(good) - 4 - 8)[:-8], "does not match", 2, True),
    (struct.pack("<IBIId", 17, 7, 1, 1, 100.0), "unknown live session 1", 17, True),
    (frame(42, close, windows), "unknown opcode 42", 2, True),
    (frame(0, [], windows), "n_bars = 0 out of range", 2, True),
    (frame(0, close[:10] + [float("nan")] + close[11:], windows), "close[10] is NaN", 1, True),
    (frame(0, close[:3] + [-2.0] + close[4:], windows), "not positive", 1, True),
    (frame(0, close, [[3, 6, 2, 1, 2, 3], [2, 5000, 2, 1, 1, 2]]), "w1 = 5000", 2, True),
    (frame(0, close, [[3, 6, 0, 1, 2, 3]]), "w2 = 0", 2, True),
    (frame(0, close, [[3, 6, -4, 1, 2, 3]]), "w2 = -4", 2, True),
    (struct.pack("<I", 3) + b"\0bc", "shorter than its 9-byte header", 2, True),
    (struct.pack("<I", 0), "empty request body", 2, False),
    (struct.pack("<I", 0x80000010) + good[4:], "exceeds the frame limit", 16, False),
]
rc, out, err = wire(b"")
check(rc == 1 and "no frame on input" in err, f"empty stream: exit {rc}, {err!r}")
for data, needle, code, boundary_known in bad_cases:
    rc, out, err = wire(data + (good if boundary_known else b""))
    what = f"{needle!r}: exit {rc}, stderr {err.strip()!r}"
    check(rc == 1 and needle in err, what)
    if boundary_known:
        # the error reply, then the good frame after it is still answered
        errs = error_replies(out[: len(out) - 4 - 16 * n])
        check(errs is not None and len(errs) == 1 and errs[0][0] == code and needle in errs[0][1], "reply of " + what)
        check(out[len(out) - 4 - 16 * n:][:4] == struct.pack("<I", 16 * n), "good frame after " + what)
    else:
        errs = error_replies(out)
        check(errs is not None and len(errs) == 1 and errs[0][0] == code, "lost boundary reply of " + what)
# a good frame followed by a bad one: the good one is answered, then the error reply, exit 1
rc, out, err = wire(good + frame(42, close, windows))
check(rc == 1 and len(out) > 4 + 16 * n and out[:4] == struct.pack("<I", 16 * n) and "frame 1" in err,
      f"good-then-bad: exit {rc}, {len(out)} bytes, {err!r}")
rc, out, err = wire(good, "--variant", "nope")
check(rc == 2 and "unknown variant" in err, f"unknown variant: exit {rc}")

check.done("test_wire")
