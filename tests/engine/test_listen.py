#!/usr/bin/env python3
"""`hmasweep serve --listen URL`: every scheme of the transport table (src/engine/transport.h) through --listen,
each answering HELLO, ECHO and a sweep with the same bytes as `hmasweep run`; several listeners at once;
the old flags as sugar for the same URLs; and the refusals, each exit 2 with a message that names the
URL: an unknown scheme, a malformed address, stdio: with another listener, more than 8 listeners; and a
ready line that would land in stdio:'s reply stream (--ready, --ready-fd 0 or 1), while --ready-fd 2 works;
--ready-fd N not open at start is refused, and --ready-fd 2 leaves stderr open for the logs (issue 29 item 5).

usage: test_listen.py path/to/hmasweep [emulator prefix...]"""
import os, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import Checks, Conn, Server, frame, gen_series, raw, results, run_json, stdio_call

cli = sys.argv[1:]
check = Checks()
args = ["--bars", "2000", "--seed", "4", "--lengths", "2,6,31"]
close = gen_series(cli, *args[:-2])
combos = run_json(cli, *args)["combos"]
windows = [g["windows"] for g in combos]
want_pnl = struct.pack("<%dd" % len(combos), *[g["pnl"] for g in combos])


def exercise(c, what):
    code, body = c.call(raw(2, "I", 1))
    check(code is None and struct.unpack_from("<I", body)[0] == 1, what + ": HELLO protocol 1")
    code, body = c.call(frame(1, close, []))
    check(code is None and body == struct.pack("<%dd" % len(close), *close), what + ": echo")
    code, body = c.call(frame(0, close, windows))
    check(code is None, f"{what}: sweep: {body if code else ''}")
    if code is None:
        pnl, trades = results(body, len(combos))
        check(trades == [g["trades"] for g in combos] and struct.pack("<%dd" % len(pnl), *pnl) == want_pnl,
              what + ": sweep differs from `hmasweep run`")


