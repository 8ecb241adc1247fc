#!/usr/bin/env python3
"""The vectorbt peer: the HMA/HMA3 stop-and-reverse sweep as a vectorbt 1.x user would write it.

A peer a user would pick instead of hmasweep (issue 17 §4), written to docs/spec.md §3-§4:
  * d = HMA3 - HMA for every combo by the user's own numba code: the numba peer's @njit hma/hma3
    (peers/numba/hma_numba.py, the study's kernel), one column per combo;
  * signals at the strict sign changes of d against the last non-zero d (a small @njit loop): a long
    entry where d turns positive, a short entry where it turns negative;
  * vbt.Portfolio.from_signals(close, entries, short_entries=..., upon_opposite_entry="Reverse", size=1,
    size_type="amount", init_cash=inf, fees=0) over all combos at once (80 columns by default): each
    reversal closes one trade and opens the next, and the position still open after the last bar is
    vectorbt's open trade, valued at the last close — docs/spec.md §4's final close.
vectorbt's `fees` is a fraction of each order's value, charged at entry and at exit; the spec charges one
round-trip factor on the gross return, ((1 + r)(1 - fee) - 1)·100, which no per-order fee reproduces.  So
vectorbt runs at fee 0 and the spec's PnL is booked from its trade records (entry and exit price, side):
the trades are vectorbt's, the booking formula the spec's.

    python3 peers/vectorbt/hma_vectorbt.py [--input FILE.f64] [--seed 42 --bars 150000] [--lengths a,b,..]
                                           [--repeat N] [--output out.json] [--trades out.npz]

The output is the numba peer's shape, {"variant", "bars", "seconds", "seconds_all", "vectorbt", "numba",
"combos": [{"length", "windows", "trades", "pnl", "wins_fee0"}]}: `seconds` is the median of --repeat timed
runs of the whole sweep (d, signals, from_signals, the trade records), after a warm-up that compiles it.
`wins_fee0` is vectorbt's winning-trade count at fee 0 (records with pnl > 0).  --trades writes every
trade record (col, entry_idx, exit_idx, direction, entry_price, exit_price) for the gate
(python/tests/test_vectorbt_peer.py).
Exit status: 0 ok, 1 bad data, 2 bad usage or vectorbt/numba not importable.
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time

import numpy as np

try:
    import numba
    import vectorbt as vbt
    from numba import njit
except ImportError as exc:  # pragma: no cover - environment problem
    sys.stderr.write("hma_vectorbt.py: vectorbt or numba is not importable (%s); pip install vectorbt\n" % exc)
    sys.exit(2)

_spec = importlib.util.spec_from_file_location(
    "hma_numba", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numba", "hma_numba.py"))
numba_peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(numba_peer)
_hma, _hma3 = numba_peer.hma, numba_peer.hma3  # globals, so that @njit code below may call them

FEE = numba_peer.FEE


@njit
def d_columns(close, windows):
    """d = HMA3 - HMA, one column per combo (the user's numba code)."""
    out = np.empty((close.shape[0], windows.shape[0]))
    for k in range(windows.shape[0]):
        out[:, k] = _hma3(close, windows[k, 3], windows[k, 4], windows[k, 5]) - _hma(close, windows[k, 0], windows[k, 1], windows[k, 2])
    return out


@njit
def sign_flips(d):
    """Long entries where d turns positive, short entries where it turns negative, against the last non-zero d
    (NaN bars skipped): docs/spec.md §4's crosses."""
    n, m = d.shape
    long_entries = np.zeros((n, m), dtype=np.bool_)
    short_entries = np.zeros((n, m), dtype=np.bool_)
    for k in range(m):
        prev = 0.0
        for i in range(n):
            v = d[i, k]
            if np.isnan(v):
                continue
            if prev > 0.0 and v < 0.0:
                short_entries[i, k] = True
            elif prev < 0.0 and v > 0.0:
                long_entries[i, k] = True
            if v != 0.0:
                prev = v
    return long_entries, short_entries


def run(close, windows):
    """The whole sweep: vectorbt's trade records, sorted by (column, entry bar)."""
    d = d_columns(close, windows)
    long_entries, short_entries = sign_flips(d)
    pf = vbt.Portfolio.from_signals(close[:, None], long_entries, short_entries=short_entries, upon_opposite_entry="Reverse",
                                    size=1.0, size_type="amount", init_cash=np.inf, fees=0.0)
    rec = pf.trades.records  # exit trades, closed and the one still open (valued at the last close)
    return rec.sort_values(["col", "entry_idx"], kind="stable")


def book(rec, n_combos, fee=FEE):
    """Per combo: trades, the spec's PnL booked from vectorbt's trades in order, and wins at fee 0."""
    side = np.where(rec["direction"].to_numpy() == 0, 1.0, -1.0)  # vectorbt: 0 long, 1 short
    entry, exit_ = rec["entry_price"].to_numpy(), rec["exit_price"].to_numpy()
    p = ((1.0 + side * (exit_ / entry - 1.0)) * (1.0 - fee) - 1.0) * 100.0  # docs/spec.md §4, per trade
    cols = rec["col"].to_numpy()
    trades = np.bincount(cols, minlength=n_combos)
    wins = np.bincount(cols, weights=(rec["pnl"].to_numpy() > 0), minlength=n_combos).astype(np.int64)
    pnl = np.zeros(n_combos)
    for k in range(len(p)):  # a plain left-to-right sum per combo, in booking order
        pnl[cols[k]] += p[k]
    return trades, pnl, wins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    numba_peer.add_series_arguments(ap)  # the series, the grid and the windows exactly as the numba peer makes them
    ap.add_argument("--trades", help="also write every trade record here (.npz)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        close, lengths, wins, windows = numba_peer.prepare(args)
    except (numba_peer.DataError, numba_peer.UsageError) as exc:
        sys.stderr.write("hma_vectorbt.py: %s\n" % exc)
        return 1 if isinstance(exc, numba_peer.DataError) else 2
    # Compile everything (numba, vectorbt's own @njit code, every path of the trade records) before timing,
    # on a short series with trades in several columns: a 64-bar warm-up left ~25 s of compiling in run 1.
    run(numba_peer.make_close(1, 2000, 0.0008, 100.0), np.array([numba_peer.windows_from_length(L) for L in (6, 8)], dtype=np.int64))
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        rec = run(close, windows)
        times.append(time.perf_counter() - t0)
    trades, pnl, wins_fee0 = book(rec, len(lengths), args.fee)
    doc = {
        "variant": "vectorbt",
        "bars": int(close.shape[0]),
        "seconds": statistics.median(times),
        "seconds_all": times,
        "vectorbt": vbt.__version__,
        "numba": numba.__version__,
        "fee": args.fee,
        "combos": [{"length": int(L), "windows": [int(v) for v in w], "trades": int(trades[k]), "pnl": float(pnl[k]),
                    "wins_fee0": int(wins_fee0[k])} for k, (L, w) in enumerate(zip(lengths, wins))],
    }
    if args.trades:
        np.savez(args.trades, **{c: rec[c].to_numpy() for c in
                                 ("col", "entry_idx", "exit_idx", "direction", "entry_price", "exit_price", "pnl")})
    numba_peer.write_json(doc, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
