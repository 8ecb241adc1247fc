#!/usr/bin/env python3
"""`hmasweep trades`: the log in all three formats agrees with itself and with `hmasweep run`.

For a few lengths on a short synthetic series, the JSON log's PnLs summed in order (Python floats are IEEE
doubles, summed left to right) equal `run --format json`'s PnL bit for bit, and the count equals its trades;
the CSV rows equal the JSON rows; --windows gives the same log as the --length it spells out; bad requests
exit 2 with a message.  A CSV with a date column (tests/fixtures/prices_dated.csv) gives every trade the
dates of its entry and exit bars, read from the file here (issue 18).
Usage: test_trades_cli.py CLI [CLI args prefix...]"""
import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile

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

# ---- issue 18: `trades --input prices.csv` prints the CSV's dates ------------------------------------------
dated = pathlib.Path(__file__).resolve().parent / "fixtures" / "prices_dated.csv"  # date,close,volume; 400 days
lines = dated.read_text().splitlines()
dates, closes = [ln.split(",")[0] for ln in lines[1:]], [ln.split(",")[1] for ln in lines[1:]]
rows = list(csv.DictReader(io.StringIO(run("trades", "--input", str(dated), "--length", "6", "--format", "csv").stdout)))
check(len(rows) > 100, f"dated CSV: only {len(rows)} trades at L=6")
check(all(r["entry_date"] == dates[int(r["entry_bar"])] and r["exit_date"] == dates[int(r["exit_bar"])] for r in rows),
      "dated CSV: entry_date/exit_date are not the file's dates at entry_bar/exit_bar")
log = json.loads(run("trades", "--input", str(dated), "--length", "6", "--format", "json").stdout)["log"]
check([(t["entry_date"], t["exit_date"]) for t in log] == [(r["entry_date"], r["exit_date"]) for r in rows],
      "dated CSV: json dates differ from csv dates")
table = run("trades", "--input", str(dated), "--length", "6").stdout.splitlines()
check(table[0].endswith("entry_date  exit_date") and table[1].endswith(f"{rows[0]['entry_date']}  {rows[0]['exit_date']}"),
      f"dated CSV: table {table[:2]}")
with tempfile.TemporaryDirectory() as tmp:  # the same prices without the date column: the same log, no dates
    plain = os.path.join(tmp, "plain.csv")
    pathlib.Path(plain).write_text("close\n" + "\n".join(closes) + "\n")
    undated = list(csv.DictReader(io.StringIO(run("trades", "--input", plain, "--length", "6", "--format", "csv").stdout)))
    check("entry_date" not in undated[0] and [r["pnl"] for r in undated] == [r["pnl"] for r in rows],
          "a CSV without dates: date columns, or another log")
    # issue 28: pandas' to_csv writes the index as an unnamed first column (header ",Close", or ",0" for an
    # unnamed Series): that column is the dates, the other the closes
    for header in (",Close", ",0"):
        pandas_csv = os.path.join(tmp, "pandas.csv")
        pathlib.Path(pandas_csv).write_text(header + "\n" + "".join(f"{d},{c}\n" for d, c in zip(dates, closes)))
        got = list(csv.DictReader(io.StringIO(run("trades", "--input", pandas_csv, "--length", "6", "--format", "csv").stdout)))
        check([(r["entry_date"], r["exit_date"], r["pnl"]) for r in got] == [(r["entry_date"], r["exit_date"], r["pnl"]) for r in rows],
              f"pandas to_csv (header {header!r}): the unnamed first column is not read as the dates")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"test_trades_cli: OK ({len(ref['combos'])} lengths, json/csv/table, --windows, 6 bad requests, "
      f"{len(rows)} dated trades)")
