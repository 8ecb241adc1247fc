#!/usr/bin/env python3
"""One research session on the default series, as a researcher would type it (issue 17, "what it must
show"): sweep a 2-D grid, read the table, look at the heatmap, pick the best combo, read its trade log
and its equity.  Writes reports/research.md, reports/research_heatmap.png and reports/research_equity.png.

usage: python3 study/research.py [--out reports] [--html build/research.html]

The session is the list SESSION below: each step is Python source that this script runs, in order, in
one namespace, and copies into reports/research.md with what it printed, so the document shows exactly
the code that made its numbers and pictures.  Imports hmasweep from build/release/python when it is there
(the build tree), else the installed one.  No time is asserted; the sweep's time is reported with the
machine it ran on."""
import argparse
import contextlib
import io
import os
import pathlib
import platform
import subprocess
import sys
import time
from typing import Any, Dict, List, Tuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
if (ROOT / "build" / "release" / "python" / "hmasweep").is_dir():
    sys.path.insert(0, str(ROOT / "build" / "release" / "python"))

# (title, prose before the code, code).  The code runs with the repository root as the working directory;
# OUT and HTML are the script's --out and --html.
SESSION = [
    ("1. Sweep a 2-D grid",
     "The default series (SPEC §1: seed 42, 150,000 bars) and 40 × 40 (HMA length, HMA3 length) pairs, "
     "HMA length outer (SPEC §8). STAT is the statistic the session ranks by: per-trade Sharpe when the "
     "result carries SPEC §8's statistics, else PnL.",
     """\
import numpy as np
import hmasweep as hs

close = hs.series()                          # seed 42, 150,000 bars
L = hs.grid(6, 200, 40)                      # trunc(linspace(6, 200, 40))
t0 = time.perf_counter()
r = hs.sweep(close, hma=L, hma3=L)           # 1,600 combos, HMA length outer
seconds = time.perf_counter() - t0
STAT = "sharpe" if getattr(r, "wins", None) is not None else "pnl"
print(len(r.pnl), "combos, variant", r.variant, "isa", r.isa, "threads", r.threads,
      "fee", getattr(r, "fee", "0.0009 (this build's results do not carry it)"))
print("sweep: %.3f s; ranking by %s" % (seconds, STAT))
"""),
    ("2. The table",
     "One row per combo (`r.to_frame()`): the lengths, the windows, trades, PnL, and, when the result "
     "carries them, SPEC §8's six statistics and the six derived ones. The ten best by STAT:",
     """\
df = r.to_frame()
cols = [c for c in ["hma_length", "hma3_length", "trades", "pnl", "win_rate", "profit_factor",
                    "max_drawdown", "exposure", "sharpe"] if c in df.columns]
with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
    print(df.sort_values(STAT, ascending=False)[cols].head(10).to_string())
print()
print("columns:", ", ".join(df.columns))
print("combos with pnl > 0:", int((df.pnl > 0).sum()), "of", len(df))
"""),
    ("3. The heatmap",
     "STAT over the grid (rows: HMA length, columns: HMA3 length; the best cell starred):",
     """\
fig = hs.heatmap(r, stat=STAT, path=os.path.join(OUT, "research_heatmap.png"))
"""),
    ("4. The best combo",
     "The best by STAT, with everything the table says about it.",
     """\
best = int(np.nanargmax(hs.statistic(r, STAT)))
row = df.iloc[best]
print("best by", STAT + ": combo", best, "HMA", int(row.hma_length), "HMA3", int(row.hma3_length),
      "windows", r.windows[best].tolist())
with pd.option_context("display.float_format", "{:.6g}".format):
    print(row.drop(["hma_length", "hma3_length", "w0", "w1", "w2", "w3", "w4", "w5"]).to_string())
"""),
    ("5. Its trade log",
     "Every closed trade of that combo (`hmasweep.trades`, the library's own book): its PnL summed in "
     "order is the sweep's PnL bit for bit, and its row count the sweep's trades.",
     """\
log = hs.trades(close, windows=r.windows[best])
with pd.option_context("display.width", 200):
    print(log.head(8).to_string())
print("...", len(log), "trades; long", int((log.side == 1).sum()), "short", int((log.side == -1).sum()))
print("sum in order == sweep pnl:", sum(log.pnl) == r.pnl[best], "; rows == trades:", len(log) == r.trades[best])
print("winners", int((log.pnl > 0).sum()), "losers", int((log.pnl < 0).sum()),
      "; bars held", int((log.exit_bar - log.entry_bar).sum()))
"""),
    ("6. Its equity",
     "Mark-to-market equity per bar (`hmasweep.equity`: the open trade valued at what it would book if "
     "closed there), and the closed-trade curve, whose largest fall from its running peak (the flat "
     "start counted as a peak) is SPEC §8's `max_drawdown`.",
     """\
eq = hs.equity(close, windows=r.windows[best])
closed = np.cumsum(log.pnl.to_numpy())
drawdown = np.max(np.maximum.accumulate(np.maximum(closed, 0.0)) - closed)
print("equity[-1] == sweep pnl:", eq[-1] == r.pnl[best], "; closed-trade max drawdown %.4f pp" % drawdown)
print("mark-to-market: low %.4f pp at bar %d, high %.4f pp at bar %d"
      % (eq.min(), int(eq.argmin()), eq.max(), int(eq.argmax())))
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(9, 3.2), constrained_layout=True)
ax.plot(eq, lw=0.7, label="mark-to-market")
ax.step(log.exit_bar, closed, where="post", lw=0.9, label="closed trades")
ax.axhline(0.0, color="grey", lw=0.6)
ax.set(xlabel="bar", ylabel="equity (pp)",
       title="HMA %d, HMA3 %d: %d trades, pnl %.2f pp" % (row.hma_length, row.hma3_length, len(log), r.pnl[best]))
ax.legend(fontsize=8)
fig.savefig(os.path.join(OUT, "research_equity.png"), dpi=100)
"""),
    ("7. The page",
     "All of it on one self-contained interactive page (plotly.js inside; hover for values, a menu "
     "for the statistic). It is about 9 MB, so it is not committed: the command makes it.",
     """\
page = hs.report(r, HTML, close=close, combo=best, stat=STAT,
                 title="research session: default series, 40 x 40 grid")
print("wrote", HTML, "(%.1f MB)" % (len(page) / 1e6))
"""),
]


