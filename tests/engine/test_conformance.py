#!/usr/bin/env python3
"""Conformance: a client written from docs/spec.md §6 alone (wire_client.py) gets results bit-identical to
`hmasweep run` from `hmasweep serve`, over every transport (Unix socket, TCP loopback, shared memory, stdin/stdout):
the golden run (tests/golden/default_run.json, made by `hmasweep run`) and other gate data sets, through
op 0 (the study's frame) and through LOAD + SWEEP on a handle; echo returns the series verbatim; HELLO
reports protocol 1 to a version-1 client, byte for byte as before, and 2 to a version-2 client.
Version 2 (docs/protocol.md): op 10 with a fee gives `hmasweep run --fee`'s trades, PnL and six statistics
bit for bit; a bad fee, and op 10 on a connection whose HELLO said version 1, get error 2 naming them.
Version 3: ops 13 and 14 with P periods give `hmasweep run --periods P --fee`'s statistics, E and
mtm_max_drawdown bit for bit; P = 0, P > bars and op 13 after HELLO(2) get error 2 naming them.

usage: test_conformance.py SOURCE_DIR path/to/hmasweep [emulator prefix...]"""
import json, os, struct, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import (STATS_FIELDS, Checks, Conn, Server, equity_frame, equity_results, frame, gen_series, load_frame,
                         raw, results, run_json, stats_frame, stats_results, stdio_call, sweep_handle_frame)

src, cli = sys.argv[1], sys.argv[2:]
check = Checks()


def same(body, combos, what):
    pnl, trades = results(body, len(combos))
    check(trades == [c["trades"] for c in combos], what + ": trades differ from `hmasweep run`")
    # bit-identical: compare the f64 bit patterns, not values
    want = struct.pack("<%dd" % len(combos), *[c["pnl"] for c in combos])
    check(struct.pack("<%dd" % len(pnl), *pnl) == want, what + ": PnL not bit-identical to `hmasweep run`")


golden = json.load(open(os.path.join(src, "tests/golden/default_run.json")))["combos"]
golden_close = gen_series(cli)  # the default series (docs/spec.md §1), the golden run's input
# Other gate data: short series, small and odd L, windows at the series length (L = bars).
other = []
for args in (["--bars", "3000", "--seed", "5", "--lengths", "2,3,4,5,9,31,200"],
             ["--bars", "700", "--seed", "9", "--vol", "0.004", "--grid", "2:700:9"],
             ["--bars", "64", "--seed", "1", "--lengths", "2,7,21,64"]):
    other.append((" ".join(args), gen_series(cli, *args[:-2]), run_json(cli, *args)["combos"]))

# Version 2's reference: `hmasweep run --fee X --format json`, whose combos carry the six statistics.
fee_runs = []
for fee in ("0.0009", "0", "0.0037"):
    args = ["--bars", "3000", "--seed", "5", "--lengths", "2,3,4,5,9,31,200", "--fee", fee]
    fee_runs.append((float(fee), run_json(cli, *args)["combos"]))
fee_close = gen_series(cli, "--bars", "3000", "--seed", "5")


def same_stats(body, combos, what):
    pnl, trades, st = stats_results(body, len(combos))
    check(trades == [c["trades"] for c in combos], what + ": trades differ from `hmasweep run --fee`")
    check(struct.pack("<%dd" % len(pnl), *pnl) == struct.pack("<%dd" % len(combos), *[c["pnl"] for c in combos]),
          what + ": PnL not bit-identical to `hmasweep run --fee`")
    for name in STATS_FIELDS:
        kind = "q" if name in ("wins", "bars_held") else "d"
        got = struct.pack("<%d%s" % (len(combos), kind), *st[name])
        check(got == struct.pack("<%d%s" % (len(combos), kind), *[c[name] for c in combos]),
              f"{what}: {name} not bit-identical to `hmasweep run --fee`")


