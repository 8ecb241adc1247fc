"""One combo's trade log and equity curve: the C library's hs_trade_log (include/hmasweep.h) as numpy or
pandas data."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _core, inputs
from .periods import datetime_index

# The layout of hs_trade (include/hmasweep.h), field for field; align=True gives C's padding.
TRADE_DTYPE = np.dtype(
    [
        ("entry_bar", "<i8"),
        ("exit_bar", "<i8"),
        ("side", "i1"),
        ("entry_price", "<f8"),
        ("exit_price", "<f8"),
        ("pnl", "<f8"),
    ],
    align=True,
)

#: The default round-trip fee (docs/spec.md §4 and §8): a booked trade is ((1 + r)(1 - fee) - 1) * 100
#: percentage points.  trade_log, trades and equity take fee= (None: this one, the library's HS_DEFAULT_FEE).
FEE = _core.DEFAULT_FEE

Windows6 = Union[Sequence[int], npt.NDArray[np.integer[Any]]]


def _as_windows(length: Optional[int] = None, windows: Optional[Windows6] = None) -> npt.NDArray[np.int64]:
    if (length is None) == (windows is None):
        raise ValueError("give length or windows (six ints), exactly one")
    if windows is not None:
        return np.asarray(windows, dtype=np.int64)
    assert length is not None
    return _core.windows(length)


def trade_log(close: npt.ArrayLike, length: Optional[int] = None, *,
              windows: Optional[Windows6] = None, fee: Optional[float] = None) -> np.ndarray:
    """The trade log of one combo as a structured ndarray (TRADE_DTYPE), always numpy.

    Summing `pnl` in order gives sweep()'s PnL bit for bit, and the row count equals its trades.
    """
    if not hasattr(_core, "_trade_log"):
        raise NotImplementedError("this build of the library has no trade log (hs_trade_log)")
    if getattr(_core, "TRADE_RECORD_SIZE", TRADE_DTYPE.itemsize) != TRADE_DTYPE.itemsize:
        raise RuntimeError("hs_trade layout changed: TRADE_DTYPE is out of date")
    w = _as_windows(length, windows)
    inputs.check_numeric(close, "trades")
    inputs.check_fee(fee, "trades", stacklevel=4)
    datetime_index(close)  # a pandas series' timestamps: strictly increasing, else a ValueError naming one
    given, close = close, np.ascontiguousarray(close, dtype=np.float64)  # no copy when it already is one
    # Sized for the usual case in one pass (a trade closes at most once per bar, plus the final close);
    # the library reports the true count, so a second call covers anything beyond.
    cap = (close.shape[0] if close.ndim == 1 else 0) + 1
    out = np.empty(cap, dtype=TRADE_DTYPE)
    try:
        n = _core._trade_log(close, w, out, fee)
        if n > cap:
            out = np.empty(n, dtype=TRADE_DTYPE)
            n = _core._trade_log(close, w, out, fee)
    except ValueError as e:
        raise ValueError(inputs.restate(str(e), given)) from None
    return out[:n].copy() if n < cap // 2 else out[:n]


def _datetime_index(close: Any) -> Any:
    """close's DatetimeIndex when close is a pandas object that has one, else None; ValueError naming the
    first timestamp that is not after the one before it (an unsorted series gives trades exiting before they
    enter)."""
    return datetime_index(close)


def trades(close: npt.ArrayLike, length: Optional[int] = None, *, windows: Optional[Windows6] = None,
           fee: Optional[float] = None) -> Any:
    """The trade log of one combo: entry_bar, exit_bar, side (+1 long, -1 short), entry_price,
    exit_price, pnl (percentage points, docs/spec.md §4), one row per closed trade.

    A pandas DataFrame when pandas is installed, else a numpy structured array (TRADE_DTYPE).  When
    `close` is a pandas Series with a DatetimeIndex, the DataFrame also has entry_time and exit_time
    (the index at entry_bar and exit_bar; the bars stay positional).
    Give the combo as `length` (L >= 2) or as `windows` (six ints, docs/spec.md §2 order); `fee` as for
    sweep() (the trades' pnl summed in order equal sweep(close, ..., fee=fee).pnl bit for bit).
    """
    log = trade_log(close, length, windows=windows, fee=fee)
    try:
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return log
    frame = pd.DataFrame(log)
    index = _datetime_index(close)
    if index is not None:
        frame.insert(2, "entry_time", index[log["entry_bar"]])
        frame.insert(3, "exit_time", index[log["exit_bar"]])
    return frame


def _equity_values(close: np.ndarray, log: np.ndarray, fee: float = FEE) -> npt.NDArray[np.float64]:
    n = close.shape[0]
    booked = np.zeros(n)
    exits = log["exit_bar"]
    # One trade closes per bar, except at the last bar, where a reversal on that bar books one and the
    # end closes the new one (issue 17: booked[exit] = pnl kept only the second, so equity[-1] missed a trade)
    again = np.zeros(len(log), dtype=bool)
    again[1:] = exits[1:] == exits[:-1]
    booked[exits[~again]] = log["pnl"][~again]
    # Sequential (np.cumsum is not pairwise), and adding 0.0 leaves a sum's bits alone: the last bar
    # holds sweep()'s PnL bit for bit.
    equity = np.cumsum(booked)
    for k in np.flatnonzero(again):  # in booking order, after the trade before it
        equity[exits[k]:] += log["pnl"][k]
    held = log["exit_bar"] - log["entry_bar"]  # bars each trade is open before its exit bar
    if held.sum():
        trade = np.repeat(np.arange(len(log)), held)
        bar = np.repeat(log["entry_bar"], held) + (np.arange(trade.shape[0]) - np.repeat(np.cumsum(held) - held, held))
        side = log["side"][trade].astype(np.float64)
        r = side * (close[bar] / log["entry_price"][trade] - 1.0)
        equity[bar] += ((1.0 + r) * (1.0 - fee) - 1.0) * 100.0  # the booking formula of docs/spec.md §8
    return equity


def equity(close: npt.ArrayLike, length: Optional[int] = None, *, windows: Optional[Windows6] = None,
           fee: Optional[float] = None) -> Any:
    """Mark-to-market equity of one combo per bar, in percentage points (docs/python.md, "Equity").

    equity[i] = the PnL booked by trades closed at or before bar i, plus the PnL the open trade (if one
    is open after bar i) would book if it were closed at close[i].  A pandas Series on close's index when
    close is a Series, else a float64 ndarray of len(close).  equity[-1] == sweep(close, [length]).pnl[0].
    """
    log = trade_log(close, length, windows=windows, fee=fee)
    values = _equity_values(np.ascontiguousarray(close, dtype=np.float64), log, FEE if fee is None else float(fee))
    index = getattr(close, "index", None)
    if index is None or not hasattr(close, "iloc"):
        return values
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # close is a pandas object, so pandas is there
    return pd.Series(values, index=index, name="equity")
