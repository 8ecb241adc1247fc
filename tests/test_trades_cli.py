#!/usr/bin/env python3
"""`hmasweep trades`: the log in all three formats agrees with itself and with `hmasweep run`.

For a few lengths on a short synthetic series, the JSON log's PnLs summed in order (Python floats are IEEE
doubles, summed left to right) equal `run --format json`'s PnL bit for bit, and the count equals its trades;
the CSV rows equal the JSON rows; --windows gives the same log as the --length it spells out; bad requests
exit 2 with a message.  Usage: test_trades_cli.py CLI [CLI args prefix...]"""
import csv
import io
import json
import subprocess
import sys

cli = sys.argv[1:]
failures = []


def run(*args, ok=True):
    p = subprocess.run(cli + list(args), capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        raise SystemExit(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def check(cond, msg):
    if not cond:
        failures.append(msg)


series = ["--bars", "4000", "--seed", "11"]
ref = json.loads(run("run", "--lengths", "6,17,40", "--format", "json", *series).stdout)
for combo in ref["combos"]:
    L = combo["length"]
    log = json.loads(run("trades", "--length", str(L), "--format", "json", *series).stdout)
    total = 0.0
    for t in log["log"]:
        total += t["pnl"]
    check(log["trades"] == combo["trades"] == len(log["log"]), f"L={L}: trades {log['trades']} vs run {combo['trades']}")
    check(total.hex() == float(combo["pnl"]).hex(), f"L={L}: summed log PnL {total!r} != run's {combo['pnl']!r}")
    check(log["pnl"] == combo["pnl"], f"L={L}: the log's own total {log['pnl']!r} != run's {combo['pnl']!r}")
    check(log["windows"] == combo["windows"], f"L={L}: windows {log['windows']} vs {combo['windows']}")
    rows = list(csv.DictReader(io.StringIO(run("trades", "--length", str(L), "--format", "csv", *series).stdout)))
    check(len(rows) == len(log["log"]), f"L={L}: csv has {len(rows)} rows")
    for r, t in zip(rows, log["log"]):
        if (int(r["entry_bar"]), int(r["exit_bar"]), int(r["side"]), float(r["pnl"])) != (
                t["entry_bar"], t["exit_bar"], t["side"], t["pnl"]):
            check(False, f"L={L}: csv row {r} != json {t}")
            break
    w = ",".join(str(x) for x in combo["windows"])
    by_windows = json.loads(run("trades", "--windows", w, "--format", "json", *series).stdout)
    check(by_windows["log"] == log["log"], f"L={L}: --windows {w} gives another log than --length")
    table = run("trades", "--length", str(L), *series).stdout.splitlines()
    check(table[-1].startswith(f"{combo['trades']} trades, PnL "), f"L={L}: table footer {table[-1]!r}")

check(ref["combos"][0]["trades"] > 100, "the short series should still trade at L=6")
for bad, word in [(["--length", "1"], "--length"), (["--windows", "1,2,3"], "six"), (["--length", "6", "--windows", "3,6,2,1,2,3"], "one of"),
                  (["--windows", "3,6,2,1,2,5000"], "5000"), (["--length", "6", "--format", "xml"], "xml"), ([], "one of")]:
    p = run("trades", *bad, *series, ok=False)
    check(p.returncode == 2 and word in p.stderr, f"{bad}: exit {p.returncode}, stderr {p.stderr!r} (wanted 2 and '{word}')")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"test_trades_cli: OK ({len(ref['combos'])} lengths, json/csv/table, --windows, 6 bad requests)")
