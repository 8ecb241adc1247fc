"""What a sweep's result says per combo: its fields, the statistics derived from them (docs/spec.md §8),
and the whole result as one table (`SweepResult.to_frame()`).

The derived statistics come from the library's own hs_stats_derive (through _core._derive), so Python,
the CLI and every other front end derive the same bits from the same six fields.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np

from . import _core

#: docs/spec.md §8's six fields, as a SweepResult carries them (r.stats, and r.wins ... by name): the names
#: of STATS_DTYPE, which _core builds from the library's one list (HS_STATS_FIELDS, include/hmasweep.h).
FIELDS: Tuple[str, ...] = tuple(_core.STATS_DTYPE.names or ())
#: What the front ends derive from the six fields, trades, pnl and the number of bars.
DERIVED = ("win_rate", "profit_factor", "mean_trade", "std_trade", "sharpe", "exposure")
#: Every name statistic() and heatmap() take.
STATISTICS = ("pnl", "trades") + FIELDS + DERIVED


def _stats(result: Any) -> Any:
    stats = getattr(result, "stats", None)
    if stats is None:
        raise ValueError("this result has no statistics: they come from hmasweep.sweep(), or from a Client's "
                         "sweep(..., stats=True) (protocol version 2)")
    return stats


def derived(result: Any) -> Dict[str, np.ndarray]:
    """The six derived statistics of every combo, as docs/spec.md §8 defines them (float64 arrays)."""
    values = _core._derive(result.pnl, result.trades, _stats(result), int(result.bars))
    return dict(zip(DERIVED, values))


def statistic(result: Any, name: str) -> np.ndarray:
    """One value per combo of `result` for `name`, any of STATISTICS (docs/python.md "Statistics")."""
    if name in DERIVED:
        return derived(result)[name]
    if name in FIELDS:
        return np.asarray(_stats(result)[name])
    if name in ("pnl", "trades"):
        return np.asarray(getattr(result, name))
    raise ValueError(f"unknown statistic {name!r}: expected one of {', '.join(STATISTICS)}")


def to_frame(result: Any) -> Any:
    """The result as a pandas DataFrame, one row per combo (docs/python.md "Statistics" lists the columns)."""
    try:
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    except ImportError as e:
        raise ImportError("to_frame() returns a pandas DataFrame and pandas is not installed: "
                          "pip install pandas (or the package's extra: pip install '.[pandas]')") from e

    columns: Dict[str, Any] = {}
    if result.lengths is not None:
        columns["length"] = result.lengths
    for name in ("hma_length", "hma3_length"):  # none for a sweep of raw windows (it has no lengths)
        lengths = getattr(result, name + "s", None)
        if lengths is not None:
            columns[name] = lengths
    for k in range(6):
        columns[f"w{k}"] = result.windows[:, k]
    columns["trades"] = result.trades
    columns["pnl"] = result.pnl
    if getattr(result, "stats", None) is not None:
        for name in FIELDS:
            columns[name] = result.stats[name]
        columns.update(derived(result))
    return pd.DataFrame(columns)
