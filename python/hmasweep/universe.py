"""sweep_many: a universe of series in one call (docs/universe.md).

All (series, combo batch) units go through one C call (hs_sweep_many), one parallel region for the whole
universe, with the GIL released; every row equals hmasweep.sweep() of that series alone, bit for bit.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _core, inputs
from .periods import datetime_index

#: One row per (symbol, combo): the long format that pandas, Arrow and SQL all take.
#: The six statistics of docs/spec.md §8 follow pnl (zero on an error row).
ROW_DTYPE = np.dtype([("symbol", object), ("length", np.int64), ("w0", np.int64), ("w1", np.int64),
                      ("w2", np.int64), ("w3", np.int64), ("w4", np.int64), ("w5", np.int64),
                      ("trades", np.int64), ("pnl", np.float64)]
                     + _core.STATS_DTYPE.descr  # the statistics, from the library's one list (HS_STATS_FIELDS)
                     + [("first_bar", np.int64), ("bars", np.int64), ("error", object)])
_STAT_FIELDS: Tuple[str, ...] = tuple(_core.STATS_DTYPE.names or ())


def _progress(progress: Union[bool, Callable[[int, int], object]]) -> Tuple[Optional[Callable[[int, int], object]],
                                                                           Callable[[], object]]:
    """(the callable _sweep_many calls with (done, total), what closes it) for sweep_many's progress."""
    if callable(progress):
        return progress, lambda: None
    if not progress:
        return None, lambda: None
    try:
        from tqdm.auto import tqdm  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        shown: List[int] = []

        def plain(done: int, total: int) -> None:
            sys.stderr.write(f"\rsweep_many: {done}/{total} (series, combo) pairs (pip install tqdm for a bar)")
            sys.stderr.flush()
            shown.append(done)
        return plain, lambda: shown and sys.stderr.write("\n")
    bars: List[Any] = []  # made at the first report, when the total is known (tqdm(total=0) drew a "0pair" line)

    def update(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="pair", desc="sweep_many"))
        bars[0].update(done - bars[0].n)
    return update, lambda: bars and bars[0].close()


def _length(close: Any) -> int:
    shape = getattr(close, "shape", None)
    return int(shape[0]) if shape else len(close)


def _combos(lengths, windows) -> Tuple[np.ndarray, np.ndarray]:
    """(lengths or -1 per combo, (n, 6) windows) from the same arguments sweep() takes."""
    if lengths is not None and windows is not None:
        raise ValueError("give lengths or windows, not both")
    if windows is not None:
        w = np.ascontiguousarray(np.asarray(windows, dtype=np.int64).reshape(-1, 6))
        return np.full(len(w), -1, dtype=np.int64), w
    if lengths is None:
        ls = _core.grid()  # the default grid (HS_DEFAULT_GRID_*)
    else:
        ls = np.atleast_1d(np.asarray(lengths))
        if ls.dtype.kind not in "iu":
            raise ValueError("lengths must be integers")
        ls = ls.astype(np.int64)
    return ls, np.ascontiguousarray(np.array([_core.windows(int(L)) for L in ls], dtype=np.int64).reshape(-1, 6))


def _trim_nan(close: Any) -> Tuple[np.ndarray, int]:
    """A wide frame's column without its leading and trailing NaN, and where it starts."""
    x = np.asarray(close, dtype=np.float64)
    if x.ndim != 1:
        return x, 0
    finite = np.flatnonzero(~np.isnan(x))
    if finite.size == 0:
        return x[:0], 0
    return np.ascontiguousarray(x[finite[0]:finite[-1] + 1]), int(finite[0])


def _universe(series: Any) -> Tuple[List[str], List[Any], List[int], bool]:
    """(symbols, closes, first bars, whether a frame) from a mapping, pairs, or a wide DataFrame."""
    if hasattr(series, "columns") and hasattr(series, "iloc"):  # a pandas DataFrame: columns are symbols
        datetime_index(series, "the frame")  # its timestamps, if any, strictly increasing
        trimmed = [_trim_nan(series.iloc[:, k].to_numpy(dtype=np.float64, na_value=np.nan))
                   for k in range(series.shape[1])]
        return [str(c) for c in series.columns], [c for c, _ in trimmed], [f for _, f in trimmed], True
    items = list(series.items()) if isinstance(series, Mapping) else list(series)
    for sym, close in items:
        datetime_index(close, "symbol %s" % (sym,))
    return [str(sym) for sym, _ in items], [close for _, close in items], [0] * len(items), False


