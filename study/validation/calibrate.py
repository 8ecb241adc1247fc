#!/usr/bin/env python3
"""Calibration of hmasweep's PBO (docs/spec.md §9.5), DSR (§9.6) and walk-forward (§9.7): what they say when
the truth is known, and on real quotes.  Writes the "Calibration" section's table (markdown, to stdout and
to OUT/validation_calibration.json) and the λ histograms (OUT/validation_lambda_*.png).

usage: python3 study/validation/calibrate.py [--out reports] [--seeds 50] [--bars 150000] [--periods 240]
                                             [--groups 16] [--edge-seeds 20] [--quick]

Scenarios (the default grid: 80 lengths 6..200; P equal periods, S groups):
- null, fee 0: random walks (hs.series(seed), seeds 1..SEEDS: the canonical series' recipe, vol 0.0008), no
  cost.  No combo has an edge; every ranking is chance, and PBO should scatter around 0.5.
- null, default fee 0.0009: the same series.  Every trade pays the fee, so the combos rank by turnover.
- iid normal matrix: no series at all, E = cumsum of P x 80 independent standard normals (seed): what PBO
  does when the 80 "combos" are independent (the seed study's random matrices), against the sweep's 80
  strongly correlated lengths.
- planted edge: returns with momentum, x[i] = phi·x[i-1] + sqrt(1 - phi²)·z[i] (z: numpy's standard normal,
  seed), close = 100·exp(cumsum(0.0008·x)); a trend follower profits, more with larger phi.  fee 0.
- GOOG (daily, P = months) and EURUSD (hourly, P = days): backtesting.py's files, fee 0 and default.
The seeds and strengths are fixed here before any run; nothing is tuned to a result.
--quick: 3 seeds of 6,000 bars, P = 48, S = 8 (the smoke test, tests/ctest: validation_calibrate_smoke)."""
import argparse
import csv
import importlib.util
import json
import math
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
if (ROOT / "build" / "release" / "python" / "hmasweep").is_dir() and "HS_PYTHON_DIR" not in os.environ:
    sys.path.insert(0, str(ROOT / "build" / "release" / "python"))
if os.environ.get("HS_PYTHON_DIR"):
    sys.path.insert(0, os.environ["HS_PYTHON_DIR"])

import numpy as np  # noqa: E402

import hmasweep as hs  # noqa: E402

EDGE_PHIS = (0.02, 0.05, 0.1)


def momentum_series(seed, bars, phi, vol=0.0008):
    z = np.random.default_rng(seed).standard_normal(bars)
    x = np.empty(bars)
    prev, scale = 0.0, math.sqrt(1.0 - phi * phi)
    for i, zi in enumerate(z.tolist()):
        prev = phi * prev + scale * zi
        x[i] = prev
    return 100.0 * np.exp(np.cumsum(vol * x))


def real_quotes():
    """GOOG and EURUSD closes with their timestamps, from backtesting.py's CSV files (not ours to commit)."""
    spec = importlib.util.find_spec("backtesting")
    if spec is None:
        return {}
    import pandas as pd

    out = {}
    for name in ("GOOG", "EURUSD"):
        with open(f"{spec.submodule_search_locations[0]}/test/{name}.csv") as f:
            rows = list(csv.DictReader(f))
        key = next(k for k in rows[0] if k not in ("Open", "High", "Low", "Close", "Volume"))
        out[name] = pd.Series([float(r["Close"]) for r in rows], index=pd.DatetimeIndex([r[key] for r in rows]))
    return out


def one_run(close, fee, periods, groups, walk_forward):
    r = hs.sweep(close, fee=fee, periods=periods)
    p = r.equity.shape[0]
    v = hs.validate(r, groups=groups, walk_forward=walk_forward(p))
    return r, v


def summarise(name, runs, keep_lambdas):
    pbo = np.array([v.pbo for _, v in runs])
    loss = np.array([v.prob_oos_loss for _, v in runs])
    dsr = np.array([v.dsr for _, v in runs])
    slope = np.array([v.degradation[0] for _, v in runs])
    wf = np.array([v.wf_sharpe for _, v in runs])
    best = np.array([v.sharpe for _, v in runs])
    chosen_l = np.array([r.lengths[v.chosen] for r, v in runs])
    pnl_pos = np.array([np.mean(r.pnl > 0) for r, _ in runs])
    row = {"scenario": name, "runs": len(runs), "periods": int(runs[0][1].periods), "groups": int(runs[0][1].groups),
           "pbo_mean": float(pbo.mean()), "pbo_sd": float(pbo.std(ddof=1)) if len(runs) > 1 else 0.0,
           "pbo_min": float(pbo.min()), "pbo_max": float(pbo.max()),
           "prob_oos_loss_mean": float(loss.mean()), "dsr_median": float(np.median(dsr)),
           "dsr_above_095": float(np.mean(dsr > 0.95)), "slope_median": float(np.median(slope)),
           "best_sharpe_median": float(np.median(best)), "wf_sharpe_median": float(np.median(wf)),
           "chosen_length_median": float(np.median(chosen_l)), "share_combos_profitable": float(pnl_pos.mean())}
    keep_lambdas[name] = np.concatenate([v.lambdas[np.isfinite(v.lambdas)] for _, v in runs])
    print("  %-28s PBO %.3f ± %.3f [%.3f-%.3f], P(OOS loss) %.3f, DSR median %.3f, chosen L median %g"
          % (name, row["pbo_mean"], row["pbo_sd"], row["pbo_min"], row["pbo_max"], row["prob_oos_loss_mean"],
             row["dsr_median"], row["chosen_length_median"]), file=sys.stderr, flush=True)
    return row


