"""One combo's trade log: the C library's hs_trade_log (include/hmasweep.h) as a numpy structured array."""

import numpy as np

from . import _core

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


def _as_windows(length=None, windows=None):
    if (length is None) == (windows is None):
        raise ValueError("give length or windows (six ints), exactly one")
    return _core.windows(length) if windows is None else np.asarray(windows, dtype=np.int64)


def trade_log(close, length=None, *, windows=None):
    """The trade log of one combo as a structured ndarray (TRADE_DTYPE), always numpy.

    Summing `pnl` in order gives sweep()'s PnL bit for bit, and the row count equals its trades.
    """
    if not hasattr(_core, "_trade_log"):
        raise NotImplementedError("this build of the library has no trade log (hs_trade_log)")
    if getattr(_core, "TRADE_RECORD_SIZE", TRADE_DTYPE.itemsize) != TRADE_DTYPE.itemsize:
        raise RuntimeError("hs_trade layout changed: TRADE_DTYPE is out of date")
    w = _as_windows(length, windows)
    close = np.ascontiguousarray(close, dtype=np.float64)  # no copy when it already is one
    # Sized for the usual case in one pass (a trade closes at most once per bar, plus the final close);
    # the library reports the true count, so a second call covers anything beyond.
    cap = (close.shape[0] if close.ndim == 1 else 0) + 1
    out = np.empty(cap, dtype=TRADE_DTYPE)
    n = _core._trade_log(close, w, out)
    if n > cap:
        out = np.empty(n, dtype=TRADE_DTYPE)
        n = _core._trade_log(close, w, out)
    return out[:n].copy() if n < cap // 2 else out[:n]


def trades(close, length=None, *, windows=None):
    """The trade log of one combo: entry_bar, exit_bar, side (+1 long, -1 short), entry_price,
    exit_price, pnl (percentage points, docs/spec.md §4), one row per closed trade.

    A pandas DataFrame when pandas is installed, else a numpy structured array (TRADE_DTYPE).
    Give the combo as `length` (L >= 2) or as `windows` (six ints, docs/spec.md §2 order).
    """
    log = trade_log(close, length, windows=windows)
    try:
        import pandas as pd
    except ImportError:
        return log
    return pd.DataFrame(log)
