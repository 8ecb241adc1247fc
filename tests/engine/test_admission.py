#!/usr/bin/env python3
"""Issue 29 item 3: admission cannot be starved (docs/engine.md "Admission").

1. A burst of 250 clients on one Unix listener with --max-clients 300: every one is served (they queue in
   the backlog while --max-pending is full; before, 16 were served and 234 refused at once).
2. Each listener has its own --max-clients: 8 TCP clients holding a listener's 8 slots leave the Unix
   listener's 8 free.
3. As root (another uid is needed; skipped otherwise, said so):
   a. no token: another user's 64 loopback TCP connections, each sending HELLO, are refused ("no token"),
      and the owner's Unix clients are served 10 of 10 (before: refused 10 of 10 for up to 300 s);
   b. a token server: another user's 20 idle TCP connections hold at most --max-pending-per-peer (4) pending
      slots, the rest refused at once, and a token holder is served 15 of 15 (before: 1 of 15).
   c. no token: another user's connection from a port that is also the local port of 30 of root's TIME_WAIT
      sockets is still refused (the peer is found by its 4-tuple, not its address alone).
Usage: test_admission.py CLI..."""
import os, socket, struct, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire_client import TOKEN, Checks, Conn, Server, raw, write_token  # noqa: E402

check = Checks()
cli = sys.argv[1:]
HELLO = raw(2, "I", 2)  # HELLO, protocol version 2


def hello_ok(url, token=None, timeout=30):
    try:
        c = Conn(url, timeout=timeout)
        if token:
            code, _ = c.call(raw(9, tail=token))
            if code is not None:
                c.close()
                return False
        code, _ = c.call(HELLO)
        c.close()
        return code is None
    except (OSError, ConnectionError):
        return False


def burst(url, n):
    ok = [False] * n

    def one(k):
        ok[k] = hello_ok(url, timeout=60)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return sum(ok)


