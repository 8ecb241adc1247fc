#!/usr/bin/env python3
"""Faults: each bad client gets its error reply (docs/protocol.md codes) or a close, and a witness client
on the same server keeps getting correct answers throughout: clients that vanish mid-frame, a client
sending one byte per second, oversized and lying length prefixes, n_bars/n_combos inconsistent with the
length, unknown opcodes, bad prices, windows of 0, negative or longer than the series, limits (work,
loaded bytes, clients), handles of other connections, authentication, the socket-file rules, and SIGTERM
with sweeps in flight (each finishes, then the server exits 0 and removes its socket).

usage: test_faults.py path/to/hmasweep [emulator prefix...]"""
import os, signal, socket, struct, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import (Checks, Conn, Server, frame, gen_series, load_frame, raw, results, run_json, sweep_handle_frame,
                         witness_fixture)

cli = sys.argv[1:]
check = Checks()


ref, close, wins, good = witness_fixture(cli)


def witness_ok(url, what):
    c = Conn(url, timeout=10)
    code, body = c.call(good)
    c.close()
    ok = code is None and results(body, len(ref)) == ([r["pnl"] for r in ref], [r["trades"] for r in ref])
    check(ok, "witness served correctly after: " + what)


def expect_error(c, data, code, needle, what, stays_open=True):
    try:
        got, msg = c.call(data)
    except (ConnectionError, socket.timeout) as e:
        check(False, f"{what}: no error reply ({e})")
        return
    check(got == code and needle in msg, f"{what}: got code {got} {msg!r}, want {code} with {needle!r}")
    if stays_open:
        got, body = c.call(good)
        check(got is None and len(body) == 16 * len(ref), what + ": connection still usable afterwards")
    else:
        check(c.closed(), what + ": connection closed (frame boundary lost)")


