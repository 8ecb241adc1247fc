#!/usr/bin/env python3
"""hmasweep.signals against the other ways a vectorbt user builds the same entries (issue 28 item 5), then
the workflow end to end: signals from hmasweep, the portfolio from vectorbt.  A benchmark: asserts nothing.

usage: PYTHONPATH=build/release/python python3 prof/signals_vs_vectorbt.py [--rounds 7] [--out FILE.md]

Per size (bars x lengths; 2,148 x 195 is GOOG's daily history over range(6, 201)), interleaved rounds of:
  hs.signals        hmasweep.signals(close, lengths): certified kernel + the books' loop, both matrices;
  hs.signal loop    one hmasweep.signal(close, L) per length (the reference's d), entries from its sign
                    changes against the last non-zero d in numpy (the issue's 300 ms route);
  vectorbt + TA-Lib the user's own indicator in vectorbt: IndicatorFactory.from_talib("WMA") over every
                    window the grid needs, HMA and HMA3 composed as docs/spec.md §3 writes them, d = HMA3 -
                    HMA, entries by vectorbt's own crossed_above(0) / crossed_below(0);
and once: how many entries each route agrees on with hs.signals, and vbt.Portfolio.from_signals on
hs.signals' matrices (upon_opposite_entry="Reverse"): its trade count against hmasweep.sweep's.
Median [min-max] seconds over the rounds; the CPU and load are printed.
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

import numpy as np

import hmasweep as hs

SIZES = [(2148, list(range(6, 201))), (150000, None)]  # None: the default grid (80 lengths)


def entries_from_d(d):
    """(entries, short_entries) from a (bars, combos) d matrix: docs/spec.md §4's rule (a strict sign
    change against the last non-zero d; NaN and 0 leave the last non-zero d as it was)."""
    s = np.sign(np.nan_to_num(d, nan=0.0))
    idx = np.where(s != 0, np.arange(len(s))[:, None], -1)
    last = np.maximum.accumulate(idx, axis=0)               # last non-zero bar up to and including i
    prev_idx = np.vstack([np.full((1, s.shape[1]), -1), last[:-1]])
    prev = np.where(prev_idx >= 0, np.take_along_axis(s, np.maximum(prev_idx, 0), 0), 0)
    return (s > 0) & (prev < 0), (s < 0) & (prev > 0)


def hs_signal_loop(close, lengths):
    d = np.column_stack([hs.signal(close, int(L)) for L in lengths])
    return entries_from_d(d)


def vbt_talib(close, lengths):
    import vectorbt as vbt

    WMA = vbt.IndicatorFactory.from_talib("WMA")
    w = hs.windows(lengths)
    need = sorted(set(w[:, [0, 1, 3, 4, 5]].ravel().tolist()))
    out = WMA.run(close, timeperiod=need, per_column=False).real.to_numpy()   # one column per window
    wma = {p: out[:, k] for k, p in enumerate(need)}
    hma_raw = np.column_stack([2.0 * wma[a] - wma[b] for a, b in w[:, :2]])
    hma3_raw = np.column_stack([(3.0 * wma[a] - wma[b]) - wma[c] for a, b, c in w[:, 3:6]])
    hma = WMA.run(hma_raw, timeperiod=list(w[:, 2]), per_column=True).real.to_numpy()
    hma3 = WMA.run(hma3_raw, timeperiod=list(w[:, 5]), per_column=True).real.to_numpy()
    import pandas as pd

    d = pd.DataFrame(hma3 - hma)
    return d.vbt.crossed_above(0).to_numpy(), d.vbt.crossed_below(0).to_numpy()


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def cpu_and_load():
    from thread_choice import cpu_name  # prof/thread_choice.py, beside this script

    return "%s, %d CPUs; load average %s" % (cpu_name(), os.cpu_count(), " ".join("%.1f" % x for x in os.getloadavg()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out")
    args = ap.parse_args()
    import vectorbt as vbt

    lines = ["Run on: " + cpu_and_load() + "; vectorbt %s, hmasweep %s." % (vbt.__version__, hs.__version__), ""]
    lines += ["| bars x lengths | hs.signals | hs.signal loop | vectorbt + TA-Lib WMA | sweep (for scale) | cells that differ from hs.signals: loop, vectorbt | from_signals trades = sweep trades |",
              "|---|---|---|---|---|---|---|"]
    for bars, lengths in SIZES:
        close = hs.series(bars=bars)
        lengths = hs.grid() if lengths is None else lengths
        routes = {"signals": lambda: hs.signals(close, lengths), "loop": lambda: hs_signal_loop(close, lengths),
                  "vbt": lambda: vbt_talib(close, lengths), "sweep": lambda: hs.sweep(close, lengths)}
        for fn in routes.values():  # warm-up: imports, vectorbt's numba compile
            fn()
        times = {k: [] for k in routes}
        outs = {}
        for r in range(args.rounds):
            for k, fn in routes.items():
                t, outs[k] = timed(fn)
                times[k].append(t)
            print("size %d x %d: round %d/%d" % (bars, len(lengths), r + 1, args.rounds), file=sys.stderr, flush=True)
        ref = outs["signals"]
        agree = []
        for k in ("loop", "vbt"):
            differ = sum(int(np.sum(a != b)) for a, b in zip(ref, outs[k]))
            agree.append("%d of %d differ" % (differ, 2 * ref[0].size))
        import pandas as pd

        pf = vbt.Portfolio.from_signals(pd.Series(close), pd.DataFrame(ref[0]), short_entries=pd.DataFrame(ref[1]),
                                        upon_opposite_entry="Reverse", size=1,
                                        size_type="amount", init_cash=np.inf, fees=0, freq="1D")
        vbt_trades = pf.trades.count().to_numpy()
        same_trades = bool(np.array_equal(vbt_trades, outs["sweep"].trades))
        cell = lambda xs: "%.4f s [%.4f-%.4f]" % (statistics.median(xs), min(xs), max(xs))  # noqa: E731
        lines.append("| %d x %d | %s | %s | %s | %s | %s | %s (%d trades) |" % (
            bars, len(lengths), cell(times["signals"]), cell(times["loop"]), cell(times["vbt"]), cell(times["sweep"]),
            ", ".join(agree), same_trades, int(vbt_trades.sum())))
    lines += ["", "Median [min-max] over %d interleaved rounds.  'differ': (bar, combo) cells of the entries and short "
                  "entries matrices where the route's value is not hs.signals'." % args.rounds]
    print("\n".join(lines))
    if args.out:
        pathlib.Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