def check_version_2(c, kind):
    code, body = c.call(raw(2, "I", 2))
    check(code is None and struct.unpack_from("<I", body)[0] == 2, kind + ": HELLO(2) answers protocol 2")
    for fee, combos in fee_runs:
        code, body = c.call(stats_frame(fee_close, [g["windows"] for g in combos], fee))
        check(code is None and len(body) == 64 * len(combos), f"{kind}: SWEEP_STATS fee {fee}: {body if code else ''}")
        if code is None:
            same_stats(body, combos, f"{kind} op 10 fee {fee}")
    for bad in (-0.5, 1.0, float("nan"), float("inf")):
        code, body = c.call(stats_frame(fee_close, [fee_runs[0][1][0]["windows"]], bad))
        check(code == 2 and "fee = " in body, f"{kind}: fee {bad} -> {code} {body}")
    # a connection that said HELLO version 1 is an old-protocol path: op 10 is refused, naming it
    code, body = c.call(raw(2, "I", 1))
    check(code is None and struct.unpack_from("<I", body)[0] == 1, kind + ": HELLO(1) answers protocol 1")
    code, body = c.call(stats_frame(fee_close, [fee_runs[0][1][0]["windows"]], 0.0009))
    check(code == 2 and "needs protocol version 2" in body, f"{kind}: op 10 after HELLO(1) -> {code} {body}")
    code, body = c.call(frame(0, fee_close, [fee_runs[0][1][0]["windows"]]))
    check(code is None, kind + ": op 0 still served after the refusal")


# Version 3's reference: `hmasweep run --periods P --fee X --format json`, whose combos carry equity and
# mtm_max_drawdown (docs/spec.md §9).
EQ_PERIODS = 7
eq_runs = []
for fee in ("0.0009", "0.0037"):
    args = ["--bars", "3000", "--seed", "5", "--lengths", "2,3,4,5,9,31,200", "--fee", fee, "--periods", str(EQ_PERIODS)]
    eq_runs.append((float(fee), run_json(cli, *args)["combos"]))


def same_equity(body, combos, what):
    n, P = len(combos), EQ_PERIODS
    check(len(body) == (72 + 8 * P) * n, f"{what}: reply of {len(body)} bytes, not (72 + 8 P) n = {(72 + 8 * P) * n}")
    if len(body) != (72 + 8 * P) * n:
        return
    same_stats(body[:64 * n], combos, what)
    pnl, trades, st, mtm, rows = equity_results(body, n, P)
    check(struct.pack("<%dd" % n, *mtm) == struct.pack("<%dd" % n, *[c["mtm_max_drawdown"] for c in combos]),
          what + ": mtm_max_drawdown not bit-identical to `hmasweep run --periods`")
    for k in range(P):
        check(struct.pack("<%dd" % n, *rows[k]) == struct.pack("<%dd" % n, *[c["equity"][k] for c in combos]),
              f"{what}: E row {k} not bit-identical to `hmasweep run --periods`")


def check_version_3(c, kind):
    code, body = c.call(raw(2, "I", 3))
    check(code is None and struct.unpack_from("<I", body)[0] == 3, kind + ": HELLO(3) answers protocol 3")
    for fee, combos in eq_runs:
        wins = [g["windows"] for g in combos]
        code, body = c.call(equity_frame(13, len(fee_close), wins, fee, EQ_PERIODS, close=fee_close))
        check(code is None, f"{kind}: SWEEP_EQUITY fee {fee}: {body if code else ''}")
        if code is None:
            same_equity(body, combos, f"{kind} op 13 fee {fee}")
        code, body = c.call(load_frame(fee_close))
        (handle,) = struct.unpack("<I", body)
        code, body = c.call(equity_frame(14, handle, wins, fee, EQ_PERIODS))
        check(code is None, f"{kind}: SWEEP_HANDLE_EQUITY fee {fee}: {body if code else ''}")
        if code is None:
            same_equity(body, combos, f"{kind} op 14 fee {fee}")
        c.call(raw(5, "I", handle))
    one = [eq_runs[0][1][0]["windows"]]
    code, body = c.call(equity_frame(13, len(fee_close), one, 0.0009, 0, close=fee_close))
    check(code == 2 and "n_periods = 0" in body, f"{kind}: n_periods 0 -> {code} {body}")
    code, body = c.call(equity_frame(13, len(fee_close), one, 0.0009, 3001, close=fee_close))
    check(code == 2 and "3001" in body, f"{kind}: n_periods 3001 > 3000 bars -> {code} {body}")
    code, body = c.call(equity_frame(13, len(fee_close), one, -1.0, 4, close=fee_close))
    check(code == 2 and "fee = " in body, f"{kind}: op 13 fee -1 -> {code} {body}")
    # a version-2 connection: HELLO answers 2 as before, and op 13 is refused, naming the version it needs
    code, body = c.call(raw(2, "I", 2))
    check(code is None and struct.unpack_from("<I", body)[0] == 2, kind + ": HELLO(2) still answers protocol 2")
    code, body = c.call(equity_frame(13, len(fee_close), one, 0.0009, 4, close=fee_close))
    check(code == 2 and "needs protocol version 3" in body, f"{kind}: op 13 after HELLO(2) -> {code} {body}")
    code, body = c.call(stats_frame(fee_close, one, 0.0009))
    check(code is None and len(body) == 64, kind + ": op 10 still served to a version-2 connection")


