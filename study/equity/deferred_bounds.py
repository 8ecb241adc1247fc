#!/usr/bin/env python3
"""How much exact work would a deferred mark-to-market tracker still do? (issue 27's cost, reports/equity.md)

Written before the design was built (src/variants/mtm_defer.h, which keeps candidates to the epoch's end
and evaluates 0.08% of the stretches exactly).  The tracker it replaced (src/variants/mtm_lanes.h, removed)
accounted every held stretch exactly: a range query and two divisions per trade, ~24% of the sweep.  The
design defers that work: within an epoch (between two new peaks) the drawdown is fl(peak - min e), so
only the stretches that can hold the epoch's lowest e need an exact value.  Per book table of segments (8 lanes of ceil(n/8)
bars, spans of 2,048 bars of a lane), the lowest e known exactly is the lowest pnl after a close in the
table (and the epoch's lowest so far); a stretch whose lower bound is not below that cannot hold the
epoch's minimum.  A stretch whose upper bound exceeds the peak may set a new one and is taken in order.

This counts, for the default series and grid, the stretches that would still need the exact path:
  - `exact`: with each stretch's own extremes as its bounds (the best any bound can do);
  - `CH bars`: with the extremes of the lane's CH-bar chunks that the stretch touches (what the books
    could carry at the cost of a min and a max per chunk, no gather).
It models the tracker in double precision (not the kernel's exact operations), so the counts are an
estimate of the work, not a check of any value.

Usage: python3 study/equity/deferred_bounds.py [CH ...]   (default: 16 64 256; ~10 s each)
"""
import sys

import numpy as np

import hmasweep as hs

SPAN, LANES = 2048, 8


def stretch_bounds(close, trades, keep, chunk, seg):
    """Per trade: e's low and high over its held stretch, from the stretch's own closes (chunk 0) or from
    the lane's chunks of `chunk` bars that the stretch touches."""
    side = trades["side"].astype(float)
    entry = trades["entry_price"]
    pnl_before = np.cumsum(trades["pnl"]) - trades["pnl"]
    lo = np.empty(len(trades))
    hi = np.empty(len(trades))
    for k, (a, b) in enumerate(zip(trades["entry_bar"], trades["exit_bar"])):
        first = a + 1 if b > a else b
        if chunk:
            lane0 = (b // seg) * seg
            first = lane0 + ((first - lane0) // chunk) * chunk
            last = min(lane0 + ((b - lane0) // chunk + 1) * chunk, len(close))
        else:
            last = b + 1
        held = close[first:last]
        u = ((1 + side[k] * (np.array([held.min(), held.max()]) / entry[k] - 1)) * keep - 1) * 100
        lo[k], hi[k] = pnl_before[k] + u.min(), pnl_before[k] + u.max()
    return lo, hi


def count(close, length, chunk):
    """(stretches, taken in order as possible new peaks, deferred candidates) for one combo."""
    t = hs.trade_log(close, length)
    seg = -(-len(close) // LANES)
    keep = float(np.median((t["pnl"] / 100 + 1) / (1 + t["side"] * (t["exit_price"] / t["entry_price"] - 1))))
    true_lo, true_hi = stretch_bounds(close, t, keep, 0, seg)
    lo, hi = (true_lo, true_hi) if chunk == 0 else stretch_bounds(close, t, keep, chunk, seg)
    pnl_after = np.cumsum(t["pnl"])
    table = (t["exit_bar"] // seg) * 10**6 + (t["exit_bar"] % seg) // SPAN
    peak = epoch_min = 0.0
    in_order = candidates = 0
    for key in np.unique(table):
        part = []
        for k in np.nonzero(table == key)[0]:
            if hi[k] > peak:  # may set a new peak: exact, in order; it ends the deferred part
                in_order += 1
                candidates += deferred(part, lo, pnl_after, epoch_min)
                epoch_min = min([epoch_min] + [true_lo[j] for j in part])
                part = []
                if true_hi[k] > peak:
                    peak, epoch_min = true_hi[k], true_lo[k]
                else:
                    epoch_min = min(epoch_min, true_lo[k])
                continue
            part.append(k)
        candidates += deferred(part, lo, pnl_after, epoch_min)
        epoch_min = min([epoch_min] + [true_lo[j] for j in part])
    return len(t), in_order, candidates


def deferred(part, lo, pnl_after, epoch_min):
    """The stretches of a deferred part whose lower bound is below the lowest e known exactly."""
    if not part:
        return 0
    known = min(epoch_min, float(pnl_after[part].min()))
    return int(np.sum(lo[part] < known))


def main():
    chunks = [int(a) for a in sys.argv[1:]] or [16, 64, 256]
    close = hs.series()
    lengths = [int(6 + i * (200 - 6) / 79) for i in range(79)] + [200]  # docs/spec.md §2
    for chunk in [0] + chunks:
        n = in_order = cand = 0
        for length in lengths:
            a, b, c = count(close, length, chunk)
            n, in_order, cand = n + a, in_order + b, cand + c
        what = "exact bounds" if chunk == 0 else f"{chunk}-bar chunks"
        print(f"{what:>16}: {n} stretches, {in_order} taken in order (possible new peaks), {cand} deferred "
              f"candidates ({100 * cand / n:.2f}%): exact work for {100 * (cand + in_order) / n:.2f}%")


if __name__ == "__main__":
    main()
