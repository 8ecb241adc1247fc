#!/usr/bin/env python3
"""Check peer JSONs against a golden JSON with the article's equivalence gate (docs/spec.md §5).

usage: tests/peers_golden_check.py GOLDEN.json PEER.json [PEER.json ...] [--tol 1e-6]

Both files carry {"combos": [{"length": L, "windows": [w0..w5], "trades": int, "pnl": float}, ...]}
(the golden may be tests/golden/default_run.json from the C project, or any peer's own JSON).  For
every combo, in order: same length, same windows, trades exactly equal, |dPnL| <= tol (default 1e-6).
Prints one line per peer (combos checked, failures, max |dPnL|, whether bit-identical) and a closing
line "N passed, N failed" counting peers.  Exit 0 when every peer passes, 1 on any failure, 2 on
unusable input (missing/unreadable file, no "combos").
"""

import argparse
import json
import math
import sys


def die(msg):
    sys.stderr.write("peers_golden_check: %s\n" % msg)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as exc:
        die("cannot read %s: %s" % (path, exc.strerror or exc))
    except ValueError as exc:
        die("%s is not JSON: %s" % (path, exc))
    combos = doc.get("combos") if isinstance(doc, dict) else None
    if not isinstance(combos, list) or not combos:
        die("%s has no non-empty \"combos\" list" % path)
    for k, c in enumerate(combos):
        if not isinstance(c, dict) or not all(key in c for key in ("length", "windows", "trades", "pnl")):
            die("%s combo %d lacks length/windows/trades/pnl" % (path, k))
    return doc, combos


def check_peer(golden, peer, tol):
    """Returns (failures: list of str, max |dPnL|, bit_identical)."""
    fails = []
    max_d = 0.0
    bitwise = True
    if len(peer) != len(golden):
        fails.append("combo count %d != golden %d" % (len(peer), len(golden)))
    for k, (g, p) in enumerate(zip(golden, peer)):
        tag = "combo %d (L=%s)" % (k, g["length"])
        if p["length"] != g["length"]:
            fails.append("%s: length %s != golden %s" % (tag, p["length"], g["length"]))
        if list(p["windows"]) != list(g["windows"]):
            fails.append("%s: windows %s != golden %s" % (tag, p["windows"], g["windows"]))
        if p["trades"] != g["trades"]:
            fails.append("%s: trades %s != golden %s" % (tag, p["trades"], g["trades"]))
        gp, pp = g["pnl"], p["pnl"]
        if not (isinstance(gp, (int, float)) and isinstance(pp, (int, float))):
            fails.append("%s: pnl %r / golden %r is not a number" % (tag, pp, gp))
            bitwise = False
            continue
        d = abs(float(pp) - float(gp))
        if math.isnan(d):
            fails.append("%s: pnl %r vs golden %r" % (tag, pp, gp))
            bitwise = False
            continue
        if float(pp) != float(gp):
            bitwise = False
        max_d = max(max_d, d)
        if d > tol:
            fails.append("%s: |dPnL| = %.3g > %g (pnl %r, golden %r)" % (tag, d, tol, pp, gp))
    return fails, max_d, bitwise


def main(argv=None):
    ap = argparse.ArgumentParser(description="equivalence gate: peers vs golden")
    ap.add_argument("golden")
    ap.add_argument("peers", nargs="+")
    ap.add_argument("--tol", type=float, default=1e-6, help="max |dPnL| per combo (default 1e-6)")
    ap.add_argument("--quiet", action="store_true", help="at most 5 failure lines per peer")
    args = ap.parse_args(argv)

    gdoc, golden = load(args.golden)
    gname = gdoc.get("variant", args.golden)
    print("golden: %s (%s, %d combos, %s trades in all)"
          % (args.golden, gname, len(golden), sum(int(c["trades"]) for c in golden)))
    passed = failed = 0
    for path in args.peers:
        pdoc, peer = load(path)
        name = pdoc.get("variant", path)
        fails, max_d, bitwise = check_peer(golden, peer, args.tol)
        status = "FAIL" if fails else "ok"
        print("%-4s %-16s %-40s combos %d  trades %d  max|dPnL| %.3g%s"
              % (status, name, path, len(peer), sum(int(c["trades"]) for c in peer), max_d,
                 "  (bit-identical)" if bitwise and not fails else ""))
        shown = fails[:5] if args.quiet else fails
        for f in shown:
            print("     %s" % f)
        if len(shown) < len(fails):
            print("     ... %d more" % (len(fails) - len(shown)))
        if fails:
            failed += 1
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
