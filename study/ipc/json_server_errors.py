#!/usr/bin/env python3
"""ctest prof_json_server_errors: hs_json_server's error replies, one per malformed request, each naming
the problem, and the server still answering correctly afterwards.

  json_server_errors.py SERVER CLI

The correct answer comes from elsewhere: `hmasweep run --lengths 10` (the CLI, in process, the reference
port) on the same 3,000-bar series (`hmasweep gen`); its windows go to the server.  Bounded: every socket call has a 10 s timeout.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time



def ask(path, body):
    """One length-prefixed request (bytes or a JSON-able object); the reply as text."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(struct.pack("<I", len(data)) + data)
        head = b""
        while len(head) < 4:
            chunk = s.recv(4 - len(head))
            if not chunk:
                raise SystemExit("the server closed the connection without a reply")
            head += chunk
        (n,) = struct.unpack("<I", head)
        reply = b""
        while len(reply) < n:
            chunk = s.recv(n - len(reply))
            if not chunk:
                raise SystemExit("the server closed the connection mid-reply")
            reply += chunk
    return reply.decode()


def main():
    server, cli = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        series = os.path.join(tmp, "s.f64")
        subprocess.run([cli, "gen", "--bars", "3000", "--output", series], check=True)
        close = list(struct.unpack("<3000d", open(series, "rb").read()))
        ref = json.loads(subprocess.run([cli, "run", "--input", series, "--lengths", "10", "--variant", "unchecked",
                                         "--format", "json"], check=True, capture_output=True, text=True).stdout)["combos"][0]
        WINDOWS = ref["windows"]
        path = os.path.join(tmp, "j.sock")
        proc = subprocess.Popen([server, "--unix", path, "--variant", "unchecked"], stdout=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if os.path.exists(path):
                    break
                time.sleep(0.05)
            cases = [
                (b"{not json", "error"),
                ({"close": close, "params": [WINDOWS]}, "\\\"op\\\" must be"),
                ({"op": "sweep", "close": [], "params": [WINDOWS]}, "\\\"close\\\" must be a non-empty array of numbers"),
                ({"op": "sweep", "close": [1.0, "x"], "params": [WINDOWS]}, "close[1] is not a number"),
                ({"op": "sweep", "close": close, "params": []}, "\\\"params\\\" must be a non-empty array"),
                ({"op": "sweep", "close": close, "params": [[6, 3, 2]]}, "params[0] is not an array of six integers"),
                ({"op": "sweep", "close": close, "params": [[6, 3, 2, 9, 3.5, 3]]}, "params[0][4] is not an integer"),
            ]
            for body, want in cases:
                got = ask(path, body)
                if not got.startswith('{"error"') or want not in got:
                    raise SystemExit(f"request {str(body)[:60]!r}: expected an error containing {want!r}, got {got[:200]!r}")
            got = json.loads(ask(path, {"op": "sweep", "close": close, "params": [WINDOWS]}))
            if got["trades"] != [ref["trades"]] or got["pnl"] != [ref["pnl"]]:
                raise SystemExit(f"after the errors: {got} against hmasweep run's {ref}")
            print(f"ok: {len(cases)} error replies; then trades {ref['trades']}, pnl {ref['pnl']} as hmasweep run")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
