"""What a sweep's result says per combo: its fields, the statistics derived from them (docs/spec.md §8),
and the whole result as one table (`SweepResult.to_frame()`).

The derived statistics are elementwise numpy operations in the order §8 writes them, so they are the
same bits wherever the six fields are (every variant, ISA, thread count and transport gives those).
"""
from __future__ import annotations

from typing import Any

import numpy as np

#: docs/spec.md §8's six fields, as a SweepResult carries them.
FIELDS = ("wins", "gross_profit", "gross_loss", "sum_sq", "max_drawdown", "bars_held")
#: What the front ends derive from the six fields, trades, pnl and the number of bars.
DERIVED = ("win_rate", "profit_factor", "mean_trade", "std_trade", "sharpe", "exposure")
#: Every name statistic() and heatmap() take.
STATISTICS = ("pnl", "trades") + FIELDS + DERIVED


def _field(result: Any, name: str) -> np.ndarray:
    value = getattr(result, name, None)
    if value is None:
        raise ValueError(f"this result has no {name!r}: the statistics come from hmasweep.sweep() "
                         "(or a Client's sweep with stats=True)")
    return np.asarray(value)


def _derived(result: Any, name: str) -> np.ndarray:
    trades = _field(result, "trades").astype(np.float64)
    none = trades == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "win_rate":
            return np.where(none, np.nan, _field(result, "wins") / trades)
        if name == "profit_factor":
            gp, gl = _field(result, "gross_profit"), _field(result, "gross_loss")
            return np.where(none, np.nan, np.where(gl == 0, np.inf, gp / -gl))
        mean = np.where(none, np.nan, _field(result, "pnl") / trades)
        if name == "mean_trade":
            return mean
        if name == "exposure":
            return _field(result, "bars_held") / float(result.bars)
        # (sum_sq - trades·mean²) / (trades − 1): a radicand rounded below 0 (all trades equal) is 0.
        radicand = (_field(result, "sum_sq") - trades * (mean * mean)) / (trades - 1)
        std = np.where(trades < 2, np.nan, np.sqrt(np.maximum(radicand, 0.0)))
        if name == "std_trade":
            return std
        return mean / std  # sharpe, per trade


def statistic(result: Any, name: str) -> np.ndarray:
    """One value per combo of `result` for `name`, any of STATISTICS (docs/python.md "Statistics")."""
    if name in DERIVED:
        return _derived(result, name)
    if name in STATISTICS:
        return _field(result, name)
    raise ValueError(f"unknown statistic {name!r}: expected one of {', '.join(STATISTICS)}")


def to_frame(result: Any) -> Any:
    """The result as a pandas DataFrame, one row per combo (docs/python.md "Statistics" lists the columns)."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    columns: dict[str, Any] = {}
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
    for name in FIELDS + DERIVED:
        if getattr(result, "wins", None) is not None:
            columns[name] = statistic(result, name)
    return pd.DataFrame(columns)
