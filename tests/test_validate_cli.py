#!/usr/bin/env python3
"""`hmasweep run --periods P [--validate ...]` (docs/cli.md "Periods and validation", docs/spec.md §9):
what the CLI prints, checked against sources independent of the C code that computes it.

- The equity E at the period ends, rebuilt here from `hmasweep trades` (the trade log), the series that
  `hmasweep gen` writes and §9.1/§9.3 as written (ends floor(k·bars/P) − 1; closed PnL so far plus what
  closing the open position at that close would book), bit for bit; E's last row is `pnl` bit for bit for
  the default sweep's combos 0-2 (issue 27's closing note).
- §9.4's period statistics and the annualised figures, computed here in plain Python floats (left-to-right
  sums, every product rounded, no FMA) from the printed E: the same bits.
- The walk-forward's stitched curve is the running sum of the chosen combos' period returns (§9.7); its
  Sharpe is §9.4's over those returns; the DSR's combo is the largest period Sharpe.
- The JSON keys and types that issue 27 §3 fixes, csv equal to json, and the table's summary line
  carrying the JSON's numbers.
Usage: test_validate_cli.py CLI [CLI args prefix...]"""
import csv
import io
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

cli = sys.argv[1:]
failures = []


def run(*args):
    p = subprocess.run(cli + list(args), capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"hmasweep {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def check(cond, msg):
    if not cond:
        failures.append(msg)


def same(a, b):
    """Bit-for-bit equality of two doubles (NaN equal to NaN)."""
    return struct.pack("<d", a) == struct.pack("<d", b)


def period_stats(e):
    """§9.4 over R[k] = E[k] − E[k−1], E[−1] = 0, in plain Python floats."""
    P = len(e)
    r = [e[0]] + [e[k] - e[k - 1] for k in range(1, P)]
    s = 0.0
    for x in r:
        s += x
    mean = s / P
    ss = 0.0
    for x in r:
        ss += (x - mean) * (x - mean)
    sd = math.sqrt(ss / (P - 1)) if P > 1 else math.nan
    sharpe = mean / sd if sd == sd and sd != 0 else math.nan
    dn = 0.0
    for x in r:
        m = min(x, 0.0)
        dn += m * m
    root = math.sqrt(dn / P)
    sortino = mean / root if root != 0 else math.nan
    m2 = m3 = m4 = 0.0
    for x in r:
        d = x - mean
        m2 += d * d
        m3 += d * d * d
        m4 += (d * d) * (d * d)
    m2, m3, m4 = m2 / P, m3 / P, m4 / P
    skew = m3 / (m2 * math.sqrt(m2)) if m2 != 0 else math.nan
    kurt = m4 / (m2 * m2) if m2 != 0 else math.nan
    return mean, sharpe, sortino, skew, kurt


def num(x):
    return math.nan if x is None else x


# ---- E from the trade log (§9.1, §9.3) ------------------------------------------------------------------
series = ["--bars", "3000", "--seed", "5"]
P = 7
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "s.f64")
    run("gen", "--output", path, *series)
    raw = open(path, "rb").read()
    close = struct.unpack("<%dd" % (len(raw) // 8), raw)
bars = len(close)
ends = [k * bars // P - 1 for k in range(1, P + 1)]
keep = 1.0 - 0.0009
out = json.loads(run("run", "--lengths", "6,11,30", "--periods", str(P), "--format", "json", *series))
check(out["periods"] == P and out["period_ends"] == ends, f"periods/period_ends: {out.get('period_ends')} vs {ends}")
for combo in out["combos"]:
    L = combo["length"]
    log = json.loads(run("trades", "--length", str(L), "--format", "json", *series))["log"]
    want = []
    for b in ends:
        pnl = 0.0  # the trades booked at bars <= b, in booking order (the log's order)
        for t in log:
            if t["exit_bar"] <= b:
                pnl += t["pnl"]
        e = pnl  # at the last bar every trade is booked: e is pnl (§9.1)
        for t in log:
            if t["entry_bar"] <= b < t["exit_bar"]:  # open at b's close: what closing it there would book
                r = t["side"] * (close[b] / t["entry_price"] - 1.0)
                e = pnl + ((1.0 + r) * keep - 1.0) * 100.0
        want.append(e)
    got = combo["equity"]
    check(len(got) == P and all(same(a, b) for a, b in zip(got, want)), f"L={L}: equity {got} vs the trade log's {want}")
    check(same(got[-1], combo["pnl"]), f"L={L}: E[P] {got[-1]!r} != pnl {combo['pnl']!r}")
    check(isinstance(combo["mtm_max_drawdown"], (int, float)) and combo["mtm_max_drawdown"] >= 0.0,
          f"L={L}: mtm_max_drawdown {combo.get('mtm_max_drawdown')!r}")
    check("period_sharpe" not in combo and "validation" not in out, "--periods alone printed --validate's figures")

# the default sweep with P = 16: row 16 of E is pnl for combos 0-2 (issue 27's closing note)
default = json.loads(run("run", "--periods", "16", "--format", "json"))
for c in range(3):
    g = default["combos"][c]
    check(same(g["equity"][15], g["pnl"]), f"default combo {c}: E[16] {g['equity'][15]!r} != pnl {g['pnl']!r}")
print("default run, P = 16: combo, E[16], pnl, mtm_max_drawdown, max_drawdown (closed trades)")
for c in range(3):
    g = default["combos"][c]
    print(f"  {c} {g['equity'][15]!r} {g['pnl']!r} {g['mtm_max_drawdown']!r} {g['max_drawdown']!r}")

# ---- --validate: keys, types, §9.4, the walk-forward, the DSR's choice ----------------------------------
args = ["--grid", "6:60:12", "--periods", "24", "--validate", "--groups", "6", "--walk-forward", "8:4",
        "--periods-per-year", "12", "--bars", "6000", "--seed", "9"]
v = json.loads(run("run", *args, "--format", "json"))
combos = v["combos"]
N = len(combos)
val = v["validation"]
number = (int, float)  # JSON has one number type: %.17g writes 0.0 as 0
for key, kind in [("groups", int), ("splits", int), ("kept", int), ("pbo", number), ("prob_oos_loss", number),
                  ("degradation", dict), ("dsr", dict), ("walk_forward", dict)]:
    check(isinstance(val.get(key), kind) and not isinstance(val.get(key), bool), f"validation.{key}: {val.get(key)!r} is not {kind}")
check(val["groups"] == 6 and val["splits"] == math.comb(6, 3) and 0 < val["kept"] <= val["splits"],
      f"groups/splits/kept: {val['groups']} {val['splits']} {val['kept']}")
check(0.0 <= val["pbo"] <= 1.0 and 0.0 <= val["prob_oos_loss"] <= 1.0, f"pbo {val['pbo']} prob_oos_loss {val['prob_oos_loss']}")
check(set(val["degradation"]) == {"slope", "intercept"}, f"degradation keys {sorted(val['degradation'])}")
check(set(val["dsr"]) == {"chosen", "sr", "trials", "var_sr", "sr0", "dsr", "psr0"}, f"dsr keys {sorted(val['dsr'])}")
wf = val["walk_forward"]
check({"train", "test", "anchored", "choices", "oos_curve", "oos_sharpe"} <= set(wf), f"walk_forward keys {sorted(wf)}")
check(v["periods_per_year"] == 12, f"periods_per_year {v.get('periods_per_year')!r}")
best, best_sr = None, None
for c, g in enumerate(combos):
    e = g["equity"]
    mean, sharpe, sortino, skew, kurt = period_stats(e)
    for key, want in [("period_sharpe", sharpe), ("sortino", sortino), ("skew", skew), ("kurtosis", kurt)]:
        check(key in g and same(num(g[key]), want), f"combo {c}: {key} {g.get(key)!r} vs {want!r} (§9.4 here)")
    annual = [("annualised_sharpe", sharpe * math.sqrt(12.0)), ("annual_return", mean * 12.0),
              ("calmar", mean * 12.0 / g["mtm_max_drawdown"])]
    for key, want in annual:
        check(key in g and same(num(g[key]), want), f"combo {c}: {key} {g.get(key)!r} vs {want!r}")
    if sharpe == sharpe and (best_sr is None or sharpe > best_sr):
        best, best_sr = c, sharpe
check(val["dsr"]["chosen"] == best and same(val["dsr"]["sr"], best_sr),
      f"dsr chosen {val['dsr']['chosen']} sr {val['dsr']['sr']} vs the largest period Sharpe: combo {best} {best_sr}")
check(val["dsr"]["trials"] == N, f"dsr trials {val['dsr']['trials']} vs {N} combos")
# the walk-forward: rolling 8:4 over 24 periods = 4 folds; the curve is the chosen combos' returns summed
returns = [[g["equity"][k] - (g["equity"][k - 1] if k else 0.0) for g in combos] for k in range(24)]
check(wf["train"] == 8 and wf["test"] == 4 and wf["anchored"] is False and len(wf["choices"]) == 4,
      f"walk_forward {wf['train']}:{wf['test']} anchored {wf['anchored']} choices {wf['choices']}")
curve, total = [], 0.0
for f, c in enumerate(wf["choices"]):
    for k in range(8 + 4 * f, 8 + 4 * f + 4):
        total += returns[k][c]
        curve.append(total)
check(len(wf["oos_curve"]) == 16 and all(same(a, b) for a, b in zip(wf["oos_curve"], curve)),
      f"oos_curve {wf['oos_curve']} vs the chosen combos' returns summed {curve}")
check(same(num(wf["oos_sharpe"]), period_stats(curve)[1]), f"oos_sharpe {wf['oos_sharpe']} vs §9.4 of its curve")
# each fold's choice is the best training Sharpe (§9.5's metric over the training periods)
for f, c in enumerate(wf["choices"]):
    def metric(j):
        xs = [returns[k][j] for k in range(4 * f, 4 * f + 8)]
        m1 = m2 = 0.0
        for x in xs:
            m1 += x
            m2 += x * x
        mean = m1 / 8
        var = (m2 - m1 * mean) / 7
        return mean / math.sqrt(var) if var > 0 else -math.inf
    scores = [metric(j) for j in range(N)]
    check(c == scores.index(max(scores)), f"fold {f}: chose {c}, the best training metric is combo {scores.index(max(scores))}")

# csv carries the same per-combo fields as json
rows = list(csv.DictReader(io.StringIO(run("run", *args, "--format", "csv"))))
fields = ["mtm_max_drawdown", "period_sharpe", "sortino", "skew", "kurtosis", "annualised_sharpe", "annual_return", "calmar"]
for c, (row, g) in enumerate(zip(rows, combos)):
    for key in fields:
        check(key in row and same(float(row[key]), num(g[key])), f"csv combo {c}: {key} {row.get(key)} vs json {g[key]!r}")
    check([float(row[f"equity_{k}"]) for k in range(1, 25)] == g["equity"], f"csv combo {c}: equity_1..24 != json")

# the table's summary carries the JSON's numbers
table = run("run", *args)
m = re.search(r"PBO (\S+) over ([\d,]+) splits .*median in (\d+)% of them", table)
check(m is not None, f"no PBO line in the table:\n{table}")
if m:
    check(m.group(1) == "%.2f" % val["pbo"] and int(m.group(2).replace(",", "")) == val["splits"]
          and m.group(3) == "%.0f" % (100 * val["pbo"]), f"summary '{m.group(0)}' vs json pbo {val['pbo']} splits {val['splits']}")
m = re.search(r"chosen combo (\d+) .*: (\S+) per period \((\S+) annualised\); deflated Sharpe ratio (\S+) over (\d+) trials", table)
check(m is not None, f"no DSR line in the table:\n{table}")
if m:
    d = val["dsr"]
    check(int(m.group(1)) == d["chosen"] and m.group(2) == "%.4f" % d["sr"] and m.group(4) == "%.2f" % num(d["dsr"])
          and m.group(3) == "%.4f" % combos[d["chosen"]]["annualised_sharpe"] and int(m.group(5)) == d["trials"],
          f"summary '{m.group(0)}' vs json dsr {d}")
m = re.search(r"walk-forward \(rolling, train 8, test 4 periods, 4 folds\): out-of-sample Sharpe (\S+) per period; "
              r"the in-sample best's: (\S+) per period", table)
check(m is not None, f"no walk-forward line in the table:\n{table}")
if m:
    check(m.group(1) == "%.4f" % num(wf["oos_sharpe"]) and m.group(2) == "%.4f" % val["dsr"]["sr"],
          f"summary '{m.group(0)}' vs json oos_sharpe {wf['oos_sharpe']} sr {val['dsr']['sr']}")
check("dd_closed" in table and "dd_mtm" in table and "sharpe/period" in table and "sharpe/year" in table,
      "the table's drawdown and Sharpe columns do not say which kind they are")

if failures:
    print(f"test_validate_cli: {len(failures)} failed")
    for f in failures[:40]:
        print("FAIL:", f)
    sys.exit(1)
print("test_validate_cli: OK")