with tempfile.TemporaryDirectory() as tmp:
    shm_name = "hs_conformance_%d" % os.getpid()
    server = Server(cli, "--unix", os.path.join(tmp, "s.sock"), "--tcp", "127.0.0.1:0", "--shm", shm_name)  # default variant
    try:
        build = os.path.dirname(os.path.abspath(cli[-1]))
        relay = next(p for p in (os.path.join(build, "shm_relay-run"), os.path.join(build, "shm_relay")) if os.path.exists(p))
        for kind in ("unix", "tcp", "shm"):
            c = Conn(server.url(kind), timeout=120, relay=relay)
            code, body = c.call(raw(2, "I", 1))
            check(code is None and struct.unpack_from("<I", body)[0] == 1, kind + ": HELLO protocol 1")
            hello_v1 = body
            # the golden run: every combo over Unix, every 8th over TCP and shm (same bytes, shorter test)
            combos = golden if kind == "unix" else golden[::8]
            code, body = c.call(frame(0, golden_close, [g["windows"] for g in combos]))
            check(code is None, f"{kind}: golden sweep: {body if code else ''}")
            if code is None:
                same(body, combos, kind + " golden")
            code, body = c.call(frame(1, golden_close, []))
            check(code is None and body == struct.pack("<%dd" % len(golden_close), *golden_close), kind + ": echo")
            for name, close, combos in other:
                wins = [g["windows"] for g in combos]
                code, body = c.call(frame(0, close, wins))
                check(code is None, f"{kind} {name}: {body}")
                if code is None:
                    same(body, combos, f"{kind} op 0 {name}")
                code, body = c.call(load_frame(close))
                check(code is None and len(body) == 4, f"{kind} LOAD {name}")
                (handle,) = struct.unpack("<I", body)
                code, body = c.call(sweep_handle_frame(handle, wins))
                check(code is None, f"{kind} SWEEP_HANDLE {name}: {body}")
                if code is None:
                    same(body, combos, f"{kind} handle {name}")
                code, body = c.call(raw(5, "I", handle))
                check(code is None and body == b"", f"{kind} FREE {name}")
            c.close()
            c = Conn(server.url(kind), timeout=120, relay=relay)
            code, body = c.call(raw(2, "I", 1))  # a fresh connection's v1 HELLO: the same bytes again
            check(code is None and body == hello_v1 and len(body) == 28 + struct.unpack_from("<I", body, 24)[0],
                  kind + ": HELLO(1) reply byte for byte the v1 layout")
            check_version_2(c, kind)
            c.close()
            c = Conn(server.url(kind), timeout=120, relay=relay)
            check_version_3(c, kind)
            c.close()
    finally:
        rc, err = server.stop()
        check(rc == 0, f"server exit {rc}: {err}")

# stdin/stdout: the same frames through `hmasweep serve` with no listener, all in one stream
data = frame(0, golden_close, [g["windows"] for g in golden[::8]])
for name, close, combos in other:
    data += frame(0, close, [g["windows"] for g in combos])
data += frame(1, other[0][1], [])
rc, frames = stdio_call(cli, data)
check(rc == 0 and len(frames) == 2 + len(other), f"stdio: exit {rc}, {len(frames)} replies")
if len(frames) == 2 + len(other):
    same(frames[0][1], golden[::8], "stdio golden")
    for (name, close, combos), (code, body) in zip(other, frames[1:]):
        check(code is None, f"stdio {name}")
        if code is None:
            same(body, combos, "stdio " + name)
    check(frames[-1][1] == struct.pack("<%dd" % len(other[0][1]), *other[0][1]), "stdio echo")

check.done("test_conformance")
