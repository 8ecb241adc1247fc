"""An oracle for docs/spec.md §9.1-§9.3 (SPEC v3), written from the spec's text and nothing of the library's
code: the mark-to-market equity e[i] of one combo, its mtm_max_drawdown and the equity matrix E at period
ends.  Two independent roads to e[i]:

- `equity_from_signal`: the §4 event loop walked bar by bar over d = HMA3 - HMA (hmasweep.signal, the
  tier-0 d), in plain Python floats (IEEE doubles, every operation rounded as written, no FMA);
- `equity_from_log`: from the combo's trade log (hmasweep.trade_log: entry/exit bars, sides, prices, pnl),
  with the running pnl as a sequential left-to-right sum and the open position marked at each close.

The tests (test_equity_oracle.py) check that the two agree with each other bit for bit and that the
library's E and mtm_max_drawdown (hmasweep.sweep(..., periods=...)) agree with them bit for bit."""
import itertools
import math

import numpy as np


def _booking(pos, price, entry, keep):
    """§8's booking of closing position `pos` (+1/-1) opened at `entry` at `price`, in percentage points:
    r = pos·(price/entry − 1); ((1 + r)·keep − 1)·100, each operation rounded in this order."""
    r = pos * (price / entry - 1.0)
    return ((1.0 + r) * keep - 1.0) * 100.0


def equity_from_signal(close, d, fee):
    """e[0..bars) of §9.1 by §4's loop: returns (e as float64 ndarray, pnl, trades), where pnl and trades
    are §4's totals including the close after the last bar."""
    close = [float(x) for x in np.asarray(close, dtype=np.float64)]
    d = [float(x) for x in np.asarray(d, dtype=np.float64)]
    keep = 1.0 - float(fee)  # computed once (§8)
    pnl, trades, pos, entry, prev = 0.0, 0, 0, 0.0, 0.0
    e = [0.0] * len(close)
    for i, (c, di) in enumerate(zip(close, d)):
        if not math.isnan(di):
            if prev != 0.0 and ((di > 0.0 and prev < 0.0) or (di < 0.0 and prev > 0.0)):  # a cross
                if pos != 0:
                    pnl += _booking(pos, c, entry, keep)
                    trades += 1
                pos, entry = (1 if di > 0.0 else -1), c
            if di != 0.0:
                prev = di
        # after the bar's work: pnl_i plus what closing the open position at close[i] would book
        e[i] = pnl + _booking(pos, c, entry, keep) if pos != 0 else pnl
    if pos != 0:  # §4: the close after the last bar
        pnl += _booking(pos, close[-1], entry, keep)
        trades += 1
    return np.array(e, dtype=np.float64), pnl, trades


def equity_from_log(close, log, fee):
    """e[0..bars) of §9.1 from a trade log (TRADE_DTYPE rows in booking order).  Every trade but the last
    was booked at its exit bar by a cross; the last is the close after the last bar (a position, once open,
    stays open to the end), so pnl_i leaves it out and u at the last bar is its booking."""
    close = np.asarray(close, dtype=np.float64)
    n = close.shape[0]
    keep = 1.0 - float(fee)
    if len(log) == 0:
        return np.zeros(n)
    crossed = log[:-1]
    if len(np.unique(crossed["exit_bar"])) != len(crossed):
        raise AssertionError("two trades booked by crosses at one bar: not a §4 log")
    booked = np.zeros(n)
    booked[crossed["exit_bar"]] = crossed["pnl"]
    running = np.array(list(itertools.accumulate(booked.tolist())), dtype=np.float64)  # left to right from 0.0
    # the position open after bar i's work: trade t from its entry bar up to the bar before its exit
    # (the last trade: up to the last bar)
    last = log["exit_bar"].copy()
    last[:-1] -= 1
    last[-1] = n - 1
    count = last - log["entry_bar"] + 1
    trade = np.repeat(np.arange(len(log)), count)
    bar = log["entry_bar"][trade] + (np.arange(trade.shape[0]) - np.repeat(np.cumsum(count) - count, count))
    pos = log["side"][trade].astype(np.float64)
    r = pos * (close[bar] / log["entry_price"][trade] - 1.0)
    e = running.copy()
    e[bar] = running[bar] + ((1.0 + r) * keep - 1.0) * 100.0
    return e


def period_ends(bars, periods):
    """§9.3's P equal periods: b_k = ⌊k·bars/P⌋ − 1, k = 1..P."""
    return np.array([k * bars // periods - 1 for k in range(1, periods + 1)], dtype=np.int64)


def equity_matrix(curves, ends):
    """E[k][c] = e_c[b_k]: P rows, one column per combo (curves: one e per combo)."""
    return np.column_stack([np.asarray(e)[np.asarray(ends)] for e in curves])


def mtm_max_drawdown(e):
    """§9.2: §8's drawdown rule over the per-bar curve, peak and drawdown from 0.0."""
    peak, worst = 0.0, 0.0
    for x in np.asarray(e, dtype=np.float64).tolist():
        if x > peak:
            peak = x
        t = peak - x
        if t > worst:
            worst = t
    return worst


def mtm_max_drawdown_vectorised(e):
    """mtm_max_drawdown with numpy: the running peak from 0.0 is a running max (exact), each fall peak − e[i]
    the same subtraction; so the same bits as the loop, in a fraction of the time (checked against it)."""
    e = np.asarray(e, dtype=np.float64)
    peak = np.maximum.accumulate(np.concatenate([[0.0], e]))[1:]
    return max(0.0, float(np.max(peak - e))) if e.size else 0.0