def plot_lambdas(lambdas, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(lambdas)
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 2.7 * rows), squeeze=False)
    for ax, name in zip(axes.ravel(), names):
        lam = lambdas[name]
        ax.hist(lam, bins=np.linspace(-4.5, 4.5, 37), density=True, color="steelblue", edgecolor="white")
        ax.axvline(0.0, color="crimson", linewidth=1.0)
        ax.set_title("%s: PBO %.2f" % (name, float(np.mean(lam <= 0))), fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    fig.supxlabel("λ (logit of the in-sample best's out-of-sample rank; ≤ 0: at or below the median)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


def table(rows):
    head = ("| scenario | runs | P / S | PBO mean ± sd [min-max] | P(OOS loss) | DSR median (share > 0.95) | "
            "degradation slope (median) | chosen L (median) | combos with pnl > 0 |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        lines.append("| %s | %d | %d / %d | %.3f ± %.3f [%.3f-%.3f] | %.3f | %.3f (%.0f%%) | %.3f | %g | %.0f%% |"
                     % (r["scenario"], r["runs"], r["periods"], r["groups"], r["pbo_mean"], r["pbo_sd"], r["pbo_min"],
                        r["pbo_max"], r["prob_oos_loss_mean"], r["dsr_median"], 100 * r["dsr_above_095"],
                        r["slope_median"], r["chosen_length_median"], 100 * r["share_combos_profitable"]))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "reports"))
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--edge-seeds", type=int, default=20)
    ap.add_argument("--bars", type=int, default=150000)
    ap.add_argument("--periods", type=int, default=240)
    ap.add_argument("--groups", type=int, default=16)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.seeds, a.edge_seeds, a.bars, a.periods, a.groups = 3, 2, 6000, 48, 8
    os.makedirs(a.out, exist_ok=True)

    def walk_forward(p):  # train on a quarter of the periods, test on the next eighth, rolling
        return (max(1, p // 4), max(1, p // 8))

    t0 = time.perf_counter()
    rows, lambdas = [], {}
    for fee, label in ((0.0, "null, fee 0"), (None, "null, fee 0.0009")):
        runs = [one_run(hs.series(seed=s, bars=a.bars), fee, a.periods, a.groups, walk_forward)
                for s in range(1, a.seeds + 1)]
        rows.append(summarise(label, runs, lambdas))
    class _Matrix:  # a "result" holding an i.i.d. normal equity matrix: the seed study's random matrices
        def __init__(self, equity):
            self.equity, self.lengths, self.pnl = equity, np.arange(equity.shape[1]), equity[-1]

    matrix_runs = []
    for s in range(1, a.seeds + 1):
        m = _Matrix(np.cumsum(np.random.default_rng(s).standard_normal((a.periods, 80)), axis=0))
        matrix_runs.append((m, hs.validate(m, groups=a.groups, walk_forward=walk_forward(a.periods))))
    rows.append(summarise("iid normal matrix %d x 80" % a.periods, matrix_runs, lambdas))
    for phi in EDGE_PHIS:
        runs = [one_run(momentum_series(s, a.bars, phi), 0.0, a.periods, a.groups, walk_forward)
                for s in range(1, a.edge_seeds + 1)]
        rows.append(summarise("edge phi %g, fee 0" % phi, runs, lambdas))
    quotes = real_quotes()
    for name, rule in (("GOOG", "M"), ("EURUSD", "D")):
        if name not in quotes:
            print("  %s: backtesting is not installed (pip install backtesting): skipped" % name, file=sys.stderr)
            continue
        for fee, label in ((0.0, "fee 0"), (None, "fee 0.0009")):
            rows.append(summarise("%s %s, %s" % (name, {"M": "monthly", "D": "daily"}[rule], label),
                                  [one_run(quotes[name], fee, rule, a.groups, walk_forward)], lambdas))
    seconds = time.perf_counter() - t0
    text = table(rows)
    print(text)
    prefix = "validation_quick" if a.quick else "validation"
    with open(os.path.join(a.out, prefix + "_calibration.json"), "w") as f:
        json.dump({"command": " ".join(["python3", "study/validation/calibrate.py"] + sys.argv[1:]),
                   "seconds": round(seconds, 1), "bars": a.bars, "seeds": a.seeds, "edge_seeds": a.edge_seeds,
                   "edge_phis": EDGE_PHIS, "rows": rows}, f, indent=1)
    plot_lambdas(lambdas, os.path.join(a.out, prefix + "_lambdas.png"))
    print("%.1f s" % seconds, file=sys.stderr)


if __name__ == "__main__":
    main()