with tempfile.TemporaryDirectory() as tmp:
    sock = os.path.join(tmp, "s.sock")
    server = Server(cli, "--unix", sock, "--tcp", "127.0.0.1:0", "--max-frame-bytes", "1000000",
                    "--frame-deadline-ms", "1500", "--max-work", "50000000", "--max-loaded-per-client", "40000",
                    "--max-loaded-total", "100000", "--workers", "2")
    url = server.url("unix")
    try:
        check(oct(os.stat(sock).st_mode & 0o777) == "0o600", "socket file mode 0600")
        # --- frames whose boundary is known: error reply, connection stays usable
        c = Conn(url, timeout=10)
        n = len(close)
        cases = [
            (frame(0, close, wins, body_len=9 + 8 * n + 48 * len(wins) - 48)[:-48], 2, "does not match", "n_combos inconsistent with length"),
            (struct.pack("<IBII", 9 + 8 * 5, 0, 7, 0) + b"\0" * 40, 2, "does not match", "n_bars inconsistent with length"),
            (raw(77, "II", 1, 1), 2, "unknown opcode 77", "unknown opcode"),
            (raw(6, "II", 1, 0), 17, "unknown handle 1", "LIVE_OPEN on an unknown handle"),
            (raw(7, "IId", 3, 1, 100.0), 17, "unknown live session 3", "LIVE_APPEND to an unknown session"),
            (raw(7, "II", 3, 0), 2, "k = 0", "LIVE_APPEND of 0 bars"),
            (raw(8, "I", 3), 17, "unknown live session 3", "LIVE_CLOSE of an unknown session"),
            (frame(0, close[:5] + [float("nan")] + close[6:], wins), 1, "NaN", "NaN price"),
            (frame(0, close[:5] + [float("inf")] + close[6:], wins), 1, "close[5]", "infinite price"),
            (frame(0, close[:5] + [0.0] + close[6:], wins), 1, "close[5]", "zero price"),
            (frame(0, close[:5] + [-1.0] + close[6:], wins), 1, "close[5]", "negative price"),
            (frame(0, close, [[3, 6, 0, 1, 2, 3]]), 2, "w2 = 0", "window 0"),
            (frame(0, close, [[3, -6, 2, 1, 2, 3]]), 2, "w1 = -6", "negative window"),
            (frame(0, close, [[3, 6, 2, 1, 2, 2001]]), 2, "w5 = 2001", "window longer than the series"),
            (frame(0, close, [[2000] * 6] * 5), 16, "exceeds the limit", "work limit"),
            (sweep_handle_frame(99, wins), 17, "unknown handle 99", "unknown handle"),
            (raw(5, "I", 12345), 17, "unknown handle", "FREE of an unknown handle"),
            (load_frame(close[:5] + [float("nan")] + close[6:]), 1, "NaN", "LOAD of a NaN series"),
            (load_frame(close * 3), 16, "limits 40000 bytes", "LOAD over the per-client limit"),
            (raw(0, "II", 0, 0), 2, "n_bars = 0", "empty series"),
        ]
        for data, code, needle, what in cases:
            expect_error(c, data, code, needle, what)
        # a handle belongs to the connection that loaded it
        code, body = c.call(load_frame(close))
        (h,) = struct.unpack("<I", body)
        other = Conn(url, timeout=10)
        expect_error(other, sweep_handle_frame(h, wins), 17, "unknown handle", "another connection's handle")
        code, body = c.call(sweep_handle_frame(h, wins))
        check(code is None and results(body, len(ref))[1] == [r["trades"] for r in ref], "own handle sweeps")
        other.close()
        c.close()
        witness_ok(url, "bad frames")

        # --- frames whose boundary is lost: error reply, then close
        for data, needle, what in [
            (struct.pack("<I", 0x7FFFFFFF) + b"\0" * 16, "exceeds the frame limit", "oversized length prefix"),
            (struct.pack("<I", 0x80000005) + b"\0" * 5, "exceeds the frame limit", "length prefix with bit 31"),
            (struct.pack("<I", 0), "empty request body", "zero length prefix"),
        ]:
            expect_error(Conn(url, timeout=10), data, 16 if "exceeds" in needle else 2, needle, what, stays_open=False)
        # lying prefix: claims more than it sends, then waits: the frame deadline closes it
        c = Conn(url, timeout=10)
        c.send(struct.pack("<I", len(good) + 100) + good[4:])
        t0 = time.monotonic()
        witness_ok(url, "a lying length prefix is pending")
        code, msg = c.reply()
        check(code == 16 and "frame deadline" in msg and c.closed(), f"lying prefix: {code} {msg!r}")
        c.close()

        # --- vanish mid-frame (several at once), then a witness
        for k in range(4):
            v = Conn(url if k % 2 else server.url("tcp"), timeout=10)
            v.send(good[: 100 + k * 1000])
            v.close()
        witness_ok(url, "clients vanished mid-frame")
        v = Conn(url, timeout=10)  # vanish before reading a big reply
        v.send(frame(1, close * 50, []))
        v.close()
        witness_ok(url, "a client vanished before reading its reply")

        # --- one byte per second: only that client waits; it is cut at the frame deadline
        slow = Conn(url, timeout=10)
        stop = threading.Event()

        def trickle():
            for b in good[:6]:
                if stop.is_set():
                    return
                try:
                    slow.send(bytes([b]))
                except OSError:
                    return
                time.sleep(1.0)

        t = threading.Thread(target=trickle)
        t.start()
        for k in range(3):
            witness_ok(url, f"a 1 byte/s client is connected ({k})")
        code, msg = slow.reply()
        check(code == 16 and "frame deadline" in msg, f"1 byte/s client: {code} {msg!r}")
        stop.set()
        t.join()
        slow.close()
        witness_ok(server.url("tcp"), "the slow client was cut")
        rss = server.rss_kb()
        check(0 < rss < 400 * 1024, f"server peak RSS {rss} kB bounded")
    finally:
        rc, err = server.stop()
        check(rc == 0, f"server exit {rc}: {err[-500:]}")
        check(not os.path.exists(sock), "socket file removed on SIGTERM")

    # --- idle timeout: a connection that starts no frame is closed; one that keeps working is not
    server = Server(cli, "--unix", sock, "--idle-timeout-ms", "400")
    try:
        idle, busy = Conn(server.url("unix")), Conn(server.url("unix"))
        for _ in range(4):
            time.sleep(0.2)
            check(busy.call(good)[0] is None, "busy connection served")
        check(idle.closed(), "idle connection closed after --idle-timeout-ms")
        idle.close(), busy.close()
    finally:
        server.stop()

    # --- too many clients
    server = Server(cli, "--unix", sock, "--max-clients", "2")
    try:
        a, b = Conn(server.url("unix")), Conn(server.url("unix"))
        check(a.call(good)[0] is None and b.call(good)[0] is None, "two clients served")
        third = Conn(server.url("unix"))
        code, msg = third.call(good)  # a slot is taken at the first frame (admission, issue 20 §3)
        check(code == 16 and "too many clients" in msg, f"third client refused: {code} {msg!r}")
        a.close()
        time.sleep(0.3)
        witness_ok(server.url("unix"), "a slot was freed")
        b.close()
    finally:
        server.stop()

    # --- socket file rules: never replace what is not a stale socket of ours
    plain = os.path.join(tmp, "plain")
    open(plain, "w").write("keep me")
    p = subprocess.run(cli + ["serve", "--unix", plain], capture_output=True, timeout=10)
    check(p.returncode == 2 and "not a socket" in p.stderr.decode() and open(plain).read() == "keep me",
          f"regular file at the path: exit {p.returncode} {p.stderr!r}")
    live = Server(cli, "--unix", sock)
    p = subprocess.run(cli + ["serve", "--unix", sock], capture_output=True, timeout=10)
    check(p.returncode == 2 and "another server" in p.stderr.decode(), f"live socket: exit {p.returncode} {p.stderr!r}")
    live.p.kill()  # dies without cleaning up: a stale socket is left
    live.p.wait()
    check(os.path.exists(sock), "SIGKILL leaves a stale socket")
    server = Server(cli, "--unix", sock)
    witness_ok(server.url("unix"), "a stale socket was replaced")
    server.stop()

    # --- tcp: non-loopback needs --allow-remote and a private token file; AUTH first
    p = subprocess.run(cli + ["serve", "--tcp", "0.0.0.0:0"], capture_output=True, timeout=10)
    check(p.returncode == 2 and "--allow-remote" in p.stderr.decode(), f"0.0.0.0 refused: {p.stderr!r}")
    tok = os.path.join(tmp, "token")
    with open(tok, "w") as f:
        f.write("s3cret-token-0123456789\n")
    os.chmod(tok, 0o644)
    p = subprocess.run(cli + ["serve", "--tcp", "0.0.0.0:0", "--allow-remote", "--token-file", tok],
                       capture_output=True, timeout=10)
    check(p.returncode == 2 and "chmod 600" in p.stderr.decode(), f"group-readable token file refused: {p.stderr!r}")
    os.chmod(tok, 0o600)
    server = Server(cli, "--tcp", "127.0.0.1:0", "--token-file", tok)
    try:
        u = server.url("tcp")
        expect_error(Conn(u), good, 18, "authentication required", "no AUTH", stays_open=False)
        expect_error(Conn(u), raw(9, tail=b"wrong-token-0123456789"), 18, "wrong token", "wrong token", stays_open=False)
        c = Conn(u)
        check(c.call(raw(9, tail=b"s3cret-token-0123456789")) == (None, b""), "AUTH accepted")
        check(c.call(good)[0] is None, "authenticated client served")
        c.close()
    finally:
        server.stop()

    # --- SIGTERM with sweeps in flight: every one finishes, then exit 0 and the socket is gone
    big = gen_series(cli, "--bars", "60000", "--seed", "4")
    bigref = run_json(cli, "--bars", "60000", "--seed", "4", "--lengths", "6,50,200")["combos"]
    server = Server(cli, "--unix", sock, "--workers", "2")
    conns = [Conn(server.url("unix"), timeout=60) for _ in range(4)]
    for c in conns:
        c.send(frame(0, big, [r["windows"] for r in bigref]))
    time.sleep(0.05)
    server.p.send_signal(signal.SIGTERM)
    for k, c in enumerate(conns):
        try:
            code, body = c.reply()
            check(code is None and results(body, 3)[1] == [r["trades"] for r in bigref], f"in-flight sweep {k} finished")
        except ConnectionError as e:
            check(False, f"in-flight sweep {k} lost: {e}")
        check(c.closed(), f"connection {k} closed after its reply")
    rc, err = server.stop()
    check(rc == 0 and not os.path.exists(sock), f"SIGTERM: exit {rc}, socket removed: {err[-300:]}")

check.done("test_faults")