def sweep_many(series: Union[Mapping[str, npt.ArrayLike], Iterable[Tuple[str, npt.ArrayLike]], Any],
               lengths: Union[None, int, Sequence[int], npt.NDArray[np.integer[Any]]] = None, *,
               windows: Optional[npt.ArrayLike] = None, variant: str = "best", isa: Optional[str] = None,
               threads: int = 0, as_frame: Optional[bool] = None,
               progress: Union[bool, Callable[[int, int], object]] = False, fee: Optional[float] = None) -> Any:
    """Sweep every series of a universe over the same combos; return the long-format table.

    series    {symbol: close}, (symbol, close) pairs (each close any 1-D float64 array-like), or a wide
              pandas DataFrame whose columns are the symbols.  Each column of a DataFrame is trimmed of its
              leading and trailing NaN (first_bar and bars say what was swept); a NaN inside it is still
              that symbol's error.
    lengths / windows / variant / isa / threads / fee: as for sweep().
    progress  True: a tqdm bar over the (series, combo) pairs when tqdm is installed, else a plain
              "sweep_many: k/N pairs" line on stderr; or a callable(done, total); every ~50 ms.
    as_frame  True: a pandas DataFrame; False: a numpy structured array (ROW_DTYPE); None: a DataFrame
              when pandas is installed.  With pyarrow, `df.to_parquet(path)` writes Parquet.

    One row per (symbol, combo): symbol, length (-1 when windows were given), w0..w5, trades, pnl, the six
    statistics of docs/spec.md §8 (wins, gross_profit, gross_loss, sum_sq, max_drawdown, bars_held), first_bar (the position of the first price swept: the leading NaN a DataFrame column lost; else 0),
    bars (how many prices were swept), error.
    A series that fails (NaN, non-positive price, too short for a window) does not stop the others: it
    gets one row with its error message (trades -1, pnl NaN).  A bad request (unknown variant or ISA)
    raises ValueError.
    """
    inputs.check_fee(fee, "sweep_many")
    symbols, closes, firsts, is_frame = _universe(series)
    ls, w = _combos(lengths, windows)
    report, finish = _progress(progress)
    try:
        pnl, trades, errors, stats = _core._sweep_many(closes, w, variant, isa, int(threads), report, fee)
    finally:
        finish()
    n_combos = len(w)
    ok = [e is None for e in errors]
    n_rows = sum(n_combos if good else 1 for good in ok)
    rows = np.zeros(n_rows, dtype=ROW_DTYPE)
    at = 0
    bars = [_length(c) for c in closes]
    for s, sym in enumerate(symbols):
        if not ok[s]:
            error = str(errors[s])
            if is_frame and not bars[s]:
                error = "no prices (every value is NaN)"
            elif firsts[s]:  # the library counts from the first price swept; name the column's own row
                error = re.sub(r"^close\[(\d+)\]", lambda m: f"close[{int(m.group(1)) + firsts[s]}]", error)
            # rows is np.zeros: the windows and the statistics of an error row stay 0
            for name, value in (("symbol", sym), ("length", -1), ("trades", -1), ("pnl", np.nan),
                                ("first_bar", firsts[s]), ("bars", bars[s]), ("error", error)):
                rows[name][at] = value
            at += 1
            continue
        block = rows[at:at + n_combos]
        block["symbol"] = sym
        block["length"] = ls
        for k in range(6):
            block[f"w{k}"] = w[:, k]
        block["trades"] = trades[s]
        block["pnl"] = pnl[s]
        for name in _STAT_FIELDS:
            block[name] = stats[s][name]
        block["first_bar"] = firsts[s]
        block["bars"] = bars[s]
        block["error"] = None
        at += n_combos
    if as_frame is False:
        return rows
    try:
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        if as_frame:
            raise
        return rows
    return pd.DataFrame({name: rows[name] for name in ROW_DTYPE.names or ()})
