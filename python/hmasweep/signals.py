"""hmasweep.signals: every combo's entries at once, for vectorbt's Portfolio.from_signals (issue 28 item 5;
docs/python.md "Signals for vectorbt").

The entries are the sweep's trades by construction: each combo runs the certified `sliding` kernel (its
d's signs are the reference's) through the books' own loop (src/api/signals.c), so they come at sweep
speed, not at the cost of hmasweep.signal (the reference's d bits, O(n·Σw) per combo).
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core, inputs
from . import _signals  # type: ignore[attr-defined, unused-ignore]


def _combos(lengths: Any, hma: Any, hma3: Any, windows: Any) -> Tuple[npt.NDArray[np.int64], Any]:
    """(windows (m, 6), the columns' labels) from the grid arguments sweep() takes."""
    given = sum(x is not None for x in (lengths, windows)) + (hma is not None or hma3 is not None)
    if given > 1:
        raise ValueError("signals: give lengths, windows, or hma= with hma3=, one of them")
    if hma is not None or hma3 is not None:
        if hma is None or hma3 is None:
            raise ValueError("signals: the 2-D grid needs both hma= and hma3=")
        # the same combos and order as sweep(close, hma=, hma3=): HMA length outer (docs/spec.md §8)
        grid_h, grid_3 = np.meshgrid(np.asarray(hma, dtype=np.int64), np.asarray(hma3, dtype=np.int64), indexing="ij")
        lh, l3 = grid_h.ravel(), grid_3.ravel()
        w = np.concatenate([_core.windows(lh)[:, :3], _core.windows(l3)[:, 3:]], axis=1)
        return np.ascontiguousarray(w, dtype=np.int64), list(zip(lh.tolist(), l3.tolist()))
    if windows is not None:
        w = np.ascontiguousarray(np.asarray(windows, dtype=np.int64).reshape(-1, 6))
        return w, list(range(w.shape[0]))
    ls = _core.grid() if lengths is None else np.atleast_1d(np.asarray(lengths, dtype=np.int64))
    return np.ascontiguousarray(_core.windows(ls).reshape(-1, 6)), ls.tolist()


def signals(close: npt.ArrayLike, lengths: Optional[Any] = None, *, hma: Optional[Any] = None,
            hma3: Optional[Any] = None, windows: Optional[Any] = None, threads: int = 0) -> Tuple[Any, Any]:
    """(entries, short_entries): boolean matrices of shape (bars, combos), True where a combo enters a
    long (short) position at that bar's close: d turns positive (negative) against the last non-zero d
    (docs/spec.md §4), the sweep's trades exactly.  Give them to vectorbt as
    ``Portfolio.from_signals(close, entries, short_entries=short_entries, upon_opposite_entry="Reverse")``.

    The grid is sweep()'s: `lengths` (default grid), `hma=` with `hma3=` (HMA length outer), or `windows`.
    A pandas Series gives two DataFrames on its index, one column per combo (L, or (Lh, L3), or the combo
    index for windows); otherwise numpy arrays.  Memory: one int8 (combos, bars) matrix, then the two
    boolean matrices (bars x combos bytes each): 3 bytes per bar and combo in all, 36 MB for 150,000 x 80.
    """
    inputs.check_numeric(close, "signals")
    a = np.ascontiguousarray(close, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError("signals: close must be a 1-D series, got %d dimensions" % a.ndim)
    w, labels = _combos(lengths, hma, hma3, windows)
    try:
        marks = _signals._entries(a, w, int(threads))  # (combos, bars) int8
    except ValueError as e:
        raise ValueError(inputs.restate(str(e), close)) from None
    entries, short_entries = (marks == 1).T, (marks == -1).T
    index = getattr(close, "index", None)
    if index is not None and hasattr(close, "iloc"):
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]  # close is a pandas object

        columns = (pd.MultiIndex.from_tuples(labels, names=["hma_length", "hma3_length"]) if hma is not None
                   else pd.Index(labels, name="length" if windows is None else "combo"))
        return (pd.DataFrame(entries, index=index, columns=columns),
                pd.DataFrame(short_entries, index=index, columns=columns))
    return entries, short_entries