with tempfile.TemporaryDirectory() as tmp:
    sock = os.path.join(tmp, "a.sock")
    # 1. a burst within --max-clients queues
    server = Server(cli, "--unix", sock, "--max-clients", "300", "--workers", "1")
    try:
        got = burst(server.url("unix"), 250)
        check(got == 250, f"a burst of 250 within --max-clients 300: {got} served (the issue saw 16)")
    finally:
        server.stop()

    # 2. each listener its own --max-clients
    server = Server(cli, "--unix", sock, "--tcp", "127.0.0.1:0", "--max-clients", "8")
    try:
        held = [Conn(server.url("tcp"), timeout=30) for _ in range(8)]
        for c in held:
            c.call(HELLO)  # admitted: each holds one of the tcp listener's 8 slots
        ninth = Conn(server.url("tcp"), timeout=30)
        code, msg = ninth.call(HELLO)
        check(code == 16, f"a 9th tcp client past --max-clients 8 is refused: {code} {msg!r}")
        ninth.close()
        ok = sum(hello_ok(server.url("unix")) for _ in range(8))
        check(ok == 8, f"the unix listener's own 8 slots, beside 8 tcp clients holding theirs: {ok} of 8")
        for c in held:
            c.close()
    finally:
        server.stop()

    # 3. another user
    if os.geteuid() != 0:
        print("test_admission: part 3 skipped (needs root to act as another uid)")
    else:
        def as_other_user(host, port, n, send_hello, hold_s, bind_port=None):
            """A child as uid 65534: n connections to host:port; sends what came back on a pipe, then holds
            them.  Returns (pid, the pipe's read end)."""
            rfd, wfd = os.pipe()
            pid = os.fork()
            if pid:
                os.close(wfd)
                return pid, rfd
            os.close(rfd)
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                conns, replies = [], []
                for _ in range(n):
                    if bind_port is None:
                        s = socket.create_connection((host, port), timeout=10)
                    else:  # from a port that root's TIME_WAIT sockets also have (c. below)
                        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                        s.settimeout(10)
                        s.bind((host, bind_port))
                        s.connect((host, port))
                    if send_hello:
                        s.sendall(HELLO)
                    conns.append(s)
                # Refusals come at once; the deadline only bounds the wait.  Connections that sent HELLO all
                # get a reply, so they may wait 30 s (under TSan in CI, 2026-12-06, the 64th came after 5 s);
                # idle ones that hold a pending slot never reply, so they wait 5 s in all.
                deadline = time.monotonic() + (30 if send_hello else 5)
                for s in conns:
                    s.settimeout(max(0.05, deadline - time.monotonic()))
                    try:
                        replies.append(s.recv(300))
                    except (socket.timeout, ConnectionResetError):
                        replies.append(b"")
                os.write(wfd, b"\0".join(replies))
                os.close(wfd)
                time.sleep(hold_s)
            except BaseException as e:  # noqa: BLE001 - said in the result file's place
                sys.stderr.write("test_admission: the other user's child failed: %r\n" % (e,))
            finally:
                os._exit(0)

        def beside_other_user(server_args, n, send_hello, witness, want_witness, marker, want_refused, what,
                              bind_port=None):
            """Another uid holds n tcp connections to the server (sending HELLO or idle); `witness()` counts
            the owner's successes meanwhile; then what came back to the other user's connections."""
            server = Server(cli, *server_args)
            try:
                host, port = server.url("tcp")[6:].rsplit(":", 1)
                pid, rfd = as_other_user(host, int(port), n, send_hello, 3, bind_port)
                time.sleep(1.0)
                ok = witness(server)
                check(ok == want_witness, f"{what}: the owner's clients served {ok} of {want_witness}")
                replies = os.fdopen(rfd, "rb").read().split(b"\0")
                os.waitpid(pid, 0)
                refused = sum(marker in r for r in replies)
                check(refused == want_refused, f"{what}: {refused} of the other user's connections refused, want {want_refused}")
            finally:
                server.stop()

        # a. no token: refused by uid (the issue saw the owner's unix clients refused 10 of 10)
        beside_other_user(["--unix", sock, "--tcp", "127.0.0.1:0", "--max-clients", "64"], 64, True,
                          lambda s: sum(hello_ok(s.url("unix")) for _ in range(10)), 10, b"no token", 64,
                          "no token, another user's 64 loopback tcp clients")
        # b. a token server: per-peer pending budget (the issue saw a token holder served 1 of 15)
        token = write_token(tmp)
        beside_other_user(["--tcp", "127.0.0.1:0", "--token-file", token, "--admit-timeout-ms", "20000"], 20, False,
                          lambda s: sum(hello_ok(s.url("tcp"), token=TOKEN.encode()) for _ in range(15)), 15,
                          b"--max-pending-per-peer", 16, "a token server, another user's 20 idle tcp connections")

        # c. the other user's port is also the local port of 30 of root's TIME_WAIT sockets (the kernel lists
        # them with uid 0).  Matching the peer by its address alone took it for root's, and a no-token server
        # served it (CI's ASan run, 2026-12-06: 6 of 20 escaped the per-peer budget); by its 4-tuple, refused.
        def root_time_wait_port(n):
            """A loopback port that n TIME_WAIT sockets of this (root) process have as their local port."""
            first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            first.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            listeners = []
            for k in range(n):
                lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                lst.bind(("127.0.0.1", 0))
                lst.listen(1)
                listeners.append(lst)
                c = first if k == 0 else socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if k:
                    c.bind(("127.0.0.1", port))
                c.connect(lst.getsockname())
                a, _ = lst.accept()
                c.close()  # the client closes first, so its end (port) waits in TIME_WAIT
                a.settimeout(5)
                a.recv(1)
                a.close()
            for lst in listeners:
                lst.close()
            return port

        tw_port = root_time_wait_port(30)
        beside_other_user(["--tcp", "127.0.0.1:0", "--max-clients", "64"], 1, True,
                          lambda s: sum(hello_ok(s.url("tcp")) for _ in range(3)), 3, b"no token", 1,
                          "no token, another user's connection from a port with 30 of root's TIME_WAIT sockets",
                          bind_port=tw_port)

# Issue 29 item 2: subnormal prices are bad data to the server (every variant is slow on them, unchecked
# included); SWEEP, LOAD and LIVE_APPEND refuse them with error 1 naming the bar, and the server goes on.
with tempfile.TemporaryDirectory() as tmp:
    server = Server(cli, "--unix", os.path.join(tmp, "s.sock"))
    try:
        from wire_client import frame, load_frame  # noqa: E402
        tiny = [100.0] * 50 + [5e-324] + [100.0] * 49
        c = Conn(server.url("unix"), timeout=30)
        for what, data in (("SWEEP", frame(0, tiny, [[3, 6, 2, 1, 2, 3]])), ("LOAD", load_frame(tiny))):
            code, msg = c.call(data)
            check(code == 1 and "subnormal" in str(msg) and "bar 50" in str(msg), f"{what} of a subnormal price: {code} {msg!r}")
        code, _ = c.call(frame(0, [100.0 + (i % 7) for i in range(100)], [[3, 6, 2, 1, 2, 3]]))
        check(code is None, f"a normal sweep after the refusals: {code}")
        c.close()
    finally:
        server.stop()

sys.exit(check.done("test_admission"))
