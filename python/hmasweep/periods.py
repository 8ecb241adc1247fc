"""Periods for sweep(..., periods=...) (docs/spec.md §9.3) and the timestamps they come from
(docs/python.md, "Periods and equity").

- `check_timestamps`: a close series' DatetimeIndex must be strictly increasing; the first position that
  is not after the one before it is a ValueError naming both positions and timestamps (sweep(), trades()
  and equity() call it: an unsorted series would otherwise give trades that exit before they enter).
- `calendar_ends`: the last bar of each day ("D"), week ("W", weeks ending on Sunday) or month ("M").
- periods per year: an explicit periods_per_year= wins.  Otherwise calendar periods use the conventions
  D = 252 (trading days), W = 52, M = 12; P equal periods or given ends with a DatetimeIndex use
  P / years, years = (last timestamp − first timestamp) / 365.2425 days; without timestamps there is none
  (an annualised figure then needs periods_per_year=).

The C binding (python/src/sweep.c, sweep) calls `_resolve` for anything but a plain ndarray without
periods, so the hot path (an ndarray, no periods) costs what it did."""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from . import _core

#: The periods per year `sweep(..., periods=RULE)` assumes for a calendar rule, unless periods_per_year= is given.
CALENDAR_PERIODS_PER_YEAR = {"D": 252.0, "W": 52.0, "M": 12.0}
_PANDAS_FREQ = {"D": "D", "W": "W", "M": "M"}
_DAYS_PER_YEAR = 365.2425  # the Gregorian year


def datetime_index(close: Any, what: str = "close") -> Any:
    """close's DatetimeIndex when close is a pandas object that has one (checked: strictly increasing; the
    error names `what`), else None."""
    index = getattr(close, "index", None)
    if index is None:
        return None
    try:
        import pandas as pd  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    if not isinstance(index, pd.DatetimeIndex):
        return None
    check_timestamps(index, what)
    return index


def check_timestamps(index: Any, what: str = "close") -> None:
    """ValueError unless `index` (a DatetimeIndex) is strictly increasing, naming the first offending
    position and its timestamp."""
    if len(index) == 0 or (index.is_monotonic_increasing and index.is_unique and not index.hasnans):
        return
    nat = np.flatnonzero(np.asarray(index.isna()))
    ticks = index.asi8
    bad = np.flatnonzero(ticks[1:] <= ticks[:-1]) + 1
    first = min([int(x) for x in nat[:1]] + [int(x) for x in bad[:1]])
    if nat.size and first == nat[0]:
        raise ValueError(f"{what}'s timestamps must be strictly increasing: position {first} is NaT")
    how = "repeats" if ticks[first] == ticks[first - 1] else "is before"
    raise ValueError(f"{what}'s timestamps must be strictly increasing: position {first} ({index[first]}) {how} "
                     f"position {first - 1} ({index[first - 1]}); sort the series (close.sort_index()) and drop "
                     f"repeated timestamps first")


def calendar_ends(index: Any, rule: str) -> npt.NDArray[np.int64]:
    """The last bar of each calendar day ("D"), week ("W") or month ("M") of a strictly increasing
    DatetimeIndex, as bar positions (§9.3's ends: strictly increasing, the last one the last bar)."""
    if rule not in _PANDAS_FREQ:
        raise ValueError(f"periods={rule!r} is not a calendar rule: expected 'D', 'W' or 'M'")
    if len(index) == 0:
        raise ValueError(f"periods={rule!r} needs at least one bar")
    tz_free = index.tz_localize(None) if index.tz is not None else index  # the local calendar, not UTC's
    keys = tz_free.to_period(_PANDAS_FREQ[rule]).asi8
    ends = np.flatnonzero(keys[1:] != keys[:-1])
    return np.append(ends, len(index) - 1).astype(np.int64)


def _periods_per_year(value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"periods_per_year must be a number, got {type(value).__name__}")
    ppy = float(value)
    if not math.isfinite(ppy) or ppy <= 0.0:
        raise ValueError(f"periods_per_year must be a finite number > 0, got {ppy!r}")
    return ppy


def _years(index: Any) -> float:
    return float((index[-1] - index[0]).total_seconds()) / (_DAYS_PER_YEAR * 86400.0)


def _resolve(close: Any, periods: Any, periods_per_year: Any, bars: int
             ) -> Tuple[Optional[npt.NDArray[np.int64]], Any, Optional[float]]:
    """What sweep() runs with: (the period ends or None, the timestamps at the ends or None, the periods
    per year or None).  Checks the timestamps of a pandas series even without periods."""
    index = datetime_index(close)
    ppy = _periods_per_year(periods_per_year)
    if periods is None:
        if ppy is not None:
            raise ValueError(f"periods_per_year={ppy!r} without periods: give periods=P, 'D', 'W', 'M' or the ends")
        return None, None, None
    if isinstance(periods, str):
        if index is None:
            raise ValueError(f"periods={periods!r} needs close as a pandas Series with a DatetimeIndex "
                             f"(got {type(close).__name__}); give periods=P or the ends for bare prices")
        ends = calendar_ends(index, periods)
        return ends, index[ends], ppy if ppy is not None else CALENDAR_PERIODS_PER_YEAR[periods]
    if isinstance(periods, bool):
        raise TypeError("periods must be an int P, 'D', 'W', 'M' or an array of ends, got a bool")
    if isinstance(periods, numbers.Integral):
        ends = _core._period_ends(bars, int(periods))
    else:
        given = np.asarray(periods)
        if given.ndim != 1 or not (np.issubdtype(given.dtype, np.integer) or given.size == 0):
            raise ValueError(f"periods as ends must be a 1-D array of bar positions (ints), got dtype {given.dtype} "
                             f"and {given.ndim} dimension(s)")
        ends = np.ascontiguousarray(given, dtype=np.int64)
        _core._check_period_ends(ends, bars)
    if index is None:
        return ends, None, ppy
    years = _years(index) if len(index) > 1 else 0.0
    if ppy is None and years > 0.0:
        ppy = len(ends) / years
    return ends, index[ends], ppy


def equity_frame(result: Any) -> Any:
    """r.equity as a pandas DataFrame: one row per period, indexed by the period-end timestamps (or the
    period-end bars for prices without a DatetimeIndex), one column per combo (its length, (Lh, L3) pair,
    or combo index)."""
    import pandas as pd  # type: ignore[import-untyped, unused-ignore]

    equity = getattr(result, "equity", None)
    if equity is None:
        raise ValueError("this result has no equity: sweep(..., periods=P, 'D', 'W', 'M' or the ends) computes it")
    labels = getattr(result, "period_index", None)
    index = labels if labels is not None else pd.Index(result.period_ends, name="bar")
    hma, hma3 = getattr(result, "hma_lengths", None), getattr(result, "hma3_lengths", None)
    if hma is None:
        columns = pd.RangeIndex(equity.shape[1], name="combo")
    elif result.lengths is not None:
        columns = pd.Index(result.lengths, name="length")
    else:
        columns = pd.MultiIndex.from_arrays([hma, hma3], names=["hma_length", "hma3_length"])
    return pd.DataFrame(equity, index=index, columns=columns)