with tempfile.TemporaryDirectory() as tmp:
    build = os.path.dirname(os.path.abspath(cli[-1]))
    relay = next(p for p in (os.path.join(build, "shm_relay-run"), os.path.join(build, "shm_relay")) if os.path.exists(p))
    shm = "hs_listen_%d" % os.getpid()
    # every scheme with a listener, through --listen only, at once
    server = Server(cli, "--listen", "unix:" + os.path.join(tmp, "a.sock"), "--listen", "tcp://127.0.0.1:0",
                    "--listen", "shm:" + shm, "--listen", "unix:" + os.path.join(tmp, "b.sock"))
    try:
        kinds = [u.split(":", 1)[0] for u in server.urls]
        check(kinds == ["unix", "tcp", "shm", "unix"], f"ready line lists the URLs in order: {server.urls}")
        check(server.urls[1].startswith("tcp://127.0.0.1:") and not server.urls[1].endswith(":0"),
              f"tcp port 0 is reported as the real port: {server.urls[1]}")
        for url in server.urls:
            c = Conn(url, timeout=60, relay=relay)
            exercise(c, "--listen " + url)
            c.close()
    finally:
        rc, err = server.stop()
        check(rc == 0, f"server exit {rc}: {err}")
    check(not os.path.exists(os.path.join(tmp, "a.sock")), "unix socket file removed at exit")

    # stdio: through --listen
    rc, frames = stdio_call(cli, frame(0, close, windows) + frame(1, close, []), "--listen", "stdio:")
    check(rc == 0 and len(frames) == 2 and frames[0][0] is None, f"--listen stdio:: exit {rc}, {len(frames)} replies")
    if len(frames) == 2 and frames[0][0] is None:
        pnl, trades = results(frames[0][1], len(combos))
        check(struct.pack("<%dd" % len(pnl), *pnl) == want_pnl, "--listen stdio:: sweep differs from `hmasweep run`")

    # stdio: with its ready line on another descriptor: the reply stream is byte for byte the one without
    requests = frame(0, close, windows) + frame(1, close, [])
    plain = subprocess.run(cli + ["serve", "--listen", "stdio:"], input=requests, capture_output=True, timeout=120)
    fd2 = subprocess.run(cli + ["serve", "--stdio", "--ready-fd", "2"], input=requests, capture_output=True, timeout=120)
    check(fd2.returncode == 0 and fd2.stdout == plain.stdout and fd2.stderr.startswith(b"ready stdio:\n"),
          f"--stdio --ready-fd 2: exit {fd2.returncode}, replies {'equal' if fd2.stdout == plain.stdout else 'differ'}, "
          f"stderr {fd2.stderr[:60]!r}")

    # the old flags are sugar for the same URLs
    server = Server(cli, "--unix", os.path.join(tmp, "c.sock"), "--tcp", "127.0.0.1:0", "--shm", shm + "x")
    try:
        check([u.split(":", 1)[0] for u in server.urls] == ["unix", "tcp", "shm"], f"sugar URLs: {server.urls}")
        check(server.urls[0] == "unix:" + os.path.join(tmp, "c.sock") and server.urls[2] == "shm:" + shm + "x",
              f"--unix PATH is unix:PATH, --shm NAME is shm:NAME: {server.urls}")
    finally:
        rc, err = server.stop()
        check(rc == 0, f"sugar server exit {rc}: {err}")

    # refusals: exit 2, the message names the URL (and, for a scheme, the ones there are)
    many = []
    for k in range(9):
        many += ["--listen", "unix:" + os.path.join(tmp, "m%d.sock" % k)]
    for argv, says in (
        (["--listen", "http://127.0.0.1:80"], ["'http://127.0.0.1:80'", "unknown scheme", "unix:PATH", "tcp://HOST:PORT", "shm:NAME", "stdio:"]),
        (["--listen", "unix"], ["'unix'", "unknown scheme"]),
        (["--listen", "tcp://nohostport"], ["--listen 'tcp://nohostport'", "HOST:PORT"]),
        (["--listen", "tcp://127.0.0.1:70000"], ["--listen 'tcp://127.0.0.1:70000'", "0 to 65535"]),
        (["--listen", "unix:"], ["--listen 'unix:'", "empty path"]),
        # a newline would forge a second ready line (issue 29 item 10); the message shows it escaped, on one line
        (["--listen", "unix:" + os.path.join(tmp, "n\nready tcp://1.2.3.4:5"), "--ready"],
         ["control character", "0x0a", "n\\nready tcp://1.2.3.4:5'"]),
        (["--unix", os.path.join(tmp, "t\tx\x01y")], ["--unix '" + os.path.join(tmp, "t\\tx\\x01y") + "'", "0x09"]),
        (["--listen", "bogus:a\nready tcp://1.2.3.4:5"], ["'bogus:a\\nready tcp://1.2.3.4:5'", "unknown scheme"]),
        (["--listen", "shm:a b"], ["--listen 'shm:a b'", "letters"]),
        (["--listen", "stdio:x"], ["--listen 'stdio:x'", "no address"]),
        (["--tcp", "nohostport"], ["--tcp 'nohostport'", "HOST:PORT"]),
        (["--listen", "stdio:", "--listen", "unix:" + os.path.join(tmp, "d.sock")], ["--listen 'stdio:'", "cannot be combined"]),
        (many, ["at most 8 listeners", "'unix:" + os.path.join(tmp, "m8.sock") + "'"]),
        (["--listen"], ["--listen needs a value"]),
        # stdout is stdio:'s reply stream: no ready line there, nor on fd 0 / 1 (the connection)
        (["--ready"], ["--ready prints on stdout", "carries the replies", "--ready-fd N"]),
        (["--stdio", "--ready"], ["--ready prints on stdout", "carries the replies", "--ready-fd N"]),
        (["--listen", "stdio:", "--ready-fd", "1"], ["--ready-fd 1", "connection itself"]),
        (["--ready-fd", "0"], ["--ready-fd 0", "connection itself"]),
    ):
        p = subprocess.run(cli + ["serve", *argv], capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
        err = p.stderr.decode()
        # one line: a raw newline in a value must not reach stderr (it could forge a line)
        check(p.returncode == 2 and all(s in err for s in says) and p.stdout == b""
              and (err.count("\n") <= 1 or not any("\n" in a for a in argv)),
              f"serve {' '.join(argv)[:80]}: exit {p.returncode}, stdout {p.stdout[:40]!r}, {err!r}")
    # --ready-fd N not open at start (issue 29 item 5): refused, exit 2, before any listener opens (it used to
    # be the first listener's number: the line went into that socket, which was closed, and the server ran on)
    try:
        p = subprocess.run(cli + ["serve", "--unix", os.path.join(tmp, "r.sock"), "--ready-fd", "3"], capture_output=True,
                           timeout=20, stdin=subprocess.DEVNULL, close_fds=True)
        err = p.stderr.decode()
        check(p.returncode == 2 and "--ready-fd 3" in err and "not open" in err and not os.path.exists(os.path.join(tmp, "r.sock")),
              f"serve --ready-fd 3 (not open): exit {p.returncode}, {err!r}")
    except subprocess.TimeoutExpired:
        check(False, "serve --ready-fd 3 (not open): still running after 20 s, not refused")
    # --ready-fd 2: the line on stderr, and stderr stays open for the later log lines
    proc = subprocess.Popen(cli + ["serve", "--unix", os.path.join(tmp, "e.sock"), "--ready-fd", "2", "--verbose"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    first = proc.stderr.readline()
    proc.terminate()
    try:
        rest = proc.stderr.read().decode()
        rc = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, rc = "(killed)", proc.wait()
    check(first.startswith(b"ready unix:") and rc == 0 and "hmasweep serve: stopped" in rest,
          f"--ready-fd 2 --verbose: first line {first!r}, exit {rc}, then {rest[-200:]!r}")
    check(not any(os.path.exists(os.path.join(tmp, "m%d.sock" % k)) for k in range(9)) and
          not os.path.exists(os.path.join(tmp, "d.sock")), "a refused command line leaves no socket file")

sys.exit(check.done("test_listen"))