def run_session(out: str, html: str) -> Tuple[List[Tuple[str, str, str, str]], Dict[str, Any]]:
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # noqa: F401  (the session's `pd`)

    env: Dict[str, Any] = {"os": os, "time": time, "pd": pd, "OUT": out, "HTML": html}
    steps = []
    for title, prose, code in SESSION:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "<%s>" % title, "exec"), env)
        steps.append((title, prose, code, buf.getvalue()))
        print(title, "done", file=sys.stderr)
    return steps, env


def conditions() -> str:
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "commit %s, %s, %d CPUs online, load average %s, Python %s" % (
        commit, cpu, os.cpu_count() or 0, " ".join("%.1f" % x for x in os.getloadavg()), platform.python_version())


def write_markdown(path: str, steps: List[Tuple[str, str, str, str]], out: str, stat: str) -> None:
    lines = [
        "# A research session on the default series",
        "",
        "Made by `python3 study/research.py` (this file, `research_heatmap.png` and `research_equity.png`;",
        "`--html PATH` names the page of step 7, default `build/research.html`). Each step below is the",
        "code the script ran, in one Python session, followed by what it printed. Run on: " + conditions() + ".",
        "",
    ]
    for title, prose, code, printed in steps:
        lines += ["## " + title, "", prose, "", "```python", code.rstrip(), "```", ""]
        if printed.strip():
            lines += ["```", printed.rstrip(), "```", ""]
        if title.startswith("3."):
            lines += ["![%s over (HMA3 length, HMA length)](%s)" % (stat, os.path.join(
                os.path.relpath(out, os.path.dirname(os.path.abspath(path))), "research_heatmap.png")), ""]
        if title.startswith("6."):
            lines += ["![the best combo's equity](%s)" % os.path.join(
                os.path.relpath(out, os.path.dirname(os.path.abspath(path))), "research_equity.png"), ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "reports"), help="where the .md and the PNGs go (default reports/)")
    ap.add_argument("--html", default=str(ROOT / "build" / "research.html"), help="the page of step 7")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.html)), exist_ok=True)
    os.chdir(ROOT)
    steps, env = run_session(os.path.abspath(args.out), os.path.relpath(args.html, ROOT))
    md = os.path.join(args.out, "research.md")
    write_markdown(md, steps, os.path.abspath(args.out), env["STAT"])
    print("wrote", md, file=sys.stderr)


if __name__ == "__main__":
    main()
